//! When a request's bytes leave the client: the benchmark client's connection (TCP, or a Unix
//! socket with `--p4runtime-unix`), wrapped so that the write system call that carries an armed
//! request's bytes is stamped with the TSC just before it is made.
//!
//! Stubbe et al. ("Keeping up to Date with P4Runtime") start d_all when the Write reaches the
//! switch's control plane: their timestamper taps the wire in front of the switch, and their
//! control-plane load generator (MoonGen) has no gRPC stack of its own. The stamp here is the
//! same point on a loopback connection: the bytes handed to the kernel, so the client's
//! protobuf encoding, its gRPC and HTTP/2 work and its runtime's scheduling come before it, and
//! the kernel's path (TCP's both ends of the loopback, or the Unix socket's) after it.

use std::io::{self, IoSlice};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpStream, UnixStream};

/// Bytes a request's tail is found by: long enough to be unique among a run's Writes (each
/// carries its own value near its end), short enough to search every write cheaply.
const NEEDLE_MAX: usize = 24;

/// The stamp of one connection: arm it with a request's bytes before the request is sent, read
/// it once the response is back.
#[derive(Default)]
pub struct WireStamp {
    armed: AtomicBool,
    needle: Mutex<Vec<u8>>,
    /// TSC before the write that carried the needle; 0 while none did.
    at: AtomicU64,
}

impl WireStamp {
    /// Watches for `request` (the message as it goes into the gRPC frame; its last bytes are
    /// looked for) in the connection's writes; forgets the previous stamp.
    pub fn arm(&self, request: &[u8]) {
        let tail = &request[request.len().saturating_sub(NEEDLE_MAX)..];
        let mut n = self.needle.lock().unwrap_or_else(|e| e.into_inner());
        n.clear();
        n.extend_from_slice(tail);
        self.at.store(0, Ordering::Relaxed);
        self.armed.store(!tail.is_empty(), Ordering::Release);
    }

    /// The TSC just before the write system call that carried the armed request's bytes: the
    /// first one the kernel took bytes from (a write refused for a full socket buffer is stamped
    /// again when it is retried; one the kernel took only part of leaves the stamp where it is,
    /// a little early); None when no write did yet.
    pub fn taken(&self) -> Option<u64> {
        Some(self.at.load(Ordering::Acquire)).filter(|&t| t != 0)
    }

    /// Called with a write's buffers before the write: stamps it if it carries the needle.
    /// Returns whether it did, so that a write the kernel completes disarms the stamp.
    fn check(&self, bufs: &[&[u8]]) -> bool {
        if !self.armed.load(Ordering::Acquire) {
            return false;
        }
        let needle = self.needle.lock().unwrap_or_else(|e| e.into_inner());
        let found = match bufs {
            [one] => memchr::memmem::find(one, &needle).is_some(),
            // h2 writes a frame's header and its payload from separate buffers: the needle is
            // looked for across their boundaries too
            _ => memchr::memmem::find(&bufs.concat(), &needle).is_some(),
        };
        if found {
            if let Some(t) = p4dp_rt::clock::tsc_now() {
                self.at.store(t, Ordering::Release);
            }
        }
        found
    }

    fn done(&self) {
        self.armed.store(false, Ordering::Release);
    }
}

/// The client's connection to the switch.
pub enum Conn {
    Tcp(TcpStream),
    Unix(UnixStream),
}

impl AsyncRead for Conn {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Conn::Tcp(s) => Pin::new(s).poll_read(cx, buf),
            Conn::Unix(s) => Pin::new(s).poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for Conn {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            Conn::Tcp(s) => Pin::new(s).poll_write(cx, buf),
            Conn::Unix(s) => Pin::new(s).poll_write(cx, buf),
        }
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            Conn::Tcp(s) => Pin::new(s).poll_write_vectored(cx, bufs),
            Conn::Unix(s) => Pin::new(s).poll_write_vectored(cx, bufs),
        }
    }

    fn is_write_vectored(&self) -> bool {
        match self {
            Conn::Tcp(s) => s.is_write_vectored(),
            Conn::Unix(s) => s.is_write_vectored(),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Conn::Tcp(s) => Pin::new(s).poll_flush(cx),
            Conn::Unix(s) => Pin::new(s).poll_flush(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Conn::Tcp(s) => Pin::new(s).poll_shutdown(cx),
            Conn::Unix(s) => Pin::new(s).poll_shutdown(cx),
        }
    }
}

/// A client connection whose writes [`WireStamp`] watches.
pub struct Stamped {
    io: TokioIo<Conn>,
    stamp: Arc<WireStamp>,
}

impl hyper::rt::Read for Stamped {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: hyper::rt::ReadBufCursor<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_read(cx, buf)
    }
}

impl Stamped {
    /// A write of `bufs` by `write`, stamped when it carries the armed request.
    fn stamped<T>(
        &mut self,
        bufs: &[&[u8]],
        write: impl FnOnce(Pin<&mut TokioIo<Conn>>) -> Poll<io::Result<T>>,
    ) -> Poll<io::Result<T>> {
        let carries = self.stamp.check(bufs);
        let r = write(Pin::new(&mut self.io));
        if carries && matches!(r, Poll::Ready(Ok(_))) {
            self.stamp.done();
        }
        r
    }
}

impl hyper::rt::Write for Stamped {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        self.stamped(&[buf], |io| io.poll_write(cx, buf))
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        if !self.stamp.armed.load(Ordering::Acquire) {
            return Pin::new(&mut self.io).poll_write_vectored(cx, bufs);
        }
        let slices: Vec<&[u8]> = bufs.iter().map(|b| &**b).collect();
        self.stamped(&slices, |io| io.poll_write_vectored(cx, bufs))
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_shutdown(cx)
    }
}

/// Where the switch serves P4Runtime.
#[derive(Clone, Debug)]
pub enum Target {
    Tcp(std::net::SocketAddr),
    Unix(std::path::PathBuf),
}

/// Connects to the switch (over TCP with no Nagle delay, as tonic's own connector, or over its
/// Unix socket) and watches the connection's writes with `stamp`: the connector of
/// `tonic::transport::Endpoint::connect_with_connector`.
#[derive(Clone)]
pub struct Connector {
    pub target: Target,
    pub stamp: Arc<WireStamp>,
}

impl tonic::codegen::Service<tonic::codegen::http::Uri> for Connector {
    type Response = Stamped;
    type Error = io::Error;
    type Future = Pin<Box<dyn std::future::Future<Output = io::Result<Stamped>> + Send>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, _: tonic::codegen::http::Uri) -> Self::Future {
        let (target, stamp) = (self.target.clone(), self.stamp.clone());
        Box::pin(async move {
            let conn = match target {
                Target::Tcp(addr) => {
                    let s = TcpStream::connect(addr).await?;
                    s.set_nodelay(true)?;
                    Conn::Tcp(s)
                }
                Target::Unix(path) => Conn::Unix(UnixStream::connect(path).await?),
            };
            Ok(Stamped {
                io: TokioIo::new(conn),
                stamp,
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_write_that_carries_the_request_is_stamped() {
        let s = WireStamp::default();
        let req: Vec<u8> = (0..100u8).collect();
        // not armed: nothing is stamped
        assert!(!s.check(&[&req]));
        s.arm(&req);
        assert!(!s.check(&[b"a WINDOW_UPDATE"]));
        assert_eq!(s.taken(), None);
        // the request's tail split across a frame header's buffer and its payload's
        let framed = [&[0u8, 0, 100, 0, 1][..], &req[..50], &req[50..]];
        assert!(s.check(&framed));
        let first = s.taken();
        assert!(first.is_some() || p4dp_rt::clock::tsc_now().is_none());
        s.done();
        // disarmed: a later write with the same bytes does not move the stamp
        assert!(!s.check(&[&req]));
        assert_eq!(s.taken(), first);
        // arming again forgets the old stamp
        s.arm(&req[..10]);
        assert_eq!(s.taken(), None);
        assert!(!s.check(&[&req[20..]]));
        assert!(s.check(&[&req]));
    }
}
