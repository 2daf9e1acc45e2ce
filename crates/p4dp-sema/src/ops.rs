//! Operators: unary, binary (with `int` folding and implicit casts), shifts, short-circuit
//! logic, concatenation, `?:` and explicit casts.

use num_bigint::BigInt;
use num_traits::{Signed, Zero};

use p4dp_ir as ir;
use p4dp_ir::{BinOp, ExprKind, Stmt, Type, UnOp, Value};
use p4dp_syntax::ast;
use p4dp_syntax::Span;

use crate::consts::{self, int_shape};
use crate::expr::{arith, as_const, cnst, is_cmp, mk, op_str, Val};
use crate::{ispan, Sema};

impl<'a> Sema<'a> {
    // ----------------------------------------------------------------------------------------
    // operators

    pub(crate) fn unary(
        &mut self,
        span: Span,
        op: ast::UnaryOp,
        a: &'a ast::Expr,
        exp: Option<ir::TypeId>,
        pre: &mut Vec<Stmt>,
    ) -> Val<'a> {
        let v = self.expr(a, if op == ast::UnaryOp::Not { None } else { exp }, pre);
        let v = match v {
            Val::Int(i) => {
                return match op {
                    ast::UnaryOp::Neg => Val::Int(-i),
                    ast::UnaryOp::Plus => Val::Int(i),
                    ast::UnaryOp::BitNot => match exp.and_then(|t| int_shape(&self.p.types, t).map(|s| (t, s))) {
                        Some((t, (w, s))) if matches!(self.ty(t), Type::Bit(_) | Type::Int(_)) => {
                            if !consts::fits(&i, w, s) {
                                let tn = self.tname(t);
                                self.err("E0302", format!("value `{i}` does not fit `{tn}`"), a.span, "too large");
                                return Val::Err;
                            }
                            Val::E(cnst(consts::bits(&(-i - 1), w, s), t, span))
                        }
                        _ => {
                            self.err(
                                "E0303",
                                "cannot infer a width for `~` of an integer",
                                span,
                                "type unknown",
                            );
                            Val::Err
                        }
                    },
                    ast::UnaryOp::Not => {
                        self.err(
                            "E0304",
                            "`!` needs a `bool` operand, found an integer",
                            span,
                            "not bool",
                        );
                        Val::Err
                    }
                };
            }
            v => v,
        };
        let Some(x) = self.rvalue(v, a.span) else {
            return Val::Err;
        };
        let x = self.ser_to_underlying(x, span);
        let (iop, ok) = match op {
            ast::UnaryOp::Not => (UnOp::Not, matches!(self.ty(x.ty), Type::Bool)),
            ast::UnaryOp::Neg => (UnOp::Neg, matches!(self.ty(x.ty), Type::Bit(_) | Type::Int(_))),
            ast::UnaryOp::BitNot => (UnOp::BitNot, matches!(self.ty(x.ty), Type::Bit(_) | Type::Int(_))),
            ast::UnaryOp::Plus => {
                if matches!(self.ty(x.ty), Type::Bit(_) | Type::Int(_)) {
                    return Val::E(x);
                }
                (UnOp::Neg, false)
            }
        };
        if !ok {
            let tn = self.tname(x.ty);
            self.err(
                "E0304",
                format!("unary operator cannot be applied to `{tn}`"),
                span,
                "wrong operand type",
            );
            return Val::Err;
        }
        let ty = x.ty;
        if let Some(c) = as_const(&x) {
            if let Some(r) = consts::fold_unary(iop, c, int_shape(&self.p.types, ty)) {
                return Val::E(cnst(r, ty, span));
            }
        }
        Val::E(mk(ExprKind::Unary(iop, Box::new(x)), ty, span))
    }

    pub(crate) fn ser_to_underlying(&mut self, x: ir::Expr, span: Span) -> ir::Expr {
        if let Type::SerEnum { underlying, .. } = self.ty(x.ty) {
            let u = *underlying;
            return self.mk_cast(x, u, span);
        }
        x
    }

    /// Snapshots `x` into a temporary if it reads state (used when a later operand has calls).
    pub(crate) fn snapshot(&mut self, x: ir::Expr, pre: &mut Vec<Stmt>) -> ir::Expr {
        if as_const(&x).is_some() || matches!(x.kind, ExprKind::Var(v) if self.cx.temps.contains(&v)) {
            return x;
        }
        let sp = x.span;
        let t = self.tmp(x.ty, Span::new(p4dp_syntax::FileId(sp.file), sp.lo, sp.hi));
        let tv = ir::Expr {
            kind: ExprKind::Var(t),
            ty: x.ty,
            span: sp,
        };
        pre.push(Stmt::Assign {
            dst: tv.clone(),
            src: x,
            span: sp,
        });
        tv
    }

    pub(crate) fn snapshot_val(&mut self, v: Val<'a>, pre: &mut Vec<Stmt>) -> Val<'a> {
        match v {
            Val::E(x) => Val::E(self.snapshot(x, pre)),
            o => o,
        }
    }

    pub(crate) fn binary(
        &mut self,
        span: Span,
        op: ast::BinaryOp,
        l: &'a ast::Expr,
        r: &'a ast::Expr,
        exp: Option<ir::TypeId>,
        pre: &mut Vec<Stmt>,
    ) -> Val<'a> {
        if matches!(op, ast::BinaryOp::And | ast::BinaryOp::Or) {
            return self.logical(span, op, l, r, pre);
        }
        let Some(bop) = arith(op) else {
            return self.concat(span, l, r, pre);
        };
        let hint = if is_cmp(bop) { None } else { exp };
        let lv = self.expr(l, hint, pre);
        let mut rpre = Vec::new();
        let rhint = if matches!(bop, BinOp::Shl | BinOp::Shr) {
            None
        } else {
            hint
        };
        let rv = self.expr(r, rhint, &mut rpre);
        let lv = if rpre.is_empty() {
            lv
        } else {
            self.snapshot_val(lv, pre)
        };
        pre.append(&mut rpre);
        self.binop_vals(span, bop, lv, rv, l.span, r.span, exp)
    }

    /// Types and folds `lv op rv`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn binop_vals(
        &mut self,
        span: Span,
        op: BinOp,
        lv: Val<'a>,
        rv: Val<'a>,
        ls: Span,
        rs: Span,
        exp: Option<ir::TypeId>,
    ) -> Val<'a> {
        let bool_t = self.t_bool();
        if matches!(op, BinOp::Shl | BinOp::Shr) {
            return self.shift(span, op, lv, rv, ls, rs, exp);
        }
        match (lv, rv) {
            (Val::Err, _) | (_, Val::Err) => Val::Err,
            (Val::Int(a), Val::Int(b)) => match consts::int_binop(op, &a, &b) {
                Ok(consts::IntOrBool::I(v)) => Val::Int(v),
                Ok(consts::IntOrBool::B(v)) => Val::E(cnst(Value::Bool(v), bool_t, span)),
                Err(m) => {
                    self.err("E0304", m, span, "cannot evaluate");
                    Val::Err
                }
            },
            (Val::Int(a), other) => {
                let Some(y) = self.rvalue(other, rs) else {
                    return Val::Err;
                };
                let y = if is_cmp(op) || !matches!(self.ty(y.ty), Type::SerEnum { .. }) {
                    y
                } else {
                    self.ser_to_underlying(y, rs)
                };
                let t = match self.ty(y.ty) {
                    Type::SerEnum { underlying, .. } => *underlying,
                    _ => y.ty,
                };
                let y = if t != y.ty { self.mk_cast(y, t, rs) } else { y };
                let Some(x) = self.coerce(Val::Int(a), t, ls) else {
                    return Val::Err;
                };
                self.typed_binop(span, op, x, y)
            }
            (other, Val::Int(b)) => {
                let Some(x) = self.rvalue(other, ls) else {
                    return Val::Err;
                };
                let x = self.ser_to_underlying(x, ls);
                let Some(y) = self.coerce(Val::Int(b), x.ty, rs) else {
                    return Val::Err;
                };
                self.typed_binop(span, op, x, y)
            }
            (a, b) => {
                let Some(x) = self.rvalue(a, ls) else { return Val::Err };
                let Some(y) = self.rvalue(b, rs) else { return Val::Err };
                let (x, y) = if x.ty != y.ty || !is_cmp(op) {
                    (self.ser_to_underlying(x, ls), self.ser_to_underlying(y, rs))
                } else {
                    (x, y)
                };
                if x.ty != y.ty {
                    let (a, b) = (self.tname(x.ty), self.tname(y.ty));
                    self.report(
                        p4dp_syntax::Diagnostic::error(
                            "E0301",
                            format!("operands have different types: `{a}` and `{b}`"),
                            span,
                            "mismatched operand types",
                        )
                        .with_help("cast one operand so that both have the same type"),
                    );
                    return Val::Err;
                }
                self.typed_binop(span, op, x, y)
            }
        }
    }

    pub(crate) fn typed_binop(&mut self, span: Span, op: BinOp, x: ir::Expr, y: ir::Expr) -> Val<'a> {
        let t = x.ty;
        let ok = match op {
            BinOp::Eq | BinOp::Ne => !matches!(
                self.ty(t),
                Type::Void | Type::Extern { .. } | Type::MatchKind | Type::String
            ),
            BinOp::And | BinOp::Or => matches!(self.ty(t), Type::Bool),
            BinOp::Div | BinOp::Mod => {
                matches!(self.ty(t), Type::Bit(_))
                    || (as_const(&x).is_some() && as_const(&y).is_some() && matches!(self.ty(t), Type::Int(_)))
            }
            _ => matches!(self.ty(t), Type::Bit(_) | Type::Int(_)),
        };
        if !ok {
            let tn = self.tname(t);
            self.err(
                "E0304",
                format!("operator `{}` cannot be applied to `{tn}`", op_str(op)),
                span,
                "wrong operand type",
            );
            return Val::Err;
        }
        if matches!(op, BinOp::Div | BinOp::Mod) {
            if let Some(v) = as_const(&y) {
                if consts::to_int(v).is_some_and(|z| z.is_zero()) {
                    self.err("E0304", "division by zero", span, "divisor is 0");
                    return Val::Err;
                }
            }
        }
        let rt = if is_cmp(op) { self.t_bool() } else { t };
        if let (Some(a), Some(b)) = (as_const(&x), as_const(&y)) {
            let shape = int_shape(&self.p.types, t);
            let folded = match (a, b) {
                (Value::Bits { .. }, Value::Bits { .. }) | (Value::Bool(_), Value::Bool(_)) => {
                    consts::fold_binary(op, a, b, shape)
                }
                _ if matches!(op, BinOp::Eq | BinOp::Ne) => Some(Value::Bool((a == b) == (op == BinOp::Eq))),
                _ => None,
            };
            if let Some(v) = folded {
                return Val::E(cnst(v, rt, span));
            }
        }
        Val::E(mk(ExprKind::Binary(op, Box::new(x), Box::new(y)), rt, span))
    }

    #[allow(clippy::too_many_arguments)]
    pub(crate) fn shift(
        &mut self,
        span: Span,
        op: BinOp,
        lv: Val<'a>,
        rv: Val<'a>,
        ls: Span,
        rs: Span,
        exp: Option<ir::TypeId>,
    ) -> Val<'a> {
        let y = match rv {
            Val::Err => return Val::Err,
            Val::Int(i) => {
                if i.is_negative() {
                    self.err("E0304", "shift amount must not be negative", rs, "negative shift");
                    return Val::Err;
                }
                if let Val::Int(a) = &lv {
                    return match consts::int_binop(op, a, &i) {
                        Ok(consts::IntOrBool::I(v)) => Val::Int(v),
                        _ => {
                            self.err("E0304", "shift amount too large", rs, "too large");
                            Val::Err
                        }
                    };
                }
                let w = (i.bits() as u32).max(32);
                let t = self.t_bit(w);
                cnst(consts::bits(&i, w, false), t, rs)
            }
            other => {
                let Some(y) = self.rvalue(other, rs) else {
                    return Val::Err;
                };
                if !matches!(self.ty(y.ty), Type::Bit(_)) {
                    let tn = self.tname(y.ty);
                    self.err(
                        "E0304",
                        format!("shift amount must be unsigned (`bit<W>`), not `{tn}`"),
                        rs,
                        "not unsigned",
                    );
                    return Val::Err;
                }
                y
            }
        };
        let x = match lv {
            Val::Int(a) => match exp.filter(|t| matches!(self.ty(*t), Type::Bit(_) | Type::Int(_))) {
                Some(t) => match self.coerce(Val::Int(a), t, ls) {
                    Some(x) => x,
                    None => return Val::Err,
                },
                None => {
                    self.err(
                        "E0303",
                        "cannot infer the width of the shifted integer",
                        ls,
                        "type unknown",
                    );
                    return Val::Err;
                }
            },
            other => match self.rvalue(other, ls) {
                Some(x) => self.ser_to_underlying(x, ls),
                None => return Val::Err,
            },
        };
        let Some(shape) = (match self.ty(x.ty) {
            Type::Bit(_) | Type::Int(_) => int_shape(&self.p.types, x.ty),
            _ => None,
        }) else {
            let tn = self.tname(x.ty);
            self.err(
                "E0304",
                format!("cannot shift a value of type `{tn}`"),
                ls,
                "not `bit<W>`/`int<W>`",
            );
            return Val::Err;
        };
        let t = x.ty;
        if let (Some(a), Some(b)) = (as_const(&x), as_const(&y)) {
            if let Some(v) = consts::fold_binary(op, a, b, Some(shape)) {
                return Val::E(cnst(v, t, span));
            }
        }
        Val::E(mk(ExprKind::Binary(op, Box::new(x), Box::new(y)), t, span))
    }

    pub(crate) fn logical(
        &mut self,
        span: Span,
        op: ast::BinaryOp,
        l: &'a ast::Expr,
        r: &'a ast::Expr,
        pre: &mut Vec<Stmt>,
    ) -> Val<'a> {
        let bt = self.t_bool();
        let x = self.expr_as(l, bt, pre);
        let mut rpre = Vec::new();
        let y = self.expr_as(r, bt, &mut rpre);
        let (Some(x), Some(y)) = (x, y) else { return Val::Err };
        let bop = if op == ast::BinaryOp::And {
            BinOp::And
        } else {
            BinOp::Or
        };
        if rpre.is_empty() {
            if let (Some(a), Some(b)) = (as_const(&x), as_const(&y)) {
                if let Some(v) = consts::fold_binary(bop, a, b, None) {
                    return Val::E(cnst(v, bt, span));
                }
            }
            return Val::E(mk(ExprKind::Binary(bop, Box::new(x), Box::new(y)), bt, span));
        }
        // Short-circuit with side effects: tmp = x; if (tmp) / if (!tmp) { rpre; tmp = y; }
        let t = self.tmp(bt, span);
        let tv = mk(ExprKind::Var(t), bt, span);
        pre.push(Stmt::Assign {
            dst: tv.clone(),
            src: x,
            span: ispan(span),
        });
        rpre.push(Stmt::Assign {
            dst: tv.clone(),
            src: y,
            span: ispan(span),
        });
        let cond = if bop == BinOp::And {
            tv.clone()
        } else {
            mk(ExprKind::Unary(UnOp::Not, Box::new(tv.clone())), bt, span)
        };
        pre.push(Stmt::If {
            cond,
            then_: rpre,
            else_: Vec::new(),
            span: ispan(span),
        });
        Val::E(tv)
    }

    pub(crate) fn concat(&mut self, span: Span, l: &'a ast::Expr, r: &'a ast::Expr, pre: &mut Vec<Stmt>) -> Val<'a> {
        let lv = self.expr(l, None, pre);
        let mut rpre = Vec::new();
        let rv = self.expr(r, None, &mut rpre);
        let lv = if rpre.is_empty() {
            lv
        } else {
            self.snapshot_val(lv, pre)
        };
        pre.append(&mut rpre);
        let (Some(x), Some(y)) = (self.rvalue(lv, l.span), self.rvalue(rv, r.span)) else {
            return Val::Err;
        };
        let x = self.ser_to_underlying(x, l.span);
        let y = self.ser_to_underlying(y, r.span);
        let (Some((wa, sa)), Some((wb, _))) = (int_shape(&self.p.types, x.ty), int_shape(&self.p.types, y.ty)) else {
            let (a, b) = (self.tname(x.ty), self.tname(y.ty));
            self.err(
                "E0304",
                format!("`++` needs `bit<W>`/`int<W>` operands, found `{a}` and `{b}`"),
                span,
                "wrong operand types",
            );
            return Val::Err;
        };
        let w = wa + wb;
        if w > crate::types::MAX_WIDTH {
            self.err("E0309", "concatenation result is too wide", span, "too wide");
            return Val::Err;
        }
        let t = self.intern(if sa { Type::Int(w) } else { Type::Bit(w) });
        if let (Some(a), Some(b)) = (as_const(&x), as_const(&y)) {
            if let Some(v) = consts::fold_concat(a, b, sa) {
                return Val::E(cnst(v, t, span));
            }
        }
        Val::E(mk(ExprKind::Concat(Box::new(x), Box::new(y)), t, span))
    }

    pub(crate) fn ternary(
        &mut self,
        span: Span,
        c: &'a ast::Expr,
        a: &'a ast::Expr,
        b: &'a ast::Expr,
        exp: Option<ir::TypeId>,
        pre: &mut Vec<Stmt>,
    ) -> Val<'a> {
        let bt = self.t_bool();
        let cond = self.expr_as(c, bt, pre);
        let mut apre = Vec::new();
        let mut bpre = Vec::new();
        let av = self.expr(a, exp, &mut apre);
        let bv = self.expr(b, exp, &mut bpre);
        let Some(cond) = cond else { return Val::Err };
        // Decide the result type.
        let ty = match (&av, &bv) {
            (Val::Err, _) | (_, Val::Err) => return Val::Err,
            (Val::Int(x), Val::Int(y)) => {
                if let Some(Value::Bool(cv)) = as_const(&cond) {
                    if apre.is_empty() && bpre.is_empty() {
                        return Val::Int(if *cv { x.clone() } else { y.clone() });
                    }
                }
                match exp {
                    Some(t) => t,
                    None => {
                        self.err(
                            "E0303",
                            "cannot infer the type of `?:` with integer operands",
                            span,
                            "type unknown",
                        );
                        return Val::Err;
                    }
                }
            }
            (Val::E(x), _) => x.ty,
            (_, Val::E(y)) => y.ty,
            _ => match exp {
                Some(t) => t,
                None => {
                    self.err("E0303", "cannot infer the type of `?:`", span, "type unknown");
                    return Val::Err;
                }
            },
        };
        let (Some(x), Some(y)) = (self.coerce(av, ty, a.span), self.coerce(bv, ty, b.span)) else {
            return Val::Err;
        };
        if apre.is_empty() && bpre.is_empty() {
            if let Some(Value::Bool(cv)) = as_const(&cond) {
                return Val::E(if *cv { x } else { y });
            }
            return Val::E(mk(ExprKind::Mux(Box::new(cond), Box::new(x), Box::new(y)), ty, span));
        }
        let t = self.tmp(ty, span);
        let tv = mk(ExprKind::Var(t), ty, span);
        apre.push(Stmt::Assign {
            dst: tv.clone(),
            src: x,
            span: ispan(span),
        });
        bpre.push(Stmt::Assign {
            dst: tv.clone(),
            src: y,
            span: ispan(span),
        });
        pre.push(Stmt::If {
            cond,
            then_: apre,
            else_: bpre,
            span: ispan(span),
        });
        Val::E(tv)
    }

    pub(crate) fn cast(&mut self, span: Span, ty: &'a ast::Type, e: &'a ast::Expr, pre: &mut Vec<Stmt>) -> Val<'a> {
        let Some(t) = self.resolve_data_type(ty) else {
            return Val::Err;
        };
        let v = self.expr(e, Some(t), pre);
        match v {
            Val::Err => Val::Err,
            Val::Int(i) => {
                let target = match self.ty(t) {
                    Type::SerEnum { underlying, .. } => *underlying,
                    _ => t,
                };
                match self.ty(target).clone() {
                    Type::Bit(w) => Val::E(cnst(consts::bits(&i, w, false), t, span)),
                    Type::Int(w) => Val::E(cnst(consts::bits(&i, w, true), t, span)),
                    Type::Bool if i == BigInt::from(0) || i == BigInt::from(1) => {
                        Val::E(cnst(Value::Bool(i == BigInt::from(1)), t, span))
                    }
                    _ => {
                        let tn = self.tname(t);
                        self.err(
                            "E0305",
                            format!("cannot cast an integer to `{tn}`"),
                            span,
                            "invalid cast",
                        );
                        Val::Err
                    }
                }
            }
            other => {
                let Some(x) = self.rvalue(other, e.span) else {
                    return Val::Err;
                };
                if x.ty == t {
                    return Val::E(x);
                }
                if self.cast_ok(x.ty, t) {
                    Val::E(self.mk_cast(x, t, span))
                } else {
                    let (a, b) = (self.tname(x.ty), self.tname(t));
                    self.err(
                        "E0305",
                        format!("cannot cast `{a}` to `{b}`"),
                        span,
                        "cast not allowed by the P4_16 specification",
                    );
                    Val::Err
                }
            }
        }
    }

    /// The explicit casts of the P4_16 specification.
    pub(crate) fn cast_ok(&self, from: ir::TypeId, to: ir::TypeId) -> bool {
        let base = |t: ir::TypeId| match self.ty(t) {
            Type::SerEnum { underlying, .. } => *underlying,
            _ => t,
        };
        let (f, t) = (self.ty(base(from)), self.ty(base(to)));
        match (f, t) {
            (Type::Bit(a), Type::Int(b)) | (Type::Int(a), Type::Bit(b)) => a == b,
            (Type::Bit(_), Type::Bit(_)) | (Type::Int(_), Type::Int(_)) => true,
            (Type::Bit(1), Type::Bool) | (Type::Bool, Type::Bit(1)) => true,
            (Type::Bool, Type::Bool) => true,
            _ => false,
        }
    }

    // ----------------------------------------------------------------------------------------
    // p4c compatibility: implicit widening

    /// Lowers `e` and converts it to `ty` like [`Sema::expr_as`], but also accepts an implicit
    /// widening (see [`Sema::coerce_widening`]). Used for assignments, initializers and `in`
    /// arguments.
    pub(crate) fn expr_as_widening(
        &mut self,
        e: &'a ast::Expr,
        ty: ir::TypeId,
        pre: &mut Vec<Stmt>,
    ) -> Option<ir::Expr> {
        let v = self.expr(e, Some(ty), pre);
        self.coerce_widening(v, ty, e.span)
    }

    /// Like [`Sema::coerce`], plus p4c's implicit widening: a `bit<N>` value where `bit<M>` is
    /// expected (M > N) is zero-extended, an `int<N>` value where `int<M>` is expected is
    /// sign-extended, with warning W0301. The P4_16 specification has no such conversion; p4c
    /// accepts it and its test programs rely on it. The value is computed at its own (narrow)
    /// width first, so `bit<64> c = a + b;` with `bit<32>` operands wraps at 32 bits and is then
    /// extended. Narrowing and signedness changes stay errors (E0301).
    pub(crate) fn coerce_widening(&mut self, v: Val<'a>, ty: ir::TypeId, span: Span) -> Option<ir::Expr> {
        let x = match v {
            Val::E(x) => x,
            other => return self.coerce(other, ty, span),
        };
        let widens = match (self.ty(x.ty), self.ty(ty)) {
            (Type::Bit(a), Type::Bit(b)) | (Type::Int(a), Type::Int(b)) => a < b,
            _ => false,
        };
        if !widens {
            return self.coerce(Val::E(x), ty, span);
        }
        let (from, to) = (self.tname(x.ty), self.tname(ty));
        self.report(
            p4dp_syntax::Diagnostic::warning(
                "W0301",
                format!("implicit widening from `{from}` to `{to}`; p4dp accepts it for compatibility with p4c"),
                span,
                format!("this is `{from}`, computed at that width and then extended"),
            )
            .with_help(format!(
                "the P4_16 specification requires an explicit cast: `({to})(...)`"
            )),
        );
        Some(self.mk_cast(x, ty, span))
    }
}
