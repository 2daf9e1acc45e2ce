//! Signatures: a callee's parameters (`PDesc`), the one conversion of a parameter direction
//! from the AST to the IR, matching arguments to parameters (positional, named, default,
//! `@optional`), picking an overload by argument count, and inferring type variables by
//! unification. Depends only on `types` and `env` (below it); every call, instantiation and
//! package argument goes through it.

use std::collections::HashMap;

use p4dp_ir as ir;
use p4dp_ir::{Arg, Type};
use p4dp_syntax::ast;
use p4dp_syntax::Span;

use crate::types::RTy;
use crate::Sema;

/// The IR direction of a parameter declared with direction `d` (the only place directions are
/// converted).
pub(crate) fn dir_of(d: ast::Direction) -> ir::Direction {
    match d {
        ast::Direction::None => ir::Direction::None,
        ast::Direction::In => ir::Direction::In,
        ast::Direction::Out => ir::Direction::Out,
        ast::Direction::InOut => ir::Direction::InOut,
    }
}

/// A parameter of a callee, from the AST (externs, functions) or from the IR (actions, blocks).
#[derive(Clone)]
pub(crate) struct PDesc<'a> {
    pub name: String,
    pub dir: ir::Direction,
    pub ty: PTy<'a>,
    pub default: Option<&'a ast::Expr>,
    pub optional: bool,
}

#[derive(Clone)]
pub(crate) enum PTy<'a> {
    Ast(&'a ast::Type),
    Ir(ir::TypeId),
}

pub(crate) fn ast_params<'a>(ps: &'a [ast::Param]) -> Vec<PDesc<'a>> {
    ps.iter()
        .map(|p| PDesc {
            name: p.name.name.clone(),
            dir: dir_of(p.direction),
            ty: PTy::Ast(&p.ty),
            default: p.default.as_ref(),
            optional: p.annotations.iter().any(|a| a.name.name == "optional"),
        })
        .collect()
}

/// The parameters `params` of an IR owner (`vars`): apply parameters of a block or parameters of
/// an action, with the directions they were declared with.
pub(crate) fn ir_params(vars: &ir::Arena<ir::Var>, params: &[ir::VarId]) -> Vec<PDesc<'static>> {
    params
        .iter()
        .map(|v| {
            let var = &vars[*v];
            let dir = match var.kind {
                ir::VarKind::Param(d) | ir::VarKind::ActionParam(_, d) => d,
                ir::VarKind::Local => ir::Direction::In,
            };
            PDesc {
                name: var.name.clone(),
                dir,
                ty: PTy::Ir(var.ty),
                default: None,
                optional: false,
            }
        })
        .collect()
}

/// The argument for an `out` or `inout` parameter (`dir`) bound to the lvalue `x`.
pub(crate) fn lvalue_arg(dir: ir::Direction, x: ir::Expr) -> Arg {
    if dir == ir::Direction::Out {
        Arg::Out(x)
    } else {
        Arg::InOut(x)
    }
}

/// Maps arguments to parameters: `Ok(map)` with `map[param] = Some(arg index)`.
pub(crate) fn arg_map(params: &[PDesc], args: &[ast::Argument]) -> Result<Vec<Option<usize>>, (String, Option<Span>)> {
    let mut map = vec![None; params.len()];
    let named = args.iter().any(|a| a.name.is_some());
    if named {
        for (i, a) in args.iter().enumerate() {
            let Some(n) = &a.name else {
                return Err(("positional and named arguments cannot be mixed".into(), Some(a.span)));
            };
            let Some(pi) = params.iter().position(|p| p.name == n.name) else {
                return Err((format!("no parameter named `{}`", n.name), Some(n.span)));
            };
            if map[pi].is_some() {
                return Err((format!("parameter `{}` given twice", n.name), Some(n.span)));
            }
            map[pi] = Some(i);
        }
    } else {
        if args.len() > params.len() {
            return Err((
                format!("{} arguments given, at most {} expected", args.len(), params.len()),
                None,
            ));
        }
        for (i, m) in map.iter_mut().enumerate().take(args.len()) {
            *m = Some(i);
        }
    }
    for (p, m) in params.iter().zip(map.iter()) {
        if m.is_none() && p.default.is_none() && !p.optional {
            return Err((format!("missing argument for parameter `{}`", p.name), None));
        }
    }
    Ok(map)
}

pub(crate) fn mentions_unbound(t: &ast::Type, tvars: &[String], bind: &HashMap<String, ir::TypeId>) -> bool {
    match &t.kind {
        ast::TypeKind::Named(p) => tvars.contains(&p.name.name) && !bind.contains_key(&p.name.name),
        ast::TypeKind::Specialized { args, .. } | ast::TypeKind::Tuple(args) => {
            args.iter().any(|a| mentions_unbound(a, tvars, bind))
        }
        ast::TypeKind::Stack { elem, .. } => mentions_unbound(elem, tvars, bind),
        _ => false,
    }
}

impl<'a> Sema<'a> {
    pub(crate) fn unify(
        &self,
        t: &ast::Type,
        actual: ir::TypeId,
        tvars: &[String],
        bind: &mut HashMap<String, ir::TypeId>,
    ) {
        match (&t.kind, self.ty(actual)) {
            (ast::TypeKind::Named(p), _) if tvars.contains(&p.name.name) && !bind.contains_key(&p.name.name) => {
                bind.insert(p.name.name.clone(), actual);
            }
            (ast::TypeKind::Specialized { args, .. }, Type::Extern { args: aa, .. })
            | (ast::TypeKind::Tuple(args), Type::Tuple(aa)) => {
                for (x, y) in args.iter().zip(aa.clone()) {
                    self.unify(x, y, tvars, bind);
                }
            }
            (ast::TypeKind::Stack { elem, .. }, Type::Stack { elem: e, .. }) => self.unify(elem, *e, tvars, bind),
            _ => {}
        }
    }

    /// Resolves a callee's type under the type-variable bindings `bind` (global scope).
    pub(crate) fn resolve_in(&mut self, t: &PTy<'a>, bind: &HashMap<String, ir::TypeId>) -> RTy {
        match t {
            PTy::Ir(x) => RTy::T(*x),
            PTy::Ast(t) => {
                let b = bind.clone();
                self.in_global_scope(|s| {
                    s.cx.tsubst = b;
                    s.resolve_type(t)
                })
            }
        }
    }

    /// Picks the overload whose parameters accept `args`; reports if none does.
    pub(crate) fn pick_overload(
        &mut self,
        name: &str,
        cands: Vec<Vec<PDesc<'a>>>,
        args: &[ast::Argument],
        span: Span,
    ) -> Option<(usize, Vec<Option<usize>>)> {
        let mut errs = Vec::new();
        for (i, c) in cands.iter().enumerate() {
            match arg_map(c, args) {
                Ok(m) => return Some((i, m)),
                Err(e) => errs.push(e),
            }
        }
        if cands.len() == 1 {
            let (msg, sp) = errs.pop().unwrap_or_default();
            self.err(
                if sp.is_some() { "E0209" } else { "E0306" },
                format!("wrong arguments for `{name}`: {msg}"),
                sp.unwrap_or(span),
                "in this call",
            );
        } else {
            let counts: Vec<String> = cands.iter().map(|c| c.len().to_string()).collect();
            self.err(
                "E0209",
                format!(
                    "no overload of `{name}` takes {} arguments (overloads take {})",
                    args.len(),
                    counts.join(", ")
                ),
                span,
                "no matching overload",
            );
        }
        None
    }

    /// p4c compatibility (warning W0302): an extern instantiated with fewer type arguments than
    /// it has type parameters (`register<bit<8>>(16) r;` against v1model's `register<T, I>`)
    /// leaves the trailing ones to be inferred per call. When such a parameter is used only as
    /// the type of arguments that are unsized integer literals (`r.read(x, 0)`), nothing can
    /// infer it; bind it to `bit<32>`, the index type of v1model before `I` was added and of
    /// BMv2. Any typed argument for it (`r.read(x, idx)`) is left to normal inference.
    pub(crate) fn default_index_targs(
        &mut self,
        xd: &'a ast::ExternDecl,
        given: usize,
        params: &[PDesc<'a>],
        map: &[Option<usize>],
        args: &'a [ast::Argument],
        bind: &mut HashMap<String, ir::TypeId>,
    ) {
        for tp in xd.type_params.iter().skip(given) {
            if bind.contains_key(&tp.name) {
                continue;
            }
            let mut literal_at = None;
            let mut typed = false;
            for (p, ai) in params.iter().zip(map) {
                let (PTy::Ast(t), Some(ai)) = (&p.ty, ai) else { continue };
                let ast::TypeKind::Named(n) = &t.kind else { continue };
                if n.name.name != tp.name {
                    continue;
                }
                let a = &args[*ai].value;
                match &a.kind {
                    ast::ExprKind::Int(l) if l.width.is_none() => literal_at = Some(a.span),
                    _ => typed = true,
                }
            }
            let (Some(sp), false) = (literal_at, typed) else {
                continue;
            };
            let b32 = self.t_bit(32);
            bind.insert(tp.name.clone(), b32);
            self.report(
                p4dp_syntax::Diagnostic::warning(
                    "W0302",
                    format!(
                        "type argument `{}` of `{}` was not given and cannot be inferred from an integer literal; using `bit<32>`",
                        tp.name, xd.name.name
                    ),
                    sp,
                    "taken as `bit<32>`",
                )
                .with_help(format!(
                    "give all type arguments at the instantiation (`{}<..., bit<32>>`) or a width to the literal (`32w0`)",
                    xd.name.name
                )),
            );
        }
    }
}
