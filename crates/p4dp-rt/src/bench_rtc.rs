//! The run-to-completion primitives measured by `p4dp bench --suite rtc-costs`
//! (`runtime/include/p4dp/bench_rtc.h`): Queue and Lock against DPDK's rte_ring and rte_spinlock,
//! and the bench's control of a program's background pipelines (a P4 Foreach sweeping a table
//! while the bench measures the foreground). Like the rest of [`crate::bench`], everything runs on
//! the EAL main lcore.

use std::os::raw::c_int;

use crate::bench::{Bench, Kind, Measurement};
use crate::{check, Result};

mod sys {
    #![allow(non_camel_case_types)]
    use std::os::raw::c_int;

    #[repr(C)]
    #[derive(Clone, Copy, Debug, Default)]
    pub struct p4dp_bench_rtc_pair {
        pub p4dp_cycles: f64,
        pub baseline_cycles: f64,
        pub p4dp_median: f64,
        pub baseline_median: f64,
        pub ops: u64,
    }

    extern "C" {
        pub fn p4dp_bench_rtc_queue(elem_size: u32, n: u64, two_threads: c_int, res: *mut p4dp_bench_rtc_pair)
            -> c_int;
        pub fn p4dp_bench_rtc_lock(n: u64, two_threads: c_int, res: *mut p4dp_bench_rtc_pair) -> c_int;
        pub fn p4dp_bench_set_background(b: *mut crate::bench::sys::p4dp_bench, n: u32) -> c_int;
    }
}

/// TSC cycles per operation of an rtc primitive and of its DPDK baseline, timed one after the
/// other in the same call: over the window, and the median of chunks of 32 operations timed
/// each on its own (0 where not timed: two-thread queue runs).
#[derive(Clone, Copy, Debug, Default)]
pub struct CostPair {
    pub p4dp_cycles: f64,
    pub baseline_cycles: f64,
    pub p4dp_median: f64,
    pub baseline_median: f64,
    /// Operations timed for each.
    pub ops: u64,
}

impl From<sys::p4dp_bench_rtc_pair> for CostPair {
    fn from(p: sys::p4dp_bench_rtc_pair) -> Self {
        CostPair {
            p4dp_cycles: p.p4dp_cycles,
            baseline_cycles: p.baseline_cycles,
            p4dp_median: p.p4dp_median,
            baseline_median: p.baseline_median,
            ops: p.ops,
        }
    }
}

/// Queue push + pop per message (`elem_size` bytes, `n` messages) against DPDK's MPMC rte_ring;
/// `two_threads`: a producer thread and the caller as consumer, else bursts of 32 on one thread.
/// The EAL must be initialised.
pub fn queue_cost(elem_size: u32, n: u64, two_threads: bool) -> Result<CostPair> {
    let mut r = sys::p4dp_bench_rtc_pair::default();
    // SAFETY: valid output pointer; the C side owns everything else.
    check("bench rtc queue", unsafe {
        sys::p4dp_bench_rtc_queue(elem_size, n, c_int::from(two_threads), &mut r)
    })?;
    Ok(r.into())
}

/// Lock acquire + release pairs (`n` per thread) against rte_spinlock; `two_threads`: two threads
/// on the same lock. The EAL must be initialised.
pub fn lock_cost(n: u64, two_threads: bool) -> Result<CostPair> {
    let mut r = sys::p4dp_bench_rtc_pair::default();
    // SAFETY: valid output pointer.
    check("bench rtc lock", unsafe {
        sys::p4dp_bench_rtc_lock(n, c_int::from(two_threads), &mut r)
    })?;
    Ok(r.into())
}

impl Bench<'_> {
    /// Run `n` background threads (the program's background pipelines, rtc.p4) beside the
    /// workers in every later [`Kind::Program`] measurement, for the whole run (0: none, the
    /// default). The target needs `workers + n` worker contexts and the EAL as many worker lcores.
    pub fn set_background(&mut self, n: u32) -> Result<()> {
        // SAFETY: live bench; no measurement runs (we hold &mut self).
        check("bench set background", unsafe {
            sys::p4dp_bench_set_background(self.b.as_ptr(), n)
        })
        .map(|_| ())
    }

    /// Cell `index` of the program's rtc.p4 `Counter` extern `ext` (its index in
    /// [`crate::Program::externs`]).
    pub fn rtc_counter_get(&self, ext: u32, index: u32) -> Result<u64> {
        let mut v = 0u64;
        // SAFETY: the target's runtime lives as long as the bench borrows it; valid output.
        check("rtc counter get", unsafe {
            crate::ffi::p4dp_runtime_rtc_counter_get(self.rt.as_ptr(), ext, index, &mut v)
        })?;
        Ok(v)
    }

    /// Measure `kind` with `n` background threads, then go back to none.
    pub fn measure_with_background(&mut self, kind: Kind, n: u32) -> Result<Measurement> {
        self.set_background(n)?;
        let m = self.measure(kind);
        self.set_background(0)?;
        m
    }
}
