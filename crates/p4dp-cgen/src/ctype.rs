//! C types of IR types, constants, per-type equality helpers, and native layouts.
//!
//! bool -> `uint8_t`; bit/int<W> -> smallest of uint8/16/32/64_t, `p4dp_u128` for 65..128, a
//! `struct { uint8_t b[ceil(W/8)]; }` (big-endian, right-aligned) above 128; error/enum ->
//! `uint32_t`; headers -> struct with `f_<field>` members and `valid`; unions/structs/tuples ->
//! structs; stacks -> `{ elem e[N]; uint32_t next_index; }`; varbit<W> -> `{ uint32_t len;
//! uint8_t b[ceil(W/8)]; }` (len in bits, bits left-aligned, unused bits zero).

use std::fmt::Write as _;

use num_bigint::BigUint;
use num_traits::{ToPrimitive, Zero};
use p4dp_ir::*;

use crate::{unsupported_as, Gen, UnsupportedKind, R};

/// A fixed-width scalar (bool, bit, int, serializable enum).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Scalar {
    pub w: u32,
    pub signed: bool,
    pub is_bool: bool,
}

/// C storage type of a scalar of width `w` (<= 128).
/// The largest value the generated code keeps (a packet's headers and metadata, a local, an
/// argument): values live on a worker's stack, and gcc takes unbounded time on types of
/// gigabytes (a struct of two copies of a struct of two copies of ...).
pub const MAX_VALUE_BYTES: u64 = 1 << 20;

pub fn storage(w: u32) -> &'static str {
    match w {
        0..=8 => "uint8_t",
        9..=16 => "uint16_t",
        17..=32 => "uint32_t",
        33..=64 => "uint64_t",
        _ => "p4dp_u128",
    }
}

/// Bytes of the storage type (= native layout size).
pub fn storage_size(w: u32) -> u32 {
    match w {
        0..=8 => 1,
        9..=16 => 2,
        17..=32 => 4,
        33..=64 => 8,
        65..=128 => 16,
        _ => w.div_ceil(8),
    }
}

/// The type arithmetic of width `w` is computed in (no integer promotion to `int`).
pub fn opty(w: u32) -> &'static str {
    match w {
        0..=32 => "uint32_t",
        33..=64 => "uint64_t",
        _ => "p4dp_u128",
    }
}

/// A C constant of type opty(w) with the low `w` bits set.
pub fn mask_lit(w: u32) -> String {
    match w {
        0 => "0u".into(),
        1..=32 => format!("0x{:x}u", if w == 32 { u32::MAX } else { (1u32 << w) - 1 }),
        33..=64 => format!("0x{:x}ull", if w == 64 { u64::MAX } else { (1u64 << w) - 1 }),
        _ => format!("p4dp_mask128({w})"),
    }
}

/// `expr` (of type opty(w) or narrower) masked to `w` bits and cast to the storage type.
pub fn wrap(expr: &str, w: u32) -> String {
    if w == 32 || w == 64 || w == 128 {
        format!("(({})({}))", storage(w), expr)
    } else {
        format!("(({})(({}) & {}))", storage(w), expr, mask_lit(w))
    }
}

/// A C literal for the unsigned value `v` (< 2^w, w <= 128), of type opty(w).
pub fn int_lit(v: &BigUint, w: u32) -> String {
    if w <= 32 {
        format!("0x{:x}u", v.to_u32().unwrap_or(0))
    } else if w <= 64 {
        format!("0x{:x}ull", v.to_u64().unwrap_or(0))
    } else {
        let lo = (v & BigUint::from(u64::MAX)).to_u64().unwrap_or(0);
        let hi = (v >> 64u32).to_u64().unwrap_or(0);
        if hi == 0 {
            format!("((p4dp_u128)0x{lo:x}ull)")
        } else {
            format!("(((p4dp_u128)0x{hi:x}ull << 64) | 0x{lo:x}ull)")
        }
    }
}

/// Big-endian bytes of `v` in exactly `n` bytes (truncating high bytes).
pub fn be_bytes(v: &BigUint, n: usize) -> Vec<u8> {
    let b = v.to_bytes_be();
    let mut out = vec![0u8; n];
    let k = b.len().min(n);
    out[n - k..].copy_from_slice(&b[b.len() - k..]);
    out
}

/// Little-endian bytes of `v` in exactly `n` bytes.
pub fn le_bytes(v: &BigUint, n: usize) -> Vec<u8> {
    let mut b = v.to_bytes_le();
    b.resize(n.max(b.len()), 0);
    b.truncate(n);
    b
}

impl Gen<'_> {
    pub fn scalar(&self, t: TypeId) -> Option<Scalar> {
        match self.p.types.get(t) {
            Type::Bool => Some(Scalar {
                w: 1,
                signed: false,
                is_bool: true,
            }),
            Type::Bit(w) => Some(Scalar {
                w: *w,
                signed: false,
                is_bool: false,
            }),
            Type::Int(w) => Some(Scalar {
                w: *w,
                signed: true,
                is_bool: false,
            }),
            Type::SerEnum { underlying, .. } => self.scalar(*underlying),
            _ => None,
        }
    }

    /// Is `t` represented as a C integer (scalars <= 128 bits, error, enum, match_kind)?
    pub fn is_cint(&self, t: TypeId) -> bool {
        match self.p.types.get(t) {
            Type::Error | Type::Enum { .. } | Type::MatchKind => true,
            _ => self.scalar(t).is_some_and(|s| s.w <= 128),
        }
    }

    /// The C type of `t`, defining it (and what it depends on) on first use. A type larger than
    /// [`MAX_VALUE_BYTES`] is unsupported (reported at `span`, the first use).
    pub fn ctype(&mut self, t: TypeId, span: Span) -> R<String> {
        if let Some(n) = self.type_names.get(&t) {
            return Ok(n.clone());
        }
        let name = self.define_ctype(t, span)?;
        let bytes = self.value_bytes(t);
        if bytes > MAX_VALUE_BYTES {
            let shown = if bytes == u64::MAX {
                "more than 2^64 bytes".to_string()
            } else {
                format!("{bytes} bytes")
            };
            return unsupported_as(
                UnsupportedKind::Type,
                span,
                format!(
                    "a value of type `{}` takes {shown}; p4dp keeps values of at most {} MiB \
                     (they live on a worker's stack)",
                    p4dp_ir::print::type_name(&self.p.types, t),
                    MAX_VALUE_BYTES >> 20
                ),
            );
        }
        self.type_bytes.insert(t, bytes);
        self.type_names.insert(t, name.clone());
        Ok(name)
    }

    /// The size of a value of `t` in the generated C (saturating at `u64::MAX`), from the sizes
    /// of the component types [`Gen::ctype`] has recorded (so it never walks a type twice).
    fn value_bytes(&self, t: TypeId) -> u64 {
        let of = |c: &TypeId| self.type_bytes.get(c).copied().unwrap_or(u64::MAX);
        match self.p.types.get(t) {
            Type::Void => 0,
            Type::Bool => 1,
            Type::Bit(w) | Type::Int(w) if *w <= 128 => storage_size(*w) as u64,
            Type::Bit(w) | Type::Int(w) => w.div_ceil(8) as u64,
            Type::Error | Type::Enum { .. } | Type::MatchKind => 4,
            Type::SerEnum { underlying, .. } => of(underlying),
            Type::String => 8,
            Type::Varbit(w) => 4 + w.div_ceil(8).max(1) as u64,
            // a header's validity byte; an empty struct's placeholder byte (padding not counted)
            ty @ (Type::Header(s) | Type::Struct(s) | Type::HeaderUnion(s)) => s
                .fields
                .iter()
                .fold(matches!(ty, Type::Header(_)) as u64, |acc, f| {
                    acc.saturating_add(of(&f.ty))
                })
                .max(1),
            Type::Tuple(ts) => ts.iter().fold(0u64, |acc, f| acc.saturating_add(of(f))).max(1),
            Type::Stack { elem, size } => of(elem).saturating_mul((*size).max(1) as u64).saturating_add(4),
            Type::Extern { .. } => 0,
        }
    }

    fn define_ctype(&mut self, t: TypeId, span: Span) -> R<String> {
        let p = self.p;
        let name = match p.types.get(t) {
            Type::Void => "void".to_string(),
            Type::Bool => "uint8_t".to_string(),
            Type::Bit(w) | Type::Int(w) if *w <= 128 => storage(*w).to_string(),
            Type::Bit(w) | Type::Int(w) => self.wide_type(*w),
            Type::Error | Type::Enum { .. } | Type::MatchKind => "uint32_t".to_string(),
            Type::SerEnum { underlying, .. } => self.ctype(*underlying, span)?,
            Type::String => "const char *".to_string(),
            Type::Varbit(w) => {
                let n = self.namer.fresh("vb_", &w.to_string());
                let _ = writeln!(
                    self.types_out,
                    "typedef struct {{ uint32_t len; uint8_t b[{}]; }} {n};",
                    w.div_ceil(8).max(1)
                );
                n
            }
            Type::Header(s) | Type::Struct(s) | Type::HeaderUnion(s) => {
                let is_header = matches!(p.types.get(t), Type::Header(_));
                let mut body = String::new();
                for f in &s.fields {
                    let ct = self.ctype(f.ty, span)?;
                    let _ = writeln!(body, "\t{} f_{};", ct, crate::namer::sanitize(&f.name));
                }
                if is_header {
                    body.push_str("\tuint8_t valid;\n");
                }
                if body.is_empty() {
                    body.push_str("\tuint8_t _empty;\n");
                }
                let n = self.namer.fresh("t_", &s.name);
                let _ = writeln!(self.types_out, "typedef struct {{\n{body}}} {n};");
                n
            }
            Type::Tuple(ts) => {
                let mut body = String::new();
                for (i, ft) in ts.iter().enumerate() {
                    let ct = self.ctype(*ft, span)?;
                    let _ = writeln!(body, "\t{ct} f_{i};");
                }
                if body.is_empty() {
                    body.push_str("\tuint8_t _empty;\n");
                }
                let n = self.namer.fresh("t_", "tuple");
                let _ = writeln!(self.types_out, "typedef struct {{\n{body}}} {n};");
                n
            }
            Type::Stack { elem, size } => {
                let ct = self.ctype(*elem, span)?;
                let n = self.namer.fresh("t_", &format!("stack_{ct}_{size}"));
                let _ = writeln!(
                    self.types_out,
                    "typedef struct {{\n\t{ct} e[{}];\n\tuint32_t next_index;\n}} {n};",
                    (*size).max(1)
                );
                n
            }
            Type::Extern { name, .. } => {
                return unsupported_as(
                    UnsupportedKind::Type,
                    span,
                    format!("a value of extern type `{name}` cannot be stored"),
                )
            }
        };
        Ok(name)
    }

    pub fn wide_type(&mut self, w: u32) -> String {
        let n = w.div_ceil(8);
        if let Some(x) = self.wide_names.get(&n) {
            return x.clone();
        }
        let name = self.namer.fresh("wide_", &n.to_string());
        let _ = writeln!(self.types_out, "typedef struct {{ uint8_t b[{n}]; }} {name};");
        self.wide_names.insert(n, name.clone());
        name
    }

    /// Field name in C of field `i` of struct-like type `t`.
    pub fn field_name(&self, t: TypeId, i: u32) -> String {
        match self.p.types.get(t) {
            Type::Header(s) | Type::Struct(s) | Type::HeaderUnion(s) => {
                format!("f_{}", crate::namer::sanitize(&s.fields[i as usize].name))
            }
            _ => format!("f_{i}"),
        }
    }

    /// Fields (C name, type) of a struct/header/union/tuple type.
    pub fn fields(&self, t: TypeId) -> Vec<(String, TypeId)> {
        match self.p.types.get(t) {
            Type::Header(s) | Type::Struct(s) | Type::HeaderUnion(s) => s
                .fields
                .iter()
                .map(|f| (format!("f_{}", crate::namer::sanitize(&f.name)), f.ty))
                .collect(),
            Type::Tuple(ts) => ts.iter().enumerate().map(|(i, t)| (format!("f_{i}"), *t)).collect(),
            _ => Vec::new(),
        }
    }

    /// A C expression for the constant `v` of type `t`.
    pub fn value(&mut self, v: &Value, t: TypeId, span: Span) -> R<String> {
        match v {
            Value::Bool(b) => Ok(if *b { "1".into() } else { "0".into() }),
            Value::Error(i) | Value::Enum(i) => Ok(format!("{i}u")),
            Value::String(s) => Ok(c_string(s)),
            Value::Bits { width, bits, .. } => {
                if let Some(s) = self.scalar(t) {
                    if s.is_bool {
                        return Ok(if bits.is_zero() { "0".into() } else { "1".into() });
                    }
                    if s.w > 128 {
                        let ct = self.ctype(t, span)?;
                        let bytes = be_bytes(bits, s.w.div_ceil(8) as usize);
                        let list: Vec<String> = bytes.iter().map(|b| format!("0x{b:02x}")).collect();
                        return Ok(format!("(({ct}){{{{{}}}}})", list.join(",")));
                    }
                    return Ok(format!("(({}){})", storage(s.w), int_lit(bits, s.w)));
                }
                if self.is_cint(t) {
                    return Ok(int_lit(bits, (*width).min(64)));
                }
                unsupported_as(UnsupportedKind::Type, span, "bit-string constant of a non-scalar type")
            }
            Value::Aggregate { valid, fields } => {
                let ct = self.ctype(t, span)?;
                if let Type::Stack { elem, size } = self.p.types.get(t).clone() {
                    let mut parts = Vec::new();
                    for f in fields.iter().take(size as usize) {
                        parts.push(self.value(f, elem, span)?);
                    }
                    return Ok(format!("(({ct}){{ .e = {{ {} }} }})", parts.join(", ")));
                }
                let fs = self.fields(t);
                let mut parts = Vec::new();
                for ((fname, fty), fv) in fs.iter().zip(fields.iter()) {
                    let x = self.value(fv, *fty, span)?;
                    parts.push(format!(".{fname} = {x}"));
                }
                if matches!(self.p.types.get(t), Type::Header(_)) {
                    parts.push(format!(".valid = {}", u8::from(valid.unwrap_or(true))));
                }
                if parts.is_empty() {
                    return Ok(format!("(({ct}){{0}})"));
                }
                Ok(format!("(({ct}){{ {} }})", parts.join(", ")))
            }
        }
    }

    /// The name of a function `static int NAME(T a, T b)` comparing two values of type `t`
    /// (P4 `==`: headers are equal when both invalid, or both valid with equal fields).
    pub fn eq_fn(&mut self, t: TypeId, span: Span) -> R<String> {
        if let Some(n) = self.eq_names.get(&t) {
            return Ok(n.clone());
        }
        let ct = self.ctype(t, span)?;
        let name = self.namer.fresh("eq_", &ct);
        self.eq_names.insert(t, name.clone());
        let p = self.p;
        let body = match p.types.get(t).clone() {
            Type::Header(_) => {
                let mut conds = Vec::new();
                for (f, ft) in self.fields(t) {
                    conds.push(self.eq_expr(&format!("a.{f}"), &format!("b.{f}"), ft, span)?);
                }
                let fields = if conds.is_empty() {
                    "1".to_string()
                } else {
                    conds.join(" && ")
                };
                format!(
                    "\tif (a.valid != b.valid)\n\t\treturn 0;\n\tif (!a.valid)\n\t\treturn 1;\n\treturn {fields};\n"
                )
            }
            Type::Struct(_) | Type::HeaderUnion(_) | Type::Tuple(_) => {
                let mut conds = Vec::new();
                for (f, ft) in self.fields(t) {
                    conds.push(self.eq_expr(&format!("a.{f}"), &format!("b.{f}"), ft, span)?);
                }
                format!(
                    "\treturn {};\n",
                    if conds.is_empty() {
                        "1".to_string()
                    } else {
                        conds.join(" && ")
                    }
                )
            }
            Type::Stack { elem, size } => {
                let c = self.eq_expr("a.e[i]", "b.e[i]", elem, span)?;
                format!("\tfor (uint32_t i = 0; i < {size}u; i++)\n\t\tif (!({c}))\n\t\t\treturn 0;\n\treturn 1;\n")
            }
            Type::Varbit(_) => "\treturn a.len == b.len && memcmp(a.b, b.b, sizeof a.b) == 0;\n".to_string(),
            Type::Bit(_) | Type::Int(_) => "\treturn memcmp(a.b, b.b, sizeof a.b) == 0;\n".to_string(),
            _ => return unsupported_as(UnsupportedKind::Type, span, "equality on this type"),
        };
        let _ = writeln!(self.helpers_out, "static int {name}({ct} a, {ct} b)\n{{\n{body}}}\n");
        Ok(name)
    }

    /// C expression `a == b` for values of type `t` (given as C expressions).
    pub fn eq_expr(&mut self, a: &str, b: &str, t: TypeId, span: Span) -> R<String> {
        if self.is_cint(t) {
            return Ok(format!("(({a}) == ({b}))"));
        }
        let f = self.eq_fn(t, span)?;
        Ok(format!("{f}({a}, {b})"))
    }
}

/// A C string literal.
pub fn c_string(s: &str) -> String {
    let mut o = String::from("\"");
    for b in s.bytes() {
        match b {
            b'"' => o.push_str("\\\""),
            b'\\' => o.push_str("\\\\"),
            b'\n' => o.push_str("\\n"),
            0x20..=0x7e => o.push(b as char),
            _ => {
                let _ = write!(o, "\\{b:03o}");
            }
        }
    }
    o.push('"');
    o
}

/// Native layout of a list of scalar fields: (offset, size) each and total length. Fields are
/// aligned to min(size, 8).
pub fn native_layout(widths: &[u32]) -> (Vec<(u32, u32)>, u32) {
    let mut off = 0u32;
    let mut out = Vec::new();
    for &w in widths {
        let size = storage_size(w.max(1));
        let align = if w > 128 { 1 } else { size.min(8) };
        off = off.div_ceil(align) * align;
        out.push((off, size));
        off += size;
    }
    (out, off)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_aligns() {
        let (f, n) = native_layout(&[9, 1, 48, 200]);
        assert_eq!(f, vec![(0, 2), (2, 1), (8, 8), (16, 25)]);
        assert_eq!(n, 41);
    }

    #[test]
    fn literals() {
        assert_eq!(mask_lit(9), "0x1ffu");
        assert_eq!(mask_lit(64), "0xffffffffffffffffull");
        assert_eq!(int_lit(&BigUint::from(5u32), 100), "((p4dp_u128)0x5ull)");
        assert_eq!(be_bytes(&BigUint::from(0x1234u32), 3), vec![0, 0x12, 0x34]);
        assert_eq!(le_bytes(&BigUint::from(0x1234u32), 4), vec![0x34, 0x12, 0, 0]);
        assert_eq!(c_string("a\"b\n"), "\"a\\\"b\\n\"");
    }
}
