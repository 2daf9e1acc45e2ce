//! `for` loops (P4_16 1.2.4+) and `break`/`continue`, lowered to [`ir::Stmt::Loop`].
//!
//! * `for (init; cond; update) body`: the init statements run once before the loop (their
//!   declarations are scoped to the loop); `cond` (with its hoisted calls in `pre`) is tested
//!   before every iteration; the update statements run after the body and after `continue`.
//! * `for (T x in lo .. hi) body`: `x` goes from `lo` to `hi` inclusive (`hi` evaluated once; no
//!   iteration when `lo > hi`); the update stops the loop when `x == hi` instead of incrementing
//!   past it, so `hi` may be the largest value of `T`.
//! * `for (T x in stack) body`: `x` is a copy of each element of the header stack in index order
//!   (all `size` elements, valid or not).
//! * `for (x in { ... })` over a list expression is not supported (E0404). Data-plane table
//!   writes (`add_entry` and the expire-timer functions) inside a loop body are rejected (E0404).

use num_bigint::BigInt;
use p4dp_ir as ir;
use p4dp_ir::{BinOp, ExprKind, Stmt, Type};
use p4dp_syntax::ast;
use p4dp_syntax::Span;

use crate::consts;
use crate::env::Binding;
use crate::expr::{cnst, mk, Val};
use crate::{ispan, Sema};

/// Does `b` (not counting nested loops' own scope: they are included too) call a data-plane
/// table write extern?
fn has_dp_write(b: &[Stmt]) -> Option<ir::Span> {
    for s in b {
        let found = match s {
            Stmt::Call(c) => match &c.target {
                ir::CallTarget::ExternFunction(n)
                    if matches!(
                        n.as_str(),
                        "add_entry" | "set_entry_expire_time" | "restart_expire_timer"
                    ) =>
                {
                    Some(c.span)
                }
                _ => None,
            },
            Stmt::If { then_, else_, .. } => has_dp_write(then_).or_else(|| has_dp_write(else_)),
            Stmt::Switch { cases, default, .. } => cases
                .iter()
                .find_map(|c| has_dp_write(&c.body))
                .or_else(|| default.as_ref().and_then(|d| has_dp_write(d))),
            Stmt::Block(x) => has_dp_write(x),
            Stmt::Loop { pre, body, update, .. } => has_dp_write(pre)
                .or_else(|| has_dp_write(body))
                .or_else(|| has_dp_write(update)),
            _ => None,
        };
        if found.is_some() {
            return found;
        }
    }
    None
}

impl<'a> Sema<'a> {
    /// `break` / `continue`.
    pub(crate) fn loop_jump(&mut self, s: &'a ast::Stmt, out: &mut Vec<Stmt>) {
        let brk = matches!(s.kind, ast::StmtKind::Break);
        if self.cx.loops == 0 {
            let what = if brk { "break" } else { "continue" };
            let mut d =
                p4dp_syntax::Diagnostic::error("E0402", format!("`{what}` outside a loop"), s.span, "not in a loop");
            if self.cx.action.is_some() {
                d = d.with_help(
                    "in rtc.p4 programs `break;` and `continue;` may end a Foreach loop body: an action its `@methods` names",
                );
            }
            self.report(d);
            return;
        }
        let span = ispan(s.span);
        out.push(if brk {
            Stmt::Break { span }
        } else {
            Stmt::Continue { span }
        });
    }

    /// Lowers a loop body (and update statements) with `break`/`continue` allowed.
    fn in_loop<T>(&mut self, f: impl FnOnce(&mut Self) -> T) -> T {
        self.cx.loops += 1;
        let r = f(self);
        self.cx.loops -= 1;
        r
    }

    fn push_loop(
        &mut self,
        sp: Span,
        pre: Vec<Stmt>,
        cond: ir::Expr,
        body: Vec<Stmt>,
        update: Vec<Stmt>,
        out: &mut Vec<Stmt>,
    ) {
        if let Some(w) = has_dp_write(&pre)
            .or_else(|| has_dp_write(&body))
            .or_else(|| has_dp_write(&update))
        {
            let ws = Span::new(p4dp_syntax::FileId(w.file), w.lo, w.hi);
            self.report(
                p4dp_syntax::Diagnostic::error(
                    "E0404",
                    "data-plane table writes inside a `for` loop are not supported by p4dp",
                    ws,
                    "inside a loop",
                )
                .with_secondary(sp, "the loop"),
            );
            return;
        }
        out.push(Stmt::Loop {
            pre,
            cond,
            body,
            update,
            span: ispan(sp),
        });
    }

    /// `for (init; cond; update) body`.
    pub(crate) fn for_stmt(
        &mut self,
        sp: Span,
        init: &'a [ast::Stmt],
        cond: Option<&'a ast::Expr>,
        update: &'a [ast::Stmt],
        body: &'a ast::Stmt,
        out: &mut Vec<Stmt>,
    ) {
        self.push_scope();
        for s in init {
            self.stmt(s, out);
        }
        let mut pre = Vec::new();
        let c = match cond {
            Some(c) => self.cond(c, &mut pre),
            None => {
                let bt = self.t_bool();
                Some(cnst(ir::Value::Bool(true), bt, sp))
            }
        };
        let (b, upd) = self.in_loop(|s| {
            let b = s.scoped(body);
            let mut upd = Vec::new();
            for u in update {
                s.stmt(u, &mut upd);
            }
            (b, upd)
        });
        self.pop_scope();
        if let Some(c) = c {
            self.push_loop(sp, pre, c, b, upd, out);
        }
    }

    /// `for (T x in range) body`.
    pub(crate) fn for_in_stmt(
        &mut self,
        sp: Span,
        ty: Option<&'a ast::Type>,
        var: &'a ast::Ident,
        range: &'a ast::Expr,
        body: &'a ast::Stmt,
        out: &mut Vec<Stmt>,
    ) {
        let declared = match ty {
            Some(t) => match self.resolve_data_type(t) {
                Some(t) => Some(t),
                None => return,
            },
            None => None,
        };
        let bt = self.t_bool();
        match &range.kind {
            ast::ExprKind::List { elems, dots: true } if elems.len() == 2 => {
                let (lo, hi) = (&elems[0], &elems[1]);
                let (lo, hi) = match declared {
                    Some(t) => (self.expr_as(lo, t, out), self.expr_as(hi, t, out)),
                    None => {
                        let lv = self.expr(lo, None, out);
                        let hv = self.expr(hi, None, out);
                        match (lv, hv) {
                            (Val::E(l), hv) => {
                                let t = l.ty;
                                (Some(l), self.coerce(hv, t, hi.span))
                            }
                            (lv, Val::E(h)) => {
                                let t = h.ty;
                                (self.coerce(lv, t, lo.span), Some(h))
                            }
                            (Val::Err, _) | (_, Val::Err) => (None, None),
                            _ => {
                                self.err(
                                    "E0303",
                                    "cannot infer the type of the loop variable",
                                    var.span,
                                    "give it a type: `for (bit<8> i in ...)`",
                                );
                                (None, None)
                            }
                        }
                    }
                };
                let (Some(lo), Some(hi)) = (lo, hi) else { return };
                let t = lo.ty;
                if !matches!(self.ty(t), Type::Bit(_) | Type::Int(_)) {
                    let tn = self.tname(t);
                    self.err(
                        "E0301",
                        format!("a range needs `bit<W>` or `int<W>` bounds, found `{tn}`"),
                        range.span,
                        "not a fixed-width integer",
                    );
                    return;
                }
                self.push_scope();
                let x = self.loop_var(var, t);
                let h = self.tmp(t, range.span);
                let xe = mk(ExprKind::Var(x), t, var.span);
                let he = mk(ExprKind::Var(h), t, range.span);
                let span = ispan(sp);
                out.push(Stmt::Assign {
                    dst: he.clone(),
                    src: hi,
                    span,
                });
                out.push(Stmt::Assign {
                    dst: xe.clone(),
                    src: lo,
                    span,
                });
                let cond = mk(
                    ExprKind::Binary(BinOp::Le, Box::new(xe.clone()), Box::new(he.clone())),
                    bt,
                    range.span,
                );
                let (w, signed) = match self.ty(t) {
                    Type::Int(w) => (*w, true),
                    Type::Bit(w) => (*w, false),
                    _ => (0, false),
                };
                let one = cnst(consts::bits(&BigInt::from(1), w, signed), t, range.span);
                let inc = mk(
                    ExprKind::Binary(BinOp::Add, Box::new(xe.clone()), Box::new(one)),
                    t,
                    range.span,
                );
                let update = vec![Stmt::If {
                    cond: mk(
                        ExprKind::Binary(BinOp::Eq, Box::new(xe.clone()), Box::new(he)),
                        bt,
                        range.span,
                    ),
                    then_: vec![Stmt::Break { span }],
                    else_: vec![Stmt::Assign {
                        dst: xe,
                        src: inc,
                        span,
                    }],
                    span,
                }];
                let b = self.in_loop(|s| s.scoped(body));
                self.pop_scope();
                self.push_loop(sp, Vec::new(), cond, b, update, out);
            }
            ast::ExprKind::List { .. } => {
                self.err(
                    "E0404",
                    "`for ... in` over a list expression is not supported by p4dp",
                    range.span,
                    "unsupported",
                );
            }
            _ => {
                let Some(st) = self.rexpr(range, out) else { return };
                let (elem, size) = match self.ty(st.ty) {
                    Type::Stack { elem, size } => (*elem, *size),
                    _ => {
                        let tn = self.tname(st.ty);
                        self.err(
                            "E0301",
                            format!("`for ... in` needs a header stack or a range, found `{tn}`"),
                            range.span,
                            "cannot iterate over this",
                        );
                        return;
                    }
                };
                if let Some(t) = declared {
                    if t != elem {
                        let (a, b) = (self.tname(t), self.tname(elem));
                        self.err(
                            "E0301",
                            format!("type mismatch: the loop variable is `{a}`, the elements are `{b}`"),
                            range.span,
                            format!("elements are `{b}`"),
                        );
                        return;
                    }
                }
                self.push_scope();
                let x = self.loop_var(var, elem);
                let it = self.t_bit(32);
                let i = self.tmp(it, range.span);
                let ie = mk(ExprKind::Var(i), it, range.span);
                let span = ispan(sp);
                out.push(Stmt::Assign {
                    dst: ie.clone(),
                    src: cnst(consts::bits(&BigInt::from(0), 32, false), it, range.span),
                    span,
                });
                let cond = mk(
                    ExprKind::Binary(
                        BinOp::Lt,
                        Box::new(ie.clone()),
                        Box::new(cnst(consts::bits(&BigInt::from(size), 32, false), it, range.span)),
                    ),
                    bt,
                    range.span,
                );
                let one = cnst(consts::bits(&BigInt::from(1), 32, false), it, range.span);
                let update = vec![Stmt::Assign {
                    dst: ie.clone(),
                    src: mk(
                        ExprKind::Binary(BinOp::Add, Box::new(ie.clone()), Box::new(one)),
                        it,
                        range.span,
                    ),
                    span,
                }];
                let elem_e = mk(ExprKind::StackElem(Box::new(st), Box::new(ie)), elem, range.span);
                let mut b = vec![Stmt::Assign {
                    dst: mk(ExprKind::Var(x), elem, var.span),
                    src: elem_e,
                    span,
                }];
                let mut inner = self.in_loop(|s| s.scoped(body));
                b.append(&mut inner);
                self.pop_scope();
                self.push_loop(sp, Vec::new(), cond, b, update, out);
            }
        }
    }

    /// Declares the loop variable `x` of a `for ... in` in the current scope.
    fn loop_var(&mut self, var: &'a ast::Ident, t: ir::TypeId) -> ir::VarId {
        let id = self.cx.vars.alloc(ir::Var {
            entry_ref: false,
            name: var.name.clone(),
            ty: t,
            kind: ir::VarKind::Local,
            annotations: Vec::new(),
            span: ispan(var.span),
        });
        self.declare(var, Binding::Var(id));
        id
    }
}
