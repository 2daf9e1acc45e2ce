//! List and struct expressions (typed by their context), `{#}`, and untyped lists (tuples).

use p4dp_ir as ir;
use p4dp_ir::{ExprKind, Stmt, Type, Value};
use p4dp_syntax::ast;

use crate::consts;
use crate::expr::{as_const, cnst, mk, Val};
use crate::Sema;

impl<'a> Sema<'a> {
    // ----------------------------------------------------------------------------------------
    // list / struct expressions

    /// A list or struct expression (or `{#}`) typed by its context type `t`.
    pub(crate) fn aggregate(&mut self, e: &'a ast::Expr, t: ir::TypeId, pre: &mut Vec<Stmt>) -> Option<ir::Expr> {
        let ty = self.ty(t).clone();
        let tn = self.tname(t);
        let field_tys: Vec<(String, ir::TypeId)> = match &ty {
            Type::Header(s) | Type::Struct(s) | Type::HeaderUnion(s) => {
                s.fields.iter().map(|f| (f.name.clone(), f.ty)).collect()
            }
            Type::Tuple(ts) => ts.iter().enumerate().map(|(i, x)| (i.to_string(), *x)).collect(),
            _ => {
                self.err(
                    "E0404",
                    format!("list expressions of type `{tn}` are not supported"),
                    e.span,
                    "unsupported",
                );
                return None;
            }
        };
        let mut out = Vec::new();
        match &e.kind {
            ast::ExprKind::InvalidHeader => {
                if !matches!(ty, Type::Header(_) | Type::HeaderUnion(_)) {
                    self.err(
                        "E0301",
                        format!("`{{#}}` is an invalid header, but `{tn}` is not a header"),
                        e.span,
                        "type mismatch",
                    );
                    return None;
                }
                return Some(cnst(consts::zero_value(&self.p.types, t), t, e.span));
            }
            ast::ExprKind::List { elems, dots } => {
                if matches!(ty, Type::HeaderUnion(_)) {
                    self.err(
                        "E0301",
                        "a header union cannot be initialized with a list",
                        e.span,
                        "type mismatch",
                    );
                    return None;
                }
                if elems.len() != field_tys.len() && !*dots {
                    self.err(
                        "E0306",
                        format!(
                            "`{tn}` has {} fields, the list has {} elements",
                            field_tys.len(),
                            elems.len()
                        ),
                        e.span,
                        "wrong number of elements",
                    );
                    return None;
                }
                if *dots {
                    self.err(
                        "E0404",
                        "`...` in list expressions is not supported",
                        e.span,
                        "unsupported",
                    );
                    return None;
                }
                for (x, (_, ft)) in elems.iter().zip(field_tys.iter()) {
                    out.push(self.expr_as(x, *ft, pre));
                }
            }
            ast::ExprKind::Struct { fields, dots } => {
                if matches!(ty, Type::Tuple(_)) {
                    self.err(
                        "E0301",
                        "a tuple cannot be initialized with a struct expression",
                        e.span,
                        "type mismatch",
                    );
                    return None;
                }
                if *dots {
                    self.err(
                        "E0404",
                        "`...` in struct expressions is not supported",
                        e.span,
                        "unsupported",
                    );
                    return None;
                }
                for f in fields {
                    if !field_tys.iter().any(|(n, _)| *n == f.name.name) {
                        self.err(
                            "E0205",
                            format!("`{tn}` has no field `{}`", f.name.name),
                            f.name.span,
                            "unknown field",
                        );
                    }
                }
                for (n, ft) in &field_tys {
                    let given: Vec<_> = fields.iter().filter(|f| f.name.name == *n).collect();
                    match given.as_slice() {
                        [f] => out.push(self.expr_as(&f.value, *ft, pre)),
                        [] => {
                            self.err(
                                "E0306",
                                format!("field `{n}` of `{tn}` is not initialized"),
                                e.span,
                                "missing field",
                            );
                            out.push(None);
                        }
                        [_, f, ..] => {
                            self.err(
                                "E0203",
                                format!("field `{n}` is initialized twice"),
                                f.name.span,
                                "duplicate",
                            );
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
            let valid = if matches!(ty, Type::Header(_)) {
                Some(true)
            } else {
                None
            };
            return Some(cnst(Value::Aggregate { valid, fields }, t, e.span));
        }
        Some(mk(ExprKind::List(out), t, e.span))
    }

    /// A list expression without a context type: a tuple of its elements' types.
    pub(crate) fn untyped_list(&mut self, e: &'a ast::Expr, pre: &mut Vec<Stmt>) -> Val<'a> {
        match &e.kind {
            ast::ExprKind::List { elems, dots: false } => {
                let mut xs = Vec::new();
                for x in elems {
                    xs.push(self.rexpr(x, pre));
                }
                let Some(xs) = xs.into_iter().collect::<Option<Vec<_>>>() else {
                    return Val::Err;
                };
                let t = self.tuple_type(xs.iter().map(|x| x.ty).collect());
                Val::E(mk(ExprKind::List(xs), t, e.span))
            }
            _ => {
                self.err(
                    "E0303",
                    "cannot infer the type of this expression",
                    e.span,
                    "type unknown; use a cast or a typed variable",
                );
                Val::Err
            }
        }
    }
}
