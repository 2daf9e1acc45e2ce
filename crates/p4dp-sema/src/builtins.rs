//! Built-in methods and functions: header validity, stack `push_front`/`pop_front`,
//! `minSizeInBits` and friends, table `apply` results, `verify` and `static_assert`.

use num_bigint::BigInt;
use num_traits::Signed;

use p4dp_ir as ir;
use p4dp_ir::{Arg, CallTarget, ExprKind, Stmt, Type, Value};
use p4dp_syntax::ast;
use p4dp_syntax::Span;

use crate::expr::{cnst, mk, Val};
use crate::{ispan, Sema};

impl<'a> Sema<'a> {
    pub(crate) fn size_method(&mut self, t: ir::TypeId, m: &ast::Ident, args: &[ast::Argument], span: Span) -> Val<'a> {
        let (max, bytes) = match m.name.as_str() {
            "minSizeInBits" => (false, false),
            "maxSizeInBits" => (true, false),
            "minSizeInBytes" => (false, true),
            "maxSizeInBytes" => (true, true),
            _ => {
                let tn = self.tname(t);
                self.err(
                    "E0205",
                    format!("type `{tn}` has no method `{}`", m.name),
                    m.span,
                    "unknown method",
                );
                return Val::Err;
            }
        };
        if !args.is_empty() {
            self.err(
                "E0306",
                format!("`{}` takes no arguments", m.name),
                span,
                "remove the arguments",
            );
        }
        match self.size_in_bits(t, max) {
            Some(b) => Val::Int(BigInt::from(if bytes { b.div_ceil(8) } else { b })),
            None => {
                let tn = self.tname(t);
                self.err(
                    "E0304",
                    format!("`{}` is not defined for `{tn}`", m.name),
                    span,
                    "no size",
                );
                Val::Err
            }
        }
    }

    pub(crate) fn header_op(
        &mut self,
        lv: ir::Expr,
        m: &ast::Ident,
        args: &'a [ast::Argument],
        span: Span,
        pre: &mut Vec<Stmt>,
        want: bool,
    ) -> Val<'a> {
        let is_stack = matches!(self.ty(lv.ty), Type::Stack { .. });
        let target = match (m.name.as_str(), is_stack) {
            ("setValid", false) | ("setInvalid", false) => {
                if !args.is_empty() {
                    self.err(
                        "E0306",
                        format!("`{}` takes no arguments", m.name),
                        span,
                        "remove the arguments",
                    );
                }
                if matches!(self.ty(lv.ty), Type::HeaderUnion(_)) {
                    self.err(
                        "E0304",
                        format!("`{}` cannot be called on a header union", m.name),
                        span,
                        "call it on a member header",
                    );
                    return Val::Err;
                }
                if m.name == "setValid" {
                    CallTarget::SetValid
                } else {
                    CallTarget::SetInvalid
                }
            }
            ("push_front", true) | ("pop_front", true) => {
                let [a] = args else {
                    self.err(
                        "E0306",
                        format!("`{}` takes one argument", m.name),
                        span,
                        "wrong number of arguments",
                    );
                    return Val::Err;
                };
                let n = match self.const_int(&a.value) {
                    Some(n) if !n.is_negative() => n,
                    Some(_) => {
                        self.err("E0310", "the count must not be negative", a.value.span, "negative");
                        return Val::Err;
                    }
                    None => return Val::Err,
                };
                let n = Self::small(&n).unwrap_or(u32::MAX);
                if m.name == "push_front" {
                    CallTarget::PushFront(n)
                } else {
                    CallTarget::PopFront(n)
                }
            }
            _ => {
                let tn = self.tname(lv.ty);
                self.err(
                    "E0205",
                    format!("type `{tn}` has no method `{}`", m.name),
                    m.span,
                    "unknown method",
                );
                return Val::Err;
            }
        };
        if matches!(target, CallTarget::SetValid) {
            self.invalidate_union_siblings(&lv, span, pre);
        }
        let call = ir::Call {
            target,
            type_args: Vec::new(),
            args: vec![Arg::InOut(lv)],
            ret: None,
            span: ispan(span),
        };
        self.emit_call(call, None, want, span, pre, &m.name)
    }

    /// Header union rule: making member `u.m` valid makes every other member of `u` invalid.
    pub(crate) fn invalidate_union_siblings(&mut self, lv: &ir::Expr, span: Span, pre: &mut Vec<Stmt>) {
        let ExprKind::Field(base, idx) = &lv.kind else { return };
        let Type::HeaderUnion(st) = self.ty(base.ty).clone() else {
            return;
        };
        for (i, f) in st.fields.iter().enumerate() {
            if i as u32 == *idx {
                continue;
            }
            let sib = mk(ExprKind::Field(base.clone(), i as u32), f.ty, span);
            pre.push(Stmt::Call(ir::Call {
                target: CallTarget::SetInvalid,
                type_args: Vec::new(),
                args: vec![Arg::InOut(sib)],
                ret: None,
                span: ispan(span),
            }));
        }
    }

    /// Applies table `t`, returning the `hit` and `action_run` temporaries asked for.
    pub(crate) fn apply_table(
        &mut self,
        t: ir::TableId,
        hit: bool,
        run: bool,
        span: Span,
        pre: &mut Vec<Stmt>,
    ) -> (Option<ir::VarId>, Option<ir::VarId>) {
        if self.cx.control().is_none() || self.cx.action.is_some() {
            self.err(
                "E0407",
                "tables can only be applied in a control's `apply` block",
                span,
                "not allowed here",
            );
        }
        let h = if hit {
            let bt = self.t_bool();
            Some(self.tmp(bt, span))
        } else {
            None
        };
        let r = if run {
            let b32 = self.t_bit(32);
            Some(self.tmp(b32, span))
        } else {
            None
        };
        pre.push(Stmt::ApplyTable {
            table: t,
            hit: h,
            action_run: r,
            span: ispan(span),
        });
        (h, r)
    }

    /// `t.apply().hit` / `.miss` / `.action_run` used in an expression.
    pub(crate) fn table_apply_result(
        &mut self,
        e: &'a ast::Expr,
        tb: &'a ast::Expr,
        m: &ast::Ident,
        pre: &mut Vec<Stmt>,
    ) -> Val<'a> {
        let v = self.expr(tb, None, pre);
        let t = match v {
            Val::Table(t) => t,
            Val::Err => return Val::Err,
            other => {
                let what = self.val_kind(&other);
                self.err(
                    "E0205",
                    format!("`.{}` needs the `apply()` of a table, found {what}", m.name),
                    m.span,
                    "not a table",
                );
                return Val::Err;
            }
        };
        match m.name.as_str() {
            "hit" | "miss" => {
                let (h, _) = self.apply_table(t, true, false, e.span, pre);
                let bt = self.t_bool();
                let Some(h) = h else { return Val::Err };
                let x = mk(ExprKind::Var(h), bt, e.span);
                if m.name == "miss" {
                    Val::E(mk(ExprKind::Unary(ir::UnOp::Not, Box::new(x)), bt, e.span))
                } else {
                    Val::E(x)
                }
            }
            _ => {
                self.err(
                    "E0406",
                    "`action_run` can only be used as the expression of a `switch`",
                    m.span,
                    "use it in `switch (t.apply().action_run)`",
                );
                Val::Err
            }
        }
    }

    /// `verify(cond, err)` (parser only) and `static_assert(cond[, msg])` (compile time).
    pub(crate) fn builtin_fn(
        &mut self,
        name: &str,
        args: &'a [ast::Argument],
        span: Span,
        pre: &mut Vec<Stmt>,
        want: bool,
    ) -> Val<'a> {
        let bt = self.t_bool();
        if name == "verify" {
            if !self.cx.is_parser() {
                self.err("E0402", "`verify` is only allowed in parsers", span, "not in a parser");
                return Val::Err;
            }
            if want {
                self.err("E0301", "`verify` does not return a value", span, "used as a value");
            }
            let et = self.t_error();
            let (Some(a), Some(b)) = (args.first(), args.get(1)) else {
                return Val::Err;
            };
            let c = self.expr_as(&a.value, bt, pre);
            let mut epre = Vec::new();
            let er = self.expr_as(&b.value, et, &mut epre);
            let c = if epre.is_empty() {
                c
            } else {
                c.map(|c| self.snapshot_pub(c, pre))
            };
            pre.append(&mut epre);
            if let (Some(cond), Some(error)) = (c, er) {
                pre.push(Stmt::Verify {
                    cond,
                    error,
                    span: ispan(span),
                });
            }
            return Val::Err;
        }
        let Some(a) = args.first() else { return Val::Err };
        let v = self.const_eval(&a.value, Some(bt));
        if let Some(crate::CVal::V(Value::Bool(false), _)) = v {
            let msg = match args.get(1).map(|x| &x.value.kind) {
                Some(ast::ExprKind::Str(s)) => s.clone(),
                _ => "static assertion failed".into(),
            };
            self.err(
                "E0408",
                format!("static_assert failed: {msg}"),
                a.value.span,
                "evaluates to false",
            );
        }
        if want {
            Val::E(cnst(Value::Bool(true), bt, span))
        } else {
            Val::Err
        }
    }
}
