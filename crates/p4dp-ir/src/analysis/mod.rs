//! Analyses of a validated program: the facts the back end needs and does not derive itself
//! (naga's `ModuleInfo` is the model). Each pass is a function over the IR with a doc comment
//! saying what it computes and the invariant the back end relies on; [`analyze`] runs them all,
//! in this order, into one [`ProgramInfo`]:
//!
//! 1. [`top::top_params`] — the top-level blocks' parameters the v1model glue keeps in one state
//!    struct;
//! 2. [`staging::plan`] — whether the parser may run ahead over a burst, and the table whose
//!    lookups a burst stages;
//! 3. [`writes::header_writes`] — the v1model headers no code writes after extraction;
//! 4. [`features::features`] — the optional v1model features the program can trigger;
//! 5. [`selector::match_keys`] — the match keys of each table (the selector keys of an action
//!    selector split off).
//!
//! Every pass is conservative: where it cannot tell, it answers what costs speed, never
//! correctness (no staged table, every header written, every feature used).

use std::collections::HashMap;

use crate::*;

pub mod features;
pub mod selector;
pub mod staging;
pub mod top;
pub mod writes;

pub use features::Features;
pub use staging::StagePlan;
pub use top::TopParam;
pub use writes::HeaderWrites;

/// Who owns the variables an expression refers to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Owner {
    Control(ControlId),
    Parser(ParserId),
    Function(FunctionId),
}

impl Owner {
    /// The owner's variables.
    pub fn vars(self, p: &Program) -> &Arena<Var> {
        match self {
            Owner::Control(c) => &p.controls[c].vars,
            Owner::Parser(x) => &p.parsers[x].vars,
            Owner::Function(f) => &p.functions[f].vars,
        }
    }
}

/// Everything the analyses found about one program ([`analyze`]).
#[derive(Debug, Clone)]
pub struct ProgramInfo {
    /// v1model: the top-level blocks' parameters kept in the glue's state struct ([`top`]).
    pub top_params: HashMap<(Owner, VarId), TopParam>,
    /// Burst processing: parse-ahead and the staged table ([`staging`]).
    pub stage: StagePlan,
    /// v1model: the headers the deparser need not rewrite ([`writes`]).
    pub header_writes: HeaderWrites,
    /// v1model: the optional features the program can trigger ([`features`]).
    pub features: Features,
    /// Per table (by index): the positions of its match keys in `Table::keys` ([`selector`]).
    pub match_keys: Vec<Vec<usize>>,
}

/// Runs every analysis on `p` (the module doc lists them).
pub fn analyze(p: &ValidProgram) -> ProgramInfo {
    let p = p.program();
    ProgramInfo {
        top_params: top::top_params(p),
        stage: staging::plan(p),
        header_writes: writes::header_writes(p),
        features: features::features(p),
        match_keys: p.tables.iter().map(|(_, t)| selector::match_keys(t)).collect(),
    }
}

/// Whether `v` is a (non-extern) parameter of a top-level block of the package: the glue passes
/// it by pointer to its own storage (no copy-in/copy-out: the glue's arguments are distinct
/// objects nothing else references while the block runs).
pub fn is_top_param(p: &Program, o: Owner, v: VarId) -> bool {
    let Some(pkg) = &p.package else { return false };
    let top = pkg.blocks.iter().any(|(_, b)| match (b, o) {
        (BlockRef::Parser(x), Owner::Parser(y)) => *x == y,
        (BlockRef::Control(x), Owner::Control(y)) => *x == y,
        _ => false,
    });
    if !top {
        return false;
    }
    let var = &o.vars(p)[v];
    matches!(var.kind, VarKind::Param(_)) && !matches!(p.types.get(var.ty), Type::Extern { .. })
}

/// The v1model parser of a `V1Switch` with the six blocks and the parser's four parameters, or
/// None (another architecture or an unexpected shape).
pub(crate) fn v1model_parser(p: &Program) -> Option<&Parser> {
    let pkg = p.package.as_ref()?;
    if pkg.arch != "v1model" || pkg.blocks.len() != 6 {
        return None;
    }
    let BlockRef::Parser(prs) = pkg.blocks[0].1 else {
        return None;
    };
    let pr = &p.parsers[prs];
    (pr.params.len() == 4).then_some(pr)
}
