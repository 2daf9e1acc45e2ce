//! Extern calls: `packet_in`/`packet_out` methods, and the v1model externs (checksums, hash,
//! counters, meters, registers, digests, random, log_msg, assert, clone/resubmit flags).

use std::fmt::Write as _;

use num_traits::ToPrimitive;
use p4dp_ir::*;

use crate::ctype::{c_string, native_layout, storage, storage_size, wrap};
use crate::stmt::ind;
use crate::{unsupported, unsupported_as, Gen, UnsupportedKind, R};

pub(crate) fn in_arg(c: &Call, i: usize) -> R<&Expr> {
    match c.args.get(i) {
        Some(Arg::In(e)) | Some(Arg::InOut(e)) | Some(Arg::Out(e)) => Ok(e),
        None => unsupported(c.span, format!("missing argument {}", i + 1)),
    }
}

/// The name of a constant enum member argument (e.g. `HashAlgorithm.crc16`).
fn enum_member(g: &Gen, e: &Expr) -> R<String> {
    match (&e.kind, g.p.types.get(e.ty)) {
        (ExprKind::Const(Value::Enum(i)), Type::Enum { members, .. }) => {
            members
                .get(*i as usize)
                .cloned()
                .ok_or_else(|| crate::CgenError::Unsupported {
                    kind: crate::UnsupportedKind::Construct,
                    message: "bad enum member".into(),
                    span: e.span,
                })
        }
        _ => unsupported_as(
            UnsupportedKind::ExternFunction,
            e.span,
            "the algorithm/type argument must be a constant enum member",
        ),
    }
}

fn mask64(w: u32) -> String {
    if w >= 64 {
        "~0ull".to_string()
    } else {
        format!("0x{:x}ull", (1u64 << w) - 1)
    }
}

pub(crate) fn const_u64(v: &Value) -> Option<u64> {
    match v {
        Value::Bits { bits, .. } => bits.to_u64(),
        _ => None,
    }
}

impl Gen<'_> {
    /// Static width in bits of a type whose values are bit strings (varbit: its maximum).
    pub fn max_bits(&self, t: TypeId, span: Span) -> R<u32> {
        let p = self.p;
        Ok(match p.types.get(t) {
            Type::Varbit(w) => *w,
            Type::Header(s) | Type::Struct(s) | Type::HeaderUnion(s) => {
                let mut n = 0;
                for f in &s.fields {
                    n += self.max_bits(f.ty, span)?;
                }
                n
            }
            Type::Tuple(ts) => {
                let mut n = 0;
                for f in ts {
                    n += self.max_bits(*f, span)?;
                }
                n
            }
            Type::Stack { elem, size } => self.max_bits(*elem, span)? * size,
            _ => match self.scalar(t) {
                Some(s) => s.w,
                None => {
                    return unsupported_as(
                        UnsupportedKind::Type,
                        span,
                        "a value of this type has no bit-string form",
                    )
                }
            },
        })
    }

    /// Statements reading a value of type `t` from the packet bytes `_d` at bit offset `_o`
    /// (advancing `_o`) into lvalue `lv`. Varbit fields take their length from `_vb`.
    fn read_into(&mut self, lv: &str, t: TypeId, span: Span, level: usize, out: &mut String) -> R<()> {
        let i = ind(level);
        let p = self.p;
        match p.types.get(t).clone() {
            Type::Header(_) | Type::Struct(_) => {
                for (f, ft) in self.fields(t) {
                    self.read_into(&format!("{lv}.{f}"), ft, span, level, out)?;
                }
                if matches!(p.types.get(t), Type::Header(_)) {
                    let _ = writeln!(out, "{i}{lv}.valid = 1;");
                }
            }
            Type::Varbit(_) => {
                let _ = writeln!(out, "{i}{lv}.len = _vb;\n{i}memset({lv}.b, 0, sizeof {lv}.b);\n{i}p4dp_bits_copy({lv}.b, 0, _d, _o, _vb);\n{i}_o += _vb;");
            }
            _ => {
                let Some(s) = self.scalar(t) else {
                    return unsupported_as(UnsupportedKind::Type, span, "extract/lookahead of this type");
                };
                if s.w == 0 {
                    return Ok(());
                }
                if s.w <= 64 {
                    let _ = writeln!(out, "{i}{lv} = ({})p4dp_bits_get64(_d, _o, {});", storage(s.w), s.w);
                } else if s.w <= 128 {
                    let _ = writeln!(out, "{i}{lv} = p4dp_bits_get128(_d, _o, {});", s.w);
                } else {
                    let pad = s.w.div_ceil(8) * 8 - s.w;
                    let _ = writeln!(
                        out,
                        "{i}memset({lv}.b, 0, sizeof {lv}.b);\n{i}p4dp_bits_copy({lv}.b, {pad}u, _d, _o, {}u);",
                        s.w
                    );
                }
                let _ = writeln!(out, "{i}_o += {};", s.w);
            }
        }
        Ok(())
    }

    /// Statements writing the value `lv` (an addressable C expression) of type `t` into buffer
    /// `_b` at bit offset `_o` (advancing it). With `emit`, only valid headers are written and
    /// each header is bounds-checked against `_cap` bits.
    fn write_from(&mut self, lv: &str, t: TypeId, emit: bool, span: Span, level: usize, out: &mut String) -> R<()> {
        let i = ind(level);
        let p = self.p;
        match p.types.get(t).clone() {
            Type::Header(_) => {
                let mut inner = String::new();
                for (f, ft) in self.fields(t) {
                    self.write_from(&format!("{lv}.{f}"), ft, emit, span, level + 2, &mut inner)?;
                }
                if emit {
                    let max = self.max_bits(t, span)?;
                    let skip = self.emit_elide.iter().find(|(x, _)| x == lv).map(|(_, k)| *k);
                    if let Some(fast) = self.fast_emit(lv, t, level + 3) {
                        // perf: byte-aligned cursor -> fixed-size stores at constant offsets (fastio.rs)
                        let slow = inner.lines().map(|l| format!("\t{l}\n")).collect::<String>();
                        inner = format!("{i}\t\tif ((_o & 7u) == 0) {{\n{i}\t\t\tuint8_t *_p = _b + (_o >> 3);\n{fast}{i}\t\t\t_o += {max}u;\n{i}\t\t}} else {{\n{slow}{i}\t\t}}\n");
                    }
                    let skip = match skip {
                        // elide.rs: the header's unchanged bytes are already where it goes
                        Some(k) => format!(
                            "{i}\tif (__builtin_expect(_b == R->pkt->data && R->xo[{k}] == _o + 1u, 1))\n{i}\t\t_o += {max}u;\n{i}\telse "
                        ),
                        None => format!("{i}\t"),
                    };
                    let _ = write!(out, "{i}if ({lv}.valid) {{\n{skip}if (_o + {max}u > _cap && !emit_room(R, &_b, &_cap, _o, {max}u))\n{i}\t\tR->emit_overflow = 1;\n{i}\telse {{\n{inner}{i}\t}}\n{i}}}\n");
                } else {
                    out.push_str(&inner);
                }
            }
            Type::Struct(_) | Type::HeaderUnion(_) | Type::Tuple(_) => {
                for (f, ft) in self.fields(t) {
                    self.write_from(&format!("{lv}.{f}"), ft, emit, span, level, out)?;
                }
            }
            Type::Stack { elem, size } => {
                for k in 0..size {
                    self.write_from(&format!("{lv}.e[{k}]"), elem, emit, span, level, out)?;
                }
            }
            Type::Varbit(_) => {
                let _ = writeln!(
                    out,
                    "{i}p4dp_bits_copy(_b, _o, {lv}.b, 0, {lv}.len);\n{i}_o += {lv}.len;"
                );
            }
            _ => {
                let Some(s) = self.scalar(t) else {
                    return unsupported_as(UnsupportedKind::Type, span, "emit/serialize a value of this type");
                };
                let put = self.put_bits("_b", "_o", lv, t, span)?;
                if !put.is_empty() {
                    let _ = writeln!(out, "{i}{put}\n{i}_o += {};", s.w);
                }
            }
        }
        Ok(())
    }

    /// Serialize the data argument `e` (list, struct, or scalar) into a fresh buffer; returns
    /// (statements, buffer name, byte-length C expression).
    pub(crate) fn serialize(&mut self, e: &Expr, level: usize, out: &mut String) -> R<(String, String)> {
        let i = ind(level);
        let bits = self.max_bits(e.ty, e.span)?;
        let buf = self.fresh_tmp();
        let _ = writeln!(
            out,
            "{i}uint8_t {buf}[{}];\n{i}memset({buf}, 0, sizeof {buf});\n{i}uint32_t _o = 0;\n{i}uint8_t *_b = {buf};",
            bits.div_ceil(8).max(1)
        );
        self.serialize_expr(e, level, out)?;
        Ok((buf, "((_o + 7u) / 8u)".to_string()))
    }

    pub(crate) fn serialize_expr(&mut self, e: &Expr, level: usize, out: &mut String) -> R<()> {
        if let ExprKind::List(es) = &e.kind {
            if !matches!(self.p.types.get(e.ty), Type::Header(_)) {
                for x in es {
                    self.serialize_expr(x, level, out)?;
                }
                return Ok(());
            }
        }
        let x = self.expr(e)?;
        if self.scalar(e.ty).is_some() {
            return self.write_from(&format!("({x})"), e.ty, false, e.span, level, out);
        }
        let ct = self.ctype(e.ty, e.span)?;
        let t = self.fresh_tmp();
        let _ = writeln!(out, "{}{ct} {t} = {x};", ind(level));
        self.write_from(&t, e.ty, false, e.span, level, out)
    }

    /// C expression (uint64_t) of hash algorithm `algo` over `buf[0..len)`, optionally followed
    /// by the packet payload.
    pub(crate) fn hash_value(&self, algo: &str, buf: &str, len: &str, payload: bool, span: Span) -> R<String> {
        let pl = "R->pkt->data + R->payload_off, R->pkt->len - R->payload_off";
        let crc = |params: &str| {
            if payload {
                format!("(uint64_t)p4dp_crc_finish(&{params}, p4dp_crc_update(&{params}, p4dp_crc_update(&{params}, p4dp_crc_begin(&{params}), {buf}, {len}), {pl}))")
            } else {
                format!("(uint64_t)p4dp_crc(&{params}, {buf}, {len})")
            }
        };
        Ok(match algo {
            "crc16" | "crc16_custom" => crc("p4dp_crc16_arc"),
            "crc32" | "crc32_custom" => crc("p4dp_crc32_std"),
            "crcCCITT" | "crc_ccitt" => crc("p4dp_crc16_ccitt"),
            "csum16" => {
                if payload {
                    format!("(uint64_t)p4dp_csum16_finish(p4dp_csum16_add(p4dp_csum16_add(0, {buf}, {len}, 0), {pl}, {len}))")
                } else {
                    format!("(uint64_t)p4dp_csum16({buf}, {len})")
                }
            }
            "xor16" => {
                if payload {
                    format!("(uint64_t)p4dp_xor16_add(p4dp_xor16({buf}, {len}), {pl}, {len})")
                } else {
                    format!("(uint64_t)p4dp_xor16({buf}, {len})")
                }
            }
            "identity" if !payload => format!("p4dp_identity64({buf}, {len})"),
            "random" => "p4dp_rand_next(&R->ctx->rng)".to_string(),
            _ => {
                return unsupported_as(
                    UnsupportedKind::ExternFunction,
                    span,
                    format!("hash algorithm `{algo}`{}", if payload { " with payload" } else { "" }),
                )
            }
        })
    }

    /// The standard_metadata-like struct variable of the current control (for `mark_to_drop()`).
    fn std_meta_var(&self, span: Span) -> R<String> {
        let vars = self.vars(self.owner);
        for (id, v) in vars.iter() {
            if let (VarKind::Param(_), Type::Struct(s)) = (v.kind, self.p.types.get(v.ty)) {
                if s.name == "standard_metadata_t" {
                    return Ok(self.var_ref(self.owner, id));
                }
            }
        }
        unsupported_as(
            UnsupportedKind::ExternFunction,
            span,
            "mark_to_drop() without a standard_metadata parameter in scope",
        )
    }

    fn field_of(&self, t: TypeId, name: &str) -> Option<(String, TypeId)> {
        match self.p.types.get(t) {
            Type::Struct(s) | Type::Header(s) => s
                .fields
                .iter()
                .find(|f| f.name == name)
                .map(|f| (format!("f_{}", crate::namer::sanitize(&f.name)), f.ty)),
            _ => None,
        }
    }

    pub fn extern_call(&mut self, c: &Call, level: usize, out: &mut String) -> R<()> {
        let p = self.p;
        let i = ind(level);
        match &c.target {
            CallTarget::ExternMethod {
                obj: ExternRef::Param(v),
                method,
            } => {
                let vt = self.vars(self.owner)[*v].ty;
                let tn = match p.types.get(vt) {
                    Type::Extern { name, .. } => name.clone(),
                    _ => return unsupported(c.span, "method call on a non-extern parameter"),
                };
                match (tn.as_str(), method.as_str()) {
                    ("packet_in", "extract") => self.extract(c, level, out),
                    ("packet_in", "lookahead") => self.lookahead(c, level, out),
                    ("packet_in", "advance") => {
                        let rej = self.need_reject(c.span)?;
                        let n = self.expr(in_arg(c, 0)?)?;
                        let perr = self.err_code("PacketTooShort", c.span)?;
                        let _ = writeln!(out, "{i}{{\n{i}\tuint64_t _n = (uint64_t)({n});\n{i}\tif ((uint64_t)(R->pkt_bits - R->cur) < _n) {{\n{i}\t\tR->perr = {perr};\n{i}\t\tgoto {rej};\n{i}\t}}\n{i}\tR->cur += (uint32_t)_n;\n{i}}}");
                        Ok(())
                    }
                    ("packet_in", "length") => {
                        if let Some(r) = &c.ret {
                            let st = self.store(r, "(uint32_t)R->pkt->len", level)?;
                            out.push_str(&st);
                        }
                        Ok(())
                    }
                    ("packet_out", "emit") => {
                        let h = in_arg(c, 0)?;
                        let x = self.expr(h)?;
                        let ct = self.ctype(h.ty, h.span)?;
                        let t = self.fresh_tmp();
                        let _ = writeln!(out, "{i}{{\n{i}\tconst {ct} *{t} = &({x});\n{i}\tuint8_t *_b = R->emit_base;\n{i}\tuint32_t _o = R->emit_bits;\n{i}\tuint32_t _cap = R->emit_cap;");
                        let mut inner = String::new();
                        // elide.rs: the C lvalues of read-only headers this emit may skip
                        let root = format!("(*{t})");
                        self.emit_elide.clear();
                        if let Some(k) = self.elide_slot(h) {
                            self.emit_elide.push((root.clone(), k));
                        } else if self.info.header_writes.headers == Some(h.ty) && lv_is_var(h) {
                            let names: Vec<String> = self.fields(h.ty).into_iter().map(|(n, _)| n).collect();
                            let mut k = 0;
                            for (f, ro) in names.iter().zip(self.info.header_writes.read_only.clone()) {
                                if ro {
                                    self.emit_elide.push((format!("{root}.{f}"), k));
                                    k += 1;
                                }
                            }
                        }
                        let r = self.write_from(&root, h.ty, true, h.span, level + 1, &mut inner);
                        self.emit_elide.clear();
                        r?;
                        out.push_str(&inner);
                        // `(void)` the pointer: emitting a struct without headers writes nothing through it.
                        let _ = writeln!(
                            out,
                            "{i}\t(void){t};\n{i}\t(void)_b;\n{i}\t(void)_cap;\n{i}\tR->emit_bits = _o;\n{i}}}"
                        );
                        Ok(())
                    }
                    _ => unsupported_as(
                        UnsupportedKind::ExternMethod,
                        c.span,
                        format!("method `{method}` of `{tn}`"),
                    ),
                }
            }
            CallTarget::ExternMethod {
                obj: ExternRef::Instance(x),
                method,
            } => self.instance_call(*x, method, c, level, out),
            CallTarget::ExternFunction(name) => self.extern_function(name, c, level, out),
            _ => unsupported(c.span, "not an extern call"),
        }
    }

    fn need_reject(&self, span: Span) -> R<String> {
        match &self.reject_label {
            Some(l) => Ok(l.clone()),
            None => unsupported(span, "packet_in methods outside a parser"),
        }
    }

    pub fn err_code(&self, name: &str, span: Span) -> R<u32> {
        match self.p.error_code(name) {
            Some(c) => Ok(c),
            None => unsupported(
                span,
                format!("the program has no `error.{name}` (is core.p4 included?)"),
            ),
        }
    }

    fn extract(&mut self, c: &Call, level: usize, out: &mut String) -> R<()> {
        let p = self.p;
        let i = ind(level);
        let rej = self.need_reject(c.span)?;
        let h = in_arg(c, 0)?;
        let s = match p.types.get(h.ty) {
            Type::Header(s) => s.clone(),
            _ => return unsupported(c.span, "extract into a non-header"),
        };
        let varbits: Vec<u32> = s
            .fields
            .iter()
            .filter_map(|f| {
                if let Type::Varbit(w) = p.types.get(f.ty) {
                    Some(*w)
                } else {
                    None
                }
            })
            .collect();
        if varbits.len() > 1 {
            return unsupported(c.span, "a header with more than one varbit field");
        }
        let mut fixed = 0;
        for f in &s.fields {
            if !matches!(p.types.get(f.ty), Type::Varbit(_)) {
                fixed += self.max_bits(f.ty, c.span)?;
            }
        }
        let mut guards = Vec::new();
        self.lvalue_guards(h, &mut guards)?;
        let lv = self.expr(h)?;
        let too_short = self.err_code("PacketTooShort", c.span)?;
        let _ = writeln!(out, "{i}{{");
        if !guards.is_empty() {
            let oob = self.err_code("StackOutOfBounds", c.span)?;
            let _ = writeln!(
                out,
                "{i}\tif (!({})) {{\n{i}\t\tR->perr = {oob};\n{i}\t\tgoto {rej};\n{i}\t}}",
                guards.join(" && ")
            );
        }
        let _ = writeln!(out, "{i}\tuint32_t _vb = 0;");
        match (varbits.first(), c.args.get(1)) {
            (Some(max), Some(Arg::In(sz))) => {
                // P4_16 spec (two-argument extract): a size that is not a multiple of 8 may be
                // rejected with ParserInvalidArgument (p4dp does, as BMv2 does); then
                // PacketTooShort, then HeaderTooShort (size above the varbit's maximum).
                let x = self.expr(sz)?;
                let hts = self.err_code("HeaderTooShort", c.span)?;
                let inv = self.err_code("ParserInvalidArgument", c.span)?;
                let _ = writeln!(
                    out,
                    "{i}\tif (((uint64_t)({x}) & 7u) != 0) {{\n{i}\t\tR->perr = {inv};\n{i}\t\tgoto {rej};\n{i}\t}}"
                );
                let _ = writeln!(out, "{i}\tif ((uint64_t)(R->pkt_bits - R->cur) < {fixed}ull + (uint64_t)({x})) {{\n{i}\t\tR->perr = {too_short};\n{i}\t\t({lv}).valid = 0;\n{i}\t\tgoto {rej};\n{i}\t}}");
                let _ = writeln!(out, "{i}\tif ((uint64_t)({x}) > {max}u) {{\n{i}\t\tR->perr = {hts};\n{i}\t\tgoto {rej};\n{i}\t}}\n{i}\t_vb = (uint32_t)({x});");
            }
            (None, None) => {}
            (Some(_), _) => {
                return unsupported(
                    c.span,
                    "extract of a header with a varbit field needs an `in` size argument",
                )
            }
            (None, Some(_)) => {
                return unsupported(
                    c.span,
                    "extract with a size argument into a header without a varbit field",
                )
            }
        }
        let _ = writeln!(out, "{i}\tif (__builtin_expect(R->pkt_bits - R->cur < {fixed}u + _vb, 0)) {{\n{i}\t\tR->perr = {too_short};\n{i}\t\t({lv}).valid = 0;\n{i}\t\tgoto {rej};\n{i}\t}}\n{i}\tconst uint8_t *_d = R->pkt->data;\n{i}\tuint32_t _o = R->cur;");
        let mut inner = String::new();
        self.read_into(&format!("({lv})"), h.ty, c.span, level + 1, &mut inner)?;
        match self.fast_extract(&format!("({lv})"), h.ty, level + 2) {
            // perf: byte-aligned cursor -> fixed-size loads at constant offsets (fastio.rs)
            Some(fast) if varbits.is_empty() => {
                let _ = writeln!(out, "{i}\tif ((_o & 7u) == 0) {{\n{i}\t\tconst uint8_t *_p = _d + (_o >> 3);\n{fast}{i}\t\t_o += {fixed}u;\n{i}\t}} else {{");
                let inner = inner.lines().map(|l| format!("\t{l}\n")).collect::<String>();
                let _ = write!(out, "{inner}{i}\t}}\n");
            }
            _ => out.push_str(&inner),
        }
        if let Some(k) = self.elide_slot(h) {
            // elide.rs: where this read-only header's bytes are (R->cur is still its start)
            let _ = writeln!(out, "{i}\tR->xo[{k}] = R->cur + 1u;");
        }
        let _ = writeln!(out, "{i}\t(void)_d;\n{i}\tR->cur = _o;\n{i}}}");
        Ok(())
    }

    fn lookahead(&mut self, c: &Call, level: usize, out: &mut String) -> R<()> {
        let i = ind(level);
        let rej = self.need_reject(c.span)?;
        let t = match (c.type_args.first(), &c.ret) {
            (Some(t), _) => *t,
            (None, Some(r)) => r.ty,
            (None, None) => return unsupported(c.span, "lookahead without a type"),
        };
        let bits = self.max_bits(t, c.span)?;
        let perr = self.err_code("PacketTooShort", c.span)?;
        let ct = self.ctype(t, c.span)?;
        let _ = writeln!(out, "{i}{{\n{i}\tif (__builtin_expect(R->pkt_bits - R->cur < {bits}u, 0)) {{\n{i}\t\tR->perr = {perr};\n{i}\t\tgoto {rej};\n{i}\t}}\n{i}\t{ct} _l;\n{i}\tmemset(&_l, 0, sizeof _l);\n{i}\tconst uint8_t *_d = R->pkt->data;\n{i}\tuint32_t _o = R->cur;\n{i}\tconst uint32_t _vb = 0;\n{i}\t(void)_vb;");
        let mut inner = String::new();
        self.read_into("_l", t, c.span, level + 1, &mut inner)?;
        out.push_str(&inner);
        let _ = writeln!(out, "{i}\t(void)_o;");
        if let Some(r) = &c.ret {
            let st = self.store(r, "_l", level + 1)?;
            out.push_str(&st);
        }
        let _ = writeln!(out, "{i}}}");
        Ok(())
    }

    /// The C condition "index `v` (the translation of `e`) is below `n`", or `1` when every value
    /// of `e`'s type is (an unsigned index narrower than the cell count: gcc's -Wtype-limits,
    /// part of -Wextra, rejects a comparison that is always true).
    /// Casts that widen an unsigned value are looked through (gcc sees through them too).
    pub(crate) fn index_below(&self, e: &Expr, v: &str, n: u64) -> String {
        let unsigned = |x: &Expr| self.scalar(x.ty).filter(|s| !s.signed);
        let mut w = unsigned(e).map(|s| s.w);
        let mut x = e;
        while let (ExprKind::Cast(inner), Some(outer)) = (&x.kind, w) {
            match unsigned(inner) {
                Some(s) if s.w <= outer => {
                    w = Some(s.w);
                    x = inner;
                }
                _ => break,
            }
        }
        match w {
            Some(w) if w < 64 && (1u64 << w) <= n => "1".to_string(),
            _ => format!("(uint64_t)({v}) < {n}ull"),
        }
    }

    /// Number of cells of an indexed extern instance (constructor argument `size`).
    fn n_cells(&self, x: ExternId) -> u64 {
        self.p.externs[x].ctor_args.first().and_then(const_u64).unwrap_or(0)
    }

    fn instance_call(&mut self, x: ExternId, method: &str, c: &Call, level: usize, out: &mut String) -> R<()> {
        let p = self.p;
        let i = ind(level);
        let inst = &p.externs[x];
        let ext = x.index();
        let n = self.n_cells(x);
        // rtc.p4 has externs of its own (a Counter unlike PNA's): rtc.rs
        if self.is_rtc() && self.rtc_method(x, method, c, level, out)? {
            return Ok(());
        }
        let idx_of = |g: &mut Self, e: &Expr| -> R<String> {
            let v = g.expr(e)?;
            Ok(format!("({} ? (uint32_t)({v}) : 0xffffffffu)", g.index_below(e, &v, n)))
        };
        match (inst.kind, method) {
            (ExternKind::V1Counter, "count") => {
                let idx = idx_of(self, in_arg(c, 0)?)?;
                let _ = writeln!(out, "{i}p4dp_counter_count(R->ctx, {ext}u, {idx}, {n}u, R->pkt->len);");
            }
            (ExternKind::V1DirectCounter, "count") => {
                let _ = writeln!(out, "{i}/* direct_counter.count(): counted when the table hits */");
            }
            (ExternKind::V1Meter, "execute_meter") => {
                let idx = idx_of(self, in_arg(c, 0)?)?;
                let r = in_arg(c, 1)?;
                let v = self.color_value(
                    &format!("p4dp_meter_execute(R->ctx, {ext}u, {idx}, R->pkt->len)"),
                    r.ty,
                    c.span,
                )?;
                out.push_str(&self.store(r, &v, level)?);
            }
            (ExternKind::V1DirectMeter, "read") => {
                let r = in_arg(c, 0)?;
                let v = self.color_value(
                    &format!("p4dp_meter_execute(R->ctx, {ext}u, R->entry_index, R->pkt->len)"),
                    r.ty,
                    c.span,
                )?;
                out.push_str(&self.store(r, &v, level)?);
            }
            (ExternKind::V1Register, "read") | (ExternKind::V1Register, "write") => {
                let cell_t = match inst.type_args.first() {
                    Some(t) => *t,
                    None => return unsupported_as(UnsupportedKind::Type, c.span, "register without a cell type"),
                };
                let Some(s) = self.scalar(cell_t) else {
                    return unsupported_as(UnsupportedKind::Type, c.span, "registers of non-scalar cells");
                };
                let cs = storage_size(s.w);
                let ct = self.ctype(cell_t, c.span)?;
                if method == "read" {
                    let r = in_arg(c, 0)?;
                    let idx = self.expr(in_arg(c, 1)?)?;
                    let inr = self.index_below(in_arg(c, 1)?, &idx, n);
                    let _ = writeln!(out, "{i}{{\n{i}\t{ct} _v;\n{i}\tmemset(&_v, 0, sizeof _v);\n{i}\tif ({inr})\n{i}\t\tmemcpy(&_v, (const uint8_t *)p4dp_register_cells(R->ctx, {ext}u) + (size_t)({idx}) * {cs}u, {cs}u);");
                    out.push_str(&self.store(r, "_v", level + 1)?);
                    let _ = writeln!(out, "{i}}}");
                } else {
                    let idx = self.expr(in_arg(c, 0)?)?;
                    let inr = self.index_below(in_arg(c, 0)?, &idx, n);
                    let v = self.expr(in_arg(c, 1)?)?;
                    let _ = writeln!(out, "{i}if ({inr}) {{\n{i}\t{ct} _v = {v};\n{i}\tmemcpy((uint8_t *)p4dp_register_cells(R->ctx, {ext}u) + (size_t)({idx}) * {cs}u, &_v, {cs}u);\n{i}}}");
                }
            }
            (ExternKind::V1Checksum16, "get") => {
                let data = in_arg(c, 0)?;
                let _ = writeln!(out, "{i}{{");
                let mut inner = String::new();
                let (buf, len) = self.serialize(data, level + 1, &mut inner)?;
                out.push_str(&inner);
                let _ = writeln!(out, "{i}\t(void)_b;");
                if let Some(r) = &c.ret {
                    let v = format!("(uint16_t)p4dp_csum16({buf}, {len})");
                    out.push_str(&self.store(r, &v, level + 1)?);
                }
                let _ = writeln!(out, "{i}}}");
            }
            (_, m) => {
                if !self.pna_method(x, m, c, level, out)? {
                    return unsupported_as(
                        UnsupportedKind::ExternMethod,
                        c.span,
                        format!("method `{m}` of extern `{}`", inst.type_name),
                    );
                }
            }
        }
        Ok(())
    }

    fn color_value(&mut self, v: &str, t: TypeId, span: Span) -> R<String> {
        match self.scalar(t) {
            Some(s) if s.w <= 64 => Ok(wrap(&format!("(uint64_t){v}"), s.w)),
            _ if self.is_cint(t) => Ok(format!("(uint32_t){v}")),
            _ => unsupported_as(UnsupportedKind::Type, span, "meter result of this type"),
        }
    }

    fn extern_function(&mut self, name: &str, c: &Call, level: usize, out: &mut String) -> R<()> {
        let i = ind(level);
        let where_ = c_string(&format!("file {} bytes {}..{}", c.span.file, c.span.lo, c.span.hi));
        if self.is_rtc() && self.rtc_function(name, c, level, out)? {
            return Ok(());
        }
        match name {
            "mark_to_drop" => {
                let (lv, t) = match c.args.first() {
                    Some(Arg::InOut(e)) => (self.expr(e)?, e.ty),
                    None => {
                        let lv = self.std_meta_var(c.span)?;
                        let vt = self
                            .vars(self.owner)
                            .iter()
                            .find(|(id, _)| self.var_ref(self.owner, *id) == lv)
                            .map(|(_, v)| v.ty);
                        match vt {
                            Some(t) => (lv, t),
                            None => return unsupported(c.span, "mark_to_drop"),
                        }
                    }
                    _ => return unsupported_as(UnsupportedKind::ExternFunction, c.span, "mark_to_drop argument"),
                };
                let Some((es, _)) = self.field_of(t, "egress_spec") else {
                    return unsupported_as(
                        UnsupportedKind::ExternFunction,
                        c.span,
                        "mark_to_drop: no egress_spec field",
                    );
                };
                let _ = writeln!(out, "{i}({lv}).{es} = 511;");
                if let Some((mg, _)) = self.field_of(t, "mcast_grp") {
                    let _ = writeln!(out, "{i}({lv}).{mg} = 0;");
                }
            }
            "verify" => {
                let rej = self.need_reject(c.span)?;
                let (cond, err) = (self.expr(in_arg(c, 0)?)?, self.expr(in_arg(c, 1)?)?);
                let _ = writeln!(
                    out,
                    "{i}if (!({cond})) {{\n{i}\tR->perr = {err};\n{i}\tgoto {rej};\n{i}}}"
                );
            }
            "hash" => {
                let r = in_arg(c, 0)?;
                let algo = enum_member(self, in_arg(c, 1)?)?;
                let (base_e, data, max_e) = (in_arg(c, 2)?, in_arg(c, 3)?, in_arg(c, 4)?);
                let rs = self.need_narrow(r.ty, c.span)?;
                self.need_narrow(base_e.ty, c.span)?;
                self.need_narrow(max_e.ty, c.span)?;
                let (base, max) = (self.expr(base_e)?, self.expr(max_e)?);
                let _ = writeln!(out, "{i}{{");
                let mut inner = String::new();
                let (buf, len) = self.serialize(data, level + 1, &mut inner)?;
                out.push_str(&inner);
                let h = self.hash_value(&algo, &buf, &len, false, c.span)?;
                let _ = writeln!(out, "{i}\tp4dp_u128 _h = (p4dp_u128){h};\n{i}\tp4dp_u128 _m = (p4dp_u128)({max});\n{i}\tp4dp_u128 _v = (p4dp_u128)({base}) + (_m ? _h % _m : 0);\n{i}\t(void)_b;");
                let v = format!("(({})(_v & p4dp_mask128({})))", storage(rs.w), rs.w);
                out.push_str(&self.store(r, &v, level + 1)?);
                let _ = writeln!(out, "{i}}}");
            }
            "verify_checksum" | "verify_checksum_with_payload" | "update_checksum" | "update_checksum_with_payload" => {
                let payload = name.ends_with("_with_payload");
                let verify = name.starts_with("verify");
                let cond = self.expr(in_arg(c, 0)?)?;
                let data = in_arg(c, 1)?;
                let ck = in_arg(c, 2)?;
                let algo = enum_member(self, in_arg(c, 3)?)?;
                let cs = self.need_narrow(ck.ty, c.span)?;
                let _ = writeln!(out, "{i}if ({cond}) {{");
                let mut inner = String::new();
                let (buf, len) = self.serialize(data, level + 1, &mut inner)?;
                out.push_str(&inner);
                let h = self.hash_value(&algo, &buf, &len, payload, c.span)?;
                let _ = writeln!(out, "{i}\tuint64_t _h = {h};\n{i}\t(void)_b;");
                if verify {
                    let x = self.expr(ck)?;
                    let _ = writeln!(
                        out,
                        "{i}\tif ((_h & {}) != (uint64_t)({x}))\n{i}\t\tR->csum_err = 1;",
                        mask64(cs.w)
                    );
                } else {
                    let v = format!("(({})(_h & {}))", storage(cs.w), mask64(cs.w));
                    out.push_str(&self.store(ck, &v, level + 1)?);
                }
                let _ = writeln!(out, "{i}}}");
            }
            "random" => {
                let r = in_arg(c, 0)?;
                let s = self.need_narrow(r.ty, c.span)?;
                let (lo, hi) = (self.expr(in_arg(c, 1)?)?, self.expr(in_arg(c, 2)?)?);
                let v = format!(
                    "(({})p4dp_rand_range(&R->ctx->rng, (uint64_t)({lo}), (uint64_t)({hi})))",
                    storage(s.w)
                );
                out.push_str(&self.store(r, &v, level)?);
            }
            "digest" => {
                let data = in_arg(c, 1)?;
                let Some(&ext) = self.digest_ext.get(&c.type_args.first().copied().unwrap_or(data.ty)) else {
                    return unsupported_as(UnsupportedKind::Type, c.span, "digest of an unknown type");
                };
                self.digest_send(data, ext, &i, c.span, out)?;
            }
            "log_msg" => {
                let msg = match c.args.first() {
                    Some(Arg::In(Expr {
                        kind: ExprKind::Const(Value::String(s)),
                        ..
                    })) => s.clone(),
                    _ => {
                        return unsupported_as(
                            UnsupportedKind::ExternFunction,
                            c.span,
                            "log_msg needs a constant string",
                        )
                    }
                };
                let mut vals = Vec::new();
                if let Some(Arg::In(d)) = c.args.get(1) {
                    let x = self.expr(d)?;
                    self.log_values(&format!("({x})"), d.ty, &mut vals);
                }
                if vals.is_empty() {
                    let _ = writeln!(out, "{i}p4dp_log_msg(R->ctx, {}, 0, NULL);", c_string(&msg));
                } else {
                    let _ = writeln!(
                        out,
                        "{i}{{\n{i}\tconst uint64_t _lv[] = {{ {} }};\n{i}\tp4dp_log_msg(R->ctx, {}, {}, _lv);\n{i}}}",
                        vals.join(", "),
                        c_string(&msg),
                        vals.len()
                    );
                }
            }
            "assert" | "assume" => {
                let x = self.expr(in_arg(c, 0)?)?;
                let _ = writeln!(
                    out,
                    "{i}if (!({x})) {{\n{i}\tp4dp_assert_fail(R->ctx, {where_});\n{i}\tR->drop = 1;\n{i}}}"
                );
            }
            "truncate" => {
                let x = self.expr(in_arg(c, 0)?)?;
                let _ = writeln!(out, "{i}R->trunc = (uint32_t)({x});");
            }
            "clone" | "clone3" | "clone_preserving_field_list" => {
                let ty = enum_member(self, in_arg(c, 0)?)?;
                let sess = self.expr(in_arg(c, 1)?)?;
                let _ = writeln!(
                    out,
                    "{i}R->clone_type = {};\n{i}R->clone_session = (uint32_t)({sess});",
                    if ty == "E2E" { 1 } else { 0 }
                );
            }
            "resubmit" | "resubmit_preserving_field_list" | "recirculate" | "recirculate_preserving_field_list" => {
                // The flag holds which user metadata survives into the next pass (glue.rs):
                // 1 + the field list index, or 0xFFFFFFFF (no user metadata kept).
                let keep = match c.args.first() {
                    Some(Arg::In(e)) if name.ends_with("_field_list") => {
                        format!("1u + (uint32_t)({})", self.expr(e)?)
                    }
                    Some(Arg::In(e)) => match self.p.types.get(e.ty) {
                        Type::Struct(s) if s.fields.is_empty() => "0xFFFFFFFFu".to_string(),
                        // Deprecated form with a non-empty list: the pass happens, the listed
                        // fields are not preserved; counted so that it is not silent.
                        _ => {
                            let what = format!("{name}({{...}}): the listed fields are not preserved (use {name}_preserving_field_list)");
                            let _ = writeln!(out, "{i}p4dp_count_unsupported(R->ctx, {});", c_string(&what));
                            "0xFFFFFFFFu".to_string()
                        }
                    },
                    // PNA `recirculate()`: only the flag matters.
                    None => "1u".to_string(),
                    Some(_) => {
                        return unsupported_as(
                            UnsupportedKind::ExternFunction,
                            c.span,
                            format!("`{name}`: unexpected argument"),
                        )
                    }
                };
                let flag = if name.starts_with("resubmit") {
                    "resubmit"
                } else {
                    "recirculate"
                };
                let _ = writeln!(out, "{i}R->{flag} = {keep};");
            }
            _ => {
                if !self.pna_function(name, c, level, out)? && !self.dp_function(name, c, level, out)? {
                    return unsupported_as(
                        UnsupportedKind::ExternFunction,
                        c.span,
                        format!("extern function `{name}`"),
                    );
                }
            }
        }
        Ok(())
    }

    /// The C block that packs `data`, a value of a digest type, into a buffer in native layout
    /// (digest_fields, native_layout) and sends it as digest extern `ext`; `i` is its indent.
    pub(crate) fn digest_send(&mut self, data: &Expr, ext: u32, i: &str, span: Span, out: &mut String) -> R<()> {
        let x = self.expr(data)?;
        let ct = self.ctype(data.ty, span)?;
        let fields = self.digest_fields(data.ty, span)?;
        let (lay, len) = native_layout(&fields.iter().map(|(_, w)| *w).collect::<Vec<_>>());
        let _ = writeln!(
            out,
            "{i}{{\n{i}\t{ct} _d = {x};\n{i}\tuint8_t _g[{}];\n{i}\tmemset(_g, 0, sizeof _g);",
            len.max(1)
        );
        for ((f, _), (off, size)) in fields.iter().zip(lay) {
            let lvf = if f.is_empty() {
                "_d".to_string()
            } else {
                format!("_d.{f}")
            };
            let _ = writeln!(out, "{i}\tmemcpy(_g + {off}, &{lvf}, {size});");
        }
        let _ = writeln!(out, "{i}\tp4dp_digest_send(R->ctx, {ext}u, _g, {len}u);\n{i}}}");
        Ok(())
    }

    /// Scalar leaves of a digest type: (C member path relative to the value, width).
    pub fn digest_fields(&self, t: TypeId, span: Span) -> R<Vec<(String, u32)>> {
        if let Some(s) = self.scalar(t) {
            return Ok(vec![(String::new(), s.w)]);
        }
        match self.p.types.get(t) {
            Type::Struct(_) | Type::Header(_) | Type::Tuple(_) => {
                let mut out = Vec::new();
                for (f, ft) in self.fields(t) {
                    match self.scalar(ft) {
                        Some(s) => out.push((f, s.w)),
                        None if self.is_cint(ft) => out.push((f, 32)),
                        None => {
                            return unsupported_as(UnsupportedKind::Type, span, "digest data with a non-scalar field")
                        }
                    }
                }
                Ok(out)
            }
            _ => unsupported_as(UnsupportedKind::Type, span, "digest of this type"),
        }
    }

    fn log_values(&self, x: &str, t: TypeId, out: &mut Vec<String>) {
        if self.is_cint(t) {
            out.push(format!("(uint64_t){x}"));
            return;
        }
        for (f, ft) in self.fields(t) {
            self.log_values(&format!("{x}.{f}"), ft, out);
        }
    }
}

/// Whether `e` is a plain variable.
fn lv_is_var(e: &Expr) -> bool {
    matches!(e.kind, ExprKind::Var(_))
}
