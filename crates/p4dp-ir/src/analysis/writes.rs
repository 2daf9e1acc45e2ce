//! The header-write scan: which members of v1model's headers struct no code writes after
//! extraction. The back end deparses in place, and the deparser skips such a header when it is
//! emitted at the bit offset it was extracted from (its bytes are still there).
//!
//! A member `f` of the headers struct `H` is written when some statement of the program (parser
//! states and initialisers, controls, actions, functions, and the directional arguments bound in
//! tables' `actions` lists, which are written when the action runs) assigns to an lvalue rooted
//! at `x.f` or at a whole `x` of type `H`, or passes one as an `out`/`inout` argument (which
//! includes `setValid`/`setInvalid`), except `packet_in.extract` of the member itself; passing a
//! whole `x` to an action, function, control or parser does not count (their bodies are scanned
//! themselves), passing it to an extern does. An lvalue the scan does not understand counts as a
//! write of every member.
//!
//! Invariant: any new way of writing a variable (a new statement or argument kind in the IR)
//! must be added to this scan, or a header it writes would go out with its old bytes.

use super::v1model_parser;
use crate::*;

/// v1model: the headers the deparser need not rewrite.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct HeaderWrites {
    /// The headers struct type (the v1model parser's second parameter); None for other
    /// architectures.
    pub headers: Option<TypeId>,
    /// Per member of `headers`: a fixed-size header (no varbit field) no code writes after
    /// extraction (module doc).
    pub read_only: Vec<bool>,
}

impl HeaderWrites {
    /// Number of read-only headers.
    pub fn count(&self) -> usize {
        self.read_only.iter().filter(|x| **x).count()
    }

    /// The slot of read-only member `f` among the read-only members (in member order), if it is one.
    pub fn slot(&self, f: usize) -> Option<usize> {
        if !*self.read_only.get(f)? {
            return None;
        }
        Some(self.read_only[..f].iter().filter(|x| **x).count())
    }
}

/// The root variable of an lvalue and the field indices from it (`x.f.g[2].h` -> x, [f, g, h]).
pub fn lv_root(e: &Expr) -> Option<(VarId, Vec<u32>)> {
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

/// Scan state: the struct type and its members still not written.
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
                // metadata, never a header: not a write for features.rs's question (non-zero
                // mcast_grp)
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

/// v1model: for each member of the headers struct, whether it is a fixed-size header no code
/// writes after extraction (module doc); empty for other architectures.
pub fn header_writes(p: &Program) -> HeaderWrites {
    let Some(pr) = v1model_parser(p) else {
        return HeaderWrites::default();
    };
    let h = pr.vars[pr.params[1]].ty;
    let Type::Struct(hs) = p.types.get(h) else {
        return HeaderWrites::default();
    };
    let written = written_members(p, h);
    let read_only = hs
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
    HeaderWrites {
        headers: Some(h),
        read_only,
    }
}

/// For each member of struct type `h`: whether any code of the program may write it through a
/// variable of type `h` (the scan of the module doc; `packet_in.extract` of the member itself
/// does not count). Also used by [`super::features`] on the standard metadata type.
pub fn written_members(p: &Program, h: TypeId) -> Vec<bool> {
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
