//! Headers the deparser need not rewrite (perf, v1model).
//!
//! The packet's own output is deparsed in place (glue.rs, `emit_room` in lib.rs). A header whose
//! bytes are still in the packet, exactly where the deparser is about to write them, need not be
//! written again. That holds for a member `f` of the v1model headers struct `H` when
//! 1. no code of the program writes it after extraction (`p4dp_ir::analysis::writes`, whose
//!    result is `ProgramInfo::header_writes`), so its fields hold the bytes extract read; and
//! 2. at run time, the deparser writes in place (`R->emit_base == R->pkt->data`) and its cursor
//!    equals the bit offset the header was extracted from (`R->xo[k] == _o + 1`; extract records
//!    it, 0 means "not extracted"). The deparser only writes below its cursor, so those bytes are
//!    untouched.
//!
//! Fixed-size headers only (no varbit). Everything else is emitted as before.

use p4dp_ir::analysis::writes::lv_root;
use p4dp_ir::*;

use crate::Gen;

impl Gen<'_> {
    /// The read-only slot `k` (index into `R->xo`) of lvalue `e` of the current owner if it is
    /// `x.f` with `x: H` and `f` read-only.
    pub(crate) fn elide_slot(&self, e: &Expr) -> Option<usize> {
        let (v, path) = lv_root(e)?;
        let hw = &self.info.header_writes;
        if path.len() != 1 || hw.headers != Some(self.vars(self.owner)[v].ty) {
            return None;
        }
        hw.slot(path[0] as usize)
    }
}
