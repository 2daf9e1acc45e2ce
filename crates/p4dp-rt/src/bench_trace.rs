//! The trace tap (`runtime/include/p4dp/bench_trace.h`): a traffic source that writes the
//! records of a trace into a bench's packets as they are handed to the worker, and a probe that
//! records each packet's latency (rx burst to tx burst, TSC cycles) into a log-linear histogram.
//! Used by `p4dp bench`'s sweeps for generated, Zipf and pcap traffic.

use std::ptr::NonNull;

use crate::bench::{Bench, Kind, Measurement};
use crate::{check, Result};

pub(crate) mod sys {
    #![allow(non_camel_case_types)]
    use std::os::raw::c_int;

    /// `P4DP_HIST_BUCKETS` of bench_dp.h: ((36 - 7) + 1) << 7.
    pub const HIST_BUCKETS: usize = 30 << 7;

    #[repr(C)]
    pub struct p4dp_btr {
        _opaque: [u8; 0],
    }

    #[repr(C)]
    pub struct p4dp_btr_params {
        pub recs: *const u8,
        pub lens: *const u16,
        pub rec_size: u32,
        pub n_recs: u32,
        pub offset: u32,
        pub record_after_ms: u64,
    }

    #[repr(C)]
    #[derive(Default)]
    pub struct p4dp_btr_result {
        pub handed: u64,
        pub recorded: u64,
        pub skipped: u64,
    }

    #[repr(C)]
    pub struct p4dp_hist {
        pub count: u64,
        pub sum: u64,
        pub min: u64,
        pub max: u64,
        pub b: [u64; HIST_BUCKETS],
    }

    extern "C" {
        pub fn p4dp_btr_attach(
            n_workers: u32,
            n_ports: u32,
            p: *const p4dp_btr_params,
            out: *mut *mut p4dp_btr,
        ) -> c_int;
        pub fn p4dp_btr_arm(t: *mut p4dp_btr) -> c_int;
        pub fn p4dp_btr_result(t: *const p4dp_btr, r: *mut p4dp_btr_result, lat: *mut p4dp_hist) -> c_int;
        pub fn p4dp_btr_iteration_cost(t: *const p4dp_btr, cost: *mut p4dp_hist) -> c_int;
        pub fn p4dp_btr_detach(t: *mut p4dp_btr);
        pub fn p4dp_hist_quantile(h: *const p4dp_hist, q: f64) -> u64;
    }
}

/// A trace: `records.len() / rec_size` records of `rec_size` bytes each.
#[derive(Debug, Clone)]
pub struct Trace {
    pub records: Vec<u8>,
    pub rec_size: u32,
    /// `None`: every record overlays `rec_size` bytes of the packet at `offset` (the packet keeps
    /// its length). `Some`: record k writes `lens[k]` bytes and the packet becomes
    /// `offset + lens[k]` bytes long (whole packets, e.g. from a pcap file).
    pub lens: Option<Vec<u16>>,
    pub offset: u32,
    /// Latencies of packets handed out earlier than this after arming (the warm-up) are not
    /// recorded.
    pub record_after_ms: u64,
}

impl Trace {
    /// Number of records.
    pub fn len(&self) -> usize {
        self.records.len() / (self.rec_size.max(1) as usize)
    }

    /// True if the trace has no record.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Per-packet latencies (TSC cycles): a log-linear histogram with a relative error below 1/128.
pub struct Histogram {
    h: Box<sys::p4dp_hist>,
}

impl Histogram {
    /// Values recorded.
    pub fn count(&self) -> u64 {
        self.h.count
    }

    /// Largest value recorded (exact).
    pub fn max(&self) -> u64 {
        self.h.max
    }

    /// Smallest value v with at least fraction `q` (0..=1) of the values <= v (the top of v's
    /// bucket, capped at the maximum); 0 if empty.
    pub fn quantile(&self, q: f64) -> u64 {
        // SAFETY: a valid histogram, read only.
        unsafe { sys::p4dp_hist_quantile(&*self.h, q) }
    }
}

/// Counters of the trace tap since it was armed.
#[derive(Debug, Clone, Copy, Default)]
pub struct TraceCounters {
    pub handed: u64,
    pub recorded: u64,
    /// Packets whose record did not fit (left unchanged and not measured).
    pub skipped: u64,
}

/// A trace tap on the ports of a bench.
pub struct TraceTap<'t, 'a> {
    bench: &'t mut Bench<'a>,
    t: NonNull<sys::p4dp_btr>,
}

impl<'t, 'a> TraceTap<'t, 'a> {
    /// Attach to `bench` (created with `workers` workers and `ports` ports, 0 = one per worker;
    /// the only bench of the process, and it must have run one measurement so that its ports are
    /// configured).
    pub fn attach(bench: &'t mut Bench<'a>, workers: u32, ports: u32, trace: &Trace) -> Result<TraceTap<'t, 'a>> {
        let n = u32::try_from(trace.len()).map_err(|_| crate::Error::Invalid("trace too long".into()))?;
        if let Some(l) = &trace.lens {
            if l.len() != n as usize {
                return Err(crate::Error::Invalid("trace: one length per record needed".into()));
            }
        }
        let raw = sys::p4dp_btr_params {
            recs: trace.records.as_ptr(),
            lens: trace.lens.as_ref().map_or(std::ptr::null(), |l| l.as_ptr()),
            rec_size: trace.rec_size,
            n_recs: n,
            offset: trace.offset,
            record_after_ms: trace.record_after_ms,
        };
        let mut t = std::ptr::null_mut();
        // SAFETY: raw points into `trace` for the call (the C side copies it); the bench and its
        // ports outlive the tap (the tap borrows the bench).
        check("trace tap attach", unsafe {
            sys::p4dp_btr_attach(workers, ports, &raw, &mut t)
        })?;
        let t = NonNull::new(t).ok_or_else(|| crate::Error::Invalid("trace tap attach returned NULL".into()))?;
        Ok(TraceTap { bench, t })
    }

    /// Packets the program has processed so far ([`Bench::runtime_packets`]).
    pub fn runtime_packets(&self) -> Result<u64> {
        self.bench.runtime_packets()
    }

    /// Re-arm (trace from the start, histograms empty), run one measurement of `kind` and return
    /// it with the tap's counters and latencies.
    pub fn measure(&mut self, kind: Kind) -> Result<(Measurement, TraceCounters, Histogram)> {
        self.measure_with(|b| b.measure(kind))
    }

    /// As [`TraceTap::measure`], with the measurement taken by `f` on the bench (a baseline
    /// such as [`Bench::measure_rte_acl`]).
    pub fn measure_with(
        &mut self,
        f: impl FnOnce(&mut Bench<'a>) -> Result<Measurement>,
    ) -> Result<(Measurement, TraceCounters, Histogram)> {
        // SAFETY: live tap.
        check("trace tap arm", unsafe { sys::p4dp_btr_arm(self.t.as_ptr()) })?;
        let m = f(self.bench)?;
        let mut r = sys::p4dp_btr_result::default();
        // SAFETY: p4dp_hist is plain data; all zero is a valid (empty) value. Boxed: 30 KiB.
        let mut h: Box<sys::p4dp_hist> = unsafe { Box::new(std::mem::zeroed()) };
        // SAFETY: live tap, valid outputs.
        check("trace tap result", unsafe {
            sys::p4dp_btr_result(self.t.as_ptr(), &mut r, &mut *h)
        })?;
        Ok((
            m,
            TraceCounters {
                handed: r.handed,
                recorded: r.recorded,
                skipped: r.skipped,
            },
            Histogram { h },
        ))
    }
}

impl TraceTap<'_, '_> {
    /// The last measurement's cost per burst, one value per tx burst (bench_trace.h
    /// `p4dp_btr_iteration_cost`): with one worker its rx -> tx latency; under software dispatch
    /// a worker's loop iteration per 32 packets sent, where the latencies of
    /// [`TraceTap::measure`] also hold the packets handed to another worker, with their wait in
    /// its ring.
    pub fn iteration_cost(&self) -> Result<Histogram> {
        // SAFETY: p4dp_hist is plain data; all zero is a valid (empty) value. Boxed: 30 KiB.
        let mut h: Box<sys::p4dp_hist> = unsafe { Box::new(std::mem::zeroed()) };
        // SAFETY: live tap, valid output.
        check("trace tap iteration cost", unsafe {
            sys::p4dp_btr_iteration_cost(self.t.as_ptr(), &mut *h)
        })?;
        Ok(Histogram { h })
    }
}

impl Drop for TraceTap<'_, '_> {
    fn drop(&mut self) {
        // SAFETY: live tap, detached once, while the bench and its ports still exist.
        unsafe { sys::p4dp_btr_detach(self.t.as_ptr()) }
    }
}
