//! Fast paths of extract and emit for headers starting on a byte boundary (the common case):
//! the header's fields are grouped into byte-aligned *chunks* of at most 64 bits, each read or
//! written with one fixed-size big-endian load/store (`p4dp_ld_be`/`p4dp_st_be`, prim.h) at a
//! constant offset, instead of a bit-level `p4dp_bits_get64/set64` per field at a run-time offset.
//! Fields of 65..128 bits and wider byte-multiple fields that start on a byte get their own chunk.
//! The bit-level code stays as the fallback for a cursor that is not byte-aligned; a header whose
//! fields cannot be chunked (e.g. a field crossing a byte boundary into a chunk above 64 bits, a
//! varbit field) uses only the bit-level code.

use std::fmt::Write as _;

use p4dp_ir::*;

use crate::ctype::{mask_lit, storage};
use crate::stmt::ind;
use crate::Gen;

/// One field inside a narrow chunk: C member name, width, shift from the chunk's LSB.
struct Part {
    field: String,
    w: u32,
    shift: u32,
}

enum Chunk {
    /// `bytes` (1..8) bytes at byte offset `off` holding `parts`.
    Narrow { off: u32, bytes: u32, parts: Vec<Part> },
    /// A 65..128-bit field of `bytes` bytes at `off` (value in a p4dp_u128).
    U128 { off: u32, bytes: u32, field: String },
    /// A >128-bit field (`.b`, big-endian bytes) of `bytes` bytes at `off`.
    Bytes { off: u32, bytes: u32, field: String },
}

impl Gen<'_> {
    /// The chunk plan of header type `t`, or None if it has no fast path.
    fn chunks(&self, t: TypeId) -> Option<Vec<Chunk>> {
        if !matches!(self.p.types.get(t), Type::Header(_)) {
            return None;
        }
        let mut out = Vec::new();
        let mut pos = 0u32; // bit position of the next field from the header start
        let mut cur: Vec<(String, u32)> = Vec::new();
        let mut start = 0u32; // bit position where the open chunk starts
        for (f, ft) in self.fields(t) {
            let s = self.scalar(ft)?;
            let w = s.w;
            if w == 0 {
                continue;
            }
            if cur.is_empty() && pos % 8 == 0 && w > 64 {
                if w % 8 != 0 {
                    return None;
                }
                let (off, bytes) = (pos / 8, w / 8);
                out.push(if w <= 128 {
                    Chunk::U128 { off, bytes, field: f }
                } else {
                    Chunk::Bytes { off, bytes, field: f }
                });
                pos += w;
                start = pos;
                continue;
            }
            if cur.is_empty() {
                start = pos;
            }
            cur.push((f, w));
            pos += w;
            if pos - start > 64 {
                return None;
            }
            if pos % 8 == 0 {
                let bits = pos - start;
                let mut shift = bits;
                let parts = cur
                    .drain(..)
                    .map(|(field, w)| {
                        shift -= w;
                        Part { field, w, shift }
                    })
                    .collect();
                out.push(Chunk::Narrow {
                    off: start / 8,
                    bytes: bits / 8,
                    parts,
                });
            }
        }
        if !cur.is_empty() || pos % 8 != 0 {
            return None;
        }
        Some(out)
    }

    /// Statements extracting header `lv` (type `t`) from `_p` (byte-aligned header start), or
    /// None if the header has no fast path. Sets `.valid`; does not advance the cursor.
    pub(crate) fn fast_extract(&self, lv: &str, t: TypeId, level: usize) -> Option<String> {
        let chunks = self.chunks(t)?;
        let i = ind(level);
        let mut o = String::new();
        for c in chunks {
            match c {
                Chunk::Narrow { off, bytes, parts } => {
                    if let [p] = parts.as_slice() {
                        if p.w == bytes * 8 {
                            let _ = writeln!(
                                o,
                                "{i}{lv}.{} = ({})p4dp_ld_be(_p + {off}, {bytes});",
                                p.field,
                                storage(p.w)
                            );
                            continue;
                        }
                    }
                    let _ = writeln!(o, "{i}{{\n{i}\tconst uint64_t _c = p4dp_ld_be(_p + {off}, {bytes});");
                    for p in parts {
                        let _ = writeln!(
                            o,
                            "{i}\t{lv}.{} = ({})((_c >> {}) & {});",
                            p.field,
                            storage(p.w),
                            p.shift,
                            mask_lit(p.w)
                        );
                    }
                    let _ = writeln!(o, "{i}}}");
                }
                Chunk::U128 { off, bytes, field } => {
                    let _ = writeln!(o, "{i}{lv}.{field} = p4dp_ld_be128(_p + {off}, {bytes});");
                }
                Chunk::Bytes { off, bytes, field } => {
                    let _ = writeln!(o, "{i}memcpy({lv}.{field}.b, _p + {off}, {bytes});");
                }
            }
        }
        let _ = writeln!(o, "{i}{lv}.valid = 1;");
        Some(o)
    }

    /// Statements writing header `lv` (type `t`) at `_p` (byte-aligned), or None.
    pub(crate) fn fast_emit(&self, lv: &str, t: TypeId, level: usize) -> Option<String> {
        let chunks = self.chunks(t)?;
        let i = ind(level);
        let mut o = String::new();
        for c in chunks {
            match c {
                Chunk::Narrow { off, bytes, parts } => {
                    let v: Vec<String> = parts
                        .iter()
                        .map(|p| {
                            if p.shift == 0 {
                                format!("(uint64_t){lv}.{}", p.field)
                            } else {
                                format!("((uint64_t){lv}.{} << {})", p.field, p.shift)
                            }
                        })
                        .collect();
                    let _ = writeln!(o, "{i}p4dp_st_be(_p + {off}, {bytes}, {});", v.join(" | "));
                }
                Chunk::U128 { off, bytes, field } => {
                    let _ = writeln!(o, "{i}p4dp_st_be128(_p + {off}, {bytes}, {lv}.{field});");
                }
                Chunk::Bytes { off, bytes, field } => {
                    let _ = writeln!(o, "{i}memcpy(_p + {off}, {lv}.{field}.b, {bytes});");
                }
            }
        }
        Some(o)
    }
}
