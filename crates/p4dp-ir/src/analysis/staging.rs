//! The staging plan of burst processing (the back end's `process_burst` and `process_mbufs`).
//!
//! When the parser (v1model: and VerifyChecksum) only affects the packet's own state
//! ([`StagePlan::batch_parse`]), the back end may parse each packet of a chunk ahead of the
//! previous packets' pipelines. When moreover ingress (PNA: MainControl) first applies, in
//! program order, a table of matched keys (any match kind but an action selector's) without an
//! implementation whose key reads only that control's top-level parameters
//! ([`StagePlan::staged`]), it builds the keys of the whole chunk after parsing and looks them up
//! at once (a bulk lookup overlaps the lookups' cache misses: rte_hash's for exact tables, the
//! trie's for lpm tables, the merged tuple space's buckets for ternary, range and optional ones).
//! The other tables of that control that qualify the same way and are not `add_on_miss`
//! ([`StagePlan::later`], at most [`LATER_MAX`], in program order) are staged too, each only in
//! the bursts where the runtime finds it large enough for a lookup ahead to pay
//! (`p4dp_table_stage_ahead`): their keys are built from the parsed packet as it is before the
//! control runs, so a key an earlier action changes is simply looked up again.
//!
//! Invariant (what makes the staging unobservable): the parser run ahead is pure (only
//! `packet_in` methods, validity and stack builtins, pure sub-parsers; in v1model's
//! VerifyChecksum only `verify_checksum*`), so running it an extra time changes nothing; the
//! staged table's apply (the first or a later one) reuses a staged entry only when the key it
//! computes is byte-identical, and for an `add_on_miss` table ([`StagePlan::staged_add_on_miss`]) every insert marks the
//! later packets' staged results for that key stale. Results equal those of packet-by-packet
//! processing (`p4dp stf --burst` checks it on the whole corpus).

use super::{is_top_param, Owner};
use crate::*;

/// What burst processing may do ahead (module doc).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct StagePlan {
    /// The parser (v1model: and VerifyChecksum) of a whole burst may run before the first
    /// packet's controls.
    pub batch_parse: bool,
    /// The table whose lookups are staged, if any (implies `batch_parse`).
    pub staged: Option<TableId>,
    /// The staged table is an `add_on_miss` table (PNA): an insert makes the later packets'
    /// staged results for the same key stale.
    pub staged_add_on_miss: bool,
    /// Later tables of the same control staged as well, in program order (empty without
    /// `staged`): tables of matched keys without an implementation, not `add_on_miss`, whose
    /// keys read only the control's top-level parameters, applied outside loops.
    pub later: Vec<TableId>,
}

/// The most later tables a burst stages (each costs a key build per packet in the pre-pass).
pub const LATER_MAX: usize = 8;

/// The staging plan of `p` (module doc).
pub fn plan(p: &Program) -> StagePlan {
    let batch_parse = batch_parse(p);
    let staged = if batch_parse { staged_table(p) } else { None };
    StagePlan {
        batch_parse,
        staged,
        staged_add_on_miss: staged.is_some_and(|t| p.tables[t].add_on_miss),
        later: staged.map_or_else(Vec::new, |t| later_tables(p, t)),
    }
}

fn expr_vars(e: &Expr, f: &mut dyn FnMut(VarId)) {
    match &e.kind {
        ExprKind::Var(v) => f(*v),
        ExprKind::Const(_) => {}
        ExprKind::Field(b, _)
        | ExprKind::StackNextIndex(b)
        | ExprKind::Slice(b, _, _)
        | ExprKind::Cast(b)
        | ExprKind::Unary(_, b)
        | ExprKind::IsValid(b) => expr_vars(b, f),
        ExprKind::StackElem(a, b) | ExprKind::Concat(a, b) | ExprKind::Binary(_, a, b) => {
            expr_vars(a, f);
            expr_vars(b, f);
        }
        ExprKind::Mux(c, a, b) => {
            expr_vars(c, f);
            expr_vars(a, f);
            expr_vars(b, f);
        }
        ExprKind::List(es) => es.iter().for_each(|x| expr_vars(x, f)),
    }
}

/// Whether running parser `pid` an extra time is unobservable: only packet_in methods,
/// validity/stack builtins and sub-parsers without side effects.
fn parser_pure(p: &Program, pid: ParserId, depth: u32) -> bool {
    let pr = &p.parsers[pid];
    depth < 8 && block_pure(p, &pr.init, depth) && pr.states.iter().all(|(_, s)| block_pure(p, &s.body, depth))
}

fn block_pure(p: &Program, b: &Block, depth: u32) -> bool {
    b.iter().all(|s| match s {
        Stmt::Assign { .. } | Stmt::Verify { .. } => true,
        Stmt::If { then_, else_, .. } => block_pure(p, then_, depth) && block_pure(p, else_, depth),
        Stmt::Block(x) => block_pure(p, x, depth),
        Stmt::Switch { cases, default, .. } => {
            cases.iter().all(|c| block_pure(p, &c.body, depth))
                && default.as_ref().map_or(true, |d| block_pure(p, d, depth))
        }
        Stmt::Call(c) => match &c.target {
            CallTarget::ExternMethod {
                obj: ExternRef::Param(_),
                ..
            } => true,
            CallTarget::SetValid | CallTarget::SetInvalid | CallTarget::PushFront(_) | CallTarget::PopFront(_) => true,
            CallTarget::Parser(sub) => parser_pure(p, *sub, depth + 1),
            _ => false,
        },
        _ => false,
    })
}

/// The first table `b` applies in program order (not looking into loops or called blocks).
fn first_apply(b: &Block) -> Option<TableId> {
    for s in b {
        let t = match s {
            Stmt::ApplyTable { table, .. } => Some(*table),
            Stmt::If { then_, else_, .. } => first_apply(then_).or_else(|| first_apply(else_)),
            Stmt::Block(x) => first_apply(x),
            Stmt::Switch { cases, default, .. } => cases
                .iter()
                .find_map(|c| first_apply(&c.body))
                .or_else(|| default.as_ref().and_then(|d| first_apply(d))),
            _ => None,
        };
        if t.is_some() {
            return t;
        }
    }
    None
}

/// Whether v1model's VerifyChecksum control `cid` may run ahead of the previous packets'
/// pipelines: no tables, no extern calls but `verify_checksum*` (their only effect is on the
/// packet's own checksum_error), no sub-controls.
fn verify_pure(p: &Program, cid: ControlId) -> bool {
    fn pure(b: &Block) -> bool {
        b.iter().all(|s| match s {
            Stmt::Assign { .. } => true,
            Stmt::If { then_, else_, .. } => pure(then_) && pure(else_),
            Stmt::Block(x) => pure(x),
            Stmt::Call(c) => {
                matches!(&c.target, CallTarget::ExternFunction(f)
                    if f == "verify_checksum" || f == "verify_checksum_with_payload")
                    || matches!(c.target, CallTarget::SetValid | CallTarget::SetInvalid)
            }
            _ => false,
        })
    }
    pure(&p.controls[cid].body)
}

/// Whether the parser (v1model: and VerifyChecksum) of a whole burst may run before the first
/// packet's controls (their effects stay within each packet's own state).
fn batch_parse(p: &Program) -> bool {
    let Some(pkg) = p.package.as_ref() else { return false };
    match (pkg.arch.as_str(), pkg.blocks.len()) {
        ("v1model", 6) => {
            let (BlockRef::Parser(prs), BlockRef::Control(vr)) = (pkg.blocks[0].1, pkg.blocks[1].1) else {
                return false;
            };
            p.parsers[prs].params.len() == 4 && parser_pure(p, prs, 0) && verify_pure(p, vr)
        }
        ("pna", 4) => {
            let BlockRef::Parser(prs) = pkg.blocks[0].1 else {
                return false;
            };
            p.parsers[prs].params.len() == 4 && parser_pure(p, prs, 0)
        }
        _ => false,
    }
}

/// The control whose first table a burst stages: v1model's Ingress, PNA's MainControl (PNA's
/// PreControl takes `in` headers, so the headers a key reads are final after parsing; metadata it
/// changes only makes the key differ).
fn staged_control(p: &Program) -> Option<ControlId> {
    let pkg = p.package.as_ref()?;
    let BlockRef::Control(ig) = pkg.blocks[2].1 else {
        return None;
    };
    (p.controls[ig].params.len() == if pkg.arch == "pna" { 4 } else { 3 }).then_some(ig)
}

/// Whether table `tid` of control `ig` can be staged: owned by `ig`, matched keys only (no
/// action selector's), no implementation, keys that read only `ig`'s top-level parameters.
fn stageable(p: &Program, ig: ControlId, tid: TableId) -> bool {
    let t = &p.tables[tid];
    if t.owner != ig
        || t.keys.is_empty()
        || t.implementation.is_some()
        || t.keys.iter().any(|k| !matches!(k.match_kind, MatchKind::Key(_)))
    {
        return false;
    }
    let vars = &p.controls[ig].vars;
    let mut ok = true;
    for k in &t.keys {
        expr_vars(&k.expr, &mut |v| {
            ok &= matches!(vars[v].kind, VarKind::Param(_)) && is_top_param(p, Owner::Control(ig), v)
        });
    }
    ok
}

/// The table whose lookups a burst stages, given that the parser may run ahead (module doc).
fn staged_table(p: &Program) -> Option<TableId> {
    let ig = staged_control(p)?;
    let tid = first_apply(&p.controls[ig].body)?;
    stageable(p, ig, tid).then_some(tid)
}

/// Every table `b` applies, in program order, outside loops (not looking into called blocks).
fn applies(b: &Block, out: &mut Vec<TableId>) {
    for s in b {
        match s {
            Stmt::ApplyTable { table, .. } => out.push(*table),
            Stmt::If { then_, else_, .. } => {
                applies(then_, out);
                applies(else_, out);
            }
            Stmt::Block(x) => applies(x, out),
            Stmt::Switch { cases, default, .. } => {
                cases.iter().for_each(|c| applies(&c.body, out));
                if let Some(d) = default {
                    applies(d, out);
                }
            }
            _ => {}
        }
    }
}

/// The later tables a burst stages besides `first` (module doc).
fn later_tables(p: &Program, first: TableId) -> Vec<TableId> {
    let Some(ig) = staged_control(p) else { return Vec::new() };
    let mut all = Vec::new();
    applies(&p.controls[ig].body, &mut all);
    let mut later: Vec<TableId> = Vec::new();
    for t in all {
        if t != first && !later.contains(&t) && !p.tables[t].add_on_miss && stageable(p, ig, t) {
            later.push(t);
        }
    }
    later.truncate(LATER_MAX);
    later
}
