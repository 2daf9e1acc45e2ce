//! Actions: lowering an action declaration (its parameters, `@__ref` checked, and body) into
//! the current control, and copying a top-level action into each control that uses it.

use p4dp_ir as ir;
use p4dp_syntax::ast;

use crate::env::Binding;
use crate::overload::dir_of;
use crate::types::{control_plane_name, name_annotation};
use crate::{ispan, Sema};

impl<'a> Sema<'a> {
    /// Lowers an action into the current control (`prefix` is the control-plane prefix).
    pub(crate) fn lower_action(&mut self, ad: &'a ast::ActionDecl, prefix: &str) -> Option<ir::ActionId> {
        let cid = self.cx.control()?;
        let fq = control_plane_name(prefix, &ad.name.name, name_annotation(&ad.annotations).as_deref());
        let loop_body = self.cx.loop_bodies.contains(&ad.name.name);
        let aid = self.p.actions.alloc(ir::Action {
            name: ad.name.name.clone(),
            fq_name: fq,
            owner: cid,
            params: Vec::new(),
            body: Vec::new(),
            annotations: self.annotations(&ad.annotations),
            loop_body,
            span: ispan(ad.span),
        });
        self.cx.actions.push(aid);
        self.push_scope();
        let mut params = Vec::new();
        let mut seen_dirless = false;
        for p in &ad.params {
            let Some(t) = self.resolve_data_type(&p.ty) else {
                self.declare(&p.name, Binding::Err);
                continue;
            };
            self.check_ref_param(p);
            if p.direction == ast::Direction::None {
                seen_dirless = true;
            } else if seen_dirless {
                self.err(
                    "E0402",
                    "directional action parameters must come before directionless ones",
                    p.span,
                    "move it before the action data",
                );
            }
            let entry_ref = p.direction == ast::Direction::None
                && p.annotations
                    .iter()
                    .any(|a| a.name.name == crate::dpwrite::REF_ANNOTATION);
            let v = self.cx.vars.alloc(ir::Var {
                name: p.name.name.clone(),
                ty: t,
                kind: ir::VarKind::ActionParam(aid, dir_of(p.direction)),
                entry_ref,
                annotations: self.annotations(&p.annotations),
                span: ispan(p.span),
            });
            params.push(v);
            self.declare(&p.name, Binding::Var(v));
        }
        let prev = self.cx.action.replace(aid);
        // a Foreach loop body is the body of a loop: `break;`/`continue;` leave the Foreach
        let loops = std::mem::replace(&mut self.cx.loops, u32::from(loop_body));
        let body = self.block(&ad.body);
        self.cx.loops = loops;
        self.cx.action = prev;
        self.pop_scope();
        let a = &mut self.p.actions[aid];
        a.params = params;
        a.body = body;
        Some(aid)
    }

    /// Copies a top-level action into the current control (once per control).
    pub(crate) fn use_global_action(&mut self, d: &'a ast::Decl, ad: &'a ast::ActionDecl) -> Option<ir::ActionId> {
        let k = d.id();
        if let Some(a) = self.cx.global_actions.get(&k) {
            return Some(*a);
        }
        if !self.func_busy.insert(k) {
            self.err(
                "E0410",
                format!("action `{}` calls itself", ad.name.name),
                ad.name.span,
                "recursive",
            );
            return None;
        }
        let prev_action = self.cx.action.take();
        let a = self.in_global_scope(|s| s.lower_action(ad, ""));
        self.cx.action = prev_action;
        self.func_busy.remove(&k);
        if let Some(a) = a {
            self.cx.global_actions.insert(k, a);
        }
        a
    }
}
