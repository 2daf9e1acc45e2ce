//! Instances: extern object instances (top-level ones shared by every block), sub-parser and
//! sub-control instances with their type and constructor arguments, direct type invocations,
//! and the apply parameters of a block. Instantiating a parser or control elaborates it
//! (`parser`, `control`): the one way this module reaches above itself.

use std::collections::HashMap;

use p4dp_ir as ir;
use p4dp_syntax::ast;
use p4dp_syntax::Span;

use crate::env::{Binding, OwnerKind};
use crate::overload::dir_of;
use crate::types::{control_plane_name, name_annotation, RTy};
use crate::{ispan, CVal, Sema};

impl<'a> Sema<'a> {
    /// Declares the apply parameters of a parser/control in the current owner.
    pub(crate) fn block_params(&mut self, params: &'a [ast::Param]) -> Vec<ir::VarId> {
        let mut out = Vec::new();
        for p in params {
            let t = match self.resolve_type(&p.ty) {
                RTy::T(t) => t,
                RTy::Err => {
                    self.declare(&p.name, Binding::Err);
                    self.incomplete_blocks.insert(self.cx.kind);
                    continue;
                }
                _ => {
                    self.err(
                        "E0309",
                        "a parameter must have a data or extern type",
                        p.ty.span,
                        "bad parameter type",
                    );
                    self.declare(&p.name, Binding::Err);
                    self.incomplete_blocks.insert(self.cx.kind);
                    continue;
                }
            };
            let v = self.cx.vars.alloc(ir::Var {
                entry_ref: false,
                name: p.name.name.clone(),
                ty: t,
                kind: ir::VarKind::Param(dir_of(p.direction)),
                annotations: self.annotations(&p.annotations),
                span: ispan(p.span),
            });
            out.push(v);
            self.declare(&p.name, Binding::Var(v));
        }
        out
    }

    /// Evaluates constructor arguments (in the current scope) for constructor parameters `params`
    /// of a block or extern whose type variables are `bind`. Parser/control-typed parameters
    /// (only for blocks: `blocks` is `Some`) take a parser/control instance of the current scope;
    /// their bindings go to `blocks`.
    pub(crate) fn ctor_args(
        &mut self,
        params: &'a [ast::Param],
        args: &'a [ast::Argument],
        bind: &mut HashMap<String, ir::TypeId>,
        tvars: &[String],
        span: Span,
        mut blocks: Option<&mut Vec<(usize, Binding)>>,
    ) -> Option<Vec<(usize, CVal)>> {
        let descs = crate::overload::ast_params(params);
        let cands = vec![descs];
        let (_, map) = self.pick_overload("constructor", cands, args, span)?;
        let mut out = Vec::new();
        let mut ok = true;
        for (i, p) in params.iter().enumerate() {
            let Some(ai) = map[i] else {
                if let Some(d) = &p.default {
                    let pt = self.ctor_param_type(p, bind);
                    if let Some(v) = self.in_global_scope(|s| s.const_eval(d, pt)) {
                        out.push((i, v));
                    }
                }
                continue;
            };
            let a = &args[ai].value;
            let unbound = matches!(&p.ty.kind, ast::TypeKind::Named(n) if tvars.contains(&n.name.name) && !bind.contains_key(&n.name.name));
            if unbound {
                match self.const_eval(a, None) {
                    Some(CVal::V(v, t)) => {
                        if let ast::TypeKind::Named(n) = &p.ty.kind {
                            bind.insert(n.name.name.clone(), t);
                        }
                        out.push((i, CVal::V(v, t)));
                    }
                    Some(CVal::Int(_)) => {
                        self.err(
                            "E0308",
                            format!("cannot infer the type of `{}` from an integer", p.name.name),
                            a.span,
                            "width unknown",
                        );
                        ok = false;
                    }
                    None => ok = false,
                }
                continue;
            }
            let pt = self.ctor_param_type(p, bind);
            match self.resolve_ctor_kind(p, bind) {
                Some(RTy::Block(want)) if blocks.is_some() => {
                    match self.block_ctor_arg(a, &want) {
                        Some(b) => {
                            if let Some(bs) = blocks.as_deref_mut() {
                                bs.push((i, b));
                            }
                        }
                        None => ok = false,
                    }
                    continue;
                }
                Some(RTy::Block(_)) => {
                    self.err(
                        "E0404",
                        "parsers/controls as constructor arguments are not supported",
                        a.span,
                        "unsupported",
                    );
                    ok = false;
                    continue;
                }
                Some(RTy::Err) => {
                    ok = false;
                    continue;
                }
                _ => {}
            }
            match self.const_eval(a, pt) {
                Some(v) => out.push((i, v)),
                None => ok = false,
            }
        }
        ok.then_some(out)
    }

    /// A parser/control instance given for a constructor parameter of parser/control type
    /// `want` (a `parser`/`control` type declaration): a name of an instance in scope, whose
    /// kind and apply-parameter count must match. The callee applies that very instance.
    fn block_ctor_arg(&mut self, a: &'a ast::Expr, want: &str) -> Option<Binding> {
        let b = match &a.kind {
            ast::ExprKind::Name(p) if !p.top_level => self.lookup_local(&p.name.name),
            _ => None,
        };
        let (b, is_ctl, n) = match b {
            Some(Binding::Control(c)) => {
                let n = self.p.controls[c].params.len();
                (Binding::Control(c), true, n)
            }
            Some(Binding::Parser(x)) => {
                let n = self.p.parsers[x].params.len();
                (Binding::Parser(x), false, n)
            }
            Some(Binding::Err) => return None,
            _ => {
                self.err(
                    "E0404",
                    "a parser/control constructor argument must name an instance declared before it",
                    a.span,
                    "instantiate it first, e.g. `C1() c1; C2(c1) c2;`",
                );
                return None;
            }
        };
        let (want_ctl, want_n) = match self.g.map.get(want).and_then(|v| v.first().copied()) {
            Some(ast::Decl::ControlType(h)) => (true, h.params.len()),
            Some(ast::Decl::Control(c)) => (true, c.header.params.len()),
            Some(ast::Decl::ParserType(h)) => (false, h.params.len()),
            Some(ast::Decl::Parser(x)) => (false, x.header.params.len()),
            _ => (is_ctl, n),
        };
        if want_ctl != is_ctl || want_n != n {
            self.err(
                "E0301",
                format!("this instance does not match the constructor parameter's type `{want}`"),
                a.span,
                "wrong block kind or number of parameters",
            );
            return None;
        }
        Some(b)
    }

    fn resolve_ctor_kind(&mut self, p: &'a ast::Param, bind: &HashMap<String, ir::TypeId>) -> Option<RTy> {
        let b = bind.clone();
        Some(self.in_global_scope(|s| {
            s.cx.tsubst = b;
            s.resolve_type(&p.ty)
        }))
    }

    fn ctor_param_type(&mut self, p: &'a ast::Param, bind: &HashMap<String, ir::TypeId>) -> Option<ir::TypeId> {
        match self.resolve_ctor_kind(p, bind)? {
            RTy::T(t) => Some(t),
            _ => None,
        }
    }

    /// A top-level extern instance (one per program, shared by every block that uses it).
    pub(crate) fn global_extern(&mut self, d: &'a ast::Decl, i: &'a ast::Instantiation) -> Option<ir::ExternId> {
        let k = d.id();
        let id = match self.global_externs.get(&k) {
            Some(x) => *x,
            None => {
                let r = self.in_global_scope(|s| s.extern_instance(i, ""));
                let x = r?;
                self.global_externs.insert(k, x);
                x
            }
        };
        if !self.cx.externs.contains(&id) {
            self.cx.externs.push(id);
        }
        Some(id)
    }

    /// An instantiation inside a control or parser: an extern object or a sub-block.
    pub(crate) fn instantiation(&mut self, i: &'a ast::Instantiation) {
        let (base, _targs) = match &i.ty.kind {
            ast::TypeKind::Named(p) => (p, &[][..]),
            ast::TypeKind::Specialized { base, args } => (base, &args[..]),
            _ => {
                self.err(
                    "E0204",
                    "only externs, parsers and controls can be instantiated",
                    i.ty.span,
                    "not instantiable",
                );
                self.declare(&i.name, Binding::Err);
                return;
            }
        };
        let d = self
            .lookup_global(&base.name.name, base.name.span)
            .and_then(|v| v.first().copied());
        let b = match d {
            Some(ast::Decl::ExternObject(_)) => {
                let path = self.cx.path.clone();
                match self.extern_instance(i, &path) {
                    Some(x) => {
                        self.cx.externs.push(x);
                        Binding::Extern(x)
                    }
                    None => Binding::Err,
                }
            }
            Some(ast::Decl::Control(cd)) => {
                if !matches!(self.cx.kind, OwnerKind::Control(_)) {
                    self.err(
                        "E0402",
                        "controls can only be instantiated inside controls",
                        i.span,
                        "not allowed here",
                    );
                    Binding::Err
                } else {
                    match self.sub_block_args(&cd.header.type_params, &cd.ctor_params, i) {
                        Some((ctor, tb)) => {
                            let path = control_plane_name(
                                &self.cx.path,
                                &i.name.name,
                                name_annotation(&i.annotations).as_deref(),
                            );
                            match self.elab_control(cd, path, ctor, tb, i.span) {
                                Some(c) => Binding::Control(c),
                                None => Binding::Err,
                            }
                        }
                        None => Binding::Err,
                    }
                }
            }
            Some(ast::Decl::Parser(pd)) => {
                if !self.cx.is_parser() {
                    self.err(
                        "E0402",
                        "parsers can only be instantiated inside parsers",
                        i.span,
                        "not allowed here",
                    );
                    Binding::Err
                } else {
                    match self.sub_block_args(&pd.header.type_params, &pd.ctor_params, i) {
                        Some((ctor, tb)) => {
                            let path = control_plane_name(
                                &self.cx.path,
                                &i.name.name,
                                name_annotation(&i.annotations).as_deref(),
                            );
                            match self.elab_parser(pd, path, ctor, tb, i.span) {
                                Some(p) => Binding::Parser(p),
                                None => Binding::Err,
                            }
                        }
                        None => Binding::Err,
                    }
                }
            }
            Some(other) => {
                self.err(
                    "E0204",
                    format!("`{}` cannot be instantiated here", other.name().name),
                    base.span,
                    "not an extern, parser or control",
                );
                Binding::Err
            }
            None => {
                self.err(
                    "E0202",
                    format!("unknown type `{}`", base.name.name),
                    base.name.span,
                    "not found",
                );
                Binding::Err
            }
        };
        self.declare(&i.name, b);
    }

    /// Direct type invocation `T.apply(...)` of a control (in a control) or parser (in a
    /// parser) without constructor parameters: a fresh instance named after the type (`T`;
    /// further invocations in the same block, allowed only without controllable entities, get
    /// internal names `T_1`, ...), elaborated here.
    pub(crate) fn direct_instance(&mut self, d: &'a ast::Decl, span: Span) -> Option<OwnerKind> {
        let (name, ctl, has_ctor, generic) = match d {
            ast::Decl::Control(cd) => (
                &cd.header.name.name,
                true,
                !cd.ctor_params.is_empty(),
                !cd.header.type_params.is_empty(),
            ),
            ast::Decl::Parser(pd) => (
                &pd.header.name.name,
                false,
                !pd.ctor_params.is_empty(),
                !pd.header.type_params.is_empty(),
            ),
            _ => return None,
        };
        let in_ctl = matches!(self.cx.kind, OwnerKind::Control(_));
        if ctl != in_ctl || (!ctl && !self.cx.is_parser()) || self.cx.action.is_some() {
            let what = if ctl {
                "a control type can only be applied directly in a control's apply block"
            } else {
                "a parser type can only be applied directly in a parser state"
            };
            self.err("E0402", what, span, "not allowed here");
            return None;
        }
        if has_ctor || generic {
            self.err(
                "E0404",
                format!("direct invocation of `{name}`, which has constructor or type parameters, is not supported"),
                span,
                "instantiate it explicitly",
            );
            return None;
        }
        let base = control_plane_name(&self.cx.path, name, None);
        let taken = |s: &Self, p: &str| {
            s.p.controls.iter().any(|(_, c)| c.path == p) || s.p.parsers.iter().any(|(_, x)| x.path == p)
        };
        // P4_16 "direct type invocation": invoking a type again in the same scope gives another
        // instance with the same control-plane name, so it is illegal when the type contains
        // controllable entities. p4dp gives the extra instances internal names.
        let controllable =
            self.p.controls.iter().any(|(_, c)| {
                c.path == base && (!c.tables.is_empty() || !c.externs.is_empty() || !c.actions.is_empty())
            }) || self
                .p
                .parsers
                .iter()
                .any(|(_, x)| x.path == base && (!x.externs.is_empty() || !x.value_sets.is_empty()));
        if controllable {
            self.err(
                "E0410",
                format!(
                    "`{name}` is invoked directly more than once here, but it has tables, actions or extern instances"
                ),
                span,
                "instantiate it explicitly, once per use",
            );
            return None;
        }
        let mut path = base.clone();
        let mut k = 0;
        while taken(self, &path) {
            k += 1;
            path = format!("{base}_{k}");
        }
        match d {
            ast::Decl::Control(cd) => self
                .elab_control(cd, path, Vec::new(), HashMap::new(), span)
                .map(OwnerKind::Control),
            ast::Decl::Parser(pd) => self
                .elab_parser(pd, path, Vec::new(), HashMap::new(), span)
                .map(OwnerKind::Parser),
            _ => None,
        }
    }

    /// Type and constructor arguments of a sub-parser/sub-control instantiation.
    #[allow(clippy::type_complexity)]
    pub(crate) fn sub_block_args(
        &mut self,
        tps: &'a [ast::Ident],
        ctor_params: &'a [ast::Param],
        i: &'a ast::Instantiation,
    ) -> Option<(Vec<(&'a ast::Ident, Binding)>, HashMap<String, ir::TypeId>)> {
        self.block_ctor(tps, ctor_params, &i.ty, &i.args, i.span)
    }

    #[allow(clippy::type_complexity)]
    pub(crate) fn block_ctor(
        &mut self,
        tps: &'a [ast::Ident],
        ctor_params: &'a [ast::Param],
        ty: &'a ast::Type,
        args: &'a [ast::Argument],
        span: Span,
    ) -> Option<(Vec<(&'a ast::Ident, Binding)>, HashMap<String, ir::TypeId>)> {
        let mut bind = HashMap::new();
        if let ast::TypeKind::Specialized { args: targs, .. } = &ty.kind {
            if targs.len() != tps.len() {
                self.err(
                    "E0306",
                    format!("{} type arguments given, {} expected", targs.len(), tps.len()),
                    ty.span,
                    "wrong number of type arguments",
                );
                return None;
            }
            for (p, t) in tps.iter().zip(targs) {
                let t = self.resolve_data_type(t)?;
                bind.insert(p.name.clone(), t);
            }
        } else if !tps.is_empty() {
            self.err(
                "E0404",
                "generic parsers/controls need explicit type arguments in p4dp",
                ty.span,
                "give the type arguments",
            );
            return None;
        }
        let tvars: Vec<String> = Vec::new();
        let mut blocks = Vec::new();
        let vals = self.ctor_args(ctor_params, args, &mut bind, &tvars, span, Some(&mut blocks))?;
        let ctor = vals
            .into_iter()
            .map(|(i, v)| (&ctor_params[i].name, Binding::Const(v)))
            .chain(blocks.into_iter().map(|(i, b)| (&ctor_params[i].name, b)))
            .collect();
        Some((ctor, bind))
    }

    /// Creates an extern object instance with evaluated constructor arguments.
    pub(crate) fn extern_instance(&mut self, i: &'a ast::Instantiation, prefix: &str) -> Option<ir::ExternId> {
        let (base, targs) = match &i.ty.kind {
            ast::TypeKind::Named(p) => (p, &[][..]),
            ast::TypeKind::Specialized { base, args } => (base, &args[..]),
            _ => return None,
        };
        if i.initializer.is_some() {
            self.err(
                "E0404",
                "extern instances with initializers (abstract methods) are not supported",
                i.span,
                "unsupported",
            );
            return None;
        }
        self.new_extern(
            base,
            targs,
            &i.args,
            &i.name.name,
            name_annotation(&i.annotations).as_deref(),
            self.annotations(&i.annotations),
            prefix,
            i.span,
        )
    }

    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new_extern(
        &mut self,
        base: &'a ast::PathName,
        targs: &'a [ast::Type],
        args: &'a [ast::Argument],
        name: &str,
        name_ann: Option<&str>,
        annotations: Vec<ir::Annotation>,
        prefix: &str,
        span: Span,
    ) -> Option<ir::ExternId> {
        let Some(ast::Decl::ExternObject(xd)) = self
            .lookup_global(&base.name.name, base.name.span)
            .and_then(|v| v.first().copied())
        else {
            self.err(
                "E0204",
                format!("`{}` is not an extern type", base.name.name),
                base.span,
                "not an extern",
            );
            return None;
        };
        if targs.len() > xd.type_params.len() {
            self.err(
                "E0306",
                format!("`{}` takes {} type arguments", xd.name.name, xd.type_params.len()),
                base.span,
                "too many type arguments",
            );
            return None;
        }
        let mut bind = HashMap::new();
        for (p, t) in xd.type_params.iter().zip(targs) {
            let t = self.resolve_data_type(t)?;
            bind.insert(p.name.clone(), t);
        }
        let ctors: Vec<&'a [ast::Param]> = xd
            .members
            .iter()
            .filter_map(|m| match m {
                ast::ExternMember::Constructor { params, .. } => Some(&params[..]),
                _ => None,
            })
            .collect();
        if ctors.is_empty() {
            self.err(
                "E0204",
                format!("extern `{}` has no constructor", xd.name.name),
                base.span,
                "cannot be instantiated",
            );
            return None;
        }
        let cands = ctors.iter().map(|p| crate::overload::ast_params(p)).collect();
        let (ci, _) = self.pick_overload(&xd.name.name, cands, args, span)?;
        let tvars: Vec<String> = xd.type_params.iter().map(|p| p.name.clone()).collect();
        let vals = self.ctor_args(ctors[ci], args, &mut bind, &tvars, span, None)?;
        let mut type_args = Vec::new();
        for p in &xd.type_params {
            match bind.get(&p.name) {
                Some(t) => type_args.push(*t),
                None => break,
            }
        }
        let ctor_args: Vec<ir::Value> = vals
            .into_iter()
            .map(|(_, v)| match v {
                CVal::V(v, _) => v,
                CVal::Int(i) => crate::consts::bits(&i, 64, true),
            })
            .collect();
        let fq = control_plane_name(prefix, name, name_ann);
        let kind = ir::ExternKind::of(&xd.name.name, &self.arch);
        let meter_type = self.meter_type(kind, &xd.name.name, &annotations, span);
        // action_selector(algorithm, size, width), ActionSelector(algorithm, size, width)
        let size = match ctor_args.get(1) {
            Some(ir::Value::Bits { bits, .. }) if kind.is_action_selector() => {
                num_traits::ToPrimitive::to_u64(bits).unwrap_or(u64::MAX)
            }
            _ => 0,
        };
        let selector = self.selector_sizing(kind, &xd.name.name, &annotations, size, span);
        Some(self.p.externs.alloc(ir::ExternInstance {
            type_name: xd.name.name.clone(),
            kind,
            name: name.to_string(),
            fq_name: fq,
            type_args,
            ctor_args,
            annotations,
            meter_type,
            selector,
            span: ispan(span),
        }))
    }

    /// E0425: the meter type an instance's annotations choose (docs/p4runtime.md "Meter types"):
    /// at most one of `@two_rate_three_color`, `@single_rate_three_color`,
    /// `@single_rate_two_color`, without arguments, on meters only.
    fn meter_type(
        &mut self,
        kind: ir::ExternKind,
        type_name: &str,
        anns: &[ir::Annotation],
        span: Span,
    ) -> ir::MeterType {
        let mut chosen: Option<ir::MeterType> = None;
        for a in anns {
            let Some(t) = ir::MeterType::of_annotation(&a.name) else {
                continue;
            };
            if !kind.is_meter() {
                self.err(
                    "E0425",
                    format!("@{} chooses a meter's type; `{type_name}` is not a meter", a.name),
                    span,
                    "not a meter",
                );
                continue;
            }
            if !a.args.is_empty() {
                self.err(
                    "E0425",
                    format!("@{} takes no arguments", a.name),
                    span,
                    "arguments given",
                );
            }
            match chosen {
                Some(c) if c != t => self.err(
                    "E0425",
                    format!(
                        "a meter has one type: @{} and @{} both given",
                        c.annotation(),
                        t.annotation()
                    ),
                    span,
                    "conflicting meter types",
                ),
                _ => chosen = Some(t),
            }
        }
        chosen.unwrap_or_default()
    }
}
