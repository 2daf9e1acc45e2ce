//! Elaboration of `main` (the package instance) and checking of what `main` does not reach.

use std::collections::HashMap;

use p4dp_ir as ir;
use p4dp_syntax::ast;
use p4dp_syntax::Span;

use crate::env::{Binding, Owner, OwnerKind};
use crate::types::name_annotation;
use crate::Sema;

/// The architecture name for a package type.
pub fn arch_of(package: &str) -> String {
    match package {
        "V1Switch" => "v1model".into(),
        "PNA_NIC" => "pna".into(),
        p if p.to_ascii_lowercase().contains("rtc") => "rtc".into(),
        p => p.to_ascii_lowercase(),
    }
}

impl<'a> Sema<'a> {
    pub(crate) fn elaborate_main(&mut self, prog: &'a ast::Program) {
        let main = self.g.map.get("main").and_then(|v| v.first().copied());
        let Some(d) = main else {
            let has_blocks = prog
                .decls
                .iter()
                .any(|d| matches!(d, ast::Decl::Control(_) | ast::Decl::Parser(_)));
            if has_blocks {
                self.report(
                    p4dp_syntax::Diagnostic::error_nospan("E0403", "the program has no `main` package instance")
                        .with_help(
                        "instantiate the architecture's package, e.g. `V1Switch(MyParser(), ..., MyDeparser()) main;`",
                    ),
                );
            }
            return;
        };
        let ast::Decl::Instantiation(inst) = d else {
            self.err(
                "E0403",
                "`main` must be a package instance",
                d.name().span,
                "not a package instantiation",
            );
            return;
        };
        let base = match &inst.ty.kind {
            ast::TypeKind::Named(p) => p,
            ast::TypeKind::Specialized { base, .. } => base,
            _ => {
                self.err(
                    "E0403",
                    "`main` must be an instance of a package",
                    inst.ty.span,
                    "not a package",
                );
                return;
            }
        };
        let pkg = self
            .lookup_global(&base.name.name, base.name.span)
            .and_then(|v| v.first().copied());
        let Some(ast::Decl::PackageType(ph)) = pkg else {
            self.err(
                "E0403",
                format!("`{}` is not a package type", base.name.name),
                base.span,
                "`main` must instantiate a package",
            );
            return;
        };
        self.arch = arch_of(&ph.name.name);
        let cands = vec![crate::overload::ast_params(&ph.params)];
        let Some((_, map)) = self.pick_overload(&ph.name.name, cands, &inst.args, inst.span) else {
            return;
        };
        let mut blocks = Vec::new();
        for (pi, p) in ph.params.iter().enumerate() {
            let Some(ai) = map[pi] else { continue };
            let a = &inst.args[ai].value;
            if let Some(b) = self.package_arg(p, a) {
                blocks.push((p.name.name.clone(), b));
            }
        }
        self.p.package = Some(ir::Package {
            arch: self.arch.clone(),
            type_name: ph.name.name.clone(),
            blocks,
        });
    }

    /// One block argument of the package: `X(args)` or the name of a top-level instance `X() x;`.
    fn package_arg(&mut self, p: &'a ast::Param, a: &'a ast::Expr) -> Option<ir::BlockRef> {
        let (ty_name, ty, args, inst_span): (&'a ast::PathName, Option<&'a ast::Type>, &'a [ast::Argument], Span) =
            match &a.kind {
                ast::ExprKind::Call {
                    callee,
                    args,
                    type_args,
                } => match &callee.kind {
                    ast::ExprKind::Name(n) => {
                        if !type_args.is_empty() {
                            self.err(
                                "E0404",
                                "type arguments on package arguments are not supported",
                                a.span,
                                "unsupported",
                            );
                            return None;
                        }
                        (n, None, &args[..], a.span)
                    }
                    _ => {
                        self.err(
                            "E0403",
                            "a package argument must be a parser or control instance",
                            a.span,
                            "bad package argument",
                        );
                        return None;
                    }
                },
                ast::ExprKind::Name(n) => {
                    match self
                        .lookup_global(&n.name.name, n.name.span)
                        .and_then(|v| v.first().copied())
                    {
                        Some(ast::Decl::Instantiation(i)) => {
                            let base = match &i.ty.kind {
                                ast::TypeKind::Named(b) => b,
                                ast::TypeKind::Specialized { base, .. } => base,
                                _ => return None,
                            };
                            (base, Some(&i.ty), &i.args[..], i.span)
                        }
                        _ => {
                            self.err(
                                "E0403",
                                format!("`{}` is not a parser or control instance", n.name.name),
                                a.span,
                                "bad package argument",
                            );
                            return None;
                        }
                    }
                }
                _ => {
                    self.err(
                        "E0403",
                        "a package argument must be a parser or control instance",
                        a.span,
                        "bad package argument",
                    );
                    return None;
                }
            };
        let want = match &p.ty.kind {
            ast::TypeKind::Named(n) | ast::TypeKind::Specialized { base: n, .. } => {
                self.g.map.get(&n.name.name).and_then(|v| v.first().copied())
            }
            _ => None,
        };
        let d = self
            .lookup_global(&ty_name.name.name, ty_name.name.span)
            .and_then(|v| v.first().copied());
        let path = ty_name.name.name.clone();
        // the instance's type, or for a constructor call the block's name
        let fallback = ast::Type {
            kind: ast::TypeKind::Named(ty_name.clone()),
            span: ty_name.span,
        };
        let ty = ty.unwrap_or(&fallback);
        match d {
            Some(ast::Decl::Control(cd)) => {
                self.check_block_kind(want, &cd.header, false, a.span, &p.name.name)?;
                let (ctor, tb) = self.block_ctor_any(&cd.header.type_params, &cd.ctor_params, ty, args, inst_span)?;
                self.elab_control(cd, path, ctor, tb, inst_span)
                    .map(ir::BlockRef::Control)
            }
            Some(ast::Decl::Parser(pd)) => {
                self.check_block_kind(want, &pd.header, true, a.span, &p.name.name)?;
                let (ctor, tb) = self.block_ctor_any(&pd.header.type_params, &pd.ctor_params, ty, args, inst_span)?;
                self.elab_parser(pd, path, ctor, tb, inst_span)
                    .map(ir::BlockRef::Parser)
            }
            Some(ast::Decl::PackageType(_)) => {
                self.err(
                    "E0404",
                    "nested packages are not supported by p4dp",
                    a.span,
                    "unsupported",
                );
                None
            }
            Some(_) => {
                self.err(
                    "E0403",
                    format!("`{}` is not a parser or control", ty_name.name.name),
                    a.span,
                    "bad package argument",
                );
                None
            }
            None => {
                self.err(
                    "E0201",
                    format!("unknown name `{}`", ty_name.name.name),
                    ty_name.span,
                    "not found",
                );
                None
            }
        }
    }

    /// Like [`Sema::block_ctor`] but with a possibly temporary type (no borrow of the AST needed).
    #[allow(clippy::type_complexity)]
    fn block_ctor_any(
        &mut self,
        tps: &'a [ast::Ident],
        ctor_params: &'a [ast::Param],
        ty: &ast::Type,
        args: &'a [ast::Argument],
        span: Span,
    ) -> Option<(Vec<(&'a ast::Ident, Binding)>, HashMap<String, ir::TypeId>)> {
        if !tps.is_empty() {
            if let ast::TypeKind::Specialized { .. } = ty.kind {
                self.err(
                    "E0404",
                    "generic blocks in the package are not supported by p4dp",
                    ty.span,
                    "unsupported",
                );
            } else {
                self.err(
                    "E0404",
                    "generic parsers/controls as package arguments are not supported by p4dp",
                    span,
                    "unsupported",
                );
            }
            return None;
        }
        let mut bind = HashMap::new();
        let vals = self.ctor_args(ctor_params, args, &mut bind, &[], span, None)?;
        let ctor = vals
            .into_iter()
            .map(|(i, v)| (&ctor_params[i].name, Binding::Const(v)))
            .collect();
        Some((ctor, bind))
    }

    /// A parser (`is_parser`) or control with header `header` given for package parameter `pname`
    /// of type `want`: a control where a parser type is wanted, or the reverse, is an error that
    /// ends the argument (None); a parameter count other than the type's is one too
    /// ([`Sema::check_block_arity`]), after which elaboration goes on.
    fn check_block_kind(
        &mut self,
        want: Option<&'a ast::Decl>,
        header: &ast::TypeDeclHeader,
        is_parser: bool,
        span: Span,
        pname: &str,
    ) -> Option<()> {
        let (wrong, need, is) = if is_parser {
            (matches!(want, Some(ast::Decl::ControlType(_))), "control", "parser")
        } else {
            (matches!(want, Some(ast::Decl::ParserType(_))), "parser", "control")
        };
        if wrong {
            self.err(
                "E0403",
                format!(
                    "package parameter `{pname}` needs a {need}, `{}` is a {is}",
                    header.name.name
                ),
                span,
                "wrong block kind",
            );
            return None;
        }
        self.check_block_arity(want, header.params.len(), span, pname);
        Some(())
    }

    fn check_block_arity(&mut self, want: Option<&'a ast::Decl>, n: usize, span: Span, pname: &str) {
        let expected = match want {
            Some(ast::Decl::ParserType(h)) | Some(ast::Decl::ControlType(h)) => h.params.len(),
            _ => return,
        };
        if expected != n {
            self.err(
                "E0403",
                format!("package parameter `{pname}` expects a block with {expected} parameters, this one has {n}"),
                span,
                "wrong signature",
            );
        }
    }

    /// Checks the top-level parsers, controls, actions and functions that `main` did not reach,
    /// in a scratch program that is dropped afterwards (only their diagnostics are kept).
    pub(crate) fn check_unreached(&mut self, prog: &'a ast::Program) {
        for d in &prog.decls {
            let reached = match d {
                ast::Decl::Control(c) => !c.header.type_params.is_empty() || self.elaborated.contains(&c.id()),
                ast::Decl::Parser(p) => !p.header.type_params.is_empty() || self.elaborated.contains(&p.id()),
                ast::Decl::Action(_) => false,
                ast::Decl::Function(f) => {
                    !f.proto.type_params.is_empty() || self.func_cache.keys().any(|k| k.0 == f.id())
                }
                ast::Decl::Instantiation(i) => i.name.name == "main" || !self.is_extern_inst(i),
                ast::Decl::Var(v) => {
                    self.err(
                        "E0402",
                        "variables cannot be declared at the top level",
                        v.name.span,
                        "not allowed here",
                    );
                    true
                }
                ast::Decl::Table(t) => {
                    self.err(
                        "E0402",
                        "tables must be declared inside a control",
                        t.name.span,
                        "not allowed here",
                    );
                    true
                }
                ast::Decl::ValueSet(v) => {
                    self.err(
                        "E0402",
                        "value sets must be declared inside a parser",
                        v.name.span,
                        "not allowed here",
                    );
                    true
                }
                ast::Decl::Const(c) => {
                    let _ = self.global_const(c);
                    true
                }
                ast::Decl::Header(_)
                | ast::Decl::HeaderUnion(_)
                | ast::Decl::Struct(_)
                | ast::Decl::Enum(_)
                | ast::Decl::Typedef(_) => {
                    let _ = self.decl_type(d, &[], d.name().span);
                    true
                }
                _ => true,
            };
            if reached {
                continue;
            }
            self.scratch(|s| match d {
                ast::Decl::Control(c) => {
                    let ctor = c.ctor_params.iter().map(|p| (&p.name, Binding::Err)).collect();
                    let _ = s.elab_control(c, c.header.name.name.clone(), ctor, HashMap::new(), c.span);
                }
                ast::Decl::Parser(p) => {
                    let ctor = p.ctor_params.iter().map(|x| (&x.name, Binding::Err)).collect();
                    let _ = s.elab_parser(p, p.header.name.name.clone(), ctor, HashMap::new(), p.span);
                }
                ast::Decl::Action(a) => {
                    let cid = s.p.controls.alloc(ir::Control {
                        type_name: String::new(),
                        path: String::new(),
                        params: Vec::new(),
                        vars: ir::Arena::new(),
                        actions: Vec::new(),
                        tables: Vec::new(),
                        externs: Vec::new(),
                        body: Vec::new(),
                        annotations: Vec::new(),
                        span: ir::Span::default(),
                    });
                    let saved = std::mem::replace(&mut s.cx, Owner::new(OwnerKind::Control(cid), String::new()));
                    let _ = s.lower_action(a, "");
                    s.cx = saved;
                }
                ast::Decl::Function(f) => {
                    let _ = s.lower_function(f, &HashMap::new(), &[]);
                }
                ast::Decl::Instantiation(i) => {
                    let _ = s.global_extern(d, i);
                }
                _ => {}
            });
        }
        let _ = name_annotation;
    }

    fn is_extern_inst(&self, i: &ast::Instantiation) -> bool {
        let base = match &i.ty.kind {
            ast::TypeKind::Named(p) => p,
            ast::TypeKind::Specialized { base, .. } => base,
            _ => return false,
        };
        matches!(
            self.g.map.get(&base.name.name).and_then(|v| v.first()),
            Some(ast::Decl::ExternObject(_))
        )
    }

    /// Runs `f` against a copy of the program; only types and diagnostics survive.
    fn scratch(&mut self, f: impl FnOnce(&mut Self)) {
        let saved = self.p.clone();
        let fc = self.func_cache.clone();
        let ge = self.global_externs.clone();
        let cx = std::mem::replace(&mut self.cx, Owner::global());
        f(self);
        self.cx = cx;
        let types = std::mem::take(&mut self.p.types);
        self.p = saved;
        self.p.types = types;
        self.func_cache = fc;
        self.global_externs = ge;
    }
}

#[allow(dead_code)]
fn _span(_: Span) {}
