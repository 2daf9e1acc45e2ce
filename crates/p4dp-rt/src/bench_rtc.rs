//! The run-to-completion primitives measured by `p4dp bench --suite rtc-costs`
//! (`runtime/include/p4dp/bench_rtc.h`): Queue and Lock against DPDK's rte_ring and rte_spinlock,
//! and a thread sweeping a table (Foreach) while a bench measures the foreground. Like the rest
//! of [`crate::bench`], everything runs on the EAL main lcore.

use std::os::raw::c_int;

use crate::bench::{Bench, Kind, Measurement};
use crate::{check, Result};

mod sys {
    #![allow(non_camel_case_types)]
    use std::os::raw::c_int;

    use crate::ffi::p4dp_runtime;

    #[repr(C)]
    #[derive(Clone, Copy, Debug, Default)]
    pub struct p4dp_bench_rtc_pair {
        pub p4dp_cycles: f64,
        pub baseline_cycles: f64,
        pub p4dp_median: f64,
        pub baseline_median: f64,
        pub ops: u64,
    }

    #[repr(C)]
    pub struct p4dp_bench_rtc_sweeper {
        _opaque: [u8; 0],
    }

    extern "C" {
        pub fn p4dp_bench_rtc_queue(elem_size: u32, n: u64, two_threads: c_int, res: *mut p4dp_bench_rtc_pair)
            -> c_int;
        pub fn p4dp_bench_rtc_lock(n: u64, two_threads: c_int, res: *mut p4dp_bench_rtc_pair) -> c_int;
        pub fn p4dp_bench_rtc_sweeper_start(
            rt: *mut p4dp_runtime,
            table: u32,
            out: *mut *mut p4dp_bench_rtc_sweeper,
        ) -> c_int;
        pub fn p4dp_bench_rtc_sweeper_stop(s: *mut p4dp_bench_rtc_sweeper, sweeps: *mut u64, entries: *mut u64);
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

/// What the sweeping thread did during a measurement.
#[derive(Clone, Copy, Debug, Default)]
pub struct SweepStats {
    /// Sweeps completed.
    pub sweeps: u64,
    /// Entries visited over all sweeps.
    pub entries: u64,
}

impl Bench<'_> {
    /// Measure `kind` while a thread sweeps table `table` (index, exact) of the bench's runtime
    /// without pause (Foreach through `p4dp_rtc_sweep_*`, on the runtime's last worker context:
    /// the bench must run fewer workers than the target's contexts). The thread starts before the
    /// measurement and stops after it.
    pub fn measure_with_sweeper(&mut self, kind: Kind, table: u32) -> Result<(Measurement, SweepStats)> {
        let mut s = std::ptr::null_mut();
        // SAFETY: live runtime (the bench borrows its target); s receives the sweeper.
        check("bench rtc sweeper", unsafe {
            sys::p4dp_bench_rtc_sweeper_start(self.rt.as_ptr(), table, &mut s)
        })?;
        let m = self.measure(kind);
        let mut st = SweepStats::default();
        // SAFETY: s was started above and is stopped once; the runtime is still live.
        unsafe { sys::p4dp_bench_rtc_sweeper_stop(s, &mut st.sweeps, &mut st.entries) };
        Ok((m?, st))
    }
}
