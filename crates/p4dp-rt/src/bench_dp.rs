//! Data-plane write benchmarks (`runtime/include/p4dp/bench_dp.h`): a traffic source and
//! per-packet latency probe ([`Tap`]) on the ports of a [`Bench`], driven by a schedule of key
//! phases, with log-linear latency histograms summarized into percentiles.
//!
//! A [`Tap`] borrows the bench mutably for its whole life and measures through it, so the ethdev
//! callbacks are always removed before the bench ports go away. EAL main lcore only.

use std::ptr::NonNull;

use crate::bench::{Bench, Kind, Measurement};
use crate::{check, Result};

/// Most phases of a schedule (`P4DP_BDP_MAX_PHASES`).
pub const MAX_PHASES: usize = 8;

mod sys {
    #![allow(non_camel_case_types)]
    use std::os::raw::c_int;

    #[repr(C)]
    pub struct p4dp_bdp {
        _opaque: [u8; 0],
    }

    #[repr(C)]
    #[derive(Clone, Copy, Default)]
    pub struct p4dp_bdp_phase {
        pub packets: u64,
        pub keys: u32,
        pub insert_every: u32,
    }

    #[repr(C)]
    #[derive(Clone, Copy, Default)]
    pub struct p4dp_bdp_params {
        pub key_offset: u32,
        pub key_bytes: u32,
        pub key_base: u64,
        pub n_keys: u64,
        pub seed: u64,
        pub batch: u32,
        pub n_phases: u32,
        pub record_after_ms: u64,
        pub partition: u32,
        pub phase: [p4dp_bdp_phase; 8],
    }

    #[repr(C)]
    #[derive(Clone, Copy, Default, Debug)]
    pub struct p4dp_hist_summary {
        pub count: u64,
        pub min: u64,
        pub max: u64,
        pub mean: f64,
        pub p50: u64,
        pub p90: u64,
        pub p99: u64,
        pub p999: u64,
        pub p9999: u64,
    }

    #[repr(C)]
    #[derive(Clone, Copy, Default)]
    pub struct p4dp_bdp_phase_result {
        pub packets: u64,
        pub fresh: u64,
        pub tsc_first: u64,
        pub tsc_end: u64,
        pub lat: [p4dp_hist_summary; 2],
    }

    #[repr(C)]
    #[derive(Clone, Copy, Default)]
    pub struct p4dp_bdp_result {
        pub n_phases: u32,
        pub done: u32,
        pub handed: u64,
        pub recorded: u64,
        pub lat_all: p4dp_hist_summary,
        pub ph: [p4dp_bdp_phase_result; 8],
    }

    extern "C" {
        pub fn p4dp_bdp_attach(
            n_workers: u32,
            n_ports: u32,
            p: *const p4dp_bdp_params,
            out: *mut *mut p4dp_bdp,
        ) -> c_int;
        pub fn p4dp_bdp_arm(t: *mut p4dp_bdp, p: *const p4dp_bdp_params) -> c_int;
        pub fn p4dp_bdp_result(t: *mut p4dp_bdp, r: *mut p4dp_bdp_result) -> c_int;
        pub fn p4dp_bdp_detach(t: *mut p4dp_bdp);
        pub fn p4dp_bdp_done(t: *mut std::ffi::c_void) -> c_int;
    }
}

/// How the source picks the keys of a phase's packets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keys {
    /// A uniformly random key among the installed ones and the fresh ones handed out so far.
    Random,
    /// Every packet a fresh key (an add-on-miss insert).
    New,
    /// As `Random`, but every n-th packet a fresh key.
    Mix(u32),
}

/// One phase of the source's schedule.
#[derive(Debug, Clone, Copy)]
pub struct Phase {
    /// Packets per bench port; 0 = unlimited (last phase only).
    pub packets: u64,
    pub keys: Keys,
}

/// What the source writes into packets and when it records.
#[derive(Debug, Clone)]
pub struct TapParams {
    pub key_offset: u32,
    pub key_bytes: u32,
    pub key_base: u64,
    /// Keys installed before the run: key_base .. key_base + n_keys - 1.
    pub n_keys: u64,
    pub seed: u64,
    /// Packets handed to the worker per rx burst (1..=32; 0 = 32).
    pub batch: u32,
    /// Latencies are recorded for packets handed out this long after arming (the warm-up).
    pub record_after_ms: u64,
    /// Emulated RSS: port p hands out only random keys whose flow belongs to worker p (run the
    /// bench with `Dispatch::None`); fresh keys are not partitioned.
    pub partition: bool,
    pub phases: Vec<Phase>,
}

/// Latency percentiles in TSC cycles.
#[derive(Debug, Clone, Copy, Default)]
pub struct Latency {
    pub count: u64,
    pub min: u64,
    pub max: u64,
    pub mean: f64,
    pub p50: u64,
    pub p90: u64,
    pub p99: u64,
    pub p999: u64,
    pub p9999: u64,
}

impl From<sys::p4dp_hist_summary> for Latency {
    fn from(s: sys::p4dp_hist_summary) -> Self {
        Latency {
            count: s.count,
            min: s.min,
            max: s.max,
            mean: s.mean,
            p50: s.p50,
            p90: s.p90,
            p99: s.p99,
            p999: s.p999,
            p9999: s.p9999,
        }
    }
}

/// Figures of one phase.
#[derive(Debug, Clone, Copy, Default)]
pub struct PhaseResult {
    pub packets: u64,
    /// Of them with a fresh key.
    pub fresh: u64,
    /// TSC of the first hand-out and of the end of the phase (port 0); `tsc_end` 0 = not ended.
    pub tsc_first: u64,
    pub tsc_end: u64,
    /// Latency of packets with an existing key (class 0) and with a fresh key (class 1).
    pub lat: [Latency; 2],
}

/// Everything the tap saw since it was armed.
#[derive(Debug, Clone, Default)]
pub struct TapResult {
    /// Every limited phase completed.
    pub done: bool,
    pub handed: u64,
    pub recorded: u64,
    pub lat_all: Latency,
    pub phases: Vec<PhaseResult>,
}

/// A traffic source + latency probe on the ports of a bench.
pub struct Tap<'t, 'a> {
    bench: &'t mut Bench<'a>,
    t: NonNull<sys::p4dp_bdp>,
}

fn raw_params(p: &TapParams) -> Result<sys::p4dp_bdp_params> {
    if p.phases.is_empty() || p.phases.len() > MAX_PHASES {
        return Err(crate::Error::Invalid(format!(
            "a tap schedule has 1..{MAX_PHASES} phases"
        )));
    }
    let mut r = sys::p4dp_bdp_params {
        key_offset: p.key_offset,
        key_bytes: p.key_bytes,
        key_base: p.key_base,
        n_keys: p.n_keys,
        seed: p.seed,
        batch: p.batch,
        n_phases: p.phases.len() as u32,
        record_after_ms: p.record_after_ms,
        partition: p.partition as u32,
        ..Default::default()
    };
    for (i, ph) in p.phases.iter().enumerate() {
        let (keys, every) = match ph.keys {
            Keys::Random => (0, 0),
            Keys::New => (1, 0),
            Keys::Mix(n) => (2, n),
        };
        r.phase[i] = sys::p4dp_bdp_phase {
            packets: ph.packets,
            keys,
            insert_every: every,
        };
    }
    Ok(r)
}

impl<'t, 'a> Tap<'t, 'a> {
    /// Attach to `bench` (created with `workers` workers and `ports` ports, 0 = one per worker;
    /// it must be the only bench in the process and must have run one measurement, so that its
    /// ports are configured).
    pub fn attach(bench: &'t mut Bench<'a>, workers: u32, ports: u32, p: &TapParams) -> Result<Tap<'t, 'a>> {
        let raw = raw_params(p)?;
        let mut t = std::ptr::null_mut();
        // SAFETY: raw is valid for the call; the bench (and its ports) outlive the tap.
        check("bench tap attach", unsafe {
            sys::p4dp_bdp_attach(workers, ports, &raw, &mut t)
        })?;
        let t = NonNull::new(t).ok_or_else(|| crate::Error::Invalid("bench tap attach returned NULL".into()))?;
        // A window ends once a limited schedule has been handed out (the phases' figures are
        // their own TSC stamps, not the window's): windows can be sized for the slowest case.
        // SAFETY: live bench and tap; Drop unregisters before the tap is detached.
        unsafe {
            crate::bench::sys::p4dp_bench_set_done(bench.b.as_ptr(), Some(sys::p4dp_bdp_done), t.as_ptr().cast());
        }
        Ok(Tap { bench, t })
    }

    /// Reset and restart the schedule (`Some`: with new parameters) now, then run one measurement
    /// of `kind` on the bench and return it with the tap's figures.
    pub fn measure(&mut self, p: Option<&TapParams>, kind: Kind) -> Result<(Measurement, TapResult)> {
        self.measure_with(p, |b| b.measure(kind))
    }

    /// As [`Tap::measure`], with the measurement taken by `f` on the bench (for example with
    /// background threads, [`Bench::measure_with_background`]).
    pub fn measure_with(
        &mut self,
        p: Option<&TapParams>,
        f: impl FnOnce(&mut Bench<'a>) -> Result<Measurement>,
    ) -> Result<(Measurement, TapResult)> {
        let raw = p.map(raw_params).transpose()?;
        let ptr = raw.as_ref().map_or(std::ptr::null(), |r| r as *const _);
        // SAFETY: live tap; ptr is NULL or valid for the call.
        check("bench tap arm", unsafe { sys::p4dp_bdp_arm(self.t.as_ptr(), ptr) })?;
        let m = f(self.bench)?;
        let r = self.result()?;
        Ok((m, r))
    }

    /// The tap's figures since the last arm.
    pub fn result(&mut self) -> Result<TapResult> {
        let mut r = sys::p4dp_bdp_result::default();
        // SAFETY: live tap, valid output.
        check("bench tap result", unsafe {
            sys::p4dp_bdp_result(self.t.as_ptr(), &mut r)
        })?;
        let n = (r.n_phases as usize).min(MAX_PHASES);
        Ok(TapResult {
            done: r.done != 0,
            handed: r.handed,
            recorded: r.recorded,
            lat_all: r.lat_all.into(),
            phases: r.ph[..n]
                .iter()
                .map(|p| PhaseResult {
                    packets: p.packets,
                    fresh: p.fresh,
                    tsc_first: p.tsc_first,
                    tsc_end: p.tsc_end,
                    lat: [p.lat[0].into(), p.lat[1].into()],
                })
                .collect(),
        })
    }
}

impl Drop for Tap<'_, '_> {
    fn drop(&mut self) {
        // SAFETY: live tap, detached once, while the bench and its ports still exist; the
        // bench stops polling it first.
        unsafe {
            crate::bench::sys::p4dp_bench_set_done(self.bench.b.as_ptr(), None, std::ptr::null_mut());
            sys::p4dp_bdp_detach(self.t.as_ptr())
        }
    }
}
