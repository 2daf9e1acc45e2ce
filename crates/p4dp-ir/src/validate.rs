//! The IR validator: the only way to obtain a [`ValidProgram`], which back ends require.
//!
//! It checks the structural invariants stated in the crate docs that the back ends rely on:
//! handles in range, lvalues where lvalues are needed, operand types of operators, the types of
//! `ApplyTable` result variables, and that `main` is bound. It does not re-run type inference.

use crate::*;

/// A program that passed [`validate`].
#[derive(Debug, Clone)]
pub struct ValidProgram(Program);

impl ValidProgram {
    pub fn program(&self) -> &Program {
        &self.0
    }
    pub fn into_inner(self) -> Program {
        self.0
    }
}

impl std::ops::Deref for ValidProgram {
    type Target = Program;
    fn deref(&self) -> &Program {
        &self.0
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct ValidationError {
    pub message: String,
    pub span: Span,
}

impl fmt::Display for ValidationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "internal IR error: {}", self.message)
    }
}

struct Ctx<'a> {
    p: &'a Program,
    vars: &'a Arena<Var>,
    errs: Vec<ValidationError>,
    owner: String,
    /// Enclosing `Loop` bodies (`Break`/`Continue` need one); `Break` only in `update`.
    loops: u32,
    in_update: u32,
}

impl Ctx<'_> {
    fn err(&mut self, span: Span, msg: String) {
        self.errs.push(ValidationError {
            message: format!("in {}: {}", self.owner, msg),
            span,
        });
    }

    fn is_lvalue(e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Var(_) => true,
            ExprKind::Field(b, _) | ExprKind::StackNextIndex(b) | ExprKind::Slice(b, _, _) => Self::is_lvalue(b),
            ExprKind::StackElem(b, _) => Self::is_lvalue(b),
            _ => false,
        }
    }

    fn lvalue(&mut self, e: &Expr) {
        if !Self::is_lvalue(e) {
            self.err(e.span, format!("expected an lvalue, found {:?}", e.kind));
        }
        self.expr(e);
    }

    fn expr(&mut self, e: &Expr) {
        if e.ty.index() >= self.p.types.len() {
            self.err(e.span, "type handle out of range".into());
            return;
        }
        match &e.kind {
            ExprKind::Const(_) => {}
            ExprKind::Var(v) => {
                if v.index() >= self.vars.len() {
                    self.err(e.span, format!("variable {:?} out of range", v));
                } else if self.vars[*v].ty != e.ty {
                    self.err(
                        e.span,
                        format!("variable `{}` used with a different type", self.vars[*v].name),
                    );
                }
            }
            ExprKind::Field(b, i) => {
                self.expr(b);
                let n = match self.p.types.get(b.ty) {
                    Type::Header(s) | Type::HeaderUnion(s) | Type::Struct(s) => s.fields.len(),
                    _ => 0,
                };
                if (*i as usize) >= n {
                    self.err(e.span, format!("field index {i} out of range"));
                }
            }
            ExprKind::StackElem(b, i) => {
                self.expr(b);
                self.expr(i);
                if !matches!(self.p.types.get(b.ty), Type::Stack { .. }) {
                    self.err(e.span, "indexing a non-stack".into());
                }
            }
            ExprKind::StackNextIndex(b) => {
                self.expr(b);
                if !matches!(self.p.types.get(b.ty), Type::Stack { .. }) {
                    self.err(e.span, "nextIndex of a non-stack".into());
                }
            }
            ExprKind::Slice(b, hi, lo) => {
                self.expr(b);
                match self.p.types.scalar_width(b.ty) {
                    Some(w) if hi >= lo && *hi < w => {}
                    _ => self.err(e.span, format!("bad slice [{hi}:{lo}]")),
                }
            }
            ExprKind::Concat(a, b) => {
                self.expr(a);
                self.expr(b);
            }
            ExprKind::Cast(a) | ExprKind::Unary(_, a) | ExprKind::IsValid(a) => self.expr(a),
            ExprKind::Binary(op, a, b) => {
                self.expr(a);
                self.expr(b);
                let shift = matches!(op, BinOp::Shl | BinOp::Shr);
                if !shift && a.ty != b.ty {
                    self.err(e.span, format!("operands of {:?} have different types", op));
                }
            }
            ExprKind::Mux(c, a, b) => {
                self.expr(c);
                self.expr(a);
                self.expr(b);
                if a.ty != b.ty {
                    self.err(e.span, "?: arms have different types".into());
                }
            }
            ExprKind::List(es) => {
                for x in es {
                    self.expr(x);
                }
            }
        }
    }

    fn block(&mut self, b: &Block) {
        for s in b {
            self.stmt(s);
        }
    }

    fn stmt(&mut self, s: &Stmt) {
        match s {
            Stmt::Assign { dst, src, span } => {
                self.lvalue(dst);
                self.expr(src);
                if dst.ty != src.ty {
                    self.err(*span, "assignment between different types".into());
                }
            }
            Stmt::If { cond, then_, else_, .. } => {
                self.expr(cond);
                self.block(then_);
                self.block(else_);
            }
            Stmt::Switch {
                expr, cases, default, ..
            } => {
                self.expr(expr);
                for c in cases {
                    self.block(&c.body);
                }
                if let Some(d) = default {
                    self.block(d);
                }
            }
            Stmt::Call(c) => {
                for a in &c.args {
                    match a {
                        Arg::In(e) => self.expr(e),
                        Arg::Out(e) | Arg::InOut(e) => self.lvalue(e),
                    }
                }
                if let Some(r) = &c.ret {
                    self.lvalue(r);
                }
                let ok = match &c.target {
                    CallTarget::Action(a) => a.index() < self.p.actions.len(),
                    CallTarget::Function(f) => f.index() < self.p.functions.len(),
                    CallTarget::Control(x) => x.index() < self.p.controls.len(),
                    CallTarget::Parser(x) => x.index() < self.p.parsers.len(),
                    CallTarget::ExternMethod {
                        obj: ExternRef::Instance(x),
                        ..
                    } => x.index() < self.p.externs.len(),
                    CallTarget::ExternMethod {
                        obj: ExternRef::Param(v),
                        ..
                    } => v.index() < self.vars.len(),
                    _ => true,
                };
                if !ok {
                    self.err(c.span, "call target out of range".into());
                }
            }
            Stmt::ApplyTable {
                table,
                hit,
                action_run,
                span,
            } => {
                if table.index() >= self.p.tables.len() {
                    self.err(*span, "table out of range".into());
                }
                for v in hit.iter().chain(action_run.iter()) {
                    if v.index() >= self.vars.len() {
                        self.err(*span, "apply result variable out of range".into());
                    }
                }
                if let Some(h) = hit {
                    if h.index() < self.vars.len() && !matches!(self.p.types.get(self.vars[*h].ty), Type::Bool) {
                        self.err(*span, "`hit` variable must be bool".into());
                    }
                }
            }
            Stmt::Exit { .. } => {}
            Stmt::Return { value, .. } => {
                if let Some(v) = value {
                    self.expr(v);
                }
            }
            Stmt::Verify { cond, error, .. } => {
                self.expr(cond);
                self.expr(error);
            }
            Stmt::Block(b) => self.block(b),
            Stmt::Loop {
                pre,
                cond,
                body,
                update,
                span,
            } => {
                self.block(pre);
                self.expr(cond);
                if !matches!(self.p.types.get(cond.ty), Type::Bool) {
                    self.err(*span, "loop condition must be bool".into());
                }
                let saved = (self.loops, self.in_update);
                self.loops += 1;
                self.in_update = 0;
                self.block(body);
                self.in_update = 1;
                self.block(update);
                (self.loops, self.in_update) = saved;
            }
            Stmt::Break { span } => {
                if self.loops == 0 {
                    self.err(*span, "`break` outside a loop".into());
                }
            }
            Stmt::Continue { span } => {
                if self.loops == 0 || self.in_update > 0 {
                    self.err(*span, "`continue` outside a loop body".into());
                }
            }
        }
    }
}

/// Checks `p` and wraps it as a [`ValidProgram`], or returns every violation found.
pub fn validate(p: Program) -> Result<ValidProgram, Vec<ValidationError>> {
    let mut errs = Vec::new();
    for (_, c) in p.controls.iter() {
        let mut cx = Ctx {
            p: &p,
            vars: &c.vars,
            errs: Vec::new(),
            loops: 0,
            in_update: 0,
            owner: format!("control {}", c.path),
        };
        cx.block(&c.body);
        for a in &c.actions {
            // a Foreach loop body is itself the body of a loop: `break`/`continue` may leave it
            cx.loops = u32::from(p.actions[*a].loop_body);
            cx.block(&p.actions[*a].body);
            cx.loops = 0;
        }
        for t in &c.tables {
            for k in &p.tables[*t].keys {
                cx.expr(&k.expr);
            }
        }
        errs.append(&mut cx.errs);
    }
    for (_, pr) in p.parsers.iter() {
        let mut cx = Ctx {
            p: &p,
            vars: &pr.vars,
            errs: Vec::new(),
            loops: 0,
            in_update: 0,
            owner: format!("parser {}", pr.path),
        };
        cx.block(&pr.init);
        for (_, st) in pr.states.iter() {
            cx.block(&st.body);
            if let Transition::Select { keys, cases, span } = &st.transition {
                for k in keys {
                    cx.expr(k);
                }
                for c in cases {
                    if c.keysets.len() != keys.len() {
                        cx.err(
                            *span,
                            format!("select case with {} keysets for {} keys", c.keysets.len(), keys.len()),
                        );
                    }
                }
            }
        }
        errs.append(&mut cx.errs);
    }
    for (_, f) in p.functions.iter() {
        let mut cx = Ctx {
            p: &p,
            vars: &f.vars,
            errs: Vec::new(),
            loops: 0,
            in_update: 0,
            owner: format!("function {}", f.name),
        };
        cx.block(&f.body);
        errs.append(&mut cx.errs);
    }
    for (_, t) in p.tables.iter() {
        for e in t.entries.iter().filter(|e| e.priority.is_none()) {
            errs.push(ValidationError {
                message: format!("table {}: an entry without a priority", t.fq_name),
                span: e.span,
            });
        }
    }
    if p.package.is_none() {
        errs.push(ValidationError {
            message: "no `main` package instance".into(),
            span: Span::default(),
        });
    }
    if errs.is_empty() {
        Ok(ValidProgram(p))
    } else {
        Err(errs)
    }
}
