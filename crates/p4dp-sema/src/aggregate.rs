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
                    let mut epre = Vec::new();
                    let v = self.expr_as(x, *ft, &mut epre);
                    self.freeze_earlier(&mut out, epre, pre);
                    out.push(v);
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
                // Evaluate the given fields in source order (left to right), then place them in
                // declaration order.
                let mut vals: Vec<Option<ir::Expr>> = Vec::new();
                for f in fields {
                    match field_tys.iter().find(|(n, _)| *n == f.name.name) {
                        Some((_, ft)) => {
                            let mut epre = Vec::new();
                            let v = self.expr_as(&f.value, *ft, &mut epre);
                            self.freeze_earlier(&mut vals, epre, pre);
                            vals.push(v);
                        }
                        None => vals.push(None),
                    }
                }
                for (n, _) in &field_tys {
                    let given: Vec<_> = fields.iter().enumerate().filter(|(_, f)| f.name.name == *n).collect();
                    match given.as_slice() {
                        [(i, _)] => out.push(vals[*i].take()),
                        [] => {
                            self.err(
                                "E0306",
                                format!("field `{n}` of `{tn}` is not initialized"),
                                e.span,
                                "missing field",
                            );
                            out.push(None);
                        }
                        [_, (_, f), ..] => {
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

    /// Left-to-right evaluation of list elements: when the statements `epre` hoisted for the
    /// next element are not empty (a call, which may write an `inout` argument), the elements
    /// already evaluated are first copied into temporaries, as `binary` does for its left operand.
    fn freeze_earlier(&mut self, done: &mut [Option<ir::Expr>], mut epre: Vec<Stmt>, pre: &mut Vec<Stmt>) {
        if epre.is_empty() {
            return;
        }
        for d in done.iter_mut() {
            if let Some(x) = d.take() {
                *d = Some(self.snapshot(x, pre));
            }
        }
        pre.append(&mut epre);
    }

    /// A list expression without a context type: a tuple of its elements' types.
    pub(crate) fn untyped_list(&mut self, e: &'a ast::Expr, pre: &mut Vec<Stmt>) -> Val<'a> {
        match &e.kind {
            ast::ExprKind::List { elems, dots: false } => {
                let mut xs = Vec::new();
                for x in elems {
                    let mut epre = Vec::new();
                    let v = self.rexpr(x, &mut epre);
                    self.freeze_earlier(&mut xs, epre, pre);
                    xs.push(v);
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
