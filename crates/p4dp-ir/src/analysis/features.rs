//! Which optional v1model features a program can trigger: the back end leaves out the code of
//! every feature the program cannot use, so a program pays only for what it uses. Each flag is
//! conservative: `true` whenever the program *may* use the feature.
//!
//! - `clone`: a call of `clone`, `clone3` or `clone_preserving_field_list`;
//! - `resubmit` / `recirculate`: a call of `resubmit*` / `recirculate*`;
//! - `truncate`: a call of `truncate`;
//! - `assert`: a call of `assert` or `assume` (a failure drops every copy of the packet);
//! - `mcast`: some code may write a non-zero `standard_metadata.mcast_grp` (the write scan of
//!   [`super::writes`] on the standard metadata type; `mark_to_drop` only ever writes 0 there
//!   and is not counted).
//!
//! Without `resubmit` and `recirculate` a packet runs exactly one pass; without `clone` and
//! `mcast` the only output is the packet itself (no copies).
//!
//! Invariant: every way of triggering one of these features must be in this pass, or programs
//! using it silently lose it (the corpus tests v1model_clone, v1model_multicast,
//! v1model_resubmit, v1model_recirculate, extern_truncate and extern_log_assert catch it).

use super::v1model_parser;
use super::writes::written_members;
use crate::*;

/// The optional features a program uses (module doc).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Features {
    pub clone: bool,
    pub resubmit: bool,
    pub recirculate: bool,
    pub truncate: bool,
    pub assert: bool,
    pub mcast: bool,
}

impl Features {
    /// Everything on: what a program that was not analysed must assume.
    pub const ALL: Features = Features {
        clone: true,
        resubmit: true,
        recirculate: true,
        truncate: true,
        assert: true,
        mcast: true,
    };

    /// Whether a packet may run more than one pass.
    pub fn passes(&self) -> bool {
        self.resubmit || self.recirculate
    }
}

fn calls(b: &Block, f: &mut dyn FnMut(&str)) {
    for_each_call(b, &mut |c| {
        if let CallTarget::ExternFunction(n) = &c.target {
            f(n);
        }
    });
}

/// The features of `p` (module doc); [`Features::ALL`] for other architectures.
pub fn features(p: &Program) -> Features {
    let Some(pr) = v1model_parser(p) else {
        return Features::ALL;
    };
    let mut ft = Features {
        clone: false,
        resubmit: false,
        recirculate: false,
        truncate: false,
        assert: false,
        mcast: false,
    };
    let mut on = |n: &str| match n {
        "clone" | "clone3" | "clone_preserving_field_list" => ft.clone = true,
        "resubmit" | "resubmit_preserving_field_list" => ft.resubmit = true,
        "recirculate" | "recirculate_preserving_field_list" => ft.recirculate = true,
        "truncate" => ft.truncate = true,
        "assert" | "assume" => ft.assert = true,
        _ => {}
    };
    for (_, x) in p.parsers.iter() {
        calls(&x.init, &mut on);
        for (_, st) in x.states.iter() {
            calls(&st.body, &mut on);
        }
    }
    for (_, c) in p.controls.iter() {
        calls(&c.body, &mut on);
    }
    for (_, a) in p.actions.iter() {
        calls(&a.body, &mut on);
    }
    for (_, f) in p.functions.iter() {
        calls(&f.body, &mut on);
    }
    let sm = pr.vars[pr.params[3]].ty;
    ft.mcast = match p.types.get(sm) {
        Type::Struct(s) => match s.fields.iter().position(|f| f.name == "mcast_grp") {
            Some(k) => written_members(p, sm)[k],
            None => false,
        },
        _ => true,
    };
    ft
}
