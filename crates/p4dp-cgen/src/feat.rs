//! Which optional v1model features a program uses (perf): the glue (glue.rs, burst.rs) leaves
//! out the code of every feature the program cannot trigger, so a program pays only for what it
//! uses. Each flag is conservative: `true` whenever the program *may* use the feature.
//!
//! - `clone`: a call of `clone`, `clone3` or `clone_preserving_field_list`;
//! - `resubmit` / `recirculate`: a call of `resubmit*` / `recirculate*`;
//! - `truncate`: a call of `truncate`;
//! - `assert`: a call of `assert` or `assume` (a failure drops every copy of the packet);
//! - `mcast`: some code may write a non-zero `standard_metadata.mcast_grp` (the write scan of
//!   elide.rs on the standard metadata type: any assignment to or out/inout argument rooted at
//!   `sm.mcast_grp`, or to a whole `sm` other than the callee-scanned parameter passing;
//!   `mark_to_drop` only ever writes 0 there and is not counted).
//!
//! Without `resubmit` and `recirculate` a packet runs exactly one pass; without `clone` and
//! `mcast` the only output is the packet itself (no copies).

use p4dp_ir::*;

use crate::Gen;

/// The optional features a program uses (module doc).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Feat {
    pub clone: bool,
    pub resubmit: bool,
    pub recirculate: bool,
    pub truncate: bool,
    pub assert: bool,
    pub mcast: bool,
}

impl Feat {
    /// Everything on: what a program that was not analysed must assume.
    pub(crate) const ALL: Feat = Feat {
        clone: true,
        resubmit: true,
        recirculate: true,
        truncate: true,
        assert: true,
        mcast: true,
    };

    /// Whether a packet may run more than one pass.
    pub(crate) fn passes(&self) -> bool {
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

impl Gen<'_> {
    /// The features of the program (module doc); [`Feat::ALL`] for other architectures.
    pub(crate) fn plan_feat(&self) -> Feat {
        let p = self.p;
        let Some(pkg) = p.package.as_ref() else {
            return Feat::ALL;
        };
        if pkg.arch != "v1model" || pkg.blocks.len() != 6 {
            return Feat::ALL;
        }
        let BlockRef::Parser(prs) = pkg.blocks[0].1 else {
            return Feat::ALL;
        };
        let pr = &p.parsers[prs];
        if pr.params.len() != 4 {
            return Feat::ALL;
        }
        let mut ft = Feat {
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
                Some(k) => self.written_members(sm)[k],
                None => false,
            },
            _ => true,
        };
        ft
    }
}
