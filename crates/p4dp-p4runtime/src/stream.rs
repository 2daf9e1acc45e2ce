//! StreamChannel packet I/O: PacketOut and PacketIn through the controller (CPU) port.
//!
//! The device's controller port is a runtime ring port (`p4dp_runtime_ring_port_add`): packets
//! the program sends to it are queued for the control plane, and packets the control plane
//! queues are received by the workers as if they had arrived on it. The metadata travel in the
//! headers the program marks `@controller_header("packet_out")` / `@controller_header
//! ("packet_in")` (P4Info `controller_packet_metadata`): a PacketOut's metadata are packed
//! into the packet_out header, which is put in front of the payload (the program's parser
//! extracts it when the ingress port is the controller port); a frame the program sends to the
//! controller port starts with the packet_in header, whose fields become the PacketIn's
//! metadata and which is removed from the payload. A program without such a header exchanges
//! the bare frames.

use std::sync::{MutexGuard, Weak};
use std::time::{Duration, Instant};

use tonic::Code;

use crate::bytes;
use crate::digest::Digests;
use crate::proto::p4::config::v1::P4Info;
use crate::proto::p4::v1::{
    stream_error, stream_message_response, DigestList, DigestListAck, DigestListAckError, PacketIn, PacketMetadata,
    PacketOut, PacketOutError, StreamError, StreamMessageResponse,
};
use crate::roles::Scope;
use crate::server::{Service, Shared, State};
use crate::switch::Pipeline;
use crate::tables::{err, invalid, OpError};

/// Most frames taken from the controller port per poll (the lock is held meanwhile).
const POLL_BATCH: u32 = 256;

/// A controller header: its fields (metadata id, bitwidth) in order.
#[derive(Clone, Debug, Default)]
pub struct Header {
    pub fields: Vec<(u32, u32)>,
    /// Sum of the bitwidths.
    pub bits: u32,
}

impl Header {
    fn bytes(&self) -> usize {
        self.bits.div_ceil(8) as usize
    }
}

/// The packet I/O description of a pipeline (from its P4Info).
#[derive(Clone, Debug, Default)]
pub struct PacketIo {
    pub packet_in: Option<Header>,
    pub packet_out: Option<Header>,
}

impl PacketIo {
    pub fn from_p4info(info: &P4Info) -> PacketIo {
        let find = |name: &str| {
            info.controller_packet_metadata
                .iter()
                .find(|c| c.preamble.as_ref().is_some_and(|p| p.name == name))
                .map(|c| {
                    let fields: Vec<(u32, u32)> = c.metadata.iter().map(|m| (m.id, m.bitwidth.max(0) as u32)).collect();
                    Header {
                        bits: fields.iter().map(|f| f.1).sum(),
                        fields,
                    }
                })
        };
        PacketIo {
            packet_in: find("packet_in"),
            packet_out: find("packet_out"),
        }
    }
}

/// Writes the `width`-bit value `v` (exactly ceil(width/8) big-endian bytes) at bit `off` of
/// `buf`, most significant bit first.
fn put_bits(buf: &mut [u8], off: u32, width: u32, v: &[u8]) {
    let vbits = v.len() as u32 * 8;
    for i in 0..width {
        let src = vbits - width + i;
        let bit = (v[(src / 8) as usize] >> (7 - src % 8)) & 1;
        let dst = off + i;
        buf[(dst / 8) as usize] |= bit << (7 - dst % 8);
    }
}

/// The `width`-bit value at bit `off` of `buf` as ceil(width/8) big-endian bytes.
fn get_bits(buf: &[u8], off: u32, width: u32) -> Vec<u8> {
    let n = width.div_ceil(8);
    let mut out = vec![0u8; n as usize];
    for i in 0..width {
        let src = off + i;
        let bit = (buf[(src / 8) as usize] >> (7 - src % 8)) & 1;
        let dst = n * 8 - width + i;
        out[(dst / 8) as usize] |= bit << (7 - dst % 8);
    }
    out
}

/// The frame a PacketOut puts on the controller port: the packet_out header built from its
/// metadata, then the payload. Unknown or repeated metadata ids and over-wide values are
/// INVALID_ARGUMENT; metadata left out are zero (padding fields need not be sent).
pub fn packet_out_frame(io: &PacketIo, p: &PacketOut) -> Result<Vec<u8>, OpError> {
    if p.payload.is_empty() {
        return Err(invalid("the PacketOut has an empty payload"));
    }
    let Some(h) = &io.packet_out else {
        if let Some(m) = p.metadata.first() {
            return Err(invalid(format!(
                "metadata id {} given, but the program has no @controller_header(\"packet_out\") header",
                m.metadata_id
            )));
        }
        return Ok(p.payload.clone());
    };
    let mut hdr = vec![0u8; h.bytes()];
    let mut seen = Vec::with_capacity(p.metadata.len());
    for m in &p.metadata {
        if seen.contains(&m.metadata_id) {
            return Err(invalid(format!("PacketOut metadata id {} given twice", m.metadata_id)));
        }
        seen.push(m.metadata_id);
        let mut off = 0;
        let mut found = None;
        for &(id, w) in &h.fields {
            if id == m.metadata_id {
                found = Some((off, w));
                break;
            }
            off += w;
        }
        let Some((off, w)) = found else {
            return Err(invalid(format!("unknown packet_out metadata id {}", m.metadata_id)));
        };
        let v = bytes::fit(&m.value, w).ok_or_else(|| {
            invalid(format!(
                "packet_out metadata id {}: value {:02x?} is empty or does not fit in {w} bits",
                m.metadata_id, m.value
            ))
        })?;
        put_bits(&mut hdr, off, w, &v);
    }
    hdr.extend_from_slice(&p.payload);
    Ok(hdr)
}

/// The PacketIn of a frame the program sent to the controller port: the packet_in header's
/// fields as metadata (canonical bytestrings), the rest as payload. A frame shorter than the
/// header is an error (the program did not emit it).
pub fn packet_in_of(io: &PacketIo, frame: Vec<u8>) -> Result<PacketIn, String> {
    let Some(h) = &io.packet_in else {
        return Ok(PacketIn {
            payload: frame,
            metadata: vec![],
        });
    };
    let n = h.bytes();
    if frame.len() < n {
        return Err(format!(
            "a {}-byte frame sent to the controller port is shorter than the {n}-byte packet_in header",
            frame.len()
        ));
    }
    let mut metadata = Vec::with_capacity(h.fields.len());
    let mut off = 0;
    for &(id, w) in &h.fields {
        metadata.push(PacketMetadata {
            metadata_id: id,
            value: bytes::canonical(&get_bits(&frame, off, w)),
        });
        off += w;
    }
    Ok(PacketIn {
        payload: frame[n..].to_vec(),
        metadata,
    })
}

/// The status of a runtime error when sending a PacketOut.
pub fn send_error(e: p4dp_rt::Error) -> OpError {
    use p4dp_rt::errno::*;
    let code = match e.errno() {
        Some(ENOBUFS) => Code::ResourceExhausted,
        Some(EAGAIN) => Code::Unavailable,
        Some(EINVAL) => Code::InvalidArgument,
        _ => Code::Internal,
    };
    err(code, format!("PacketOut: {e}"))
}

/// The controller port of the forwarding pipeline, if the device has one (it has one only with
/// data ports: a control-plane-only device runs no data plane).
fn cpu_port(st: &State) -> Option<u32> {
    if st.dev.opts.ports.is_empty() {
        None
    } else {
        st.dev.opts.cpu_port
    }
}

/// Handles a PacketOut from stream `stream`: None when it was sent, else the StreamError to
/// return (PERMISSION_DENIED from a non-primary, FAILED_PRECONDITION without a forwarding
/// pipeline or controller port, INVALID_ARGUMENT for bad metadata, RESOURCE_EXHAUSTED when the
/// controller port's queue is full).
pub(crate) fn packet_out(svc: &Service, stream: u64, p: PacketOut) -> Option<StreamError> {
    let res = {
        let st = svc.lock();
        packet_out_locked(&st, stream, &p)
    };
    res.err().map(|e| StreamError {
        canonical_code: e.code as i32,
        message: e.msg,
        details: Some(stream_error::Details::PacketOut(PacketOutError { packet_out: Some(p) })),
        ..Default::default()
    })
}

fn packet_out_locked(st: &State, stream: u64, p: &PacketOut) -> Result<(), OpError> {
    if !st.arb.is_primary_stream(stream) {
        return Err(err(
            Code::PermissionDenied,
            "only the primary controller may send PacketOuts",
        ));
    }
    if st.arb.stream_config(stream).is_some_and(|c| !c.send_packet_out) {
        return Err(err(
            Code::PermissionDenied,
            "this controller's role may not send PacketOuts (its role config has no send_packet_out)",
        ));
    }
    let Some(pipe) = st.dev.active.as_ref() else {
        return Err(err(
            Code::FailedPrecondition,
            "no forwarding pipeline config has been committed",
        ));
    };
    let Some(cpu) = cpu_port(st) else {
        return Err(err(
            Code::FailedPrecondition,
            "this switch has no controller port (it has no data ports, or was started without --cpu-port)",
        ));
    };
    let frame = packet_out_frame(&pipe.packet_io, p)?;
    pipe.rt.ring_port_send(cpu, &frame).map_err(send_error)
}

/// The digest state of a pipeline (its lock; a panic while holding it leaves plain data).
pub(crate) fn digests(p: &Pipeline) -> MutexGuard<'_, Digests> {
    p.digests.lock().unwrap_or_else(|e| e.into_inner())
}

/// Handles a DigestListAck from stream `stream`: None when accepted, else the StreamError
/// (PERMISSION_DENIED from a non-primary, NOT_FOUND for an unknown digest, FAILED_PRECONDITION
/// for one not configured or without a pipeline).
pub(crate) fn digest_ack(svc: &Service, stream: u64, a: DigestListAck) -> Option<StreamError> {
    let res = {
        let st = svc.lock();
        if !st.arb.is_primary_stream(stream) {
            Err(err(
                Code::PermissionDenied,
                "only the primary controller may acknowledge digest lists",
            ))
        } else {
            match st.dev.active.as_ref() {
                Some(p)
                    if st.arb.stream_config(stream).is_some_and(|c| {
                        !crate::roles::Scope::new(c, &p.p4info).receives(&digest_list_of(a.digest_id))
                    }) =>
                {
                    Err(err(
                        Code::PermissionDenied,
                        "the digest is outside this controller's role",
                    ))
                }
                Some(p) => digests(p).ack(&a),
                None => Err(err(
                    Code::FailedPrecondition,
                    "no forwarding pipeline config has been committed",
                )),
            }
        }
    };
    res.err().map(|e| StreamError {
        canonical_code: e.code as i32,
        message: e.msg,
        details: Some(stream_error::Details::DigestListAck(DigestListAckError {
            digest_list_ack: Some(a),
        })),
        ..Default::default()
    })
}

/// A DigestList message naming only `digest_id` (for the role check of an ack).
fn digest_list_of(digest_id: u32) -> StreamMessageResponse {
    StreamMessageResponse {
        update: Some(stream_message_response::Update::Digest(DigestList {
            digest_id,
            ..Default::default()
        })),
    }
}

/// Sends `m` to every primary whose role receives it, without waiting: a controller that does
/// not read its stream loses messages, the data plane and the other controllers never wait for it.
fn deliver(to: &[(crate::arbitration::StreamTx, Option<Scope>)], m: StreamMessageResponse) {
    for (tx, scope) in to {
        if scope.as_ref().is_none_or(|s| s.receives(&m)) {
            let _ = tx.try_send(Ok(m.clone()));
        }
    }
}

/// Delivers what the data plane has for the controllers (PacketIns, DigestLists, idle-timeout
/// notifications); returns how many messages were handled.
fn poll_once(s: &Shared) -> usize {
    let st = s.lock();
    let Some(pipe) = st.dev.active.as_ref() else {
        return 0;
    };
    let to: Vec<_> = st
        .arb
        .primaries(s.device_id)
        .into_iter()
        .map(|(tx, cfg)| (tx, cfg.map(|c| Scope::new(c, &pipe.p4info))))
        .collect();
    let lists = digests(pipe).poll(&pipe.rt, Instant::now());
    let mut n = lists.len();
    for m in lists {
        deliver(&to, m);
    }
    let idle = crate::idle::poll(&pipe.rt);
    n += idle.len();
    for m in idle {
        deliver(&to, m);
    }
    let Some(cpu) = cpu_port(&st) else {
        return n;
    };
    let frames = pipe.rt.ring_port_recv(cpu, POLL_BATCH).unwrap_or_default();
    n += frames.len();
    for f in frames {
        match packet_in_of(&pipe.packet_io, f) {
            Ok(pi) => deliver(
                &to,
                StreamMessageResponse {
                    update: Some(stream_message_response::Update::Packet(pi)),
                },
            ),
            Err(e) => eprintln!("p4runtime: PacketIn dropped: {e}"),
        }
    }
    n
}

/// Starts the thread that delivers PacketIns (and the other data-plane notifications) to the
/// primary controllers. It polls every millisecond while idle and ends when the service is gone.
pub(crate) fn spawn_poller(shared: Weak<Shared>) {
    let r = std::thread::Builder::new()
        .name("p4dp-p4rt-notify".into())
        .spawn(move || loop {
            let Some(s) = shared.upgrade() else { return };
            let n = poll_once(&s);
            drop(s);
            if n == 0 {
                std::thread::sleep(Duration::from_millis(1));
            }
        });
    if let Err(e) = r {
        eprintln!("p4runtime: cannot start the notification thread: {e} (no PacketIns will be delivered)");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn io() -> PacketIo {
        // egress_port: 9 bits, flags: 3 bits, pad: 4 bits
        let h = Header {
            fields: vec![(1, 9), (2, 3), (3, 4)],
            bits: 16,
        };
        PacketIo {
            packet_in: Some(h.clone()),
            packet_out: Some(h),
        }
    }

    fn md(id: u32, v: &[u8]) -> PacketMetadata {
        PacketMetadata {
            metadata_id: id,
            value: v.to_vec(),
        }
    }

    #[test]
    fn packet_out_packs_fields_msb_first() {
        let p = PacketOut {
            payload: vec![0xaa, 0xbb],
            metadata: vec![md(2, &[5]), md(1, &[0x01, 0x03])],
        };
        // 1_0000_0011 | 101 | 0000 -> 1000 0001 1101 0000
        assert_eq!(packet_out_frame(&io(), &p).unwrap(), vec![0x81, 0xd0, 0xaa, 0xbb]);
        let pi = packet_in_of(&io(), vec![0x81, 0xd0, 0xaa, 0xbb]).unwrap();
        assert_eq!(pi.payload, vec![0xaa, 0xbb]);
        assert_eq!(pi.metadata, vec![md(1, &[0x01, 0x03]), md(2, &[5]), md(3, &[0])]);
    }

    #[test]
    fn packet_out_errors() {
        let bad = |m: Vec<PacketMetadata>| {
            packet_out_frame(
                &io(),
                &PacketOut {
                    payload: vec![1],
                    metadata: m,
                },
            )
            .unwrap_err()
            .code
        };
        assert_eq!(bad(vec![md(9, &[1])]), Code::InvalidArgument);
        assert_eq!(bad(vec![md(1, &[2, 0])]), Code::InvalidArgument); // 10 bits
        assert_eq!(bad(vec![md(1, &[1]), md(1, &[1])]), Code::InvalidArgument);
        assert_eq!(bad(vec![md(2, &[])]), Code::InvalidArgument);
        let empty = PacketOut::default();
        assert_eq!(packet_out_frame(&io(), &empty).unwrap_err().code, Code::InvalidArgument);
        assert!(packet_in_of(&io(), vec![1]).is_err());
        let none = PacketIo::default();
        let p = PacketOut {
            payload: vec![7],
            metadata: vec![md(1, &[1])],
        };
        assert_eq!(packet_out_frame(&none, &p).unwrap_err().code, Code::InvalidArgument);
    }
}
