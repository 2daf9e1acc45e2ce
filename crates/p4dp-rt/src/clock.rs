//! The clock of a running data plane, readable from another process on the same machine.

use std::os::raw::c_int;

use crate::ffi;
use crate::runtime::Runtime;

extern "C" {
    fn p4dp_runtime_run_clock_get(
        rt: *const ffi::p4dp_runtime,
        tsc0: *mut u64,
        ns0: *mut u64,
        tsc_hz: *mut u64,
    ) -> c_int;
}

/// The workers' clock during a run: the time (ns) they give packets (v1model
/// `ingress_global_timestamp` is it / 1000, PNA's `timestamp` is it) is a function of the TSC
/// read at the start of a poll iteration, [`RunClock::ns_at`]. A process on the same machine that
/// reads the TSC itself gets, through `ns_at`, a time directly comparable with the data plane's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RunClock {
    /// TSC at the start of the run.
    pub tsc0: u64,
    /// Time (ns) at the start of the run: the simulated clock then.
    pub ns0: u64,
    /// TSC frequency the conversion uses.
    pub tsc_hz: u64,
}

impl RunClock {
    /// The workers' time at TSC reading `tsc`, computed as the workers compute it (a multiply by
    /// 2^32 ns per cycle and a shift), so both sides round alike.
    pub fn ns_at(&self, tsc: u64) -> u64 {
        let mult = ((1_000_000_000u128 << 32) / u128::from(self.tsc_hz.max(1))) as u64;
        let d = tsc.wrapping_sub(self.tsc0);
        self.ns0.wrapping_add(((u128::from(d) * u128::from(mult)) >> 32) as u64)
    }
}

impl Runtime {
    /// The clock of the run in progress; None when no run is in progress.
    pub fn run_clock(&self) -> Option<RunClock> {
        let (mut tsc0, mut ns0, mut tsc_hz) = (0, 0, 0);
        // SAFETY: the runtime pointer is valid; the three outputs are valid u64s.
        let rc = unsafe { p4dp_runtime_run_clock_get(self.p(), &mut tsc0, &mut ns0, &mut tsc_hz) };
        (rc == 0).then_some(RunClock { tsc0, ns0, tsc_hz })
    }
}

/// The TSC of the calling core (the counter the runtime's rte_rdtsc reads); None on an
/// architecture where this crate does not read it.
pub fn tsc_now() -> Option<u64> {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: RDTSC has no preconditions on x86_64.
        Some(unsafe { core::arch::x86_64::_rdtsc() })
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::RunClock;

    #[test]
    fn the_run_clock_converts_tsc_readings_as_the_workers_do() {
        let c = RunClock {
            tsc0: 1_000,
            ns0: 5_000_000,
            tsc_hz: 2_000_000_000,
        };
        assert_eq!(c.ns_at(1_000), 5_000_000);
        // 2 GHz: 2,000 cycles are 1,000 ns (the 2^32 multiplier truncates, never rounds up)
        assert_eq!(c.ns_at(3_000), 5_001_000);
        // one second of cycles is 10^9 ns to within the multiplier's truncation (< 1 ns here)
        let s = c.ns_at(1_000 + 2_000_000_000) - 5_000_000;
        assert!((999_999_999..=1_000_000_000).contains(&s), "{s}");
    }
}
