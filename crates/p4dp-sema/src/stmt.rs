//! Statement lowering: assignments, conditionals, switch (on values and on `action_run`), local
//! declarations, `exit`/`return`.

use p4dp_ir as ir;
use p4dp_ir::{ExprKind, Stmt, Type, Value};
use p4dp_syntax::ast;
use p4dp_syntax::Span;

use crate::env::{Binding, OwnerKind};
use crate::expr::{mk, Val};
use crate::{ispan, Sema};

impl<'a> Sema<'a> {
    /// Lowers a block in its own scope.
    pub(crate) fn block(&mut self, b: &'a ast::Block) -> Vec<Stmt> {
        self.push_scope();
        let mut out = Vec::new();
        for s in &b.stmts {
            self.stmt(s, &mut out);
        }
        self.pop_scope();
        out
    }

    pub(crate) fn scoped(&mut self, s: &'a ast::Stmt) -> Vec<Stmt> {
        if let ast::StmtKind::Block(b) = &s.kind {
            return self.block(b);
        }
        self.push_scope();
        let mut out = Vec::new();
        self.stmt(s, &mut out);
        self.pop_scope();
        out
    }

    /// Lowers `e` as a condition (`bool`).
    pub(crate) fn cond(&mut self, e: &'a ast::Expr, pre: &mut Vec<Stmt>) -> Option<ir::Expr> {
        let bt = self.t_bool();
        match self.expr(e, Some(bt), pre) {
            Val::E(x) if x.ty == bt => Some(x),
            Val::Err => None,
            Val::E(x) => {
                let tn = self.tname(x.ty);
                self.err(
                    "E0311",
                    format!("a condition must be `bool`, found `{tn}`"),
                    e.span,
                    "not a bool",
                );
                None
            }
            _ => {
                self.err("E0311", "a condition must be `bool`", e.span, "not a bool");
                None
            }
        }
    }

    pub(crate) fn stmt(&mut self, s: &'a ast::Stmt, out: &mut Vec<Stmt>) {
        let span = ispan(s.span);
        match &s.kind {
            ast::StmtKind::Assign { lhs, rhs } => {
                let dst = self.lvalue(lhs, out);
                match dst {
                    Some(dst) => {
                        let mut rpre = Vec::new();
                        let src = self.expr_as_widening(rhs, dst.ty, &mut rpre);
                        out.append(&mut rpre);
                        if let Some(src) = src {
                            // Header union rule: a valid header assigned to a member invalidates the others.
                            if matches!(self.ty(dst.ty), Type::Header(_)) {
                                let mut inv = Vec::new();
                                self.invalidate_union_siblings(&dst, s.span, &mut inv);
                                if !inv.is_empty() {
                                    let bt = self.t_bool();
                                    let src_v = self.snapshot_pub(src.clone(), out);
                                    let cond = mk(ExprKind::IsValid(Box::new(src_v.clone())), bt, s.span);
                                    out.push(Stmt::If {
                                        cond,
                                        then_: inv,
                                        else_: Vec::new(),
                                        span,
                                    });
                                    out.push(Stmt::Assign { dst, src: src_v, span });
                                    return;
                                }
                            }
                            out.push(Stmt::Assign { dst, src, span });
                        }
                    }
                    None => {
                        let mut scratch = Vec::new();
                        let _ = self.expr(rhs, None, &mut scratch);
                    }
                }
            }
            ast::StmtKind::CompoundAssign { op, lhs, rhs } => {
                let Some(dst) = self.lvalue(lhs, out) else { return };
                let Some(bop) = crate::expr::binop_of(*op) else {
                    self.err(
                        "E0304",
                        "this compound assignment operator is not supported",
                        s.span,
                        "unsupported",
                    );
                    return;
                };
                let hint = if matches!(bop, ir::BinOp::Shl | ir::BinOp::Shr) {
                    None
                } else {
                    Some(dst.ty)
                };
                let rv = self.expr(rhs, hint, out);
                let sp = s.span;
                let v = self.binop_vals(sp, bop, Val::E(dst.clone()), rv, lhs.span, rhs.span, Some(dst.ty));
                if let Some(src) = self.coerce(v, dst.ty, sp) {
                    out.push(Stmt::Assign { dst, src, span });
                }
            }
            ast::StmtKind::Call(e) => {
                if !matches!(e.kind, ast::ExprKind::Call { .. }) {
                    self.err("E0402", "this expression is not a statement", e.span, "not a call");
                    return;
                }
                let _ = self.call_expr(e, out, false);
            }
            ast::StmtKind::If { cond, then_s, else_s } => {
                let c = self.cond(cond, out);
                let t = self.scoped(then_s);
                let el = match else_s {
                    Some(e) => self.scoped(e),
                    None => Vec::new(),
                };
                if let Some(c) = c {
                    out.push(Stmt::If {
                        cond: c,
                        then_: t,
                        else_: el,
                        span,
                    });
                }
            }
            ast::StmtKind::Switch { expr, cases } => self.switch(s.span, expr, cases, out),
            ast::StmtKind::Block(b) => {
                let inner = self.block(b);
                out.push(Stmt::Block(inner));
            }
            ast::StmtKind::Exit => {
                if !matches!(self.cx.kind, OwnerKind::Control(_)) {
                    self.err(
                        "E0402",
                        "`exit` is only allowed in controls and actions",
                        s.span,
                        "not allowed here",
                    );
                    return;
                }
                out.push(Stmt::Exit { span });
            }
            ast::StmtKind::Return(v) => self.return_stmt(s.span, v.as_ref(), out),
            ast::StmtKind::Empty | ast::StmtKind::Invalid => {}
            ast::StmtKind::Decl(d) => self.local_decl(d, out),
            ast::StmtKind::For {
                init,
                cond,
                update,
                body,
            } => {
                self.for_stmt(s.span, init, cond.as_ref(), update, body, out);
            }
            ast::StmtKind::ForIn {
                ty, var, range, body, ..
            } => {
                self.for_in_stmt(s.span, ty.as_ref(), var, range, body, out);
            }
            ast::StmtKind::Break | ast::StmtKind::Continue => self.loop_jump(s, out),
        }
    }

    fn return_stmt(&mut self, sp: Span, v: Option<&'a ast::Expr>, out: &mut Vec<Stmt>) {
        let span = ispan(sp);
        match self.cx.kind {
            OwnerKind::Function => {
                let Some(rt) = self.cx.ret else { return };
                let void = matches!(self.ty(rt), Type::Void);
                match (v, void) {
                    (Some(e), false) => {
                        // On a type error, still end the path (no cascading "missing return").
                        let x = self.expr_as(e, rt, out);
                        out.push(Stmt::Return { value: x, span });
                    }
                    (None, true) => out.push(Stmt::Return { value: None, span }),
                    (Some(e), true) => self.err(
                        "E0301",
                        "a `void` function cannot return a value",
                        e.span,
                        "remove the value",
                    ),
                    (None, false) => self.err("E0301", "this function must return a value", sp, "value missing"),
                }
            }
            OwnerKind::Control(_) => {
                if let Some(e) = v {
                    self.err(
                        "E0301",
                        "actions and controls cannot return a value",
                        e.span,
                        "remove the value",
                    );
                    return;
                }
                out.push(Stmt::Return { value: None, span });
            }
            _ => self.err("E0402", "`return` is not allowed in parsers", sp, "not allowed here"),
        }
    }

    /// A declaration inside a block or at the start of a control/parser: variables and constants.
    pub(crate) fn local_decl(&mut self, d: &'a ast::Decl, init_out: &mut Vec<Stmt>) {
        match d {
            ast::Decl::Var(v) => {
                let Some(t) = self.resolve_data_type(&v.ty) else {
                    self.declare(&v.name, Binding::Err);
                    return;
                };
                if matches!(
                    self.ty(t),
                    Type::Void | Type::Extern { .. } | Type::String | Type::MatchKind
                ) {
                    let tn = self.tname(t);
                    self.err(
                        "E0309",
                        format!("a variable cannot have type `{tn}`"),
                        v.ty.span,
                        "bad variable type",
                    );
                    self.declare(&v.name, Binding::Err);
                    return;
                }
                let init = v.init.as_ref().map(|e| {
                    let mut pre = Vec::new();
                    let x = self.expr_as_widening(e, t, &mut pre);
                    (pre, x)
                });
                let id = self.cx.vars.alloc(ir::Var {
                    entry_ref: false,
                    name: v.name.name.clone(),
                    ty: t,
                    kind: ir::VarKind::Local,
                    annotations: self.annotations(&v.annotations),
                    span: ispan(v.span),
                });
                if let Some((mut pre, x)) = init {
                    init_out.append(&mut pre);
                    if let Some(x) = x {
                        init_out.push(Stmt::Assign {
                            dst: mk(ExprKind::Var(id), t, v.name.span),
                            src: x,
                            span: ispan(v.span),
                        });
                    }
                }
                self.declare(&v.name, Binding::Var(id));
            }
            ast::Decl::Const(c) => {
                let b = match self.const_decl_value(c) {
                    Some(v) => Binding::Const(v),
                    None => Binding::Err,
                };
                self.declare(&c.name, b);
            }
            other => {
                self.err(
                    "E0402",
                    "only variables and constants can be declared here",
                    other.span(),
                    "not allowed here",
                );
            }
        }
    }

    fn switch(&mut self, sp: Span, e: &'a ast::Expr, cases: &'a [ast::SwitchCase], out: &mut Vec<Stmt>) {
        let span = ispan(sp);
        // `switch (t.apply().action_run)`
        let mut table = None;
        if let ast::ExprKind::Member { base, member } = &e.kind {
            if member.name == "action_run" {
                if let ast::ExprKind::Call { callee, args, .. } = &base.kind {
                    if let ast::ExprKind::Member { base: tb, member: m2 } = &callee.kind {
                        if m2.name == "apply" && args.is_empty() {
                            match self.expr(tb, None, out) {
                                Val::Table(t) => table = Some(t),
                                Val::Err => return,
                                other => {
                                    let what = self.val_kind(&other);
                                    self.err(
                                        "E0406",
                                        format!("`action_run` needs a table, found {what}"),
                                        tb.span,
                                        "not a table",
                                    );
                                    return;
                                }
                            }
                        }
                    }
                }
            }
        }
        let (x, label_ty) = match table {
            Some(t) => {
                let (_, run) = self.apply_table(t, false, true, e.span, out);
                let b32 = self.t_bit(32);
                let Some(run) = run else { return };
                (mk(ExprKind::Var(run), b32, e.span), None)
            }
            None => {
                let Some(x) = self.rexpr(e, out) else {
                    // still check the bodies
                    for c in cases {
                        if let Some(b) = &c.body {
                            let _ = self.block(b);
                        }
                    }
                    return;
                };
                if !matches!(
                    self.ty(x.ty),
                    Type::Bit(_) | Type::Int(_) | Type::Enum { .. } | Type::SerEnum { .. } | Type::Error
                ) {
                    let tn = self.tname(x.ty);
                    self.err(
                        "E0406",
                        format!("cannot switch on a value of type `{tn}`"),
                        e.span,
                        "expected bit/int/enum/error",
                    );
                    return;
                }
                let t = x.ty;
                (x, Some(t))
            }
        };
        let mut seen: Vec<Value> = Vec::new();
        let mut pending: Vec<Value> = Vec::new();
        let mut pending_default = false;
        let mut out_cases = Vec::new();
        let mut default = None;
        let mut saw_default = false;
        for c in cases {
            if saw_default {
                self.err(
                    "E0406",
                    "`default` must be the last label of a switch",
                    c.span,
                    "label after `default`",
                );
            }
            match &c.label {
                ast::SwitchLabel::Default(_) => {
                    pending_default = true;
                    saw_default = true;
                }
                ast::SwitchLabel::Expr(le) => {
                    let v = match (table, label_ty) {
                        (Some(t), _) => self.action_label(t, le),
                        (None, Some(lt)) => {
                            let mut scratch = Vec::new();
                            let lv = self.expr(le, Some(lt), &mut scratch);
                            match self.coerce(lv, lt, le.span) {
                                Some(ir::Expr {
                                    kind: ExprKind::Const(v),
                                    ..
                                }) => Some(v),
                                Some(_) => {
                                    self.err(
                                        "E0401",
                                        "switch labels must be compile-time constants",
                                        le.span,
                                        "not a constant",
                                    );
                                    None
                                }
                                None => None,
                            }
                        }
                        _ => None,
                    };
                    if let Some(v) = v {
                        if seen.contains(&v) {
                            self.err("E0406", "duplicate switch label", le.span, "this label appears earlier");
                        } else {
                            seen.push(v.clone());
                            pending.push(v);
                        }
                    }
                }
            }
            if let Some(b) = &c.body {
                let body = self.block(b);
                if pending_default {
                    default = Some(body.clone());
                }
                if !pending.is_empty() {
                    out_cases.push(ir::SwitchCase {
                        values: std::mem::take(&mut pending),
                        body,
                    });
                }
                pending_default = false;
            }
        }
        if !pending.is_empty() || pending_default {
            if let Some(c) = cases.last() {
                self.err("E0406", "the last switch label has no statement", c.span, "add a block");
            }
        }
        out.push(Stmt::Switch {
            expr: x,
            cases: out_cases,
            default,
            span,
        });
    }

    /// An action name used as a label of `switch (t.apply().action_run)`.
    fn action_label(&mut self, t: ir::TableId, le: &'a ast::Expr) -> Option<Value> {
        let ast::ExprKind::Name(p) = &le.kind else {
            self.err(
                "E0406",
                "labels of an `action_run` switch must be action names",
                le.span,
                "not an action name",
            );
            return None;
        };
        let found = self.p.tables[t]
            .actions
            .iter()
            .map(|a| a.action)
            .find(|a| self.p.actions[*a].name == p.name.name);
        match found {
            Some(a) => Some(crate::consts::bits(&num_bigint::BigInt::from(a.index()), 32, false)),
            None => {
                let tn = self.p.tables[t].name.clone();
                self.err(
                    "E0207",
                    format!("action `{}` is not in the actions of table `{tn}`", p.name.name),
                    le.span,
                    "not an action of this table",
                );
                None
            }
        }
    }
}
