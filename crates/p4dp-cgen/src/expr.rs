//! Expressions: every IR expression becomes a C expression of the C type of its IR type, whose
//! value is always masked to its width. Arithmetic is computed in `opty(w)` (never in promoted
//! `int`), signed operations sign-extend first (`p4dp_sext64/128`).

use num_traits::ToPrimitive;
use p4dp_ir::*;

use crate::ctype::{mask_lit, opty, storage, wrap, Scalar};
use crate::{unsupported, unsupported_as, Gen, UnsupportedKind, R};

/// The constant result of an unsigned comparison `x op c` that holds for every `x`, if any.
pub fn trivial_unsigned_cmp(op: BinOp, c: &Expr, w: u32) -> Option<u8> {
    let ExprKind::Const(Value::Bits { bits, .. }) = &c.kind else {
        return None;
    };
    let zero = bits.bits() == 0;
    // only the storage type's own maximum is a type limit for gcc
    let at_max = w == crate::ctype::storage_size(w) * 8 && bits.bits() == w as u64 && bits.count_ones() == w as u64;
    match op {
        BinOp::Ge if zero => Some(1),
        BinOp::Lt if zero => Some(0),
        BinOp::Le if at_max => Some(1),
        BinOp::Gt if at_max => Some(0),
        _ => None,
    }
}

impl Gen<'_> {
    /// The C expression of `e` in the current owner.
    pub fn expr(&mut self, e: &Expr) -> R<String> {
        let p = self.p;
        match &e.kind {
            ExprKind::Const(v) => self.value(v, e.ty, e.span),
            ExprKind::Var(v) => {
                if matches!(p.types.get(e.ty), Type::Extern { .. }) {
                    return unsupported_as(UnsupportedKind::Type, e.span, "an extern object used as a value");
                }
                Ok(self.var_ref(self.owner, *v))
            }
            ExprKind::Field(b, i) => {
                let base = self.expr(b)?;
                Ok(format!("({}).{}", base, self.field_name(b.ty, *i)))
            }
            ExprKind::StackElem(b, i) => {
                let size = match p.types.get(b.ty) {
                    Type::Stack { size, .. } => *size,
                    _ => return unsupported(e.span, "indexing a non-stack"),
                };
                let base = self.expr(b)?;
                let idx = self.stack_index(i, size)?.0;
                Ok(format!("({base}).e[{idx}]"))
            }
            ExprKind::StackNextIndex(b) => Ok(format!("({}).next_index", self.expr(b)?)),
            ExprKind::Slice(b, hi, lo) => self.slice(b, *hi, *lo, e),
            ExprKind::Concat(a, b) => self.concat(a, b, e),
            ExprKind::Cast(a) => self.cast(a, e.ty, e.span),
            ExprKind::Unary(op, a) => {
                let x = self.expr(a)?;
                match op {
                    UnOp::Not => Ok(format!("(!({x}))")),
                    UnOp::Neg | UnOp::BitNot => {
                        let s = self.need_narrow(e.ty, e.span)?;
                        let ot = opty(s.w);
                        if *op == UnOp::Neg {
                            Ok(wrap(&format!("({ot})0 - ({ot})({x})"), s.w))
                        } else {
                            Ok(wrap(&format!("~({ot})({x})"), s.w))
                        }
                    }
                }
            }
            ExprKind::Binary(op, a, b) => self.binary(*op, a, b, e),
            ExprKind::Mux(c, a, b) => {
                let (c, a, b) = (self.expr(c)?, self.expr(a)?, self.expr(b)?);
                Ok(format!("(({c}) ? ({a}) : ({b}))"))
            }
            ExprKind::IsValid(a) => {
                let x = self.expr(a)?;
                match p.types.get(a.ty) {
                    Type::Header(_) => Ok(format!("(({x}).valid)")),
                    Type::HeaderUnion(_) => {
                        let fs = self.fields(a.ty);
                        if fs.is_empty() {
                            return Ok("0".into());
                        }
                        let parts: Vec<String> = fs.iter().map(|(f, _)| format!("({x}).{f}.valid")).collect();
                        Ok(format!("({})", parts.join(" | ")))
                    }
                    _ => unsupported(e.span, "isValid() on a non-header"),
                }
            }
            ExprKind::List(es) => {
                let ct = self.ctype(e.ty, e.span)?;
                let fs = self.fields(e.ty);
                if fs.len() != es.len() {
                    return unsupported(e.span, "list expression with a field count different from its type");
                }
                let mut parts = Vec::new();
                for ((f, _), x) in fs.iter().zip(es) {
                    parts.push(format!(".{} = {}", f, self.expr(x)?));
                }
                if matches!(p.types.get(e.ty), Type::Header(_)) {
                    parts.push(".valid = 1".into());
                }
                if parts.is_empty() {
                    return Ok(format!("(({ct}){{0}})"));
                }
                Ok(format!("(({ct}){{ {} }})", parts.join(", ")))
            }
        }
    }

    /// A scalar of at most 128 bits, or an error.
    pub fn need_narrow(&self, t: TypeId, span: Span) -> R<Scalar> {
        match self.scalar(t) {
            Some(s) if s.w <= 128 => Ok(s),
            Some(s) => unsupported_as(UnsupportedKind::WideValue, span, format!("this operation on a {}-bit value (only copy, ==, !=, slices, concatenation, extract/emit and table keys are supported above 128 bits)", s.w)),
            None => unsupported_as(UnsupportedKind::Type, span, "arithmetic on a non-scalar type"),
        }
    }

    /// The C index expression for a stack index (clamped into range for safe reads) and the
    /// guard condition under which a write through it takes effect.
    pub fn stack_index(&mut self, i: &Expr, size: u32) -> R<(String, Option<String>)> {
        if let ExprKind::Const(Value::Bits { bits, .. }) = &i.kind {
            let n = bits.to_u64().unwrap_or(u64::MAX);
            if n < size as u64 {
                return Ok((n.to_string(), None));
            }
            return Ok(("0".into(), Some("0".into())));
        }
        let x = self.expr(i)?;
        let last = size.saturating_sub(1);
        Ok((
            format!("(({x}) < {size}u ? (uint32_t)({x}) : {last}u)"),
            Some(format!("(({x}) < {size}u)")),
        ))
    }

    fn slice(&mut self, b: &Expr, hi: u32, lo: u32, e: &Expr) -> R<String> {
        let bs = match self.scalar(b.ty) {
            Some(s) => s,
            None => return unsupported_as(UnsupportedKind::Type, e.span, "slice of a non-scalar"),
        };
        let w = hi - lo + 1;
        let x = self.expr(b)?;
        if bs.w <= 128 {
            let ot = opty(bs.w);
            let ow = opty(w);
            return Ok(format!(
                "(({})(({})(({ot})({x}) >> {lo}) & {}))",
                storage(w),
                ow,
                mask_lit(w)
            ));
        }
        // wide base: bits counted from the MSB of the right-aligned big-endian bytes
        let bt = self.ctype(b.ty, e.span)?;
        let off = bs.w.div_ceil(8) * 8 - 1 - hi;
        if w <= 128 {
            let get = if w <= 64 { "p4dp_bits_get64" } else { "p4dp_bits_get128" };
            return Ok(format!(
                "({{ {bt} _s = ({x}); ({})({get}(_s.b, {off}u, {w})); }})",
                storage(w)
            ));
        }
        let rt = self.ctype(e.ty, e.span)?;
        let roff = w.div_ceil(8) * 8 - w;
        Ok(format!(
            "({{ {bt} _s = ({x}); {rt} _r; memset(&_r, 0, sizeof _r); p4dp_bits_copy(_r.b, {roff}u, _s.b, {off}u, {w}u); _r; }})"
        ))
    }

    fn concat(&mut self, a: &Expr, b: &Expr, e: &Expr) -> R<String> {
        let (sa, sb) = match (self.scalar(a.ty), self.scalar(b.ty)) {
            (Some(x), Some(y)) => (x, y),
            _ => return unsupported_as(UnsupportedKind::Type, e.span, "concatenation of non-scalars"),
        };
        let w = sa.w + sb.w;
        let (xa, xb) = (self.expr(a)?, self.expr(b)?);
        if w <= 128 {
            let ot = opty(w);
            if sb.w == 0 {
                return Ok(format!("(({})({xa}))", storage(w)));
            }
            return Ok(format!("(({})((({ot})({xa}) << {}) | ({ot})({xb})))", storage(w), sb.w));
        }
        let rt = self.ctype(e.ty, e.span)?;
        let base = w.div_ceil(8) * 8 - w;
        let mut s = format!("({{ {rt} _c; memset(&_c, 0, sizeof _c); ");
        s.push_str(&self.put_bits("_c.b", &format!("{base}u"), &xa, a.ty, e.span)?);
        s.push(' ');
        s.push_str(&self.put_bits("_c.b", &format!("{}u", base + sa.w), &xb, b.ty, e.span)?);
        s.push_str(" _c; })");
        Ok(s)
    }

    /// A C statement writing scalar value `val` (C expr of type `t`) at bit offset `off` of `buf`.
    pub fn put_bits(&mut self, buf: &str, off: &str, val: &str, t: TypeId, span: Span) -> R<String> {
        let s = match self.scalar(t) {
            Some(s) => s,
            None => return unsupported_as(UnsupportedKind::Type, span, "bit string of a non-scalar"),
        };
        if s.w == 0 {
            return Ok(String::new());
        }
        if s.w <= 64 {
            Ok(format!("p4dp_bits_set64({buf}, {off}, {}, (uint64_t)({val}));", s.w))
        } else if s.w <= 128 {
            Ok(format!("p4dp_bits_set128({buf}, {off}, {}, (p4dp_u128)({val}));", s.w))
        } else {
            let ct = self.ctype(t, span)?;
            let pad = s.w.div_ceil(8) * 8 - s.w;
            Ok(format!(
                "{{ {ct} _w = ({val}); p4dp_bits_copy({buf}, {off}, _w.b, {pad}u, {}u); }}",
                s.w
            ))
        }
    }

    fn cast(&mut self, a: &Expr, to: TypeId, span: Span) -> R<String> {
        let p = self.p;
        let x = self.expr(a)?;
        if a.ty == to {
            return Ok(x);
        }
        let (ft, tt) = (p.types.get(a.ty), p.types.get(to));
        // enums / errors: same representation
        if (matches!(tt, Type::Enum { .. } | Type::Error) || matches!(ft, Type::Enum { .. } | Type::Error))
            && self.is_cint(a.ty)
            && self.is_cint(to)
        {
            return Ok(format!("(({})({x}))", self.ctype(to, span)?));
        }
        let (fs, ts) = match (self.scalar(a.ty), self.scalar(to)) {
            (Some(f), Some(t)) => (f, t),
            _ => {
                // structurally identical aggregates (e.g. a list to a struct) share the layout only
                // if they are the same C type
                let (cf, ct) = (self.ctype(a.ty, span)?, self.ctype(to, span)?);
                if cf == ct {
                    return Ok(x);
                }
                return unsupported_as(UnsupportedKind::Type, span, "cast between these types");
            }
        };
        if ts.is_bool {
            return Ok(format!("(({x}) != 0)"));
        }
        if fs.is_bool {
            return Ok(format!("(({})({x}))", self.ctype(to, span)?));
        }
        if ts.w <= 128 && fs.w <= 128 {
            let ot = opty(ts.w);
            if fs.signed && ts.w > fs.w {
                let sext = if fs.w <= 64 { "p4dp_sext64" } else { "p4dp_sext128" };
                return Ok(wrap(&format!("({ot}){sext}({x}, {})", fs.w), ts.w));
            }
            if ts.w >= fs.w {
                return Ok(format!("(({})({x}))", storage(ts.w)));
            }
            return Ok(wrap(&format!("({ot})({x})",), ts.w));
        }
        if fs.w > 128 {
            // truncate a wide value to its low ts.w bits
            let ft_c = self.ctype(a.ty, span)?;
            let keep = ts.w.min(fs.w);
            let off = fs.w.div_ceil(8) * 8 - keep;
            if ts.w <= 128 {
                let get = if keep <= 64 {
                    "p4dp_bits_get64"
                } else {
                    "p4dp_bits_get128"
                };
                return Ok(format!(
                    "({{ {ft_c} _s = ({x}); ({})({get}(_s.b, {off}u, {keep})); }})",
                    storage(ts.w)
                ));
            }
            let tt_c = self.ctype(to, span)?;
            let roff = ts.w.div_ceil(8) * 8 - keep;
            return Ok(format!(
                "({{ {ft_c} _s = ({x}); {tt_c} _r; memset(&_r, 0, sizeof _r); p4dp_bits_copy(_r.b, {roff}u, _s.b, {off}u, {keep}u); _r; }})"
            ));
        }
        // narrow -> wide: zero extension (sign extension is not supported)
        if fs.signed {
            return unsupported_as(
                UnsupportedKind::WideValue,
                span,
                "sign-extending cast to more than 128 bits",
            );
        }
        let tt_c = self.ctype(to, span)?;
        let roff = ts.w.div_ceil(8) * 8 - fs.w;
        let put = self.put_bits("_r.b", &format!("{roff}u"), &x, a.ty, span)?;
        Ok(format!("({{ {tt_c} _r; memset(&_r, 0, sizeof _r); {put} _r; }})"))
    }

    fn binary(&mut self, op: BinOp, a: &Expr, b: &Expr, e: &Expr) -> R<String> {
        use BinOp::*;
        match op {
            And | Or => {
                let (x, y) = (self.expr(a)?, self.expr(b)?);
                return Ok(format!("(({x}) {} ({y}))", if op == And { "&&" } else { "||" }));
            }
            Eq | Ne => {
                let (x, y) = (self.expr(a)?, self.expr(b)?);
                let eq = self.eq_expr(&x, &y, a.ty, e.span)?;
                return Ok(if op == Eq { eq } else { format!("(!{eq})") });
            }
            _ => {}
        }
        let s = match self.scalar(a.ty) {
            Some(_) => self.need_narrow(a.ty, e.span)?,
            None if self.is_cint(a.ty) => Scalar {
                w: 32,
                signed: false,
                is_bool: false,
            },
            None => return unsupported_as(UnsupportedKind::Type, e.span, format!("operator {op:?} on this type")),
        };
        let (x, y) = (self.expr(a)?, self.expr(b)?);
        let w = s.w;
        let ot = opty(w);
        let big = w > 64;
        let sext = |v: &str| {
            if big {
                format!("p4dp_sext128({v}, {w})")
            } else {
                format!("p4dp_sext64({v}, {w})")
            }
        };
        Ok(match op {
            Add | Sub | Mul => {
                let o = match op {
                    Add => "+",
                    Sub => "-",
                    _ => "*",
                };
                wrap(&format!("({ot})({x}) {o} ({ot})({y})"), w)
            }
            Div | Mod => {
                let o = if op == Div { "/" } else { "%" };
                let q = if s.signed {
                    wrap(
                        &format!("({ot})((p4dp_s128){} {o} (p4dp_s128){})", sext(&x), sext(&y)),
                        w,
                    )
                } else {
                    wrap(&format!("({ot})({x}) {o} ({ot})({y})"), w)
                };
                format!("(({y}) == 0 ? ({})0 : {q})", storage(w))
            }
            AddSat | SubSat => {
                let f = format!(
                    "p4dp_{}sat_{}{}",
                    if op == AddSat { "add" } else { "sub" },
                    if s.signed { "s" } else { "u" },
                    if big { "128" } else { "64" }
                );
                format!("(({})({f}({x}, {y}, {w})))", storage(w))
            }
            Shl | Shr => {
                // constant shift amounts are resolved here (no out-of-range shifts in C)
                let amount = match &b.kind {
                    ExprKind::Const(Value::Bits { bits, .. }) => Some(bits.to_u64().unwrap_or(u64::MAX)),
                    _ => None,
                };
                if op == Shr && s.signed {
                    let f = if big { "p4dp_sar128" } else { "p4dp_sar64" };
                    let amt = match amount {
                        Some(n) => format!("{}u", n.min(w as u64)),
                        None => format!("(({y}) >= {w}u ? {w}u : (unsigned)({y}))"),
                    };
                    return Ok(format!("(({})({f}({x}, {w}, {amt})))", storage(w)));
                }
                let o = if op == Shl { "<<" } else { ">>" };
                match amount {
                    Some(n) if n >= w as u64 => format!("(({})0)", storage(w)),
                    Some(n) => wrap(&format!("({ot})({x}) {o} {n}"), w),
                    None => format!(
                        "(({y}) >= {w}u ? ({})0 : {})",
                        storage(w),
                        wrap(&format!("({ot})({x}) {o} (unsigned)({y})"), w)
                    ),
                }
            }
            BitAnd | BitOr | BitXor => {
                let o = match op {
                    BitAnd => "&",
                    BitOr => "|",
                    _ => "^",
                };
                format!("(({})(({x}) {o} ({y})))", storage(w))
            }
            Lt | Le | Gt | Ge => {
                let o = match op {
                    Lt => "<",
                    Le => "<=",
                    Gt => ">",
                    _ => ">=",
                };
                if s.signed {
                    format!("({} {o} {})", sext(&x), sext(&y))
                } else if let Some(t) = trivial_unsigned_cmp(op, b, w) {
                    // `x >= 0`, `x < 0`, `x <= MAX`, `x > MAX`: constant results (gcc's
                    // -Wtype-limits rejects the literal comparison)
                    t.to_string()
                } else {
                    format!("(({x}) {o} ({y}))")
                }
            }
            And | Or | Eq | Ne => unreachable!("handled above"),
        })
    }
}
