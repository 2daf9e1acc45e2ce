//! The baseline of the ACL comparison (`runtime/include/p4dp/bench_acl.h`): DPDK's `rte_acl`
//! holding the same 5-tuple rules as a ternary or range table, classifying each burst inside the
//! bench's floor loop. Like the rest of [`crate::bench`], everything runs on the EAL main lcore.

use std::marker::PhantomData;
use std::ptr::NonNull;
use std::time::Duration;

use crate::bench::{measured, Bench, Kind, Measurement};
use crate::{check, Error, Result};

mod sys {
    #![allow(non_camel_case_types)]
    use std::os::raw::c_int;

    use crate::bench::sys::{p4dp_bench, p4dp_bench_result};

    #[repr(C)]
    #[derive(Clone, Copy, Debug, Default)]
    pub struct p4dp_bench_acl_rule {
        pub src: u32,
        pub dst: u32,
        pub src_len: u8,
        pub dst_len: u8,
        pub proto: u8,
        pub proto_mask: u8,
        pub sport_lo: u16,
        pub sport_hi: u16,
        pub dport_lo: u16,
        pub dport_hi: u16,
        pub priority: i32,
    }

    #[repr(C)]
    pub struct p4dp_bench_rte_acl {
        _opaque: [u8; 0],
    }

    extern "C" {
        pub fn p4dp_bench_rte_acl_create(
            r: *const p4dp_bench_acl_rule,
            n: u32,
            socket_id: c_int,
            out: *mut *mut p4dp_bench_rte_acl,
            build_ns: *mut u64,
        ) -> c_int;
        pub fn p4dp_bench_rte_acl_measure(
            b: *mut p4dp_bench,
            a: *mut p4dp_bench_rte_acl,
            res: *mut p4dp_bench_result,
        ) -> c_int;
        pub fn p4dp_bench_rte_acl_free(a: *mut p4dp_bench_rte_acl);
    }
}

/// One 5-tuple rule in host byte order: address prefixes, the protocol under a bit mask,
/// inclusive port ranges; the highest priority (1 ..= 2^29 - 1) of the matching rules wins.
pub use sys::p4dp_bench_acl_rule as AclRule;

/// An `rte_acl` context of a rule set, built once.
pub struct RteAcl {
    a: NonNull<sys::p4dp_bench_rte_acl>,
    build: Duration,
    _not_send: PhantomData<*mut ()>,
}

impl RteAcl {
    pub fn new(rules: &[AclRule]) -> Result<RteAcl> {
        let n = u32::try_from(rules.len()).map_err(|_| Error::Invalid("too many rules for rte_acl".into()))?;
        let mut a = std::ptr::null_mut();
        let mut ns = 0u64;
        // SAFETY: rules lives for the call (the C side copies it); valid outputs.
        check("rte_acl create", unsafe {
            sys::p4dp_bench_rte_acl_create(rules.as_ptr(), n, -1, &mut a, &mut ns)
        })?;
        let a = NonNull::new(a).ok_or_else(|| Error::Invalid("rte_acl create returned NULL".into()))?;
        Ok(RteAcl {
            a,
            build: Duration::from_nanos(ns),
            _not_send: PhantomData,
        })
    }

    /// The wall time of adding the rules and building the context: what `rte_acl`, which has no
    /// incremental update, spends to change one rule of the set.
    pub fn build_time(&self) -> Duration {
        self.build
    }
}

impl Drop for RteAcl {
    fn drop(&mut self) {
        // SAFETY: live context, freed once.
        unsafe { sys::p4dp_bench_rte_acl_free(self.a.as_ptr()) }
    }
}

impl Bench<'_> {
    /// The floor plus one `rte_acl_classify` per burst of the packets' 5-tuples in `a`.
    pub fn measure_rte_acl(&mut self, a: &RteAcl) -> Result<Measurement> {
        // SAFETY: live bench and context; `measured` passes a valid output pointer.
        measured("bench measure rte_acl", Kind::RteAcl, |r| unsafe {
            sys::p4dp_bench_rte_acl_measure(self.b.as_ptr(), a.a.as_ptr(), r)
        })
    }
}
