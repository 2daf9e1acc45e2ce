//! Type resolution (AST types → interned IR types), type names for messages, annotations.

use std::collections::HashMap;

use num_traits::ToPrimitive;
use p4dp_ir as ir;
use p4dp_ir::Type;
use p4dp_syntax::ast;
use p4dp_syntax::Span;

use crate::{CVal, Sema};

/// A resolved type: an IR type, or one of the types that have no IR counterpart.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum RTy {
    T(ir::TypeId),
    /// Infinite-precision `int`.
    InfInt,
    /// A parser/control/package type (only meaningful as a constructor parameter type).
    Block(String),
    /// `_` as a type argument (to be inferred).
    DontCare,
    /// An error was reported.
    Err,
}

/// Largest width accepted for `bit<W>`/`int<W>`/`varbit<W>`.
pub(crate) const MAX_WIDTH: u32 = 1 << 16;

/// Deepest nesting of types (a struct in a struct ..., a tuple in a tuple ...) and of declarations
/// resolved through one another (a typedef of a typedef ..., a constant defined from a constant
/// ...). Every later walk over a type (sizes, names, the C structs) recurses this deep.
pub(crate) const MAX_TYPE_NESTING: u32 = 64;

/// Longest name of a tuple type that spells out its element types.
const MAX_TUPLE_NAME: usize = 256;

impl<'a> Sema<'a> {
    /// Interns `t` and records its nesting depth (1 for a type without component types).
    pub(crate) fn intern(&mut self, t: Type) -> ir::TypeId {
        let inner = match &t {
            Type::SerEnum { underlying, .. } => self.type_depth(*underlying),
            Type::Header(s) | Type::HeaderUnion(s) | Type::Struct(s) => {
                s.fields.iter().map(|f| self.type_depth(f.ty)).max().unwrap_or(0)
            }
            Type::Stack { elem, .. } => self.type_depth(*elem),
            Type::Tuple(ts) | Type::Extern { args: ts, .. } => {
                ts.iter().map(|x| self.type_depth(*x)).max().unwrap_or(0)
            }
            _ => 0,
        };
        let id = self.p.types.intern(t);
        let i = id.index();
        if self.type_depths.len() <= i {
            self.type_depths.resize(i + 1, 0);
        }
        self.type_depths[i] = inner.saturating_add(1);
        id
    }

    /// Nesting depth of an interned type (see [`MAX_TYPE_NESTING`]).
    pub(crate) fn type_depth(&self, t: ir::TypeId) -> u32 {
        self.type_depths.get(t.index()).copied().unwrap_or(1)
    }

    /// Reports E0413 when `t` (declared by `name`) nests deeper than [`MAX_TYPE_NESTING`].
    fn check_type_depth(&mut self, t: ir::TypeId, name: &ast::Ident) -> RTy {
        if self.type_depth(t) > MAX_TYPE_NESTING {
            if std::mem::replace(&mut self.nesting_reported, true) {
                return RTy::Err;
            }
            self.err(
                "E0413",
                format!(
                    "type `{}` is nested too deeply (more than {MAX_TYPE_NESTING} levels of types inside types)",
                    name.name
                ),
                name.span,
                "declared here",
            );
            return RTy::Err;
        }
        RTy::T(t)
    }
    pub(crate) fn t_bool(&mut self) -> ir::TypeId {
        self.intern(Type::Bool)
    }
    pub(crate) fn t_bit(&mut self, w: u32) -> ir::TypeId {
        self.intern(Type::Bit(w))
    }
    pub(crate) fn t_void(&mut self) -> ir::TypeId {
        self.intern(Type::Void)
    }
    pub(crate) fn t_error(&mut self) -> ir::TypeId {
        self.intern(Type::Error)
    }
    pub(crate) fn ty(&self, t: ir::TypeId) -> &Type {
        self.p.types.get(t)
    }

    /// `tuple<T0, T1, ...>`. Represented as a struct named `tuple<...>` with fields `f0`, `f1`,
    /// ... (annotated `@__tuple`), because the IR's `Field` access only applies to structs.
    /// The name spells out the element types unless that is longer than [`MAX_TUPLE_NAME`]
    /// (nested tuples would make it grow exponentially); then it gives the element count (the C
    /// names are made unique by the back end, and messages stay short).
    pub(crate) fn tuple_type(&mut self, elems: Vec<ir::TypeId>) -> ir::TypeId {
        let mut names: Vec<String> = Vec::with_capacity(elems.len());
        let mut len = 0usize;
        for x in &elems {
            if len > MAX_TUPLE_NAME {
                break;
            }
            let n = self.tname(*x);
            len += n.len() + 2;
            names.push(n);
        }
        let name = if len > MAX_TUPLE_NAME {
            format!("tuple<{} elements>", elems.len())
        } else {
            format!("tuple<{}>", names.join(", "))
        };
        let fields = elems
            .iter()
            .enumerate()
            .map(|(i, t)| ir::Field {
                name: format!("f{i}"),
                ty: *t,
                annotations: Vec::new(),
            })
            .collect();
        let annotations = vec![ir::Annotation {
            name: "__tuple".into(),
            args: Vec::new(),
        }];
        self.intern(Type::Struct(ir::StructType {
            name,
            fields,
            annotations,
        }))
    }

    pub(crate) fn is_tuple(&self, t: ir::TypeId) -> bool {
        matches!(self.ty(t), Type::Struct(s) if s.annotations.iter().any(|a| a.name == "__tuple"))
    }

    /// A human-readable type name for messages.
    pub(crate) fn tname(&self, t: ir::TypeId) -> String {
        match self.ty(t) {
            Type::Void => "void".into(),
            Type::Bool => "bool".into(),
            Type::Bit(w) => format!("bit<{w}>"),
            Type::Int(w) => format!("int<{w}>"),
            Type::Varbit(w) => format!("varbit<{w}>"),
            Type::Error => "error".into(),
            Type::String => "string".into(),
            Type::MatchKind => "match_kind".into(),
            Type::Enum { name, .. } | Type::SerEnum { name, .. } => name.clone(),
            Type::Header(s) | Type::HeaderUnion(s) | Type::Struct(s) => s.name.clone(),
            Type::Stack { elem, size } => format!("{}[{}]", self.tname(*elem), size),
            Type::Tuple(ts) => format!(
                "tuple<{}>",
                ts.iter().map(|x| self.tname(*x)).collect::<Vec<_>>().join(", ")
            ),
            Type::Extern { name, args } => {
                if args.is_empty() {
                    name.clone()
                } else {
                    format!(
                        "{}<{}>",
                        name,
                        args.iter().map(|x| self.tname(*x)).collect::<Vec<_>>().join(", ")
                    )
                }
            }
        }
    }

    /// Evaluates a width/size expression: a non-negative constant that fits `u32`.
    pub(crate) fn const_u32(&mut self, e: &'a ast::Expr, what: &str) -> Option<u32> {
        let v = self.const_int(e)?;
        match v.to_u32() {
            Some(w) => Some(w),
            None => {
                self.err(
                    "E0309",
                    format!("invalid {what} `{v}`"),
                    e.span,
                    "must be a non-negative integer",
                );
                None
            }
        }
    }

    /// Evaluates `e` as a compile-time integer (any width).
    pub(crate) fn const_int(&mut self, e: &'a ast::Expr) -> Option<num_bigint::BigInt> {
        match self.const_eval(e, None)? {
            CVal::Int(v) => Some(v),
            CVal::V(v, _) => match crate::consts::to_int(&v) {
                Some(i) if !matches!(v, ir::Value::Bool(_)) => Some(i),
                _ => {
                    self.err("E0301", "expected an integer constant", e.span, "not an integer");
                    None
                }
            },
        }
    }

    fn width(&mut self, e: &'a ast::Expr, signed: bool) -> Option<u32> {
        let w = self.const_u32(e, "width")?;
        if w > MAX_WIDTH || (signed && w == 0) {
            self.err(
                "E0309",
                format!("invalid width {w}"),
                e.span,
                format!("widths must be {}..={MAX_WIDTH}", signed as u8),
            );
            return None;
        }
        Some(w)
    }

    /// Resolves an AST type in the current scope (type variables, then top-level types).
    pub(crate) fn resolve_type(&mut self, t: &'a ast::Type) -> RTy {
        match &t.kind {
            ast::TypeKind::Bool => RTy::T(self.t_bool()),
            ast::TypeKind::Error => RTy::T(self.t_error()),
            ast::TypeKind::MatchKind => RTy::T(self.intern(Type::MatchKind)),
            ast::TypeKind::String => RTy::T(self.intern(Type::String)),
            ast::TypeKind::Void => RTy::T(self.t_void()),
            ast::TypeKind::Bit(None) => RTy::T(self.t_bit(1)),
            ast::TypeKind::Bit(Some(e)) => match self.width(e, false) {
                Some(w) => RTy::T(self.t_bit(w)),
                None => RTy::Err,
            },
            ast::TypeKind::Int(None) => RTy::InfInt,
            ast::TypeKind::Int(Some(e)) => match self.width(e, true) {
                Some(w) => RTy::T(self.intern(Type::Int(w))),
                None => RTy::Err,
            },
            ast::TypeKind::Varbit(e) => match self.width(e, false) {
                Some(w) => RTy::T(self.intern(Type::Varbit(w))),
                None => RTy::Err,
            },
            ast::TypeKind::Named(p) => self.resolve_named_type(p, &[], t.span),
            ast::TypeKind::Specialized { base, args } => {
                let mut targs = Vec::new();
                for a in args {
                    match self.resolve_type(a) {
                        RTy::T(x) => targs.push(x),
                        RTy::Err => return RTy::Err,
                        RTy::DontCare => {
                            self.err(
                                "E0404",
                                "`_` type arguments are not supported here",
                                a.span,
                                "give the type",
                            );
                            return RTy::Err;
                        }
                        _ => {
                            self.err("E0309", "invalid type argument", a.span, "not a data type");
                            return RTy::Err;
                        }
                    }
                }
                self.resolve_named_type(base, &targs, t.span)
            }
            ast::TypeKind::Stack { elem, size } => {
                let e = self.resolve_type(elem);
                let n = self.const_u32(size, "header stack size");
                match (e, n) {
                    (RTy::T(e), Some(n)) => {
                        if !matches!(self.ty(e), Type::Header(_) | Type::HeaderUnion(_)) {
                            let tn = self.tname(e);
                            self.err(
                                "E0309",
                                format!("header stack elements must be headers or header unions, not `{tn}`"),
                                elem.span,
                                "not a header",
                            );
                            return RTy::Err;
                        }
                        if n == 0 || n > MAX_WIDTH {
                            self.err(
                                "E0309",
                                format!("header stack size must be 1..={MAX_WIDTH}"),
                                size.span,
                                "bad size",
                            );
                            return RTy::Err;
                        }
                        RTy::T(self.intern(Type::Stack { elem: e, size: n }))
                    }
                    (RTy::Err, _) | (_, None) => RTy::Err,
                    _ => {
                        self.err("E0309", "invalid header stack element type", elem.span, "not a header");
                        RTy::Err
                    }
                }
            }
            ast::TypeKind::Tuple(ts) => {
                let mut v = Vec::new();
                for x in ts {
                    match self.resolve_type(x) {
                        RTy::T(id) => v.push(id),
                        RTy::Err => return RTy::Err,
                        _ => {
                            self.err("E0309", "invalid tuple element type", x.span, "not a data type");
                            return RTy::Err;
                        }
                    }
                }
                RTy::T(self.tuple_type(v))
            }
            ast::TypeKind::List(_) => {
                self.err(
                    "E0404",
                    "`list<T>` types are not supported by p4dp",
                    t.span,
                    "unsupported",
                );
                RTy::Err
            }
            ast::TypeKind::DontCare => RTy::DontCare,
            ast::TypeKind::Invalid => RTy::Err,
        }
    }

    /// Resolves a type that must be a data type (not `int`, not a block type).
    pub(crate) fn resolve_data_type(&mut self, t: &'a ast::Type) -> Option<ir::TypeId> {
        match self.resolve_type(t) {
            RTy::T(x) => Some(x),
            RTy::Err => None,
            RTy::InfInt => {
                self.err(
                    "E0303",
                    "`int` is not allowed here",
                    t.span,
                    "a fixed-width type is required",
                );
                None
            }
            _ => {
                self.err("E0309", "a data type is required here", t.span, "not a data type");
                None
            }
        }
    }

    fn resolve_named_type(&mut self, p: &'a ast::PathName, args: &[ir::TypeId], span: Span) -> RTy {
        if !p.top_level && args.is_empty() {
            if let Some(t) = self.cx.tsubst.get(&p.name.name) {
                return RTy::T(*t);
            }
        }
        let Some(decls) = self.lookup_global(&p.name.name, p.name.span) else {
            self.err(
                "E0202",
                format!("unknown type `{}`", p.name.name),
                p.name.span,
                "not found",
            );
            return RTy::Err;
        };
        let d = decls[0];
        self.decl_type(d, args, span)
    }

    /// The type declared by a top-level declaration, applied to `args`.
    pub(crate) fn decl_type(&mut self, d: &'a ast::Decl, args: &[ir::TypeId], span: Span) -> RTy {
        let key = (d.id(), args.to_vec());
        if let Some(t) = self.type_cache.get(&key) {
            return t.clone();
        }
        if !self.type_busy.insert(key.0) {
            self.err(
                "E0410",
                format!("`{}` is defined in terms of itself", d.name().name),
                span,
                "recursive type",
            );
            return RTy::Err;
        }
        if !self.enter_resolution(&d.name().name, span) {
            self.type_busy.remove(&key.0);
            self.type_cache.insert(key, RTy::Err);
            return RTy::Err;
        }
        let r = self.in_global_scope(|s| s.decl_type_uncached(d, args, span));
        self.resolving -= 1;
        let r = match r {
            RTy::T(t) => self.check_type_depth(t, d.name()),
            other => other,
        };
        self.type_busy.remove(&key.0);
        self.type_cache.insert(key, r.clone());
        r
    }

    /// Counts one more declaration being resolved inside another (lazily, from where it is
    /// used); false, with E0413 reported at `span`, beyond [`MAX_TYPE_NESTING`]. Pair a true
    /// result with `self.resolving -= 1`.
    pub(crate) fn enter_resolution(&mut self, name: &str, span: Span) -> bool {
        if self.resolving >= MAX_TYPE_NESTING {
            if std::mem::replace(&mut self.nesting_reported, true) {
                return false;
            }
            self.err(
                "E0413",
                format!(
                    "`{name}` is nested too deeply (more than {MAX_TYPE_NESTING} levels of declarations defined from other declarations)"
                ),
                span,
                "nesting limit reached here",
            );
            return false;
        }
        self.resolving += 1;
        true
    }

    fn check_arity(&mut self, name: &ast::Ident, params: usize, args: usize, span: Span) -> bool {
        if params != args {
            self.err(
                "E0306",
                format!("`{}` takes {} type arguments, {} given", name.name, params, args),
                span,
                "wrong number of type arguments",
            );
            return false;
        }
        true
    }

    fn decl_type_uncached(&mut self, d: &'a ast::Decl, args: &[ir::TypeId], span: Span) -> RTy {
        match d {
            ast::Decl::Header(s) | ast::Decl::HeaderUnion(s) | ast::Decl::Struct(s) => {
                if !self.check_arity(&s.name, s.type_params.len(), args.len(), span) {
                    return RTy::Err;
                }
                let mut name = s.name.name.clone();
                if !args.is_empty() {
                    name = format!(
                        "{}<{}>",
                        name,
                        args.iter().map(|a| self.tname(*a)).collect::<Vec<_>>().join(", ")
                    );
                }
                self.cx.tsubst = s
                    .type_params
                    .iter()
                    .map(|p| p.name.clone())
                    .zip(args.iter().copied())
                    .collect();
                let mut fields = Vec::new();
                let mut seen: HashMap<&str, Span> = HashMap::new();
                let mut bad = false;
                for f in &s.fields {
                    if let Some(prev) = seen.insert(&f.name.name, f.name.span) {
                        self.report(
                            p4dp_syntax::Diagnostic::error(
                                "E0203",
                                format!("duplicate field `{}`", f.name.name),
                                f.name.span,
                                "declared again here",
                            )
                            .with_secondary(prev, "first declared here"),
                        );
                        continue;
                    }
                    let Some(ft) = self.resolve_data_type(&f.ty) else {
                        bad = true;
                        continue;
                    };
                    if !self.field_type_ok(d, ft, f) {
                        bad = true;
                    }
                    fields.push(ir::Field {
                        name: f.name.name.clone(),
                        ty: ft,
                        annotations: self.annotations(&f.annotations),
                    });
                }
                if bad {
                    return RTy::Err;
                }
                let st = ir::StructType {
                    name,
                    fields,
                    annotations: self.annotations(&s.annotations),
                };
                let t = match d {
                    ast::Decl::Header(_) => Type::Header(st),
                    ast::Decl::HeaderUnion(_) => Type::HeaderUnion(st),
                    _ => Type::Struct(st),
                };
                RTy::T(self.intern(t))
            }
            ast::Decl::Enum(e) => {
                if !self.check_arity(&e.name, 0, args.len(), span) {
                    return RTy::Err;
                }
                let mut names: Vec<String> = Vec::new();
                for m in &e.members {
                    if names.contains(&m.name.name) {
                        self.err(
                            "E0203",
                            format!("duplicate enum member `{}`", m.name.name),
                            m.name.span,
                            "declared again here",
                        );
                    } else {
                        names.push(m.name.name.clone());
                    }
                }
                match &e.repr {
                    None => RTy::T(self.intern(Type::Enum {
                        name: e.name.name.clone(),
                        members: names,
                    })),
                    Some(rt) => {
                        let Some(u) = self.resolve_data_type(rt) else {
                            return RTy::Err;
                        };
                        if !matches!(self.ty(u), Type::Bit(_) | Type::Int(_)) {
                            let tn = self.tname(u);
                            self.err(
                                "E0309",
                                format!("a serializable enum needs a `bit<W>` or `int<W>` type, not `{tn}`"),
                                rt.span,
                                "bad underlying type",
                            );
                            return RTy::Err;
                        }
                        let mut members = Vec::new();
                        let mut seen = Vec::new();
                        for m in &e.members {
                            if seen.contains(&m.name.name) {
                                continue;
                            }
                            seen.push(m.name.name.clone());
                            let Some(ve) = &m.value else {
                                self.err(
                                    "E0401",
                                    format!("member `{}` of a serializable enum needs a value", m.name.name),
                                    m.span,
                                    "add `= value`",
                                );
                                continue;
                            };
                            let v = match self.const_eval(ve, Some(u)) {
                                Some(CVal::V(v, _)) => v,
                                _ => continue,
                            };
                            members.push((m.name.name.clone(), v));
                        }
                        RTy::T(self.intern(Type::SerEnum {
                            name: e.name.name.clone(),
                            underlying: u,
                            members,
                        }))
                    }
                }
            }
            ast::Decl::Typedef(td) => {
                if !args.is_empty() {
                    self.check_arity(&td.name, 0, args.len(), span);
                    return RTy::Err;
                }
                match &td.target {
                    ast::TypedefTarget::Type(t) => self.resolve_type(t),
                    ast::TypedefTarget::Decl(inner) => self.decl_type(inner, &[], span),
                }
            }
            ast::Decl::ExternObject(x) => {
                if !args.is_empty() && !self.check_arity(&x.name, x.type_params.len(), args.len(), span) {
                    return RTy::Err;
                }
                RTy::T(self.intern(Type::Extern {
                    name: x.name.name.clone(),
                    args: args.to_vec(),
                }))
            }
            ast::Decl::ParserType(h) | ast::Decl::ControlType(h) | ast::Decl::PackageType(h) => {
                RTy::Block(h.name.name.clone())
            }
            ast::Decl::Parser(p) => RTy::Block(p.header.name.name.clone()),
            ast::Decl::Control(c) => RTy::Block(c.header.name.name.clone()),
            other => {
                self.err(
                    "E0204",
                    format!("`{}` is not a type", other.name().name),
                    span,
                    "expected a type",
                );
                RTy::Err
            }
        }
    }

    /// Field type rules: header fields are bit/int/varbit/bool/ser-enum (and structs of those);
    /// header unions contain headers; at most one varbit per header.
    fn field_type_ok(&mut self, d: &ast::Decl, ft: ir::TypeId, f: &ast::Field) -> bool {
        let ok = match d {
            ast::Decl::Header(_) => self.is_header_field_type(ft),
            ast::Decl::HeaderUnion(_) => matches!(self.ty(ft), Type::Header(_)),
            _ => !matches!(
                self.ty(ft),
                Type::Void | Type::Extern { .. } | Type::String | Type::MatchKind
            ),
        };
        if !ok {
            let tn = self.tname(ft);
            let what = match d {
                ast::Decl::Header(_) => "a header field",
                ast::Decl::HeaderUnion(_) => "a header union member (must be a header)",
                _ => "a struct field",
            };
            self.err(
                "E0309",
                format!("type `{tn}` cannot be {what}"),
                f.ty.span,
                "invalid field type",
            );
        }
        ok
    }

    fn is_header_field_type(&self, t: ir::TypeId) -> bool {
        match self.ty(t) {
            Type::Bit(_) | Type::Int(_) | Type::Varbit(_) | Type::Bool | Type::SerEnum { .. } => true,
            Type::Struct(s) => s
                .fields
                .iter()
                .all(|f| self.is_header_field_type(f.ty) && !matches!(self.ty(f.ty), Type::Varbit(_))),
            _ => false,
        }
    }

    /// Size in bits of a type for `minSizeInBits`/`maxSizeInBits` (`max` picks varbit maxima).
    pub(crate) fn size_in_bits(&self, t: ir::TypeId, max: bool) -> Option<u64> {
        Some(match self.ty(t) {
            Type::Bool => 1,
            Type::Bit(w) | Type::Int(w) => *w as u64,
            Type::Varbit(w) => {
                if max {
                    *w as u64
                } else {
                    0
                }
            }
            Type::SerEnum { underlying, .. } => self.size_in_bits(*underlying, max)?,
            Type::Header(s) | Type::Struct(s) => {
                let mut n = 0;
                for f in &s.fields {
                    n += self.size_in_bits(f.ty, max)?;
                }
                n
            }
            Type::HeaderUnion(s) => {
                let mut n: Option<u64> = None;
                for f in &s.fields {
                    let x = self.size_in_bits(f.ty, max)?;
                    n = Some(match n {
                        None => x,
                        Some(m) => {
                            if max {
                                m.max(x)
                            } else {
                                m.min(x)
                            }
                        }
                    });
                }
                n.unwrap_or(0)
            }
            Type::Stack { elem, size } => self.size_in_bits(*elem, max)? * *size as u64,
            Type::Tuple(ts) => {
                let mut n = 0;
                for x in ts {
                    n += self.size_in_bits(*x, max)?;
                }
                n
            }
            _ => return None,
        })
    }

    /// Converts AST annotations to IR annotations.
    pub(crate) fn annotations(&self, anns: &[ast::Annotation]) -> Vec<ir::Annotation> {
        anns.iter()
            .map(|a| {
                let args = match &a.body {
                    ast::AnnotationBody::Empty => Vec::new(),
                    ast::AnnotationBody::Unstructured {
                        tokens,
                        exprs: Some(es),
                    } if !tokens.is_empty() => es.iter().map(|e| self.ann_arg(e)).collect(),
                    ast::AnnotationBody::Unstructured { tokens, .. } => {
                        if tokens.is_empty() {
                            Vec::new()
                        } else {
                            let sp = tokens[0].span.to(tokens[tokens.len() - 1].span);
                            vec![ir::AnnotationArg::Raw(self.sm.snippet(sp).to_string())]
                        }
                    }
                    ast::AnnotationBody::ExprList(es) => es.iter().map(|e| self.ann_arg(e)).collect(),
                    ast::AnnotationBody::KeyValueList(kvs) => kvs
                        .iter()
                        .map(|kv| ir::AnnotationArg::Kv(kv.name.name.clone(), Box::new(self.ann_arg(&kv.value))))
                        .collect(),
                };
                ir::Annotation {
                    name: a.name.name.clone(),
                    args,
                }
            })
            .collect()
    }

    fn ann_arg(&self, e: &ast::Expr) -> ir::AnnotationArg {
        match &e.kind {
            ast::ExprKind::Str(s) => ir::AnnotationArg::String(s.clone()),
            ast::ExprKind::Int(l) if l.width.is_none() => match l.value.to_i128() {
                Some(v) => ir::AnnotationArg::Int(v),
                None => ir::AnnotationArg::Raw(self.sm.snippet(e.span).to_string()),
            },
            ast::ExprKind::Unary {
                op: ast::UnaryOp::Neg,
                expr,
            } => match &expr.kind {
                ast::ExprKind::Int(l) if l.width.is_none() => match l.value.to_i128() {
                    Some(v) => ir::AnnotationArg::Int(-v),
                    None => ir::AnnotationArg::Raw(self.sm.snippet(e.span).to_string()),
                },
                _ => ir::AnnotationArg::Raw(self.sm.snippet(e.span).to_string()),
            },
            _ => ir::AnnotationArg::Raw(self.sm.snippet(e.span).to_string()),
        }
    }
}

/// The string argument of `@name("...")`, if present.
pub(crate) fn name_annotation(anns: &[ast::Annotation]) -> Option<String> {
    for a in anns {
        if a.name.name != "name" {
            continue;
        }
        if let ast::AnnotationBody::Unstructured { exprs: Some(es), .. } = &a.body {
            if let Some(ast::Expr {
                kind: ast::ExprKind::Str(s),
                ..
            }) = es.first()
            {
                return Some(s.clone());
            }
        }
        if let ast::AnnotationBody::Unstructured { tokens, .. } = &a.body {
            for t in tokens {
                if let p4dp_syntax::lexer::TokenKind::Str(s) = &t.kind {
                    return Some(s.clone());
                }
            }
        }
    }
    None
}

/// The control-plane name of `local` declared in the block at `prefix` (empty = top level):
/// `@name("x")` replaces the local name, `@name(".x")` gives the absolute name `x`.
pub fn control_plane_name(prefix: &str, local: &str, name_ann: Option<&str>) -> String {
    let (n, absolute) = match name_ann {
        Some(s) if s.starts_with('.') => (&s[1..], true),
        Some(s) => (s, false),
        None => (local, false),
    };
    if absolute || prefix.is_empty() {
        n.to_string()
    } else {
        format!("{prefix}.{n}")
    }
}
