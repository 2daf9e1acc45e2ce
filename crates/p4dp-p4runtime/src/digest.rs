//! Digests: DigestEntry configuration (Write/Read) and the DigestLists sent to the primaries.
//!
//! The data plane queues each digest message per worker (`p4dp_runtime_digest_poll`, the
//! program's native layout); the notification thread takes them, converts them to `P4Data`
//! with the digest's type from the P4Info, and gathers them into lists:
//! - only digests configured by a DigestEntry produce lists (messages of others are discarded);
//! - a list is sent once its oldest message has waited `max_timeout_ns` (0: at the next poll,
//!   about a millisecond) or it holds `max_list_size` messages (0: no size limit);
//! - with `ack_timeout_ns` > 0 a message whose data is already in a pending list, or in a list
//!   sent less than `ack_timeout_ns` ago and not acknowledged, is dropped (de-duplication); a
//!   DigestListAck ends that suppression for the list's data at once. With 0 there is none.

use std::collections::HashMap;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use tonic::Code;

use crate::proto::p4::config::v1::{
    p4_bitstring_like_type_spec, p4_data_type_spec, P4BitstringLikeTypeSpec, P4DataTypeSpec, P4Info,
};
use crate::proto::p4::v1::{
    digest_entry, p4_data, stream_message_response, DigestEntry, DigestList, DigestListAck, P4Data, P4Header,
    P4StructLike, StreamMessageResponse,
};
use crate::tables::{err, invalid, Op, OpError};

/// Most messages taken from one digest's queues per poll.
const POLL_BATCH: u32 = 4096;

/// One scalar of a digest's data, in the program's native layout.
#[derive(Clone, Debug)]
struct Leaf {
    width: u32,
    is_bool: bool,
    off: usize,
    size: usize,
}

#[derive(Clone, Debug)]
enum Shape {
    Scalar,
    Struct,
    Header,
}

/// A configured digest's lists.
struct Active {
    cfg: digest_entry::Config,
    pending: Vec<(Vec<u8>, P4Data)>,
    oldest: Option<Instant>,
    /// De-duplication: data -> end of its suppression (None: in the pending list).
    cache: HashMap<Vec<u8>, Option<Instant>>,
    /// Sent, not yet acknowledged lists: id -> their data.
    unacked: HashMap<u64, Vec<Vec<u8>>>,
    next_list: u64,
}

/// A digest of the program.
struct Digest {
    id: u32,
    ext: u32,
    shape: Shape,
    leaves: Vec<Leaf>,
    /// Message bytes (the runtime's); None if the P4Info type does not match it (unsupported).
    len: Option<usize>,
    active: Option<Active>,
}

/// The digests of a pipeline.
#[derive(Default)]
pub struct Digests {
    list: Vec<Digest>,
}

/// The size and alignment cgen gives a scalar of `w` bits in native layout (ctype.rs
/// `native_layout`: 1/2/4/8/16 bytes up to 128 bits, naturally aligned up to 8; wider values
/// are byte arrays).
fn storage(w: u32) -> (usize, usize) {
    let size = match w {
        0..=8 => 1,
        9..=16 => 2,
        17..=32 => 4,
        33..=64 => 8,
        65..=128 => 16,
        _ => w.div_ceil(8) as usize,
    };
    let align = if w > 128 { 1 } else { size.min(8) };
    (size, align)
}

fn bitstring_width(b: &P4BitstringLikeTypeSpec) -> Option<u32> {
    use p4_bitstring_like_type_spec::TypeSpec as B;
    match b.type_spec.as_ref()? {
        B::Bit(x) => Some(x.bitwidth as u32),
        B::Int(x) => Some(x.bitwidth as u32),
        B::Varbit(_) => None,
    }
}

fn scalar_of(spec: &P4DataTypeSpec) -> Option<(u32, bool)> {
    match spec.type_spec.as_ref()? {
        p4_data_type_spec::TypeSpec::Bool(_) => Some((1, true)),
        p4_data_type_spec::TypeSpec::Bitstring(b) => Some((bitstring_width(b)?, false)),
        _ => None,
    }
}

/// The shape and scalars of a digest type, or None when p4dp cannot deliver it.
fn layout(info: &P4Info, spec: &P4DataTypeSpec) -> Option<(Shape, Vec<(u32, bool)>)> {
    use p4_data_type_spec::TypeSpec as T;
    let ti = info.type_info.as_ref();
    match spec.type_spec.as_ref()? {
        T::Struct(s) => {
            let st = ti?.structs.get(&s.name)?;
            let v: Option<Vec<_>> = st.members.iter().map(|m| scalar_of(m.type_spec.as_ref()?)).collect();
            Some((Shape::Struct, v?))
        }
        T::Header(h) => {
            let hd = ti?.headers.get(&h.name)?;
            let v: Option<Vec<_>> = hd
                .members
                .iter()
                .map(|m| Some((bitstring_width(m.type_spec.as_ref()?)?, false)))
                .collect();
            Some((Shape::Header, v?))
        }
        _ => scalar_of(spec).map(|s| (Shape::Scalar, vec![s])),
    }
}

impl Digests {
    /// The digests of a loaded program: P4Info digests matched with the runtime's digest
    /// externs by id.
    pub fn new(info: &P4Info, prog: &p4dp_rt::Program) -> Digests {
        let mut list = Vec::new();
        for d in &info.digests {
            let Some(id) = d.preamble.as_ref().map(|p| p.id) else {
                continue;
            };
            let Some(x) = prog
                .externs
                .iter()
                .find(|x| x.id == id && matches!(x.kind, p4dp_rt::ExternKind::Digest))
            else {
                continue;
            };
            let (shape, scalars) = d
                .type_spec
                .as_ref()
                .and_then(|s| layout(info, s))
                .unwrap_or((Shape::Scalar, vec![]));
            let mut off = 0usize;
            let mut leaves = Vec::new();
            for (w, is_bool) in scalars {
                let (size, align) = storage(w.max(1));
                off = off.div_ceil(align) * align;
                leaves.push(Leaf {
                    width: w,
                    is_bool,
                    off,
                    size,
                });
                off += size;
            }
            let ok = !leaves.is_empty() && off == x.bitwidth as usize;
            list.push(Digest {
                id,
                ext: x.index,
                shape,
                leaves,
                len: ok.then_some(off),
                active: None,
            });
        }
        Digests { list }
    }

    fn get_mut(&mut self, id: u32) -> Result<&mut Digest, OpError> {
        self.list
            .iter_mut()
            .find(|d| d.id == id)
            .ok_or_else(|| err(Code::NotFound, format!("unknown digest id {id}")))
    }

    /// Write of a DigestEntry: INSERT configures a digest (ALREADY_EXISTS if it is), MODIFY
    /// changes the configuration, DELETE stops the digest's lists (NOT_FOUND if not configured).
    pub fn write(&mut self, e: &DigestEntry, op: Op) -> Result<(), OpError> {
        let d = self.get_mut(e.digest_id)?;
        if d.len.is_none() {
            return Err(err(
                Code::Unimplemented,
                format!(
                    "digest {}: its data type is not supported by p4dp's P4Runtime server",
                    d.id
                ),
            ));
        }
        match op {
            Op::Delete => {
                if d.active.take().is_none() {
                    return Err(err(Code::NotFound, format!("digest {} is not configured", d.id)));
                }
                Ok(())
            }
            Op::Insert | Op::Modify => {
                let cfg = e
                    .config
                    .ok_or_else(|| invalid(format!("digest {}: a DigestEntry without config", d.id)))?;
                if cfg.max_timeout_ns < 0 || cfg.max_list_size < 0 || cfg.ack_timeout_ns < 0 {
                    return Err(invalid(format!("digest {}: negative config values", d.id)));
                }
                match (&mut d.active, op) {
                    (Some(_), Op::Insert) => Err(err(
                        Code::AlreadyExists,
                        format!("digest {} is already configured", d.id),
                    )),
                    (None, Op::Modify) => Err(err(Code::NotFound, format!("digest {} is not configured", d.id))),
                    (Some(a), _) => {
                        a.cfg = cfg;
                        Ok(())
                    }
                    (slot, _) => {
                        *slot = Some(Active {
                            cfg,
                            pending: vec![],
                            oldest: None,
                            cache: HashMap::new(),
                            unacked: HashMap::new(),
                            next_list: 1,
                        });
                        Ok(())
                    }
                }
            }
        }
    }

    /// Read: the configured digests (digest_id 0: all of them).
    pub fn read(&self, e: &DigestEntry, out: &mut Vec<DigestEntry>) -> Result<(), OpError> {
        if e.digest_id != 0 && !self.list.iter().any(|d| d.id == e.digest_id) {
            return Err(err(Code::NotFound, format!("unknown digest id {}", e.digest_id)));
        }
        for d in &self.list {
            if e.digest_id != 0 && d.id != e.digest_id {
                continue;
            }
            if let Some(a) = &d.active {
                out.push(DigestEntry {
                    digest_id: d.id,
                    config: Some(a.cfg),
                });
            }
        }
        Ok(())
    }

    /// A DigestListAck: the list's data may be reported again. Unknown digests are an error
    /// (the caller answers with a StreamError); an unknown or already acknowledged list id is
    /// ignored (its suppression may have ended).
    pub fn ack(&mut self, a: &DigestListAck) -> Result<(), OpError> {
        let d = self.get_mut(a.digest_id)?;
        let Some(act) = d.active.as_mut() else {
            return Err(err(
                Code::FailedPrecondition,
                format!("digest {} is not configured", a.digest_id),
            ));
        };
        if let Some(keys) = act.unacked.remove(&a.list_id) {
            for k in keys {
                act.cache.remove(&k);
            }
        }
        Ok(())
    }

    /// Takes the data plane's messages and returns the lists due now.
    pub fn poll(&mut self, rt: &p4dp_rt::Runtime, now: Instant) -> Vec<StreamMessageResponse> {
        let mut out = Vec::new();
        for d in &mut self.list {
            let msgs = match rt.digest_poll(d.ext, POLL_BATCH) {
                Ok(m) => m,
                Err(_) => continue,
            };
            let (Some(len), Some(a)) = (d.len, d.active.as_mut()) else {
                continue; // not configured (or not deliverable): discarded
            };
            let dedup = a.cfg.ack_timeout_ns > 0;
            if dedup {
                a.cache.retain(|_, until| until.is_none_or(|t| t > now));
            }
            for (_, raw) in msgs {
                if raw.len() != len || (dedup && a.cache.contains_key(&raw)) {
                    continue;
                }
                let data = to_p4data(&d.shape, &d.leaves, &raw);
                if dedup {
                    a.cache.insert(raw.clone(), None);
                }
                a.oldest.get_or_insert(now);
                a.pending.push((raw, data));
            }
            let max = a.cfg.max_list_size as usize;
            let timeout = Duration::from_nanos(a.cfg.max_timeout_ns as u64);
            while !a.pending.is_empty()
                && ((max > 0 && a.pending.len() >= max) || a.oldest.is_some_and(|t| now.duration_since(t) >= timeout))
            {
                let n = if max > 0 {
                    max.min(a.pending.len())
                } else {
                    a.pending.len()
                };
                let batch: Vec<(Vec<u8>, P4Data)> = a.pending.drain(..n).collect();
                if a.pending.is_empty() {
                    a.oldest = None;
                }
                let list_id = a.next_list;
                a.next_list += 1;
                let until = now + Duration::from_nanos(a.cfg.ack_timeout_ns as u64);
                let mut keys = Vec::with_capacity(batch.len());
                let mut data = Vec::with_capacity(batch.len());
                for (k, v) in batch {
                    if dedup {
                        a.cache.insert(k.clone(), Some(until));
                        keys.push(k);
                    }
                    data.push(v);
                }
                if dedup {
                    a.unacked.insert(list_id, keys);
                }
                let timestamp = SystemTime::now()
                    .duration_since(UNIX_EPOCH)
                    .map_or(0, |t| t.as_nanos() as i64);
                out.push(StreamMessageResponse {
                    update: Some(stream_message_response::Update::Digest(DigestList {
                        digest_id: d.id,
                        list_id,
                        data,
                        timestamp,
                    })),
                });
            }
            // acknowledgements that never came: forget lists whose suppression has ended
            if dedup {
                let cache = &a.cache;
                a.unacked.retain(|_, keys| keys.iter().any(|k| cache.contains_key(k)));
            }
        }
        out
    }
}

/// The big-endian canonical bytestring of a native scalar.
fn leaf_bytes(l: &Leaf, raw: &[u8]) -> Vec<u8> {
    let cell = &raw[l.off..l.off + l.size];
    let n = l.width.div_ceil(8).max(1) as usize;
    let be: Vec<u8> = if l.width <= 128 {
        cell[..n].iter().rev().copied().collect()
    } else {
        cell[l.size - n..].to_vec()
    };
    crate::bytes::canonical(&be)
}

fn to_p4data(shape: &Shape, leaves: &[Leaf], raw: &[u8]) -> P4Data {
    let scalar = |l: &Leaf| P4Data {
        data: Some(if l.is_bool {
            p4_data::Data::Bool(raw[l.off] != 0)
        } else {
            p4_data::Data::Bitstring(leaf_bytes(l, raw))
        }),
    };
    match shape {
        Shape::Scalar => scalar(&leaves[0]),
        Shape::Struct => P4Data {
            data: Some(p4_data::Data::Struct(P4StructLike {
                members: leaves.iter().map(scalar).collect(),
            })),
        },
        Shape::Header => P4Data {
            data: Some(p4_data::Data::Header(P4Header {
                is_valid: true,
                bitstrings: leaves.iter().map(|l| leaf_bytes(l, raw)).collect(),
            })),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn native_scalars_to_bytestrings() {
        // bit<48> at 0 (8 bytes), bit<9> at 8 (2 bytes): the layout of struct { bit<48>; bit<9> }
        let leaves = vec![
            Leaf {
                width: 48,
                is_bool: false,
                off: 0,
                size: 8,
            },
            Leaf {
                width: 9,
                is_bool: false,
                off: 8,
                size: 2,
            },
        ];
        let mut raw = vec![0u8; 10];
        raw[..6].copy_from_slice(&[0x0a, 0, 0, 0, 0, 0x02]); // 02:00:00:00:00:0a little-endian
        raw[8..10].copy_from_slice(&[0x03, 0x01]);
        let d = to_p4data(&Shape::Struct, &leaves, &raw);
        let Some(p4_data::Data::Struct(s)) = d.data else {
            panic!("a struct")
        };
        let bs: Vec<Vec<u8>> = s
            .members
            .into_iter()
            .map(|m| match m.data {
                Some(p4_data::Data::Bitstring(b)) => b,
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(bs, vec![vec![2, 0, 0, 0, 0, 0x0a], vec![1, 3]]);
        assert_eq!(storage(48), (8, 8));
        assert_eq!(storage(200), (25, 1));
    }
}
