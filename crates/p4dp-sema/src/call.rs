//! Calls: overload resolution by argument count, named/default/optional arguments, generic type
//! inference, hoisting into `Stmt::Call` with temporaries in left-to-right order, and the
//! built-in methods (headers, stacks, tables, sub-blocks).

use std::collections::HashMap;

use num_bigint::BigInt;

use p4dp_ir as ir;
use p4dp_ir::{Arg, CallTarget, ExprKind, Stmt, Type};
use p4dp_syntax::ast;
use p4dp_syntax::Span;

use crate::env::OwnerKind;
use crate::expr::{cnst, mk, Val};
use crate::overload::{ast_params, dir_of, ir_params, lvalue_arg, mentions_unbound, PDesc, PTy};
use crate::types::RTy;
use crate::{ispan, Sema};

impl<'a> Sema<'a> {
    /// Lowers the arguments of a call: infers type variables `tvars` into `bind`, converts each
    /// argument to its parameter's type and direction. Calls inside arguments are hoisted into
    /// `pre` left to right; `in` arguments read before a later argument's call are snapshotted.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn lower_args(
        &mut self,
        params: &[PDesc<'a>],
        map: &[Option<usize>],
        args: &'a [ast::Argument],
        tvars: &[String],
        bind: &mut HashMap<String, ir::TypeId>,
        pre: &mut Vec<Stmt>,
        span: Span,
    ) -> Option<Vec<Arg>> {
        enum Low<'b> {
            In(Val<'b>, Span),
            Lv(ir::Expr),
            DontCare(Span),
            Default(&'b ast::Expr),
            Omitted,
            Bad,
        }
        let mut order: Vec<usize> = (0..params.len()).collect();
        order.sort_by_key(|&i| map[i].unwrap_or(usize::MAX));
        let mut lows: Vec<Low> = (0..params.len()).map(|_| Low::Omitted).collect();
        let mut pres: Vec<Vec<Stmt>> = (0..params.len()).map(|_| Vec::new()).collect();
        for &i in &order {
            let p = &params[i];
            let Some(ai) = map[i] else {
                lows[i] = if let Some(d) = p.default {
                    Low::Default(d)
                } else {
                    Low::Omitted
                };
                continue;
            };
            let a = &args[ai].value;
            let known = match &p.ty {
                PTy::Ast(t) => !mentions_unbound(t, tvars, bind),
                PTy::Ir(_) => true,
            };
            let pty = if known { self.resolve_in(&p.ty, bind) } else { RTy::Err };
            let mut apre = Vec::new();
            lows[i] = match p.dir {
                ir::Direction::Out | ir::Direction::InOut => {
                    if matches!(a.kind, ast::ExprKind::DontCare) {
                        if p.dir == ir::Direction::InOut {
                            self.err("E0307", "`_` cannot be an `inout` argument", a.span, "not allowed");
                            Low::Bad
                        } else {
                            Low::DontCare(a.span)
                        }
                    } else {
                        match self.lvalue(a, &mut apre) {
                            Some(x) => {
                                if let PTy::Ast(t) = &p.ty {
                                    self.unify(t, x.ty, tvars, bind);
                                }
                                Low::Lv(x)
                            }
                            None => Low::Bad,
                        }
                    }
                }
                _ => {
                    let exp = match pty {
                        RTy::T(t) => Some(t),
                        _ => None,
                    };
                    let v = self.expr(a, exp, &mut apre);
                    if !known {
                        if let PTy::Ast(t) = &p.ty {
                            match &v {
                                Val::E(x) => self.unify(t, x.ty, tvars, bind),
                                Val::Str(_) => {
                                    let st = self.intern(Type::String);
                                    self.unify(t, st, tvars, bind)
                                }
                                Val::Int(_) => {
                                    self.report(
                                        p4dp_syntax::Diagnostic::error(
                                            "E0308",
                                            format!(
                                                "cannot infer the type of parameter `{}` from an integer literal",
                                                p.name
                                            ),
                                            a.span,
                                            "width unknown",
                                        )
                                        .with_help("give the literal a width (`32w0`) or cast it"),
                                    );
                                }
                                _ => {}
                            }
                        }
                    }
                    if matches!(v, Val::Err) {
                        Low::Bad
                    } else {
                        Low::In(v, a.span)
                    }
                }
            };
            pres[i] = apre;
        }
        // Snapshots for left-to-right evaluation, in argument order.
        let mut out: Vec<Option<Arg>> = (0..params.len()).map(|_| None).collect();
        let mut ok = true;
        let later_has_calls: Vec<bool> = {
            let mut v = vec![false; order.len()];
            let mut acc = false;
            for k in (0..order.len()).rev() {
                v[k] = acc;
                acc |= !pres[order[k]].is_empty();
            }
            v
        };
        for (k, &i) in order.iter().enumerate() {
            pre.append(&mut pres[i]);
            let p = &params[i];
            let low = std::mem::replace(&mut lows[i], Low::Omitted);
            let pty = match low {
                Low::Omitted => continue,
                // The argument's error is reported; its parameter's type may mention a type
                // variable only that argument could bind, so it is not resolved (no follow-on
                // "unknown type" / "cannot infer" errors).
                Low::Bad => {
                    ok = false;
                    continue;
                }
                _ => match self.resolve_in(&p.ty, bind) {
                    RTy::T(t) => Some(t),
                    RTy::Err => None,
                    RTy::InfInt => {
                        // `int` parameters accept compile-time integers only; keep them as bit<32>? No:
                        // p4dp requires a width.
                        self.err(
                            "E0303",
                            format!("parameter `{}` of type `int` is not supported", p.name),
                            span,
                            "needs a width",
                        );
                        None
                    }
                    _ => None,
                },
            };
            let Some(pty) = pty else {
                if let PTy::Ast(t) = &p.ty {
                    if mentions_unbound(t, tvars, bind) {
                        self.err(
                            "E0308",
                            format!("cannot infer the type of parameter `{}`", p.name),
                            span,
                            "give the type arguments explicitly",
                        );
                    }
                }
                ok = false;
                continue;
            };
            let arg = match low {
                Low::In(v, sp) => match self.coerce_widening(v, pty, sp) {
                    Some(x) => {
                        let x = if later_has_calls[k] {
                            self.snapshot_pub(x, pre)
                        } else {
                            x
                        };
                        Some(Arg::In(x))
                    }
                    None => None,
                },
                Low::Lv(x) => {
                    if x.ty != pty {
                        let (a, b) = (self.tname(pty), self.tname(x.ty));
                        let sp = p4dp_syntax::Span::new(p4dp_syntax::FileId(x.span.file), x.span.lo, x.span.hi);
                        self.err(
                            "E0301",
                            format!("type mismatch: parameter `{}` is `{a}`, argument is `{b}`", p.name),
                            sp,
                            format!("this is `{b}`"),
                        );
                        None
                    } else {
                        Some(lvalue_arg(p.dir, x))
                    }
                }
                Low::DontCare(sp) => {
                    let t = self.tmp(pty, sp);
                    Some(Arg::Out(mk(ExprKind::Var(t), pty, sp)))
                }
                Low::Default(d) => {
                    let v = self.in_global_scope(|s| s.const_eval(d, Some(pty)));
                    match v {
                        Some(crate::CVal::V(v, t)) => Some(Arg::In(cnst(v, t, span))),
                        _ => None,
                    }
                }
                Low::Bad | Low::Omitted => None,
            };
            match arg {
                Some(a) => out[i] = Some(a),
                None => ok = false,
            }
        }
        if !ok {
            return None;
        }
        // Omitted @optional parameters are left out.
        Some(out.into_iter().flatten().collect())
    }

    pub(crate) fn snapshot_pub(&mut self, x: ir::Expr, pre: &mut Vec<Stmt>) -> ir::Expr {
        if matches!(x.kind, ExprKind::Const(_)) || matches!(x.kind, ExprKind::Var(v) if self.cx.temps.contains(&v)) {
            return x;
        }
        let sp = Span::new(p4dp_syntax::FileId(x.span.file), x.span.lo, x.span.hi);
        let t = self.tmp(x.ty, sp);
        let tv = mk(ExprKind::Var(t), x.ty, sp);
        pre.push(Stmt::Assign {
            dst: tv.clone(),
            src: x,
            span: ispan(sp),
        });
        tv
    }

    /// Explicit type arguments of a call, bound to the callee's type parameters.
    fn explicit_targs(
        &mut self,
        tps: &[ast::Ident],
        targs: &'a [ast::Type],
        bind: &mut HashMap<String, ir::TypeId>,
        span: Span,
    ) -> bool {
        if targs.is_empty() {
            return true;
        }
        if targs.len() != tps.len() {
            self.err(
                "E0306",
                format!("{} type arguments given, {} expected", targs.len(), tps.len()),
                span,
                "wrong number of type arguments",
            );
            return false;
        }
        for (p, t) in tps.iter().zip(targs) {
            match self.resolve_type(t) {
                RTy::T(x) => {
                    bind.insert(p.name.clone(), x);
                }
                RTy::DontCare => {}
                _ => return false,
            }
        }
        true
    }

    /// Emits `call`, giving it a return temporary when the value is wanted.
    pub(crate) fn emit_call(
        &mut self,
        mut call: ir::Call,
        ret: Option<ir::TypeId>,
        want: bool,
        span: Span,
        pre: &mut Vec<Stmt>,
        name: &str,
    ) -> Val<'a> {
        let void = ret.is_none_or(|t| matches!(self.ty(t), Type::Void));
        if want && void {
            self.err(
                "E0301",
                format!("`{name}` does not return a value"),
                span,
                "used as a value",
            );
            pre.push(Stmt::Call(call));
            return Val::Err;
        }
        if want {
            let t = ret.unwrap_or_else(|| self.t_void());
            let v = self.tmp(t, span);
            let e = mk(ExprKind::Var(v), t, span);
            call.ret = Some(e.clone());
            pre.push(Stmt::Call(call));
            return Val::E(e);
        }
        pre.push(Stmt::Call(call));
        Val::Err
    }

    /// Lowers a call expression. With `want = false` (a call statement) the result is dropped.
    pub(crate) fn call_expr(&mut self, e: &'a ast::Expr, pre: &mut Vec<Stmt>, want: bool) -> Val<'a> {
        let ast::ExprKind::Call {
            callee,
            type_args,
            args,
        } = &e.kind
        else {
            return Val::Err;
        };
        match &callee.kind {
            ast::ExprKind::Member { base, member } => {
                if matches!(
                    member.name.as_str(),
                    "setValid" | "setInvalid" | "push_front" | "pop_front"
                ) {
                    let mut scratch = Vec::new();
                    let probe = self.expr(base, None, &mut scratch);
                    if let Val::E(x) = &probe {
                        if matches!(
                            self.ty(x.ty),
                            Type::Header(_) | Type::HeaderUnion(_) | Type::Stack { .. }
                        ) {
                            let Some(lv) = self.lvalue(base, pre) else {
                                return Val::Err;
                            };
                            return self.header_op(lv, member, args, e.span, pre, want);
                        }
                    }
                }
                let b = self.expr(base, None, pre);
                match b {
                    Val::Err => Val::Err,
                    Val::Table(t) if member.name == "apply" => {
                        if !args.is_empty() {
                            self.err(
                                "E0306",
                                "`apply` of a table takes no arguments",
                                e.span,
                                "remove the arguments",
                            );
                        }
                        if want {
                            self.err(
                                "E0301",
                                "a table's `apply()` result must be used with `.hit`, `.miss` or `.action_run`",
                                e.span,
                                "used as a value",
                            );
                            return Val::Err;
                        }
                        self.apply_table(t, false, false, e.span, pre);
                        Val::Err
                    }
                    Val::Extern(r, tn, targs) => {
                        self.extern_method(r, &tn, &targs, member, type_args, args, e.span, pre, want)
                    }
                    Val::Control(c) if member.name == "apply" => {
                        self.apply_block(OwnerKind::Control(c), args, e.span, pre, want)
                    }
                    Val::Parser(p) if member.name == "apply" => {
                        self.apply_block(OwnerKind::Parser(p), args, e.span, pre, want)
                    }
                    Val::Global(d @ (ast::Decl::Control(_) | ast::Decl::Parser(_))) if member.name == "apply" => {
                        match self.direct_instance(d, e.span) {
                            Some(k) => self.apply_block(k, args, e.span, pre, want),
                            None => Val::Err,
                        }
                    }
                    Val::Type(t) => self.size_method(t, member, args, e.span),
                    Val::E(x) => match member.name.as_str() {
                        "isValid" if matches!(self.ty(x.ty), Type::Header(_) | Type::HeaderUnion(_)) => {
                            if !args.is_empty() {
                                self.err("E0306", "`isValid` takes no arguments", e.span, "remove the arguments");
                            }
                            let bt = self.t_bool();
                            Val::E(mk(ExprKind::IsValid(Box::new(x)), bt, e.span))
                        }
                        "minSizeInBits" | "maxSizeInBits" | "minSizeInBytes" | "maxSizeInBytes" => {
                            self.size_method(x.ty, member, args, e.span)
                        }
                        _ => {
                            let tn = self.tname(x.ty);
                            self.err(
                                "E0205",
                                format!("type `{tn}` has no method `{}`", member.name),
                                member.span,
                                "unknown method",
                            );
                            Val::Err
                        }
                    },
                    other => {
                        let what = self.val_kind(&other);
                        self.err(
                            "E0205",
                            format!("{what} has no method `{}`", member.name),
                            member.span,
                            "unknown method",
                        );
                        Val::Err
                    }
                }
            }
            ast::ExprKind::Name(p) => {
                let v = self.name_val(p);
                match v {
                    Val::Err => Val::Err,
                    Val::Action(a) => self.action_call(a, args, e.span, pre, want),
                    Val::Global(ast::Decl::Function(_)) | Val::Global(ast::Decl::ExternFunction(_)) => {
                        self.global_call(&p.name.name, p.name.span, type_args, args, e.span, pre, want)
                    }
                    Val::Global(ast::Decl::Action(_)) => {
                        self.err(
                            "E0407",
                            "actions can only be called inside controls",
                            e.span,
                            "not in a control",
                        );
                        Val::Err
                    }
                    other => {
                        let what = self.val_kind(&other);
                        self.err("E0204", format!("{what} cannot be called"), callee.span, "not callable");
                        Val::Err
                    }
                }
            }
            _ => {
                self.err("E0204", "this expression cannot be called", callee.span, "not callable");
                Val::Err
            }
        }
    }

    fn action_call(
        &mut self,
        a: ir::ActionId,
        args: &'a [ast::Argument],
        span: Span,
        pre: &mut Vec<Stmt>,
        want: bool,
    ) -> Val<'a> {
        if self.cx.control().is_none() {
            self.err(
                "E0407",
                "actions can only be called inside controls",
                span,
                "not in a control",
            );
            return Val::Err;
        }
        let params = ir_params(&self.cx.vars, &self.p.actions[a].params);
        self.check_ref_direct_call(a, span);
        let name = self.p.actions[a].name.clone();
        let Some((_, map)) = self.pick_overload(&name, vec![params.clone()], args, span) else {
            return Val::Err;
        };
        let mut bind = HashMap::new();
        let Some(args) = self.lower_args(&params, &map, args, &[], &mut bind, pre, span) else {
            return Val::Err;
        };
        let call = ir::Call {
            target: CallTarget::Action(a),
            type_args: Vec::new(),
            args,
            ret: None,
            span: ispan(span),
        };
        self.emit_call(call, None, want, span, pre, &name)
    }

    fn apply_block(
        &mut self,
        k: OwnerKind,
        args: &'a [ast::Argument],
        span: Span,
        pre: &mut Vec<Stmt>,
        want: bool,
    ) -> Val<'a> {
        let (params, vars, target, ok) = match k {
            OwnerKind::Control(c) => {
                let x = &self.p.controls[c];
                (
                    x.params.clone(),
                    x.vars.clone(),
                    CallTarget::Control(c),
                    self.cx.control().is_some() && self.cx.action.is_none(),
                )
            }
            OwnerKind::Parser(p) => {
                let x = &self.p.parsers[p];
                (
                    x.params.clone(),
                    x.vars.clone(),
                    CallTarget::Parser(p),
                    self.cx.is_parser(),
                )
            }
            _ => return Val::Err,
        };
        if !ok {
            let what = if matches!(k, OwnerKind::Parser(_)) {
                "parsers can only be applied in parser states"
            } else {
                "controls can only be applied in a control's `apply` block"
            };
            self.err("E0407", what, span, "not allowed here");
            return Val::Err;
        }
        if self.incomplete_blocks.contains(&k) {
            return Val::Err;
        }
        let ps = ir_params(&vars, &params);
        let Some((_, map)) = self.pick_overload("apply", vec![ps.clone()], args, span) else {
            return Val::Err;
        };
        let mut bind = HashMap::new();
        let Some(args) = self.lower_args(&ps, &map, args, &[], &mut bind, pre, span) else {
            return Val::Err;
        };
        let call = ir::Call {
            target,
            type_args: Vec::new(),
            args,
            ret: None,
            span: ispan(span),
        };
        self.emit_call(call, None, want, span, pre, "apply")
    }

    #[allow(clippy::too_many_arguments)]
    fn extern_method(
        &mut self,
        obj: ir::ExternRef,
        tn: &str,
        targs: &[ir::TypeId],
        m: &'a ast::Ident,
        type_args: &'a [ast::Type],
        args: &'a [ast::Argument],
        span: Span,
        pre: &mut Vec<Stmt>,
        want: bool,
    ) -> Val<'a> {
        let Some(ast::Decl::ExternObject(xd)) = self.g.map.get(tn).and_then(|v| v.first().copied()) else {
            self.err(
                "E0205",
                format!("`{tn}` has no method `{}`", m.name),
                m.span,
                "unknown method",
            );
            return Val::Err;
        };
        let protos: Vec<&'a ast::FunctionProto> = xd
            .members
            .iter()
            .filter_map(|mm| match mm {
                ast::ExternMember::Method { proto, .. } if proto.name.name == m.name => Some(proto),
                _ => None,
            })
            .collect();
        if protos.is_empty() {
            self.err(
                "E0205",
                format!("extern `{tn}` has no method `{}`", m.name),
                m.span,
                "unknown method",
            );
            return Val::Err;
        }
        let cands = protos.iter().map(|p| ast_params(&p.params)).collect();
        let Some((pi, map)) = self.pick_overload(&m.name, cands, args, span) else {
            return Val::Err;
        };
        let proto = protos[pi];
        let mut bind: HashMap<String, ir::TypeId> = xd
            .type_params
            .iter()
            .map(|p| p.name.clone())
            .zip(targs.iter().copied())
            .collect();
        let mut tvars: Vec<String> = xd.type_params.iter().map(|p| p.name.clone()).collect();
        tvars.extend(proto.type_params.iter().map(|p| p.name.clone()));
        if !self.explicit_targs(&proto.type_params, type_args, &mut bind, span) {
            return Val::Err;
        }
        let params = ast_params(&proto.params);
        self.default_index_targs(xd, targs.len(), &params, &map, args, &mut bind);
        if tn == "packet_in" && m.name == "extract" {
            // `extract<T>(_)` skips a header: the `_` becomes a temporary of type T below.
            if let Some(Some(ai)) = map
                .first()
                .filter(|ai| !matches!(ai.map(|i| &args[i].value.kind), Some(ast::ExprKind::DontCare)))
            {
                let a = &args[*ai].value;
                let mut scratch = Vec::new();
                if let Val::E(x) = self.expr(a, None, &mut scratch) {
                    if !matches!(self.ty(x.ty), Type::Header(_)) {
                        let tn = self.tname(x.ty);
                        self.err(
                            "E0301",
                            format!("`extract` needs a header, `{tn}` is not a header"),
                            a.span,
                            "not a header",
                        );
                        return Val::Err;
                    }
                }
            }
        }
        // `extract(s.next)`, and `extract(s.next.h)` on a stack of header unions: the stack's
        // nextIndex advances after the extract.
        let next_stack = if tn == "packet_in" && m.name == "extract" {
            args.first().and_then(|a| match &a.value.kind {
                ast::ExprKind::Member { base, member } if member.name == "next" => Some(&**base),
                ast::ExprKind::Member { base, .. } => match &base.kind {
                    ast::ExprKind::Member { base: sb, member } if member.name == "next" => Some(&**sb),
                    _ => None,
                },
                _ => None,
            })
        } else {
            None
        };
        let Some(largs) = self.lower_args(&params, &map, args, &tvars, &mut bind, pre, span) else {
            return Val::Err;
        };
        if tn == "packet_in" && m.name == "extract" {
            if let Some(Arg::Out(x)) = largs.first() {
                let x = x.clone();
                self.invalidate_union_siblings(&x, span, pre);
            }
        }
        let mut mtargs = Vec::new();
        for p in &proto.type_params {
            match bind.get(&p.name) {
                Some(t) => mtargs.push(*t),
                None => {
                    self.err(
                        "E0308",
                        format!("cannot infer type argument `{}` of `{}`", p.name, m.name),
                        span,
                        "give it explicitly",
                    );
                    return Val::Err;
                }
            }
        }
        let ret = match self.resolve_in(&PTy::Ast(&proto.ret), &bind) {
            RTy::T(t) => Some(t),
            _ if !want => None,
            _ => return Val::Err,
        };
        let call = ir::Call {
            target: CallTarget::ExternMethod {
                obj,
                method: m.name.clone(),
            },
            type_args: mtargs,
            args: largs,
            ret: None,
            span: ispan(span),
        };
        let v = self.emit_call(call, ret, want, span, pre, &m.name);
        if let Some(sb) = next_stack {
            let mut scratch = Vec::new();
            if let Some(st) = self
                .lvalue(sb, &mut scratch)
                .filter(|st| matches!(self.ty(st.ty), Type::Stack { .. }))
            {
                let b32 = self.t_bit(32);
                let ni = mk(ExprKind::StackNextIndex(Box::new(st)), b32, span);
                let one = cnst(crate::consts::bits(&BigInt::from(1), 32, false), b32, span);
                let inc = mk(
                    ExprKind::Binary(ir::BinOp::Add, Box::new(ni.clone()), Box::new(one)),
                    b32,
                    span,
                );
                pre.push(Stmt::Assign {
                    dst: ni,
                    src: inc,
                    span: ispan(span),
                });
            }
        }
        v
    }

    /// A call of a top-level function or extern function (overloaded by argument count).
    #[allow(clippy::too_many_arguments)]
    fn global_call(
        &mut self,
        name: &str,
        nspan: Span,
        type_args: &'a [ast::Type],
        args: &'a [ast::Argument],
        span: Span,
        pre: &mut Vec<Stmt>,
        want: bool,
    ) -> Val<'a> {
        let decls = self.lookup_global(name, nspan).unwrap_or_default();
        let protos: Vec<(&'a ast::FunctionProto, Option<&'a ast::FunctionDecl>)> = decls
            .iter()
            .filter_map(|d| match d {
                ast::Decl::Function(f) => Some((&f.proto, Some(f))),
                ast::Decl::ExternFunction(p) => Some((p, None)),
                _ => None,
            })
            .collect();
        let cands = protos.iter().map(|(p, _)| ast_params(&p.params)).collect();
        let Some((pi, map)) = self.pick_overload(name, cands, args, span) else {
            return Val::Err;
        };
        let (proto, fdecl) = protos[pi];
        if fdecl.is_none() && (name == "verify" || name == "static_assert") {
            return self.builtin_fn(name, args, span, pre, want);
        }
        let mut bind = HashMap::new();
        let tvars: Vec<String> = proto.type_params.iter().map(|p| p.name.clone()).collect();
        if !self.explicit_targs(&proto.type_params, type_args, &mut bind, span) {
            return Val::Err;
        }
        let params = ast_params(&proto.params);
        let Some(largs) = self.lower_args(&params, &map, args, &tvars, &mut bind, pre, span) else {
            return Val::Err;
        };
        let mut targs = Vec::new();
        for p in &proto.type_params {
            match bind.get(&p.name) {
                Some(t) => targs.push(*t),
                None => {
                    self.err(
                        "E0308",
                        format!("cannot infer type argument `{}` of `{name}`", p.name),
                        span,
                        "give it explicitly",
                    );
                    return Val::Err;
                }
            }
        }
        let ret = match self.resolve_in(&PTy::Ast(&proto.ret), &bind) {
            RTy::T(t) => Some(t),
            _ if !want => None,
            _ => return Val::Err,
        };
        let target = match fdecl {
            Some(fd) => match self.instantiate_function(fd, &bind, &targs) {
                Some(f) => CallTarget::Function(f),
                None => return Val::Err,
            },
            None => CallTarget::ExternFunction(name.to_string()),
        };
        let call = ir::Call {
            target,
            type_args: targs,
            args: largs,
            ret: None,
            span: ispan(span),
        };
        self.emit_call(call, ret, want, span, pre, name)
    }

    /// Instantiates a top-level function for the given type arguments (memoized).
    fn instantiate_function(
        &mut self,
        fd: &'a ast::FunctionDecl,
        bind: &HashMap<String, ir::TypeId>,
        targs: &[ir::TypeId],
    ) -> Option<ir::FunctionId> {
        let key = (fd.id(), targs.to_vec());
        if let Some(f) = self.func_cache.get(&key) {
            return Some(*f);
        }
        if !self.func_busy.insert(key.0) {
            self.err(
                "E0410",
                format!(
                    "function `{}` calls itself (recursion is not allowed in P4)",
                    fd.proto.name.name
                ),
                fd.proto.name.span,
                "recursive",
            );
            return None;
        }
        let f = self.lower_function(fd, bind, targs);
        self.func_busy.remove(&key.0);
        if let Some(f) = f {
            self.func_cache.insert(key, f);
        }
        f
    }

    pub(crate) fn lower_function(
        &mut self,
        fd: &'a ast::FunctionDecl,
        bind: &HashMap<String, ir::TypeId>,
        targs: &[ir::TypeId],
    ) -> Option<ir::FunctionId> {
        let mut owner = crate::env::Owner::new(OwnerKind::Function, String::new());
        owner.tsubst = bind.clone();
        let saved = std::mem::replace(&mut self.cx, owner);
        let ret = match self.resolve_type(&fd.proto.ret) {
            RTy::T(t) => Some(t),
            RTy::InfInt => {
                self.err(
                    "E0303",
                    "functions cannot return `int`",
                    fd.proto.ret.span,
                    "needs a width",
                );
                None
            }
            _ => None,
        };
        self.cx.ret = ret;
        let mut params = Vec::new();
        for p in &fd.proto.params {
            let Some(t) = self.resolve_data_type(&p.ty) else {
                self.declare(&p.name, crate::env::Binding::Err);
                continue;
            };
            let dir = dir_of(p.direction);
            let v = self.cx.vars.alloc(ir::Var {
                entry_ref: false,
                name: p.name.name.clone(),
                ty: t,
                kind: ir::VarKind::Param(if dir == ir::Direction::None {
                    ir::Direction::In
                } else {
                    dir
                }),
                annotations: self.annotations(&p.annotations),
                span: ispan(p.span),
            });
            params.push(v);
            self.declare(&p.name, crate::env::Binding::Var(v));
        }
        let body = self.block(&fd.body);
        let owner = std::mem::replace(&mut self.cx, saved);
        let ret = ret?;
        if !matches!(self.ty(ret), Type::Void) && !always_returns(&body) {
            self.err(
                "E0411",
                format!("function `{}` does not return a value on all paths", fd.proto.name.name),
                fd.proto.name.span,
                "a path reaches the end without `return`",
            );
        }
        let mut name = fd.proto.name.name.clone();
        if !targs.is_empty() {
            name = format!("{}_{}", name, self.func_cache.len());
        }
        Some(self.p.functions.alloc(ir::Function {
            name,
            params,
            ret,
            vars: owner.vars,
            body,
            span: ispan(fd.span),
        }))
    }
}

/// Does every path through `b` end in `return` (or `exit`)?
pub(crate) fn always_returns(b: &[Stmt]) -> bool {
    b.iter().any(|s| match s {
        Stmt::Return { .. } | Stmt::Exit { .. } => true,
        Stmt::If { then_, else_, .. } => always_returns(then_) && always_returns(else_),
        Stmt::Block(x) => always_returns(x),
        Stmt::Switch {
            cases,
            default: Some(d),
            ..
        } => always_returns(d) && cases.iter().all(|c| always_returns(&c.body)),
        _ => false,
    })
}

impl<'a> Sema<'a> {}
