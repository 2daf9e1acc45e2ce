//! Keysets: the constant sets of key values that `select` cases and table entries match (values,
//! masks, ranges, `_`/`default`, value sets in `select`), checked against the key types. Used
//! by `parser` (select) and `table` (entries); depends on expression lowering only.

use p4dp_ir as ir;
use p4dp_ir::{KeySet, Type, Value};
use p4dp_syntax::ast;
use p4dp_syntax::Span;

use crate::env::Binding;
use crate::expr::Val;
use crate::{CVal, Sema};

impl<'a> Sema<'a> {
    /// The keysets of a select case / table entry, one per key.
    pub(crate) fn keysets(
        &mut self,
        ks: &'a ast::Keyset,
        tys: &[ir::TypeId],
        allow_vs: bool,
        span: Span,
    ) -> Option<Vec<KeySet>> {
        if let Some(out) = self.struct_value_set(ks, tys, allow_vs, span) {
            return out;
        }
        let elems: Vec<&'a ast::SimpleKeyset> = match ks {
            ast::Keyset::Simple(ast::SimpleKeyset::Default(_) | ast::SimpleKeyset::DontCare(_)) => {
                return Some(tys.iter().map(|_| KeySet::Any).collect());
            }
            ast::Keyset::Simple(s) => vec![s],
            ast::Keyset::Tuple { elems, .. } => elems.iter().collect(),
        };
        if elems.len() != tys.len() {
            self.err(
                "E0409",
                format!("{} keyset elements for {} keys", elems.len(), tys.len()),
                span,
                "wrong number of keyset elements",
            );
            return None;
        }
        let mut out = Vec::new();
        let mut ok = true;
        for (k, t) in elems.into_iter().zip(tys) {
            match self.keyset(k, *t, allow_vs) {
                Some(x) => out.push(x),
                None => ok = false,
            }
        }
        ok.then_some(out)
    }

    /// A case naming a value set over a struct: it covers as many keys as the struct has
    /// fields (`[ValueSet, Any, ...]`), whose types must be the fields' in order. None: not such
    /// a case; Some(None): such a case with an error reported.
    fn struct_value_set(
        &mut self,
        ks: &'a ast::Keyset,
        tys: &[ir::TypeId],
        allow_vs: bool,
        span: Span,
    ) -> Option<Option<Vec<KeySet>>> {
        let ast::Keyset::Simple(ast::SimpleKeyset::Expr(e)) = ks else {
            return None;
        };
        let ast::ExprKind::Name(p) = &e.kind else { return None };
        if !allow_vs {
            return None;
        }
        let v = match self.lookup_local(&p.name.name) {
            Some(Binding::ValueSet(v)) => v,
            // a value set whose declaration was refused (already reported)
            Some(Binding::Err) if tys.len() > 1 => return Some(None),
            _ => return None,
        };
        let vs = &self.p.value_sets[v];
        if !matches!(self.ty(vs.ty), Type::Struct(_)) {
            return None;
        }
        let fields: Vec<ir::TypeId> = vs.fields.iter().map(|f| f.ty).collect();
        if fields != tys {
            let a = self.tname(vs.ty);
            let b: Vec<String> = tys.iter().map(|t| self.tname(*t)).collect();
            self.err(
                "E0301",
                format!(
                    "value_set of `{a}` ({} fields) used for keys ({})",
                    fields.len(),
                    b.join(", ")
                ),
                span,
                "the keys must have the struct's field types, in order",
            );
            return Some(None);
        }
        let mut out = vec![KeySet::ValueSet(v)];
        out.resize(tys.len(), KeySet::Any);
        Some(Some(out))
    }

    /// A keyset element of type `ty` (`allow_vs`: value sets are allowed, in `select`).
    pub(crate) fn keyset(&mut self, k: &'a ast::SimpleKeyset, ty: ir::TypeId, allow_vs: bool) -> Option<KeySet> {
        match k {
            ast::SimpleKeyset::Default(_) | ast::SimpleKeyset::DontCare(_) => Some(KeySet::Any),
            ast::SimpleKeyset::Expr(e) => {
                if allow_vs {
                    if let ast::ExprKind::Name(p) = &e.kind {
                        if let Some(Binding::ValueSet(v)) = self.lookup_local(&p.name.name) {
                            let vt = self.p.value_sets[v].ty;
                            if vt != ty {
                                let (a, b) = (self.tname(vt), self.tname(ty));
                                self.err(
                                    "E0301",
                                    format!("value_set of `{a}` used for a key of type `{b}`"),
                                    e.span,
                                    "type mismatch",
                                );
                                return None;
                            }
                            return Some(KeySet::ValueSet(v));
                        }
                    }
                }
                Some(KeySet::Value(self.keyset_const(e, ty)?))
            }
            ast::SimpleKeyset::Mask { value, mask, .. } => {
                let v = self.keyset_const(value, ty);
                let m = self.keyset_const(mask, ty);
                Some(KeySet::Mask(v?, m?))
            }
            ast::SimpleKeyset::Range { lo, hi, .. } => {
                let l = self.keyset_const(lo, ty);
                let h = self.keyset_const(hi, ty);
                Some(KeySet::Range(l?, h?))
            }
        }
    }

    /// A constant of a keyset for a key of type `ty`. For a serializable-enum key, a value of the
    /// enum's underlying type (e.g. `(bit<16>)E.X`, or an integer mask) is accepted too, as p4c
    /// does: an enum-typed mask could not be written otherwise.
    fn keyset_const(&mut self, e: &'a ast::Expr, ty: ir::TypeId) -> Option<Value> {
        let Type::SerEnum { underlying, .. } = self.ty(ty).clone() else {
            return self.const_value(e, ty);
        };
        match self.const_eval(e, None)? {
            CVal::V(v, t) if t == ty || t == underlying => Some(v),
            CVal::Int(i) => match self.coerce(Val::Int(i), underlying, e.span)? {
                ir::Expr {
                    kind: ir::ExprKind::Const(v),
                    ..
                } => Some(v),
                _ => None,
            },
            // Anything else: the usual conversion and its diagnostic.
            CVal::V(..) => self.const_value(e, ty),
        }
    }
}
