//! Scopes, bindings and the top-level declaration table.

use std::collections::HashMap;

use p4dp_ir as ir;
use p4dp_syntax::ast;
use p4dp_syntax::Span;

use crate::{CVal, Sema};

/// What a name in a (non-global) scope stands for.
#[derive(Debug, Clone)]
pub(crate) enum Binding {
    Var(ir::VarId),
    Const(CVal),
    Action(ir::ActionId),
    Table(ir::TableId),
    Extern(ir::ExternId),
    Control(ir::ControlId),
    Parser(ir::ParserId),
    ValueSet(ir::ValueSetId),
    /// A declaration that failed: uses are silently errors (no cascade).
    Err,
}

/// All top-level declarations, by name, in source order (overloads share a name).
#[derive(Default)]
pub(crate) struct Globals<'a> {
    pub map: HashMap<String, Vec<&'a ast::Decl>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum OwnerKind {
    /// Top level (global constants, types).
    Global,
    Control(ir::ControlId),
    Parser(ir::ParserId),
    Function,
}

/// The owner being lowered: its variables and its scopes.
pub(crate) struct Owner {
    pub kind: OwnerKind,
    pub vars: ir::Arena<ir::Var>,
    pub scopes: Vec<HashMap<String, (Binding, Span)>>,
    /// Type variables in scope (type parameters bound to types).
    pub tsubst: HashMap<String, ir::TypeId>,
    /// Set while lowering an action body.
    pub action: Option<ir::ActionId>,
    /// Return type while lowering a function body.
    pub ret: Option<ir::TypeId>,
    /// Top-level actions already copied into this control.
    pub global_actions: HashMap<ast::NodeId, ir::ActionId>,
    /// Control-plane path of this instance (`MyIngress`, `MyIngress.c`).
    pub path: String,
    pub actions: Vec<ir::ActionId>,
    pub tables: Vec<ir::TableId>,
    pub externs: Vec<ir::ExternId>,
    pub value_sets: Vec<ir::ValueSetId>,
    /// Parser states by name.
    pub states: HashMap<String, ir::StateId>,
    pub ntmp: u32,
    /// Nesting depth of `for` loops being lowered (`break`/`continue` need one).
    pub loops: u32,
    /// Actions of this control that an rtc.p4 `Foreach` names as loop bodies (`@methods`):
    /// `break`/`continue` in them leave the Foreach loop / its iteration.
    pub loop_bodies: std::collections::HashSet<String>,
    /// Compiler temporaries (written once, so never need a snapshot).
    pub temps: std::collections::HashSet<ir::VarId>,
}

impl Owner {
    pub fn global() -> Owner {
        Owner::new(OwnerKind::Global, String::new())
    }
    pub fn new(kind: OwnerKind, path: String) -> Owner {
        Owner {
            kind,
            vars: ir::Arena::new(),
            scopes: vec![HashMap::new()],
            tsubst: HashMap::new(),
            action: None,
            ret: None,
            global_actions: HashMap::new(),
            path,
            actions: Vec::new(),
            tables: Vec::new(),
            externs: Vec::new(),
            value_sets: Vec::new(),
            states: HashMap::new(),
            ntmp: 0,
            loops: 0,
            loop_bodies: std::collections::HashSet::new(),
            temps: std::collections::HashSet::new(),
        }
    }
    pub fn is_parser(&self) -> bool {
        matches!(self.kind, OwnerKind::Parser(_))
    }
    pub fn control(&self) -> Option<ir::ControlId> {
        match self.kind {
            OwnerKind::Control(c) => Some(c),
            _ => None,
        }
    }
}

/// Which declaration kinds may share a name (overloading by number of parameters).
fn overloadable(d: &ast::Decl) -> bool {
    matches!(d, ast::Decl::Function(_) | ast::Decl::ExternFunction(_))
}

impl<'a> Sema<'a> {
    /// Pass 1: collect the top-level declarations.
    pub(crate) fn collect(&mut self, prog: &'a ast::Program) {
        for d in &prog.decls {
            match d {
                ast::Decl::Error(l) => {
                    for m in &l.members {
                        if self.p.errors.contains(&m.name) {
                            self.err(
                                "E0203",
                                format!("duplicate error member `{}`", m.name),
                                m.span,
                                "declared again here",
                            );
                        } else {
                            self.p.errors.push(m.name.clone());
                        }
                    }
                }
                ast::Decl::MatchKind(l) => {
                    for m in &l.members {
                        if self.p.match_kinds.contains(&m.name) {
                            self.err(
                                "E0203",
                                format!("duplicate match_kind `{}`", m.name),
                                m.span,
                                "declared again here",
                            );
                        } else {
                            self.p.match_kinds.push(m.name.clone());
                        }
                    }
                }
                _ => {
                    let name = d.name().name.clone();
                    let entry = self.g.map.entry(name.clone()).or_default();
                    if let Some(prev) = entry.first() {
                        let prev: &ast::Decl = prev;
                        let same_arity = |a: &ast::Decl, b: &ast::Decl| param_count(a) == param_count(b);
                        let ok = overloadable(prev)
                            && overloadable(d)
                            && std::mem::discriminant(prev) == std::mem::discriminant(d)
                            && !entry.iter().any(|p| same_arity(p, d));
                        if !ok {
                            let (ps, span) = (prev.name().span, d.name().span);
                            self.report(
                                p4dp_syntax::Diagnostic::error(
                                    "E0203",
                                    format!("duplicate declaration of `{name}`"),
                                    span,
                                    "declared again here",
                                )
                                .with_secondary(ps, "first declared here"),
                            );
                            continue;
                        }
                    }
                    self.g.map.entry(name).or_default().push(d);
                }
            }
        }
    }

    /// Looks a name up in the local scopes (innermost first).
    pub(crate) fn lookup_local(&self, name: &str) -> Option<Binding> {
        for s in self.cx.scopes.iter().rev() {
            if let Some((b, _)) = s.get(name) {
                return Some(b.clone());
            }
        }
        None
    }

    /// The top-level declarations named `name`, checking declaration-before-use for `use_span`.
    pub(crate) fn lookup_global(&mut self, name: &str, use_span: Span) -> Option<Vec<&'a ast::Decl>> {
        let v = self.g.map.get(name)?.clone();
        if let Some(d) = v.first() {
            let ds = d.name().span;
            if ds.file == use_span.file && ds.lo > use_span.lo && !self.inside_decl(d, use_span) {
                self.err(
                    "E0208",
                    format!("`{name}` is used before its declaration"),
                    use_span,
                    "used here",
                )
            }
        }
        Some(v)
    }

    fn inside_decl(&self, d: &ast::Decl, sp: Span) -> bool {
        let s = d.span();
        s.lo <= sp.lo && sp.hi <= s.hi
    }

    /// Declares a local name in the innermost scope, reporting duplicates within that scope.
    pub(crate) fn declare(&mut self, id: &ast::Ident, b: Binding) {
        let scope = self.cx.scopes.last_mut().expect("owner always has a scope");
        if let Some((_, prev)) = scope.get(&id.name) {
            let prev = *prev;
            self.report(
                p4dp_syntax::Diagnostic::error(
                    "E0203",
                    format!("duplicate declaration of `{}`", id.name),
                    id.span,
                    "declared again here",
                )
                .with_secondary(prev, "first declared here"),
            );
            return;
        }
        scope.insert(id.name.clone(), (b, id.span));
    }

    pub(crate) fn push_scope(&mut self) {
        self.cx.scopes.push(HashMap::new());
    }
    pub(crate) fn pop_scope(&mut self) {
        if self.cx.scopes.len() > 1 {
            self.cx.scopes.pop();
        }
    }

    /// Runs `f` with only the global scope visible (no locals, no type variables).
    pub(crate) fn in_global_scope<R>(&mut self, f: impl FnOnce(&mut Self) -> R) -> R {
        let scopes = std::mem::replace(&mut self.cx.scopes, vec![HashMap::new()]);
        let ts = std::mem::take(&mut self.cx.tsubst);
        let r = f(self);
        self.cx.scopes = scopes;
        self.cx.tsubst = ts;
        r
    }

    /// A fresh compiler temporary of type `ty` in the current owner.
    pub(crate) fn tmp(&mut self, ty: ir::TypeId, span: Span) -> ir::VarId {
        self.cx.ntmp += 1;
        let name = format!("tmp_{}", self.cx.ntmp);
        let v = self.cx.vars.alloc(ir::Var {
            entry_ref: false,
            name,
            ty,
            kind: ir::VarKind::Local,
            annotations: Vec::new(),
            span: crate::ispan(span),
        });
        self.cx.temps.insert(v);
        v
    }
}

/// Number of parameters of an overloadable declaration.
pub(crate) fn param_count(d: &ast::Decl) -> usize {
    match d {
        ast::Decl::Function(f) => f.proto.params.len(),
        ast::Decl::ExternFunction(f) => f.params.len(),
        _ => 0,
    }
}
