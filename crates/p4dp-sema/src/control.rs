//! Controls: elaborating one control instance (its apply parameters, constructor parameters bound
//! as constants, local declarations in order, and its `apply` body).

use std::collections::HashMap;

use p4dp_ir as ir;
use p4dp_ir::Stmt;
use p4dp_syntax::ast;
use p4dp_syntax::Span;

use crate::env::{Binding, Owner, OwnerKind};
use crate::{ispan, Sema};

/// Maximum nesting of block instantiations (guards against recursive instantiation).
const MAX_DEPTH: u32 = 32;

impl<'a> Sema<'a> {
    /// Elaborates one instance of control `cd` at control-plane `path`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn elab_control(
        &mut self,
        cd: &'a ast::ControlDecl,
        path: String,
        ctor: Vec<(&'a ast::Ident, Binding)>,
        tbind: HashMap<String, ir::TypeId>,
        span: Span,
    ) -> Option<ir::ControlId> {
        if self.depth >= MAX_DEPTH || self.elab_busy.contains(&cd.id()) {
            self.err(
                "E0410",
                format!("control `{}` instantiates itself", cd.header.name.name),
                span,
                "recursive instantiation",
            );
            return None;
        }
        self.elaborated.insert(cd.id());
        self.depth += 1;
        self.elab_busy.insert(cd.id());
        let cid = self.p.controls.alloc(ir::Control {
            type_name: cd.header.name.name.clone(),
            path: path.clone(),
            params: Vec::new(),
            vars: ir::Arena::new(),
            actions: Vec::new(),
            tables: Vec::new(),
            externs: Vec::new(),
            body: Vec::new(),
            annotations: self.annotations(&cd.header.annotations),
            span: ispan(cd.span),
        });
        let mut owner = Owner::new(OwnerKind::Control(cid), path);
        owner.tsubst = tbind;
        let saved = std::mem::replace(&mut self.cx, owner);
        for (id, b) in ctor {
            self.declare(id, b);
        }
        let params = self.block_params(&cd.header.params);
        self.cx.loop_bodies = self.foreach_loop_bodies(&cd.locals);
        let mut body = Vec::new();
        for d in &cd.locals {
            self.control_local(d, &mut body);
        }
        let mut apply = self.block(&cd.apply);
        body.append(&mut apply);
        let owner = std::mem::replace(&mut self.cx, saved);
        let c = &mut self.p.controls[cid];
        c.params = params;
        c.vars = owner.vars;
        c.actions = owner.actions;
        c.tables = owner.tables;
        c.externs = owner.externs;
        c.body = body;
        self.depth -= 1;
        self.elab_busy.remove(&cd.id());
        Some(cid)
    }

    fn control_local(&mut self, d: &'a ast::Decl, body: &mut Vec<Stmt>) {
        match d {
            ast::Decl::Const(_) | ast::Decl::Var(_) => self.local_decl(d, body),
            ast::Decl::Instantiation(i) => self.instantiation(i),
            ast::Decl::Action(a) => {
                let path = self.cx.path.clone();
                let b = match self.lower_action(a, &path) {
                    Some(id) => Binding::Action(id),
                    None => Binding::Err,
                };
                self.declare(&a.name, b);
            }
            ast::Decl::Table(t) => {
                let b = match self.lower_table(t) {
                    Some(id) => Binding::Table(id),
                    None => Binding::Err,
                };
                self.declare(&t.name, b);
            }
            ast::Decl::Function(f) => {
                self.err(
                    "E0404",
                    "functions declared inside controls are not supported by p4dp",
                    f.proto.name.span,
                    "move it to the top level",
                );
                self.declare(&f.proto.name, Binding::Err);
            }
            other => {
                self.err(
                    "E0402",
                    "this declaration is not allowed inside a control",
                    other.name().span,
                    "not allowed here",
                );
            }
        }
    }
}
