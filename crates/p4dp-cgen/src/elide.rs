//! Headers the deparser need not rewrite (perf, v1model).
//!
//! The packet's own output is deparsed in place (glue.rs, `emit_room` in lib.rs). A header whose
//! bytes are still in the packet, exactly where the deparser is about to write them, need not be
//! written again. That holds for a member `f` of the v1model headers struct `H` when
//! 1. no code of the program writes it after extraction ([`Gen::plan_elide`]: no assignment to any
//!    `x.f…` or to a whole `x` of type `H`, no `setValid`/`setInvalid`, no `out`/`inout` argument
//!    rooted at `x.f` other than `packet_in.extract` (in calls and in the directional arguments
//!    bound in tables' `actions` lists), no whole `x` passed to an extern), so its fields hold the
//!    bytes extract read; and
//! 2. at run time, the deparser writes in place (`R->emit_base == R->pkt->data`) and its cursor
//!    equals the bit offset the header was extracted from (`R->xo[k] == _o + 1`; extract records
//!    it, 0 means "not extracted"). The deparser only writes below its cursor, so those bytes are
//!    untouched.
//!
//! Fixed-size headers only (no varbit). Everything else is emitted as before.

use p4dp_ir::*;

use crate::Gen;

/// The root variable of an lvalue and the field indices from it (`x.f.g[2].h` -> x, [f, g, h]).
fn lv_root(e: &Expr) -> Option<(VarId, Vec<u32>)> {
    match &e.kind {
        ExprKind::Var(v) => Some((*v, Vec::new())),
        ExprKind::Field(b, f) => {
            let (v, mut p) = lv_root(b)?;
            p.push(*f);
            Some((v, p))
        }
        ExprKind::Slice(b, _, _) | ExprKind::StackElem(b, _) | ExprKind::StackNextIndex(b) => lv_root(b),
        _ => None,
    }
}

/// Scan state: the headers type, its members still read-only, and whether everything is off.
struct Scan {
    h: TypeId,
    ro: Vec<bool>,
}

impl Scan {
    /// A write to lvalue `e` of owner `vars`; `extract` when it is packet_in.extract's target;
    /// `whole_ok` when a whole `x: H` may be passed (the callee's body is scanned itself).
    fn write(&mut self, vars: &Arena<Var>, e: &Expr, extract: bool, whole_ok: bool) {
        let Some((v, path)) = lv_root(e) else {
            // not an lvalue we understand: it could be anything
            self.ro.iter_mut().for_each(|r| *r = false);
            return;
        };
        if vars[v].ty != self.h {
            return;
        }
        match path.first() {
            None if whole_ok => {}
            None => self.ro.iter_mut().for_each(|r| *r = false),
            Some(_) if extract && path.len() == 1 => {}
            Some(&f) => {
                if let Some(r) = self.ro.get_mut(f as usize) {
                    *r = false;
                }
            }
        }
    }

    fn block(&mut self, vars: &Arena<Var>, b: &Block) {
        for s in b {
            match s {
                Stmt::Assign { dst, .. } => self.write(vars, dst, false, false),
                Stmt::If { then_, else_, .. } => {
                    self.block(vars, then_);
                    self.block(vars, else_);
                }
                Stmt::Switch { cases, default, .. } => {
                    for c in cases {
                        self.block(vars, &c.body);
                    }
                    if let Some(d) = default {
                        self.block(vars, d);
                    }
                }
                Stmt::Block(x) => self.block(vars, x),
                Stmt::Loop { pre, body, update, .. } => {
                    self.block(vars, pre);
                    self.block(vars, body);
                    self.block(vars, update);
                }
                // mark_to_drop writes egress_spec (511) and mcast_grp (0) of the standard
                // metadata, never a header: not a write for feat.rs's question (non-zero mcast_grp)
                Stmt::Call(c) if matches!(&c.target, CallTarget::ExternFunction(n) if n == "mark_to_drop") => {}
                Stmt::Call(c) => {
                    let extract = matches!(&c.target, CallTarget::ExternMethod { method, .. } if method == "extract");
                    let body_scanned = matches!(
                        c.target,
                        CallTarget::Action(_)
                            | CallTarget::Function(_)
                            | CallTarget::Control(_)
                            | CallTarget::Parser(_)
                    );
                    for a in &c.args {
                        match a {
                            // setValid/setInvalid pass the header as inout: a write
                            Arg::Out(e) | Arg::InOut(e) => self.write(vars, e, extract, body_scanned),
                            Arg::In(_) => {}
                        }
                    }
                    if let Some(r) = &c.ret {
                        self.write(vars, r, false, false);
                    }
                }
                Stmt::ApplyTable { .. }
                | Stmt::Exit { .. }
                | Stmt::Return { .. }
                | Stmt::Verify { .. }
                | Stmt::Break { .. }
                | Stmt::Continue { .. } => {}
            }
        }
    }
}

impl Gen<'_> {
    /// v1model: for each member of the headers struct, whether it is a fixed-size header no code
    /// writes after extraction (module doc); empty for other architectures.
    pub(crate) fn plan_elide(&self) -> (Option<TypeId>, Vec<bool>) {
        let p = self.p;
        let none = (None, Vec::new());
        let Some(pkg) = p.package.as_ref() else { return none };
        if pkg.arch != "v1model" || pkg.blocks.len() != 6 {
            return none;
        }
        let BlockRef::Parser(prs) = pkg.blocks[0].1 else {
            return none;
        };
        let pr = &p.parsers[prs];
        if pr.params.len() != 4 {
            return none;
        }
        let h = pr.vars[pr.params[1]].ty;
        let Type::Struct(hs) = p.types.get(h) else { return none };
        let written = self.written_members(h);
        let ro = hs
            .fields
            .iter()
            .zip(written)
            .map(|(f, w)| {
                !w && match p.types.get(f.ty) {
                    Type::Header(s) => s.fields.iter().all(|x| !matches!(p.types.get(x.ty), Type::Varbit(_))),
                    _ => false,
                }
            })
            .collect();
        (Some(h), ro)
    }

    /// For each member of struct type `h`: whether any code of the program may write it through
    /// a variable of type `h` (the scan of the module doc; `packet_in.extract` of the member
    /// itself does not count). Also used by feat.rs on the standard metadata type.
    pub(crate) fn written_members(&self, h: TypeId) -> Vec<bool> {
        let p = self.p;
        let n = match p.types.get(h) {
            Type::Struct(s) => s.fields.len(),
            _ => 0,
        };
        let mut sc = Scan { h, ro: vec![true; n] };
        for (_, x) in p.parsers.iter() {
            sc.block(&x.vars, &x.init);
            for (_, st) in x.states.iter() {
                sc.block(&x.vars, &st.body);
            }
        }
        for (_, c) in p.controls.iter() {
            sc.block(&c.vars, &c.body);
        }
        for (_, a) in p.actions.iter() {
            sc.block(&p.controls[a.owner].vars, &a.body);
        }
        // directional action arguments bound in a table's `actions` list are written when the
        // action runs (copy-out)
        for (_, t) in p.tables.iter() {
            let vars = &p.controls[t.owner].vars;
            for ta in &t.actions {
                for a in ta.bound.iter().flatten() {
                    if let Arg::Out(e) | Arg::InOut(e) = a {
                        sc.write(vars, e, false, false);
                    }
                }
            }
        }
        for (_, f) in p.functions.iter() {
            sc.block(&f.vars, &f.body);
        }
        sc.ro.iter().map(|r| !r).collect()
    }

    /// The read-only slot `k` (index into `R->xo`) of lvalue `e` of the current owner if it is
    /// `x.f` with `x: H` and `f` read-only.
    pub(crate) fn elide_slot(&self, e: &Expr) -> Option<usize> {
        let (v, path) = lv_root(e)?;
        if path.len() != 1 || self.elide_h != Some(self.vars(self.owner)[v].ty) {
            return None;
        }
        let f = path[0] as usize;
        if !*self.elide.get(f)? {
            return None;
        }
        Some(self.elide[..f].iter().filter(|x| **x).count())
    }

    /// Number of read-only header slots (`R->xo` entries).
    pub(crate) fn elide_count(&self) -> usize {
        self.elide.iter().filter(|x| **x).count()
    }
}
