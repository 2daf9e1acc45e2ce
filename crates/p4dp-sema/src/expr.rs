//! Expression lowering: typing with an expected type, implicit casts, constant folding, lvalues.

use num_bigint::BigInt;
use num_traits::{Signed, ToPrimitive, Zero};

use p4dp_ir as ir;
use p4dp_ir::{BinOp, ExprKind, Stmt, Type, Value};
use p4dp_syntax::ast;
use p4dp_syntax::Span;

use crate::consts::{self, int_shape};
use crate::env::Binding;
use crate::types::RTy;
use crate::{ispan, CVal, Sema};

/// The result of lowering an expression: a typed IR expression, an `int` constant, or something
/// that is not a value by itself (a table, an extern object, a type, a callable...).
#[derive(Debug, Clone)]
pub(crate) enum Val<'a> {
    E(ir::Expr),
    Int(BigInt),
    Str(String),
    /// An error was already reported.
    Err,
    Type(ir::TypeId),
    Table(ir::TableId),
    Extern(ir::ExternRef, String, Vec<ir::TypeId>),
    Control(ir::ControlId),
    Parser(ir::ParserId),
    Action(ir::ActionId),
    ValueSet(ir::ValueSetId),
    /// A top-level function, extern function, parser/control/package declaration.
    Global(&'a ast::Decl),
}

pub(crate) fn mk(kind: ExprKind, ty: ir::TypeId, span: Span) -> ir::Expr {
    ir::Expr {
        kind,
        ty,
        span: ispan(span),
    }
}

pub(crate) fn cnst(v: Value, ty: ir::TypeId, span: Span) -> ir::Expr {
    mk(ExprKind::Const(v), ty, span)
}

pub(crate) fn as_const(e: &ir::Expr) -> Option<&Value> {
    match &e.kind {
        ExprKind::Const(v) => Some(v),
        _ => None,
    }
}

pub(crate) fn arith(op: ast::BinaryOp) -> Option<BinOp> {
    use ast::BinaryOp as A;
    Some(match op {
        A::Mul => BinOp::Mul,
        A::Div => BinOp::Div,
        A::Mod => BinOp::Mod,
        A::Add => BinOp::Add,
        A::Sub => BinOp::Sub,
        A::AddSat => BinOp::AddSat,
        A::SubSat => BinOp::SubSat,
        A::Shl => BinOp::Shl,
        A::Shr => BinOp::Shr,
        A::Lt => BinOp::Lt,
        A::Le => BinOp::Le,
        A::Gt => BinOp::Gt,
        A::Ge => BinOp::Ge,
        A::Eq => BinOp::Eq,
        A::Ne => BinOp::Ne,
        A::BitAnd => BinOp::BitAnd,
        A::BitXor => BinOp::BitXor,
        A::BitOr => BinOp::BitOr,
        A::And => BinOp::And,
        A::Or => BinOp::Or,
        A::Concat => return None,
    })
}

pub(crate) fn binop_of(op: ast::BinaryOp) -> Option<BinOp> {
    arith(op)
}

pub(crate) fn is_cmp(op: BinOp) -> bool {
    matches!(
        op,
        BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge
    )
}

impl<'a> Sema<'a> {
    /// Lowers `e`; `exp` is the type the context expects (used to type `int` literals, lists and
    /// struct expressions). Hoisted statements are appended to `pre`.
    pub(crate) fn expr(&mut self, e: &'a ast::Expr, exp: Option<ir::TypeId>, pre: &mut Vec<Stmt>) -> Val<'a> {
        match &e.kind {
            ast::ExprKind::Int(l) => self.int_lit(l, e.span),
            ast::ExprKind::Bool(b) => {
                let t = self.t_bool();
                Val::E(cnst(Value::Bool(*b), t, e.span))
            }
            ast::ExprKind::Str(s) => Val::Str(s.clone()),
            ast::ExprKind::Name(p) => self.name_val(p),
            ast::ExprKind::This => {
                self.err("E0404", "`this` is not supported by p4dp", e.span, "unsupported");
                Val::Err
            }
            ast::ExprKind::DontCare => {
                self.err(
                    "E0402",
                    "`_` is only allowed as an `out` argument or a keyset",
                    e.span,
                    "not allowed here",
                );
                Val::Err
            }
            ast::ExprKind::ErrorMember(m) => match self.p.error_code(&m.name) {
                Some(c) => {
                    let t = self.t_error();
                    Val::E(cnst(Value::Error(c), t, e.span))
                }
                None => {
                    self.err(
                        "E0210",
                        format!("unknown error `{}`", m.name),
                        m.span,
                        "not declared in any `error { ... }`",
                    );
                    Val::Err
                }
            },
            ast::ExprKind::Member { base, member } => self.member(e, base, member, pre),
            ast::ExprKind::Index { base, index } => self.index(e, base, index, pre),
            ast::ExprKind::Slice { base, hi, lo } => {
                let b = self.expr(base, None, pre);
                let Some(b) = self.rvalue(b, base.span) else {
                    return Val::Err;
                };
                self.slice(b, hi, lo, e.span).map(Val::E).unwrap_or(Val::Err)
            }
            ast::ExprKind::Call { .. } => self.call_expr(e, pre, true),
            ast::ExprKind::ConstructorCall { .. } => {
                self.err(
                    "E0402",
                    "a constructor call is not allowed here",
                    e.span,
                    "instantiate it as a declaration",
                );
                Val::Err
            }
            ast::ExprKind::Unary { op, expr } => self.unary(e.span, *op, expr, exp, pre),
            ast::ExprKind::Binary { op, lhs, rhs } => self.binary(e.span, *op, lhs, rhs, exp, pre),
            ast::ExprKind::Ternary { cond, then_e, else_e } => self.ternary(e.span, cond, then_e, else_e, exp, pre),
            ast::ExprKind::Cast { ty, expr } => self.cast(e.span, ty, expr, pre),
            ast::ExprKind::List { .. } | ast::ExprKind::Struct { .. } | ast::ExprKind::InvalidHeader => match exp {
                Some(t) if self.is_aggregate(t) => self.aggregate(e, t, pre).map(Val::E).unwrap_or(Val::Err),
                _ => self.untyped_list(e, pre),
            },
            ast::ExprKind::Invalid => Val::Err,
        }
    }

    fn is_aggregate(&self, t: ir::TypeId) -> bool {
        matches!(
            self.ty(t),
            Type::Header(_) | Type::HeaderUnion(_) | Type::Struct(_) | Type::Tuple(_) | Type::Stack { .. }
        )
    }

    fn int_lit(&mut self, l: &ast::IntLit, span: Span) -> Val<'a> {
        let v = BigInt::from(l.value.clone());
        match l.width {
            None => Val::Int(v),
            Some(w) => {
                if w > crate::types::MAX_WIDTH || (l.signed && w == 0) {
                    self.err("E0309", format!("invalid literal width {w}"), span, "bad width");
                    return Val::Err;
                }
                let ok = if l.signed {
                    consts::fits(&v, w, true)
                } else {
                    v < consts::pow2(w)
                };
                if !ok {
                    let tn = if l.signed {
                        format!("int<{w}>")
                    } else {
                        format!("bit<{w}>")
                    };
                    self.err("E0302", format!("literal `{v}` does not fit `{tn}`"), span, "too large");
                    return Val::Err;
                }
                let t = self.intern(if l.signed { Type::Int(w) } else { Type::Bit(w) });
                Val::E(cnst(consts::bits(&v, w, l.signed), t, span))
            }
        }
    }

    /// Lowers `e` and converts it to type `ty` (implicit casts only).
    pub(crate) fn expr_as(&mut self, e: &'a ast::Expr, ty: ir::TypeId, pre: &mut Vec<Stmt>) -> Option<ir::Expr> {
        let v = self.expr(e, Some(ty), pre);
        self.coerce(v, ty, e.span)
    }

    /// Lowers `e` to a value with a concrete type (an `int` without context is an error).
    pub(crate) fn rexpr(&mut self, e: &'a ast::Expr, pre: &mut Vec<Stmt>) -> Option<ir::Expr> {
        let v = self.expr(e, None, pre);
        self.rvalue(v, e.span)
    }

    /// A value with a concrete type.
    pub(crate) fn rvalue(&mut self, v: Val<'a>, span: Span) -> Option<ir::Expr> {
        match v {
            Val::E(x) => Some(x),
            Val::Err => None,
            Val::Int(i) => {
                self.report(
                    p4dp_syntax::Diagnostic::error(
                        "E0303",
                        format!("cannot infer a width for the integer `{i}`"),
                        span,
                        "type unknown",
                    )
                    .with_help("give it a width (`8w5`) or cast it (`(bit<8>)5`)"),
                );
                None
            }
            Val::Str(s) => {
                let t = self.intern(Type::String);
                Some(cnst(Value::String(s), t, span))
            }
            Val::Extern(ir::ExternRef::Param(v), _, _) => {
                let t = self.cx.vars[v].ty;
                Some(mk(ExprKind::Var(v), t, span))
            }
            other => {
                let what = self.val_kind(&other);
                self.err("E0204", format!("{what} is not a value"), span, "expected a value");
                None
            }
        }
    }

    pub(crate) fn val_kind(&self, v: &Val<'a>) -> String {
        match v {
            Val::Type(t) => format!("type `{}`", self.tname(*t)),
            Val::Table(t) => format!("table `{}`", self.p.tables[*t].name),
            Val::Extern(_, n, _) => format!("extern object of type `{n}`"),
            Val::Control(_) => "a control instance".into(),
            Val::Parser(_) => "a parser instance".into(),
            Val::Action(a) => format!("action `{}`", self.p.actions[*a].name),
            Val::ValueSet(v) => format!("value_set `{}`", self.p.value_sets[*v].name),
            Val::Global(d) => format!("`{}`", d.name().name),
            _ => "this".into(),
        }
    }

    /// Converts a value to type `ty`, applying the implicit casts the spec allows: `int` to
    /// `bit<W>`/`int<W>`, and a serializable enum to its underlying type.
    pub(crate) fn coerce(&mut self, v: Val<'a>, ty: ir::TypeId, span: Span) -> Option<ir::Expr> {
        match v {
            Val::Err => None,
            Val::Int(i) => match self.ty(ty).clone() {
                Type::Bit(w) | Type::Int(w) => {
                    let signed = matches!(self.ty(ty), Type::Int(_));
                    let v = consts::bits(&i, w, signed);
                    if !consts::fits(&i, w, signed) {
                        // The spec's int -> bit<W>/int<W> conversion keeps the W low bits; like
                        // p4c, an implicit one that loses bits is a warning, not an error.
                        let tn = self.tname(ty);
                        let low = consts::to_int(&v).unwrap_or_default();
                        let shown = match (signed, low.sign()) {
                            (true, num_bigint::Sign::Minus) => format!("-{w}s{}", -low),
                            (true, _) => format!("{w}s{low}"),
                            (false, _) => format!("{w}w{low}"),
                        };
                        self.report(
                            p4dp_syntax::Diagnostic::warning(
                                "W0303",
                                format!("value `{i}` does not fit `{tn}`; truncated to `{shown}`"),
                                span,
                                format!("converted to `{tn}` here"),
                            )
                            .with_help(format!("write a value that fits, or cast explicitly: `({tn})({i})`")),
                        );
                    }
                    Some(cnst(v, ty, span))
                }
                _ => {
                    let tn = self.tname(ty);
                    self.err(
                        "E0301",
                        format!("expected `{tn}`, found an integer"),
                        span,
                        format!("expected `{tn}`"),
                    );
                    None
                }
            },
            Val::E(x) => {
                if x.ty == ty {
                    return Some(x);
                }
                if let Type::SerEnum { underlying, .. } = self.ty(x.ty) {
                    if *underlying == ty {
                        return Some(self.mk_cast(x, ty, span));
                    }
                }
                let (a, b) = (self.tname(ty), self.tname(x.ty));
                self.err(
                    "E0301",
                    format!("type mismatch: expected `{a}`, found `{b}`"),
                    span,
                    format!("this is `{b}`"),
                );
                None
            }
            other => {
                let x = self.rvalue(other, span)?;
                self.coerce(Val::E(x), ty, span)
            }
        }
    }

    pub(crate) fn mk_cast(&mut self, x: ir::Expr, ty: ir::TypeId, span: Span) -> ir::Expr {
        if x.ty == ty {
            return x;
        }
        if let Some(v) = as_const(&x) {
            let to = if matches!(self.ty(ty), Type::Bool) {
                None
            } else {
                int_shape(&self.p.types, ty)
            };
            if to.is_some() || matches!(self.ty(ty), Type::Bool) {
                if let Some(r) = consts::fold_cast(v, to) {
                    return cnst(r, ty, span);
                }
            }
        }
        mk(ExprKind::Cast(Box::new(x)), ty, span)
    }

    /// Resolves a name used as a value.
    pub(crate) fn name_val(&mut self, p: &'a ast::PathName) -> Val<'a> {
        let name = &p.name.name;
        if !p.top_level {
            if let Some(b) = self.lookup_local(name) {
                return self.binding_val(b, p.span);
            }
            if let Some(t) = self.cx.tsubst.get(name) {
                return Val::Type(*t);
            }
        }
        let Some(decls) = self.lookup_global(name, p.name.span) else {
            self.err(
                "E0201",
                format!("unknown name `{name}`"),
                p.name.span,
                "not found in this scope",
            );
            return Val::Err;
        };
        let d = decls[0];
        match d {
            ast::Decl::Const(c) => match self.global_const(c) {
                Some(CVal::Int(i)) => Val::Int(i),
                Some(CVal::V(v, t)) => Val::E(cnst(v, t, p.span)),
                None => Val::Err,
            },
            ast::Decl::Instantiation(i) => match self.global_extern(d, i) {
                Some(id) => {
                    let x = &self.p.externs[id];
                    Val::Extern(ir::ExternRef::Instance(id), x.type_name.clone(), x.type_args.clone())
                }
                None => Val::Err,
            },
            ast::Decl::Action(a) => match self.cx.control() {
                Some(_) => match self.use_global_action(d, a) {
                    Some(id) => Val::Action(id),
                    None => Val::Err,
                },
                None => Val::Global(d),
            },
            ast::Decl::Header(_)
            | ast::Decl::HeaderUnion(_)
            | ast::Decl::Struct(_)
            | ast::Decl::Enum(_)
            | ast::Decl::Typedef(_)
            | ast::Decl::ExternObject(_) => match self.decl_type(d, &[], p.span) {
                RTy::T(t) => Val::Type(t),
                RTy::Err => Val::Err,
                _ => Val::Global(d),
            },
            ast::Decl::Var(_) => Val::Err,
            _ => Val::Global(d),
        }
    }

    pub(crate) fn binding_val(&mut self, b: Binding, span: Span) -> Val<'a> {
        match b {
            Binding::Var(v) => {
                let var = &self.cx.vars[v];
                if let Type::Extern { name, args } = self.ty(var.ty) {
                    return Val::Extern(ir::ExternRef::Param(v), name.clone(), args.clone());
                }
                Val::E(mk(ExprKind::Var(v), var.ty, span))
            }
            Binding::Const(CVal::Int(i)) => Val::Int(i),
            Binding::Const(CVal::V(v, t)) => Val::E(cnst(v, t, span)),
            Binding::Action(a) => Val::Action(a),
            Binding::Table(t) => Val::Table(t),
            Binding::Extern(x) => {
                let e = &self.p.externs[x];
                Val::Extern(ir::ExternRef::Instance(x), e.type_name.clone(), e.type_args.clone())
            }
            Binding::Control(c) => Val::Control(c),
            Binding::Parser(p) => Val::Parser(p),
            Binding::ValueSet(v) => Val::ValueSet(v),
            Binding::Err => Val::Err,
        }
    }

    /// Value of a top-level constant (evaluated once, in the global scope).
    pub(crate) fn global_const(&mut self, c: &'a ast::ConstDecl) -> Option<CVal> {
        let k = c.id();
        if let Some(v) = self.const_cache.get(&k) {
            return v.clone();
        }
        if !self.const_busy.insert(k) {
            self.err(
                "E0410",
                format!("constant `{}` is defined in terms of itself", c.name.name),
                c.name.span,
                "recursive constant",
            );
            return None;
        }
        if !self.enter_resolution(&c.name.name, c.name.span) {
            self.const_busy.remove(&k);
            self.const_cache.insert(k, None);
            return None;
        }
        let r = self.in_global_scope(|s| s.const_decl_value(c));
        self.resolving -= 1;
        self.const_busy.remove(&k);
        self.const_cache.insert(k, r.clone());
        r
    }

    /// Evaluates a `const` declaration's value in the current scope.
    pub(crate) fn const_decl_value(&mut self, c: &'a ast::ConstDecl) -> Option<CVal> {
        match self.resolve_type(&c.ty) {
            RTy::InfInt => match self.const_eval(&c.value, None)? {
                CVal::Int(i) => Some(CVal::Int(i)),
                CVal::V(v, t) => {
                    let tn = self.tname(t);
                    let _ = v;
                    self.err(
                        "E0301",
                        format!("type mismatch: expected `int`, found `{tn}`"),
                        c.value.span,
                        "not an `int`",
                    );
                    None
                }
            },
            RTy::T(t) => self.const_eval(&c.value, Some(t)),
            RTy::Err => None,
            _ => {
                self.err("E0309", "constants must have a data type", c.ty.span, "not a data type");
                None
            }
        }
    }

    /// Evaluates `e` as a compile-time constant (of type `exp` when given).
    pub(crate) fn const_eval(&mut self, e: &'a ast::Expr, exp: Option<ir::TypeId>) -> Option<CVal> {
        let mut pre = Vec::new();
        let v = self.expr(e, exp, &mut pre);
        let v = match (v, exp) {
            (Val::Err, _) => return None,
            (v, Some(t)) => Val::E(self.coerce(v, t, e.span)?),
            (v, None) => v,
        };
        let r = match v {
            Val::Int(i) if pre.is_empty() => Some(CVal::Int(i)),
            Val::E(ir::Expr {
                kind: ExprKind::Const(c),
                ty,
                ..
            }) if pre.is_empty() => Some(CVal::V(c, ty)),
            Val::Str(s) if pre.is_empty() => {
                let t = self.intern(Type::String);
                Some(CVal::V(Value::String(s), t))
            }
            _ => None,
        };
        if r.is_none() {
            self.err("E0401", "expected a compile-time constant", e.span, "not a constant");
        }
        r
    }

    /// Evaluates `e` as a constant value of type `ty`.
    pub(crate) fn const_value(&mut self, e: &'a ast::Expr, ty: ir::TypeId) -> Option<Value> {
        match self.const_eval(e, Some(ty))? {
            CVal::V(v, _) => Some(v),
            CVal::Int(_) => None,
        }
    }

    // ----------------------------------------------------------------------------------------
    // members, indexing, slices

    fn member(&mut self, e: &'a ast::Expr, base: &'a ast::Expr, m: &'a ast::Ident, pre: &mut Vec<Stmt>) -> Val<'a> {
        if matches!(m.name.as_str(), "hit" | "miss" | "action_run") {
            if let ast::ExprKind::Call { callee, args, .. } = &base.kind {
                if let ast::ExprKind::Member { base: tb, member } = &callee.kind {
                    if member.name == "apply" && args.is_empty() {
                        return self.table_apply_result(e, tb, m, pre);
                    }
                }
            }
        }
        let b = self.expr(base, None, pre);
        match b {
            Val::Err => Val::Err,
            Val::Type(t) => self.type_member(t, m, e.span),
            Val::E(x) => self
                .value_member(x, m, e.span, pre, false)
                .map(Val::E)
                .unwrap_or(Val::Err),
            Val::Int(_) => {
                self.err(
                    "E0205",
                    format!("an integer has no member `{}`", m.name),
                    m.span,
                    "unknown member",
                );
                Val::Err
            }
            other => {
                let what = self.val_kind(&other);
                self.err(
                    "E0205",
                    format!("`{}` of {what} must be called", m.name),
                    m.span,
                    "not a value",
                );
                Val::Err
            }
        }
    }

    fn type_member(&mut self, t: ir::TypeId, m: &ast::Ident, span: Span) -> Val<'a> {
        match self.ty(t).clone() {
            Type::Enum { members, name } => match members.iter().position(|x| *x == m.name) {
                Some(i) => Val::E(cnst(Value::Enum(i as u32), t, span)),
                None => {
                    self.err(
                        "E0210",
                        format!("enum `{name}` has no member `{}`", m.name),
                        m.span,
                        "unknown member",
                    );
                    Val::Err
                }
            },
            Type::SerEnum { members, name, .. } => match members.iter().find(|x| x.0 == m.name) {
                Some((_, v)) => Val::E(cnst(v.clone(), t, span)),
                None => {
                    self.err(
                        "E0210",
                        format!("enum `{name}` has no member `{}`", m.name),
                        m.span,
                        "unknown member",
                    );
                    Val::Err
                }
            },
            _ => {
                let tn = self.tname(t);
                self.err(
                    "E0205",
                    format!("type `{tn}` has no member `{}`", m.name),
                    m.span,
                    "unknown member",
                );
                Val::Err
            }
        }
    }

    /// `x.m` for a value `x` (struct/header/union fields, stack properties).
    pub(crate) fn value_member(
        &mut self,
        x: ir::Expr,
        m: &ast::Ident,
        span: Span,
        pre: &mut Vec<Stmt>,
        lv: bool,
    ) -> Option<ir::Expr> {
        match self.ty(x.ty).clone() {
            Type::Header(s) | Type::Struct(s) | Type::HeaderUnion(s) => {
                match s.fields.iter().position(|f| f.name == m.name) {
                    Some(i) => {
                        let ft = s.fields[i].ty;
                        if let Some(Value::Aggregate { fields, .. }) = as_const(&x) {
                            if let Some(v) = fields.get(i) {
                                return Some(cnst(v.clone(), ft, span));
                            }
                        }
                        Some(mk(ExprKind::Field(Box::new(x), i as u32), ft, span))
                    }
                    None => {
                        self.err(
                            "E0205",
                            format!("`{}` has no field `{}`", s.name, m.name),
                            m.span,
                            "unknown field",
                        );
                        None
                    }
                }
            }
            Type::Stack { size, .. } => self.stack_member(x, size, m, span, pre, lv),
            _ => {
                let tn = self.tname(x.ty);
                self.err(
                    "E0205",
                    format!("type `{tn}` has no member `{}`", m.name),
                    m.span,
                    "unknown member",
                );
                None
            }
        }
    }

    fn stack_member(
        &mut self,
        x: ir::Expr,
        size: u32,
        m: &ast::Ident,
        span: Span,
        pre: &mut Vec<Stmt>,
        lv: bool,
    ) -> Option<ir::Expr> {
        let b32 = self.t_bit(32);
        let elem = match self.ty(x.ty) {
            Type::Stack { elem, .. } => *elem,
            _ => return None,
        };
        let ni = mk(ExprKind::StackNextIndex(Box::new(x.clone())), b32, span);
        let one = cnst(consts::bits(&BigInt::from(1), 32, false), b32, span);
        match m.name.as_str() {
            "size" if !lv => Some(cnst(consts::bits(&BigInt::from(size), 32, false), b32, span)),
            "lastIndex" if !lv => Some(mk(ExprKind::Binary(BinOp::Sub, Box::new(ni), Box::new(one)), b32, span)),
            "next" | "last" => {
                if !self.cx.is_parser() {
                    self.err(
                        "E0402",
                        format!("`.{}` is only allowed in parsers", m.name),
                        m.span,
                        "not in a parser",
                    );
                    return None;
                }
                let bool_t = self.t_bool();
                let sz = cnst(consts::bits(&BigInt::from(size), 32, false), b32, span);
                let (cond, idx) = if m.name == "next" {
                    (
                        mk(
                            ExprKind::Binary(BinOp::Lt, Box::new(ni.clone()), Box::new(sz)),
                            bool_t,
                            span,
                        ),
                        ni,
                    )
                } else {
                    let zero = cnst(consts::bits(&BigInt::zero(), 32, false), b32, span);
                    let c1 = mk(
                        ExprKind::Binary(BinOp::Gt, Box::new(ni.clone()), Box::new(zero)),
                        bool_t,
                        span,
                    );
                    let c2 = mk(
                        ExprKind::Binary(BinOp::Le, Box::new(ni.clone()), Box::new(sz)),
                        bool_t,
                        span,
                    );
                    let c = mk(ExprKind::Binary(BinOp::And, Box::new(c1), Box::new(c2)), bool_t, span);
                    (
                        c,
                        mk(ExprKind::Binary(BinOp::Sub, Box::new(ni), Box::new(one)), b32, span),
                    )
                };
                let et = self.t_error();
                let code = self.p.error_code("StackOutOfBounds").unwrap_or(0);
                pre.push(Stmt::Verify {
                    cond,
                    error: cnst(Value::Error(code), et, span),
                    span: ispan(span),
                });
                Some(mk(ExprKind::StackElem(Box::new(x), Box::new(idx)), elem, span))
            }
            _ => {
                let tn = self.tname(x.ty);
                let what = if lv { "assignable member" } else { "member" };
                self.err(
                    "E0205",
                    format!("header stack `{tn}` has no {what} `{}`", m.name),
                    m.span,
                    "unknown member",
                );
                None
            }
        }
    }

    fn index(&mut self, e: &'a ast::Expr, base: &'a ast::Expr, index: &'a ast::Expr, pre: &mut Vec<Stmt>) -> Val<'a> {
        let b = self.expr(base, None, pre);
        let Some(b) = self.rvalue(b, base.span) else {
            return Val::Err;
        };
        if self.is_tuple(b.ty) {
            return self.tuple_index(b, index, e.span).map(Val::E).unwrap_or(Val::Err);
        }
        self.stack_index(b, index, e.span, pre, false)
            .map(Val::E)
            .unwrap_or(Val::Err)
    }

    /// `t[i]` on a tuple: `i` must be a constant.
    fn tuple_index(&mut self, b: ir::Expr, index: &'a ast::Expr, span: Span) -> Option<ir::Expr> {
        let Type::Struct(st) = self.ty(b.ty).clone() else {
            return None;
        };
        let i = self.const_int(index)?;
        match i.to_usize().filter(|i| *i < st.fields.len()) {
            Some(i) => {
                let ft = st.fields[i].ty;
                if let Some(Value::Aggregate { fields, .. }) = as_const(&b) {
                    if let Some(v) = fields.get(i) {
                        return Some(cnst(v.clone(), ft, span));
                    }
                }
                Some(mk(ExprKind::Field(Box::new(b), i as u32), ft, span))
            }
            None => {
                self.err(
                    "E0310",
                    format!("index {i} is out of range for a tuple of {} elements", st.fields.len()),
                    index.span,
                    "out of range",
                );
                None
            }
        }
    }

    /// `s[i]`: constant indices are bounds-checked; dynamic ones are hoisted into a temporary
    /// when `hoist` (lvalue arguments are evaluated once).
    pub(crate) fn stack_index(
        &mut self,
        b: ir::Expr,
        index: &'a ast::Expr,
        span: Span,
        pre: &mut Vec<Stmt>,
        hoist: bool,
    ) -> Option<ir::Expr> {
        let Type::Stack { elem, size } = self.ty(b.ty).clone() else {
            let tn = self.tname(b.ty);
            self.err(
                "E0304",
                format!("cannot index a value of type `{tn}`"),
                span,
                "not a header stack",
            );
            return None;
        };
        let b32 = self.t_bit(32);
        let iv = self.expr(index, Some(b32), pre);
        let idx = match iv {
            Val::Int(i) => {
                if i.is_negative() || i >= BigInt::from(size) {
                    self.err(
                        "E0310",
                        format!("index {i} is out of range for a stack of size {size}"),
                        index.span,
                        "out of range",
                    );
                    return None;
                }
                cnst(consts::bits(&i, 32, false), b32, index.span)
            }
            other => {
                let x = self.rvalue(other, index.span)?;
                if let Some(v) = as_const(&x) {
                    let i = consts::to_int(v).unwrap_or_default();
                    if i.is_negative() || i >= BigInt::from(size) {
                        self.err(
                            "E0310",
                            format!("index {i} is out of range for a stack of size {size}"),
                            index.span,
                            "out of range",
                        );
                        return None;
                    }
                }
                if !matches!(self.ty(x.ty), Type::Bit(_) | Type::Int(_)) {
                    let tn = self.tname(x.ty);
                    self.err(
                        "E0301",
                        format!("a stack index must be `bit<W>` or `int<W>`, not `{tn}`"),
                        index.span,
                        "bad index type",
                    );
                    return None;
                }
                if hoist && as_const(&x).is_none() {
                    let t = self.tmp(x.ty, index.span);
                    let tv = mk(ExprKind::Var(t), x.ty, index.span);
                    pre.push(Stmt::Assign {
                        dst: tv.clone(),
                        src: x,
                        span: ispan(index.span),
                    });
                    tv
                } else {
                    x
                }
            }
        };
        Some(mk(ExprKind::StackElem(Box::new(b), Box::new(idx)), elem, span))
    }

    pub(crate) fn slice(&mut self, b: ir::Expr, hi: &'a ast::Expr, lo: &'a ast::Expr, span: Span) -> Option<ir::Expr> {
        let h = self.const_u32(hi, "slice bound");
        let l = self.const_u32(lo, "slice bound");
        let (h, l) = (h?, l?);
        let Some((w, _)) = (match self.ty(b.ty) {
            Type::Bit(_) | Type::Int(_) => int_shape(&self.p.types, b.ty),
            _ => None,
        }) else {
            let tn = self.tname(b.ty);
            self.err(
                "E0304",
                format!("cannot slice a value of type `{tn}`"),
                span,
                "not `bit<W>`/`int<W>`",
            );
            return None;
        };
        if h < l || h >= w {
            self.err(
                "E0310",
                format!("slice [{h}:{l}] is out of range for a {w}-bit value"),
                span,
                "bad slice bounds",
            );
            return None;
        }
        let t = self.t_bit(h - l + 1);
        if let Some(v) = as_const(&b) {
            if let Some(r) = consts::fold_slice(v, h, l) {
                return Some(cnst(r, t, span));
            }
        }
        Some(mk(ExprKind::Slice(Box::new(b), h, l), t, span))
    }

    // ----------------------------------------------------------------------------------------
    // lvalues

    /// Lowers an assignable expression. Dynamic stack indices are hoisted into temporaries.
    pub(crate) fn lvalue(&mut self, e: &'a ast::Expr, pre: &mut Vec<Stmt>) -> Option<ir::Expr> {
        match &e.kind {
            ast::ExprKind::Name(p) => {
                let v = self.name_val(p);
                match v {
                    Val::E(x) => {
                        if let ExprKind::Var(id) = x.kind {
                            let var = &self.cx.vars[id];
                            let ro = matches!(
                                var.kind,
                                ir::VarKind::Param(ir::Direction::In | ir::Direction::None)
                                    | ir::VarKind::ActionParam(_, ir::Direction::In | ir::Direction::None)
                            ) && !var.entry_ref;
                            if ro {
                                self.err(
                                    "E0307",
                                    format!("cannot assign to `{}`: it is a read-only parameter", p.name.name),
                                    e.span,
                                    "read-only",
                                );
                                return None;
                            }
                            return Some(x);
                        }
                        self.err(
                            "E0307",
                            format!("cannot assign to `{}`: it is a constant", p.name.name),
                            e.span,
                            "not assignable",
                        );
                        None
                    }
                    Val::Err => None,
                    _ => {
                        self.err(
                            "E0307",
                            format!("cannot assign to `{}`", p.name.name),
                            e.span,
                            "not assignable",
                        );
                        None
                    }
                }
            }
            ast::ExprKind::Member { base, member } => {
                let b = self.lvalue(base, pre)?;
                self.value_member(b, member, e.span, pre, true)
            }
            ast::ExprKind::Index { base, index } => {
                let b = self.lvalue(base, pre)?;
                if self.is_tuple(b.ty) {
                    return self.tuple_index(b, index, e.span);
                }
                self.stack_index(b, index, e.span, pre, true)
            }
            ast::ExprKind::Slice { base, hi, lo } => {
                let b = self.lvalue(base, pre)?;
                self.slice(b, hi, lo, e.span)
            }
            ast::ExprKind::Invalid => None,
            _ => {
                self.err(
                    "E0307",
                    "this expression cannot be assigned to",
                    e.span,
                    "not an lvalue",
                );
                None
            }
        }
    }

    pub(crate) fn small(v: &BigInt) -> Option<u32> {
        v.to_u32()
    }
}

pub(crate) fn op_str(op: BinOp) -> &'static str {
    op.symbol()
}
