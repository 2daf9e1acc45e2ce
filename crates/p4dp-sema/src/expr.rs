//! Expression lowering: typing with an expected type, implicit casts, constant folding, lvalues.

use num_bigint::BigInt;
use num_traits::{Signed, ToPrimitive, Zero};

use p4dp_ir as ir;
use p4dp_ir::{BinOp, ExprKind, Stmt, Type, UnOp, Value};
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
    ir::Expr { kind, ty, span: ispan(span) }
}

pub(crate) fn cnst(v: Value, ty: ir::TypeId, span: Span) -> ir::Expr {
    mk(ExprKind::Const(v), ty, span)
}

fn as_const(e: &ir::Expr) -> Option<&Value> {
    match &e.kind {
        ExprKind::Const(v) => Some(v),
        _ => None,
    }
}

fn arith(op: ast::BinaryOp) -> Option<BinOp> {
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

fn is_cmp(op: BinOp) -> bool {
    matches!(op, BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge)
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
                self.err("E0402", "`_` is only allowed as an `out` argument or a keyset", e.span, "not allowed here");
                Val::Err
            }
            ast::ExprKind::ErrorMember(m) => match self.p.error_code(&m.name) {
                Some(c) => {
                    let t = self.t_error();
                    Val::E(cnst(Value::Error(c), t, e.span))
                }
                None => {
                    self.err("E0210", format!("unknown error `{}`", m.name), m.span, "not declared in any `error { ... }`");
                    Val::Err
                }
            },
            ast::ExprKind::Member { base, member } => self.member(e, base, member, pre),
            ast::ExprKind::Index { base, index } => self.index(e, base, index, pre),
            ast::ExprKind::Slice { base, hi, lo } => {
                let b = self.expr(base, None, pre);
                let Some(b) = self.rvalue(b, base.span) else { return Val::Err };
                self.slice(b, hi, lo, e.span).map(Val::E).unwrap_or(Val::Err)
            }
            ast::ExprKind::Call { .. } => self.call_expr(e, pre, true),
            ast::ExprKind::ConstructorCall { .. } => {
                self.err("E0402", "a constructor call is not allowed here", e.span, "instantiate it as a declaration");
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
        matches!(self.ty(t), Type::Header(_) | Type::HeaderUnion(_) | Type::Struct(_) | Type::Tuple(_) | Type::Stack { .. })
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
                let ok = if l.signed { consts::fits(&v, w, true) } else { v < consts::pow2(w) };
                if !ok {
                    let tn = if l.signed { format!("int<{w}>") } else { format!("bit<{w}>") };
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
                    p4dp_syntax::Diagnostic::error("E0303", format!("cannot infer a width for the integer `{i}`"), span, "type unknown")
                        .with_help("give it a width (`8w5`) or cast it (`(bit<8>)5`)"),
                );
                None
            }
            Val::Str(s) => {
                let t = self.intern(Type::String);
                Some(cnst(Value::String(s), t, span))
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
            Val::ValueSet(_) => "a value_set".into(),
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
                    if !consts::fits(&i, w, signed) {
                        let tn = self.tname(ty);
                        self.err("E0302", format!("value `{i}` does not fit `{tn}`"), span, format!("does not fit `{tn}`"));
                        return None;
                    }
                    Some(cnst(consts::bits(&i, w, signed), ty, span))
                }
                _ => {
                    let tn = self.tname(ty);
                    self.err("E0301", format!("expected `{tn}`, found an integer"), span, format!("expected `{tn}`"));
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
                self.err("E0301", format!("type mismatch: expected `{a}`, found `{b}`"), span, format!("this is `{b}`"));
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
            let to = if matches!(self.ty(ty), Type::Bool) { None } else { int_shape(&self.p.types, ty) };
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
            self.err("E0201", format!("unknown name `{name}`"), p.name.span, "not found in this scope");
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
        let k = crate::addr(c);
        if let Some(v) = self.const_cache.get(&k) {
            return v.clone();
        }
        if !self.const_busy.insert(k) {
            self.err("E0410", format!("constant `{}` is defined in terms of itself", c.name.name), c.name.span, "recursive constant");
            return None;
        }
        let r = self.in_global_scope(|s| s.const_decl_value(c));
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
                    self.err("E0301", format!("type mismatch: expected `int`, found `{tn}`"), c.value.span, "not an `int`");
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
            Val::E(ir::Expr { kind: ExprKind::Const(c), ty, .. }) if pre.is_empty() => Some(CVal::V(c, ty)),
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
            Val::E(x) => self.value_member(x, m, e.span, pre, false).map(Val::E).unwrap_or(Val::Err),
            Val::Int(_) => {
                self.err("E0205", format!("an integer has no member `{}`", m.name), m.span, "unknown member");
                Val::Err
            }
            other => {
                let what = self.val_kind(&other);
                self.err("E0205", format!("`{}` of {what} must be called", m.name), m.span, "not a value");
                Val::Err
            }
        }
    }

    fn type_member(&mut self, t: ir::TypeId, m: &ast::Ident, span: Span) -> Val<'a> {
        match self.ty(t).clone() {
            Type::Enum { members, name } => match members.iter().position(|x| *x == m.name) {
                Some(i) => Val::E(cnst(Value::Enum(i as u32), t, span)),
                None => {
                    self.err("E0210", format!("enum `{name}` has no member `{}`", m.name), m.span, "unknown member");
                    Val::Err
                }
            },
            Type::SerEnum { members, name, .. } => match members.iter().find(|x| x.0 == m.name) {
                Some((_, v)) => Val::E(cnst(v.clone(), t, span)),
                None => {
                    self.err("E0210", format!("enum `{name}` has no member `{}`", m.name), m.span, "unknown member");
                    Val::Err
                }
            },
            _ => {
                let tn = self.tname(t);
                self.err("E0205", format!("type `{tn}` has no member `{}`", m.name), m.span, "unknown member");
                Val::Err
            }
        }
    }

    /// `x.m` for a value `x` (struct/header/union fields, stack properties).
    pub(crate) fn value_member(&mut self, x: ir::Expr, m: &ast::Ident, span: Span, pre: &mut Vec<Stmt>, lv: bool) -> Option<ir::Expr> {
        match self.ty(x.ty).clone() {
            Type::Header(s) | Type::Struct(s) | Type::HeaderUnion(s) => match s.fields.iter().position(|f| f.name == m.name) {
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
                    self.err("E0205", format!("`{}` has no field `{}`", s.name, m.name), m.span, "unknown field");
                    None
                }
            },
            Type::Stack { size, .. } => self.stack_member(x, size, m, span, pre, lv),
            _ => {
                let tn = self.tname(x.ty);
                self.err("E0205", format!("type `{tn}` has no member `{}`", m.name), m.span, "unknown member");
                None
            }
        }
    }

    fn stack_member(&mut self, x: ir::Expr, size: u32, m: &ast::Ident, span: Span, pre: &mut Vec<Stmt>, lv: bool) -> Option<ir::Expr> {
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
                    self.err("E0402", format!("`.{}` is only allowed in parsers", m.name), m.span, "not in a parser");
                    return None;
                }
                let bool_t = self.t_bool();
                let sz = cnst(consts::bits(&BigInt::from(size), 32, false), b32, span);
                let (cond, idx) = if m.name == "next" {
                    (mk(ExprKind::Binary(BinOp::Lt, Box::new(ni.clone()), Box::new(sz)), bool_t, span), ni)
                } else {
                    let zero = cnst(consts::bits(&BigInt::zero(), 32, false), b32, span);
                    let c1 = mk(ExprKind::Binary(BinOp::Gt, Box::new(ni.clone()), Box::new(zero)), bool_t, span);
                    let c2 = mk(ExprKind::Binary(BinOp::Le, Box::new(ni.clone()), Box::new(sz)), bool_t, span);
                    let c = mk(ExprKind::Binary(BinOp::And, Box::new(c1), Box::new(c2)), bool_t, span);
                    (c, mk(ExprKind::Binary(BinOp::Sub, Box::new(ni), Box::new(one)), b32, span))
                };
                let et = self.t_error();
                let code = self.p.error_code("StackOutOfBounds").unwrap_or(0);
                pre.push(Stmt::Verify { cond, error: cnst(Value::Error(code), et, span), span: ispan(span) });
                Some(mk(ExprKind::StackElem(Box::new(x), Box::new(idx)), elem, span))
            }
            _ => {
                let tn = self.tname(x.ty);
                let what = if lv { "assignable member" } else { "member" };
                self.err("E0205", format!("header stack `{tn}` has no {what} `{}`", m.name), m.span, "unknown member");
                None
            }
        }
    }

    fn index(&mut self, e: &'a ast::Expr, base: &'a ast::Expr, index: &'a ast::Expr, pre: &mut Vec<Stmt>) -> Val<'a> {
        let b = self.expr(base, None, pre);
        let Some(b) = self.rvalue(b, base.span) else { return Val::Err };
        self.stack_index(b, index, e.span, pre, false).map(Val::E).unwrap_or(Val::Err)
    }

    /// `s[i]`: constant indices are bounds-checked; dynamic ones are hoisted into a temporary
    /// when `hoist` (lvalue arguments are evaluated once).
    pub(crate) fn stack_index(&mut self, b: ir::Expr, index: &'a ast::Expr, span: Span, pre: &mut Vec<Stmt>, hoist: bool) -> Option<ir::Expr> {
        let Type::Stack { elem, size } = self.ty(b.ty).clone() else {
            let tn = self.tname(b.ty);
            self.err("E0304", format!("cannot index a value of type `{tn}`"), span, "not a header stack");
            return None;
        };
        let b32 = self.t_bit(32);
        let iv = self.expr(index, Some(b32), pre);
        let idx = match iv {
            Val::Int(i) => {
                if i.is_negative() || i >= BigInt::from(size) {
                    self.err("E0310", format!("index {i} is out of range for a stack of size {size}"), index.span, "out of range");
                    return None;
                }
                cnst(consts::bits(&i, 32, false), b32, index.span)
            }
            other => {
                let x = self.rvalue(other, index.span)?;
                if let Some(v) = as_const(&x) {
                    let i = consts::to_int(v).unwrap_or_default();
                    if i.is_negative() || i >= BigInt::from(size) {
                        self.err("E0310", format!("index {i} is out of range for a stack of size {size}"), index.span, "out of range");
                        return None;
                    }
                }
                if !matches!(self.ty(x.ty), Type::Bit(_) | Type::Int(_)) {
                    let tn = self.tname(x.ty);
                    self.err("E0301", format!("a stack index must be `bit<W>` or `int<W>`, not `{tn}`"), index.span, "bad index type");
                    return None;
                }
                if hoist && as_const(&x).is_none() {
                    let t = self.tmp(x.ty, index.span);
                    let tv = mk(ExprKind::Var(t), x.ty, index.span);
                    pre.push(Stmt::Assign { dst: tv.clone(), src: x, span: ispan(index.span) });
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
            self.err("E0304", format!("cannot slice a value of type `{tn}`"), span, "not `bit<W>`/`int<W>`");
            return None;
        };
        if h < l || h >= w {
            self.err("E0310", format!("slice [{h}:{l}] is out of range for a {w}-bit value"), span, "bad slice bounds");
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
                            );
                            if ro {
                                self.err("E0307", format!("cannot assign to `{}`: it is a read-only parameter", p.name.name), e.span, "read-only");
                                return None;
                            }
                            return Some(x);
                        }
                        self.err("E0307", format!("cannot assign to `{}`: it is a constant", p.name.name), e.span, "not assignable");
                        None
                    }
                    Val::Err => None,
                    _ => {
                        self.err("E0307", format!("cannot assign to `{}`", p.name.name), e.span, "not assignable");
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
                self.stack_index(b, index, e.span, pre, true)
            }
            ast::ExprKind::Slice { base, hi, lo } => {
                let b = self.lvalue(base, pre)?;
                self.slice(b, hi, lo, e.span)
            }
            ast::ExprKind::Invalid => None,
            _ => {
                self.err("E0307", "this expression cannot be assigned to", e.span, "not an lvalue");
                None
            }
        }
    }

    // ----------------------------------------------------------------------------------------
    // operators

    fn unary(&mut self, span: Span, op: ast::UnaryOp, a: &'a ast::Expr, exp: Option<ir::TypeId>, pre: &mut Vec<Stmt>) -> Val<'a> {
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
                            self.err("E0303", "cannot infer a width for `~` of an integer", span, "type unknown");
                            Val::Err
                        }
                    },
                    ast::UnaryOp::Not => {
                        self.err("E0304", "`!` needs a `bool` operand, found an integer", span, "not bool");
                        Val::Err
                    }
                };
            }
            v => v,
        };
        let Some(x) = self.rvalue(v, a.span) else { return Val::Err };
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
            self.err("E0304", format!("unary operator cannot be applied to `{tn}`"), span, "wrong operand type");
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

    fn ser_to_underlying(&mut self, x: ir::Expr, span: Span) -> ir::Expr {
        if let Type::SerEnum { underlying, .. } = self.ty(x.ty) {
            let u = *underlying;
            return self.mk_cast(x, u, span);
        }
        x
    }

    /// Snapshots `x` into a temporary if it reads state (used when a later operand has calls).
    fn snapshot(&mut self, x: ir::Expr, pre: &mut Vec<Stmt>) -> ir::Expr {
        if as_const(&x).is_some() {
            return x;
        }
        let sp = x.span;
        let t = self.tmp(x.ty, Span::new(p4dp_syntax::FileId(sp.file), sp.lo, sp.hi));
        let tv = ir::Expr { kind: ExprKind::Var(t), ty: x.ty, span: sp };
        pre.push(Stmt::Assign { dst: tv.clone(), src: x, span: sp });
        tv
    }

    fn snapshot_val(&mut self, v: Val<'a>, pre: &mut Vec<Stmt>) -> Val<'a> {
        match v {
            Val::E(x) => Val::E(self.snapshot(x, pre)),
            o => o,
        }
    }

    fn binary(&mut self, span: Span, op: ast::BinaryOp, l: &'a ast::Expr, r: &'a ast::Expr, exp: Option<ir::TypeId>, pre: &mut Vec<Stmt>) -> Val<'a> {
        if matches!(op, ast::BinaryOp::And | ast::BinaryOp::Or) {
            return self.logical(span, op, l, r, pre);
        }
        let Some(bop) = arith(op) else { return self.concat(span, l, r, pre) };
        let hint = if is_cmp(bop) { None } else { exp };
        let lv = self.expr(l, hint, pre);
        let mut rpre = Vec::new();
        let rhint = if matches!(bop, BinOp::Shl | BinOp::Shr) { None } else { hint };
        let rv = self.expr(r, rhint, &mut rpre);
        let lv = if rpre.is_empty() { lv } else { self.snapshot_val(lv, pre) };
        pre.append(&mut rpre);
        self.binop_vals(span, bop, lv, rv, l.span, r.span, exp)
    }

    /// Types and folds `lv op rv`.
    pub(crate) fn binop_vals(&mut self, span: Span, op: BinOp, lv: Val<'a>, rv: Val<'a>, ls: Span, rs: Span, exp: Option<ir::TypeId>) -> Val<'a> {
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
                let Some(y) = self.rvalue(other, rs) else { return Val::Err };
                let y = if is_cmp(op) || !matches!(self.ty(y.ty), Type::SerEnum { .. }) { y } else { self.ser_to_underlying(y, rs) };
                let t = match self.ty(y.ty) {
                    Type::SerEnum { underlying, .. } => *underlying,
                    _ => y.ty,
                };
                let y = if t != y.ty { self.mk_cast(y, t, rs) } else { y };
                let Some(x) = self.coerce(Val::Int(a), t, ls) else { return Val::Err };
                self.typed_binop(span, op, x, y)
            }
            (other, Val::Int(b)) => {
                let Some(x) = self.rvalue(other, ls) else { return Val::Err };
                let x = self.ser_to_underlying(x, ls);
                let Some(y) = self.coerce(Val::Int(b), x.ty, rs) else { return Val::Err };
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
                        p4dp_syntax::Diagnostic::error("E0301", format!("operands have different types: `{a}` and `{b}`"), span, "mismatched operand types")
                            .with_help("cast one operand so that both have the same type"),
                    );
                    return Val::Err;
                }
                self.typed_binop(span, op, x, y)
            }
        }
    }

    fn typed_binop(&mut self, span: Span, op: BinOp, x: ir::Expr, y: ir::Expr) -> Val<'a> {
        let t = x.ty;
        let ok = match op {
            BinOp::Eq | BinOp::Ne => !matches!(self.ty(t), Type::Void | Type::Extern { .. } | Type::MatchKind | Type::String),
            BinOp::And | BinOp::Or => matches!(self.ty(t), Type::Bool),
            BinOp::Div | BinOp::Mod => {
                matches!(self.ty(t), Type::Bit(_)) || (as_const(&x).is_some() && as_const(&y).is_some() && matches!(self.ty(t), Type::Int(_)))
            }
            _ => matches!(self.ty(t), Type::Bit(_) | Type::Int(_)),
        };
        if !ok {
            let tn = self.tname(t);
            self.err("E0304", format!("operator `{}` cannot be applied to `{tn}`", op_str(op)), span, "wrong operand type");
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
                (Value::Bits { .. }, Value::Bits { .. }) | (Value::Bool(_), Value::Bool(_)) => consts::fold_binary(op, a, b, shape),
                _ if matches!(op, BinOp::Eq | BinOp::Ne) => Some(Value::Bool((a == b) == (op == BinOp::Eq))),
                _ => None,
            };
            if let Some(v) = folded {
                return Val::E(cnst(v, rt, span));
            }
        }
        Val::E(mk(ExprKind::Binary(op, Box::new(x), Box::new(y)), rt, span))
    }

    fn shift(&mut self, span: Span, op: BinOp, lv: Val<'a>, rv: Val<'a>, ls: Span, rs: Span, exp: Option<ir::TypeId>) -> Val<'a> {
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
                let Some(y) = self.rvalue(other, rs) else { return Val::Err };
                if !matches!(self.ty(y.ty), Type::Bit(_)) {
                    let tn = self.tname(y.ty);
                    self.err("E0304", format!("shift amount must be unsigned (`bit<W>`), not `{tn}`"), rs, "not unsigned");
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
                    self.err("E0303", "cannot infer the width of the shifted integer", ls, "type unknown");
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
            self.err("E0304", format!("cannot shift a value of type `{tn}`"), ls, "not `bit<W>`/`int<W>`");
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

    fn logical(&mut self, span: Span, op: ast::BinaryOp, l: &'a ast::Expr, r: &'a ast::Expr, pre: &mut Vec<Stmt>) -> Val<'a> {
        let bt = self.t_bool();
        let x = self.expr_as(l, bt, pre);
        let mut rpre = Vec::new();
        let y = self.expr_as(r, bt, &mut rpre);
        let (Some(x), Some(y)) = (x, y) else { return Val::Err };
        let bop = if op == ast::BinaryOp::And { BinOp::And } else { BinOp::Or };
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
        pre.push(Stmt::Assign { dst: tv.clone(), src: x, span: ispan(span) });
        rpre.push(Stmt::Assign { dst: tv.clone(), src: y, span: ispan(span) });
        let cond = if bop == BinOp::And { tv.clone() } else { mk(ExprKind::Unary(UnOp::Not, Box::new(tv.clone())), bt, span) };
        pre.push(Stmt::If { cond, then_: rpre, else_: Vec::new(), span: ispan(span) });
        Val::E(tv)
    }

    fn concat(&mut self, span: Span, l: &'a ast::Expr, r: &'a ast::Expr, pre: &mut Vec<Stmt>) -> Val<'a> {
        let lv = self.expr(l, None, pre);
        let mut rpre = Vec::new();
        let rv = self.expr(r, None, &mut rpre);
        let lv = if rpre.is_empty() { lv } else { self.snapshot_val(lv, pre) };
        pre.append(&mut rpre);
        let (Some(x), Some(y)) = (self.rvalue(lv, l.span), self.rvalue(rv, r.span)) else { return Val::Err };
        let x = self.ser_to_underlying(x, l.span);
        let y = self.ser_to_underlying(y, r.span);
        let (Some((wa, sa)), Some((wb, _))) = (int_shape(&self.p.types, x.ty), int_shape(&self.p.types, y.ty)) else {
            let (a, b) = (self.tname(x.ty), self.tname(y.ty));
            self.err("E0304", format!("`++` needs `bit<W>`/`int<W>` operands, found `{a}` and `{b}`"), span, "wrong operand types");
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

    fn ternary(&mut self, span: Span, c: &'a ast::Expr, a: &'a ast::Expr, b: &'a ast::Expr, exp: Option<ir::TypeId>, pre: &mut Vec<Stmt>) -> Val<'a> {
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
                        self.err("E0303", "cannot infer the type of `?:` with integer operands", span, "type unknown");
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
        let (Some(x), Some(y)) = (self.coerce(av, ty, a.span), self.coerce(bv, ty, b.span)) else { return Val::Err };
        if apre.is_empty() && bpre.is_empty() {
            if let Some(Value::Bool(cv)) = as_const(&cond) {
                return Val::E(if *cv { x } else { y });
            }
            return Val::E(mk(ExprKind::Mux(Box::new(cond), Box::new(x), Box::new(y)), ty, span));
        }
        let t = self.tmp(ty, span);
        let tv = mk(ExprKind::Var(t), ty, span);
        apre.push(Stmt::Assign { dst: tv.clone(), src: x, span: ispan(span) });
        bpre.push(Stmt::Assign { dst: tv.clone(), src: y, span: ispan(span) });
        pre.push(Stmt::If { cond, then_: apre, else_: bpre, span: ispan(span) });
        Val::E(tv)
    }

    fn cast(&mut self, span: Span, ty: &'a ast::Type, e: &'a ast::Expr, pre: &mut Vec<Stmt>) -> Val<'a> {
        let Some(t) = self.resolve_data_type(ty) else { return Val::Err };
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
                    Type::Bool if i == BigInt::from(0) || i == BigInt::from(1) => Val::E(cnst(Value::Bool(i == BigInt::from(1)), t, span)),
                    _ => {
                        let tn = self.tname(t);
                        self.err("E0305", format!("cannot cast an integer to `{tn}`"), span, "invalid cast");
                        Val::Err
                    }
                }
            }
            other => {
                let Some(x) = self.rvalue(other, e.span) else { return Val::Err };
                if x.ty == t {
                    return Val::E(x);
                }
                if self.cast_ok(x.ty, t) {
                    Val::E(self.mk_cast(x, t, span))
                } else {
                    let (a, b) = (self.tname(x.ty), self.tname(t));
                    self.err("E0305", format!("cannot cast `{a}` to `{b}`"), span, "cast not allowed by the P4_16 specification");
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
    // list / struct expressions

    /// A list or struct expression (or `{#}`) typed by its context type `t`.
    pub(crate) fn aggregate(&mut self, e: &'a ast::Expr, t: ir::TypeId, pre: &mut Vec<Stmt>) -> Option<ir::Expr> {
        let ty = self.ty(t).clone();
        let tn = self.tname(t);
        let field_tys: Vec<(String, ir::TypeId)> = match &ty {
            Type::Header(s) | Type::Struct(s) | Type::HeaderUnion(s) => s.fields.iter().map(|f| (f.name.clone(), f.ty)).collect(),
            Type::Tuple(ts) => ts.iter().enumerate().map(|(i, x)| (i.to_string(), *x)).collect(),
            _ => {
                self.err("E0404", format!("list expressions of type `{tn}` are not supported"), e.span, "unsupported");
                return None;
            }
        };
        let mut out = Vec::new();
        match &e.kind {
            ast::ExprKind::InvalidHeader => {
                if !matches!(ty, Type::Header(_) | Type::HeaderUnion(_)) {
                    self.err("E0301", format!("`{{#}}` is an invalid header, but `{tn}` is not a header"), e.span, "type mismatch");
                    return None;
                }
                return Some(cnst(consts::zero_value(&self.p.types, t), t, e.span));
            }
            ast::ExprKind::List { elems, dots } => {
                if matches!(ty, Type::HeaderUnion(_)) {
                    self.err("E0301", "a header union cannot be initialized with a list", e.span, "type mismatch");
                    return None;
                }
                if elems.len() != field_tys.len() && !*dots {
                    self.err("E0306", format!("`{tn}` has {} fields, the list has {} elements", field_tys.len(), elems.len()), e.span, "wrong number of elements");
                    return None;
                }
                if *dots {
                    self.err("E0404", "`...` in list expressions is not supported", e.span, "unsupported");
                    return None;
                }
                for (x, (_, ft)) in elems.iter().zip(field_tys.iter()) {
                    out.push(self.expr_as(x, *ft, pre));
                }
            }
            ast::ExprKind::Struct { fields, dots } => {
                if matches!(ty, Type::Tuple(_)) {
                    self.err("E0301", "a tuple cannot be initialized with a struct expression", e.span, "type mismatch");
                    return None;
                }
                if *dots {
                    self.err("E0404", "`...` in struct expressions is not supported", e.span, "unsupported");
                    return None;
                }
                for f in fields {
                    if !field_tys.iter().any(|(n, _)| *n == f.name.name) {
                        self.err("E0205", format!("`{tn}` has no field `{}`", f.name.name), f.name.span, "unknown field");
                    }
                }
                for (n, ft) in &field_tys {
                    let given: Vec<_> = fields.iter().filter(|f| f.name.name == *n).collect();
                    match given.as_slice() {
                        [f] => out.push(self.expr_as(&f.value, *ft, pre)),
                        [] => {
                            self.err("E0306", format!("field `{n}` of `{tn}` is not initialized"), e.span, "missing field");
                            out.push(None);
                        }
                        [_, f, ..] => {
                            self.err("E0203", format!("field `{n}` is initialized twice"), f.name.span, "duplicate");
                            out.push(None);
                        }
                    }
                }
            }
            _ => return None,
        }
        let out: Option<Vec<ir::Expr>> = out.into_iter().collect();
        let out = out?;
        if out.iter().all(|x| as_const(x).is_some()) {
            let fields = out.iter().filter_map(|x| as_const(x).cloned()).collect();
            let valid = if matches!(ty, Type::Header(_)) { Some(true) } else { None };
            return Some(cnst(Value::Aggregate { valid, fields }, t, e.span));
        }
        Some(mk(ExprKind::List(out), t, e.span))
    }

    /// A list expression without a context type: a tuple of its elements' types.
    fn untyped_list(&mut self, e: &'a ast::Expr, pre: &mut Vec<Stmt>) -> Val<'a> {
        match &e.kind {
            ast::ExprKind::List { elems, dots: false } => {
                let mut xs = Vec::new();
                for x in elems {
                    xs.push(self.rexpr(x, pre));
                }
                let Some(xs) = xs.into_iter().collect::<Option<Vec<_>>>() else { return Val::Err };
                let t = self.intern(Type::Tuple(xs.iter().map(|x| x.ty).collect()));
                Val::E(mk(ExprKind::List(xs), t, e.span))
            }
            _ => {
                self.err("E0303", "cannot infer the type of this expression", e.span, "type unknown; use a cast or a typed variable");
                Val::Err
            }
        }
    }

    /// Integer value of a constant expression that is already lowered.
    pub(crate) fn val_int(v: &Val<'a>) -> Option<BigInt> {
        match v {
            Val::Int(i) => Some(i.clone()),
            Val::E(x) => as_const(x).and_then(consts::to_int),
            _ => None,
        }
    }

    pub(crate) fn small(v: &BigInt) -> Option<u32> {
        v.to_u32()
    }
}

pub(crate) fn op_str(op: BinOp) -> &'static str {
    match op {
        BinOp::Add => "+",
        BinOp::Sub => "-",
        BinOp::Mul => "*",
        BinOp::Div => "/",
        BinOp::Mod => "%",
        BinOp::AddSat => "|+|",
        BinOp::SubSat => "|-|",
        BinOp::Shl => "<<",
        BinOp::Shr => ">>",
        BinOp::BitAnd => "&",
        BinOp::BitOr => "|",
        BinOp::BitXor => "^",
        BinOp::Eq => "==",
        BinOp::Ne => "!=",
        BinOp::Lt => "<",
        BinOp::Le => "<=",
        BinOp::Gt => ">",
        BinOp::Ge => ">=",
        BinOp::And => "&&",
        BinOp::Or => "||",
    }
}
