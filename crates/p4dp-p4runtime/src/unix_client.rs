//! A gRPC channel to a switch serving on a Unix socket (`--p4runtime unix:PATH`), for p4dp's own
//! clients (`p4dp port`, the tests). tonic connects to TCP addresses only; its connector hook
//! takes any stream.

use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::task::{Context, Poll};

use tonic::transport::{Channel, Endpoint};

/// Connects a channel to the Unix socket at its path (the channel's URI is not used for it).
#[derive(Clone)]
pub struct UnixConnector(pub PathBuf);

impl tonic::codegen::Service<tonic::codegen::http::Uri> for UnixConnector {
    type Response = hyper_util::rt::TokioIo<tokio::net::UnixStream>;
    type Error = std::io::Error;
    type Future = Pin<Box<dyn std::future::Future<Output = std::io::Result<Self::Response>> + Send>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, _: tonic::codegen::http::Uri) -> Self::Future {
        let path = self.0.clone();
        Box::pin(async move {
            Ok(hyper_util::rt::TokioIo::new(
                tokio::net::UnixStream::connect(path).await?,
            ))
        })
    }
}

/// A channel to the switch's Unix socket at `path`. Its HTTP/2 authority is `localhost`, which
/// the server's HTTP/2 accepts (a socket path is refused: docs/p4runtime.md "Unix socket").
pub async fn connect(path: &Path) -> Result<Channel, tonic::transport::Error> {
    Endpoint::from_static("http://localhost")
        .connect_with_connector(UnixConnector(path.to_path_buf()))
        .await
}
