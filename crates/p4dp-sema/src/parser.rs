//! Parsers: instance elaboration, states, transitions and `select`.

use std::collections::HashMap;

use p4dp_ir as ir;
use p4dp_ir::{Stmt, Target, Transition, Type};
use p4dp_syntax::ast;
use p4dp_syntax::Span;

use crate::env::{Binding, Owner, OwnerKind};
use crate::types::{control_plane_name, name_annotation};
use crate::{ispan, Sema};

const MAX_DEPTH: u32 = 32;

impl<'a> Sema<'a> {
    /// Elaborates one instance of parser `pd` at control-plane `path`.
    pub(crate) fn elab_parser(
        &mut self,
        pd: &'a ast::ParserDecl,
        path: String,
        ctor: Vec<(&'a ast::Ident, Binding)>,
        tbind: HashMap<String, ir::TypeId>,
        span: Span,
    ) -> Option<ir::ParserId> {
        if self.depth >= MAX_DEPTH || self.elab_busy.contains(&pd.id()) {
            self.err(
                "E0410",
                format!("parser `{}` instantiates itself", pd.header.name.name),
                span,
                "recursive instantiation",
            );
            return None;
        }
        self.elaborated.insert(pd.id());
        self.depth += 1;
        self.elab_busy.insert(pd.id());
        let pid = self.p.parsers.alloc(ir::Parser {
            type_name: pd.header.name.name.clone(),
            path: path.clone(),
            params: Vec::new(),
            vars: ir::Arena::new(),
            externs: Vec::new(),
            value_sets: Vec::new(),
            init: Vec::new(),
            states: ir::Arena::new(),
            start: ir::Id::new(0),
            annotations: self.annotations(&pd.header.annotations),
            span: ispan(pd.span),
        });
        let mut owner = Owner::new(OwnerKind::Parser(pid), path);
        owner.tsubst = tbind;
        let saved = std::mem::replace(&mut self.cx, owner);
        for (id, b) in ctor {
            self.declare(id, b);
        }
        let params = self.block_params(&pd.header.params);
        let mut init = Vec::new();
        for d in &pd.locals {
            match d {
                ast::Decl::Const(_) | ast::Decl::Var(_) => self.local_decl(d, &mut init),
                ast::Decl::Instantiation(i) => self.instantiation(i),
                ast::Decl::ValueSet(v) => self.value_set(v),
                other => self.err(
                    "E0402",
                    "this declaration is not allowed inside a parser",
                    other.name().span,
                    "not allowed here",
                ),
            }
        }
        // States: names first (transitions may go forward), then bodies.
        let mut states: ir::Arena<ir::ParserState> = ir::Arena::new();
        let mut spans: HashMap<String, Span> = HashMap::new();
        for st in &pd.states {
            let n = &st.name.name;
            if n == "accept" || n == "reject" {
                self.err(
                    "E0203",
                    format!("`{n}` is a built-in state and cannot be declared"),
                    st.name.span,
                    "reserved state name",
                );
                continue;
            }
            if let Some(prev) = spans.insert(n.clone(), st.name.span) {
                self.report(
                    p4dp_syntax::Diagnostic::error(
                        "E0203",
                        format!("duplicate state `{n}`"),
                        st.name.span,
                        "declared again here",
                    )
                    .with_secondary(prev, "first declared here"),
                );
                continue;
            }
            let id = states.alloc(ir::ParserState {
                name: n.clone(),
                body: Vec::new(),
                transition: Transition::Goto(Target::Reject),
                span: ispan(st.span),
            });
            self.cx.states.insert(n.clone(), id);
        }
        let start = match self.cx.states.get("start") {
            Some(s) => *s,
            None => {
                self.err(
                    "E0206",
                    format!("parser `{}` has no `start` state", pd.header.name.name),
                    pd.header.name.span,
                    "add `state start { ... }`",
                );
                ir::Id::new(0)
            }
        };
        for st in &pd.states {
            let Some(&id) = self.cx.states.get(&st.name.name) else {
                continue;
            };
            if states[id].span != ispan(st.span) {
                continue; // a duplicate
            }
            self.push_scope();
            let mut body = Vec::new();
            for s in &st.stmts {
                self.stmt(s, &mut body);
            }
            let tr = match &st.transition {
                None => Transition::Goto(Target::Reject),
                Some(ast::Transition::Direct { state, .. }) => {
                    Transition::Goto(self.state_target(state).unwrap_or(Target::Reject))
                }
                Some(ast::Transition::Select { exprs, cases, span }) => self.select(exprs, cases, *span, &mut body),
            };
            self.pop_scope();
            states[id].body = body;
            states[id].transition = tr;
        }
        let owner = std::mem::replace(&mut self.cx, saved);
        if states.is_empty() {
            // Keep the IR well-formed: a parser always has a start state.
            states.alloc(ir::ParserState {
                name: "start".into(),
                body: Vec::new(),
                transition: Transition::Goto(Target::Reject),
                span: ispan(pd.span),
            });
        }
        let p = &mut self.p.parsers[pid];
        p.params = params;
        p.vars = owner.vars;
        p.externs = owner.externs;
        p.value_sets = owner.value_sets;
        p.init = init;
        p.states = states;
        p.start = start;
        self.depth -= 1;
        self.elab_busy.remove(&pd.id());
        Some(pid)
    }

    fn state_target(&mut self, p: &ast::PathName) -> Option<Target> {
        match p.name.name.as_str() {
            "accept" => Some(Target::Accept),
            "reject" => Some(Target::Reject),
            n => match self.cx.states.get(n) {
                Some(s) => Some(Target::State(*s)),
                None => {
                    self.err("E0206", format!("unknown state `{n}`"), p.span, "no such state");
                    None
                }
            },
        }
    }

    fn select(
        &mut self,
        exprs: &'a [ast::Expr],
        cases: &'a [ast::SelectCase],
        span: Span,
        body: &mut Vec<Stmt>,
    ) -> Transition {
        let mut keys = Vec::new();
        let mut ok = true;
        for e in exprs {
            match self.rexpr(e, body) {
                Some(x) => {
                    if !matches!(
                        self.ty(x.ty),
                        Type::Bit(_)
                            | Type::Int(_)
                            | Type::Bool
                            | Type::SerEnum { .. }
                            | Type::Enum { .. }
                            | Type::Error
                    ) {
                        let tn = self.tname(x.ty);
                        self.err(
                            "E0409",
                            format!("cannot select on a value of type `{tn}`"),
                            e.span,
                            "bad select key",
                        );
                        ok = false;
                    }
                    keys.push(x)
                }
                None => ok = false,
            }
        }
        let tys: Vec<ir::TypeId> = keys.iter().map(|k| k.ty).collect();
        let mut out = Vec::new();
        for c in cases {
            let next = self.state_target(&c.state);
            if !ok {
                continue;
            }
            let ks = self.keysets(&c.keyset, &tys, true, c.span);
            if let (Some(keysets), Some(next)) = (ks, next) {
                out.push(ir::SelectCase { keysets, next });
            }
        }
        if !ok {
            return Transition::Goto(Target::Reject);
        }
        Transition::Select {
            keys,
            cases: out,
            span: ispan(span),
        }
    }

    /// The member fields of a value set of element type `t`: one scalar (`bit<W>`, `int<W>`, a
    /// serializable enum), or a struct of 1..16 such fields, each with its `@match` kind.
    fn value_set_fields(&mut self, t: ir::TypeId, v: &'a ast::ValueSetDecl) -> Option<Vec<ir::ValueSetField>> {
        let scalar = |ty: &Type| matches!(ty, Type::Bit(_) | Type::Int(_) | Type::SerEnum { .. });
        let bad = |me: &mut Self, msg: String| {
            me.err("E0404", msg, v.elem_ty.span, "unsupported value_set element type");
            None
        };
        if scalar(self.ty(t)) {
            return Some(vec![ir::ValueSetField {
                name: v.name.name.clone(),
                ty: t,
                kind: ir::VsetMatch::Exact,
            }]);
        }
        let Type::Struct(st) = self.ty(t).clone() else {
            return bad(
                self,
                "p4dp supports value_set over `bit<W>`/`int<W>`/serializable enums or a struct of them".into(),
            );
        };
        if st.fields.is_empty() || st.fields.len() > 16 {
            return bad(
                self,
                format!(
                    "a value_set struct needs 1 to 16 fields, `{}` has {}",
                    st.name,
                    st.fields.len()
                ),
            );
        }
        let mut out = Vec::new();
        for f in &st.fields {
            if !scalar(self.ty(f.ty)) {
                return bad(
                    self,
                    format!(
                        "value_set struct field `{}` is not a `bit<W>`/`int<W>`/serializable enum",
                        f.name
                    ),
                );
            }
            let kind = match f.annotations.iter().find(|a| a.name == "match") {
                None => ir::VsetMatch::Exact,
                Some(a) => match a.args.as_slice() {
                    [ir::AnnotationArg::Raw(k)] if k == "exact" => ir::VsetMatch::Exact,
                    [ir::AnnotationArg::Raw(k)] if k == "ternary" => ir::VsetMatch::Ternary,
                    [ir::AnnotationArg::Raw(k)] if k == "lpm" => ir::VsetMatch::Lpm,
                    [ir::AnnotationArg::Raw(k)] if k == "optional" => ir::VsetMatch::Optional,
                    [ir::AnnotationArg::Raw(k)] if k == "range" => {
                        return bad(
                            self,
                            format!("value_set field `{}`: p4dp does not support @match(range) in value sets (members are value and mask)", f.name),
                        )
                    }
                    _ => {
                        return bad(
                            self,
                            format!("value_set field `{}`: @match takes exact, ternary, lpm or optional", f.name),
                        )
                    }
                },
            };
            out.push(ir::ValueSetField {
                name: f.name.clone(),
                ty: f.ty,
                kind,
            });
        }
        Some(out)
    }

    fn value_set(&mut self, v: &'a ast::ValueSetDecl) {
        let t = self.resolve_data_type(&v.elem_ty);
        let n = self.const_u32(&v.size, "value_set size");
        let (Some(t), Some(n)) = (t, n) else {
            self.declare(&v.name, Binding::Err);
            return;
        };
        let Some(fields) = self.value_set_fields(t, v) else {
            self.declare(&v.name, Binding::Err);
            return;
        };
        let fq = control_plane_name(&self.cx.path, &v.name.name, name_annotation(&v.annotations).as_deref());
        let id = self.p.value_sets.alloc(ir::ValueSet {
            name: v.name.name.clone(),
            fq_name: fq,
            ty: t,
            fields,
            size: n,
            annotations: self.annotations(&v.annotations),
            span: ispan(v.span),
        });
        self.cx.value_sets.push(id);
        self.declare(&v.name, Binding::ValueSet(id));
    }
}
