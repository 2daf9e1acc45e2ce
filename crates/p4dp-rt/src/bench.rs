//! The built-in benchmark (`runtime/include/p4dp/bench.h`): ring-backed bench ports with
//! pre-built packets feeding the runtime's worker loop, the raw DPDK floor loop and the
//! table-lookup baseline loop, measured with the TSC.
//!
//! [`BenchTarget::load`] loads a compiled program for benchmarking (a runtime that owns no ports),
//! [`BenchTarget::table_fill`] installs entries through the control API, [`Bench::new`] builds the
//! ports and packets and [`Bench::measure`] runs one measurement. Everything here must run on the
//! thread that initialized the EAL (the EAL main lcore): the types are neither `Send` nor `Sync`.

use std::ffi::CString;
use std::marker::PhantomData;
use std::os::raw::c_int;
use std::path::Path;
use std::ptr::NonNull;
use std::time::Duration;

use crate::ffi;
use crate::runtime::Dispatch;
use crate::schema::{self, Program};
use crate::{check, last_error, Eal, Error, Result};

/// Most workers a bench drives (`P4DP_BENCH_MAX_WORKERS`).
pub const MAX_WORKERS: u32 = 16;
/// Longest packet template (`P4DP_BENCH_TMPL_MAX`).
pub const TEMPLATE_MAX: usize = 1500;
/// Longest key field in packets (`P4DP_BENCH_KEY_MAX`).
pub const KEY_MAX: u32 = 8;

pub(crate) mod sys {
    #![allow(non_camel_case_types)]
    use std::os::raw::c_int;

    use crate::ffi::{p4dp_rt_param, p4dp_runtime};

    #[repr(C)]
    pub struct p4dp_bench {
        _opaque: [u8; 0],
    }

    #[repr(C)]
    pub struct p4dp_bench_params {
        pub n_workers: u32,
        pub n_ports: u32,
        pub n_pkts: u32,
        pub tmpl: *const u8,
        pub tmpl_len: u32,
        pub key_offset: u32,
        pub key_bytes: u32,
        pub key_base: u64,
        pub n_keys: u64,
        pub seed: u64,
        pub warmup_ms: u64,
        pub duration_ms: u64,
        pub dispatch: u32,
    }

    #[repr(C)]
    #[derive(Clone, Copy, Default)]
    pub struct p4dp_bench_worker {
        pub packets: u64,
        pub mpps: f64,
        pub cycles_per_pkt: f64,
    }

    #[repr(C)]
    pub struct p4dp_bench_result {
        pub kind: u32,
        pub n_workers: u32,
        pub tsc_hz: u64,
        pub window_cycles: u64,
        pub packets: u64,
        pub mpps: f64,
        pub cycles_per_pkt: f64,
        pub hits: u64,
        pub misses: u64,
        pub lost: u64,
        pub lost_in_window: u64,
        pub lost_before_window: u64,
        pub lost_after_window: u64,
        pub packets_before_window: u64,
        pub w: [p4dp_bench_worker; 16],
    }

    extern "C" {
        pub fn p4dp_bench_create(
            rt: *mut p4dp_runtime,
            params: *const p4dp_bench_params,
            out: *mut *mut p4dp_bench,
        ) -> c_int;
        pub fn p4dp_bench_measure(b: *mut p4dp_bench, kind: c_int, table: u32, res: *mut p4dp_bench_result) -> c_int;
        pub fn p4dp_bench_free(b: *mut p4dp_bench);
        pub fn p4dp_bench_set_done(
            b: *mut p4dp_bench,
            done: Option<unsafe extern "C" fn(arg: *mut std::ffi::c_void) -> c_int>,
            arg: *mut std::ffi::c_void,
        );
        pub fn p4dp_bench_table_fill(
            rt: *mut p4dp_runtime,
            table: u32,
            key_base: u64,
            n: u64,
            action: u32,
            n_params: u32,
            params: *const p4dp_rt_param,
        ) -> i64;
    }
}

/// A compiled program loaded for benchmarking: a runtime of its own, without ports.
pub struct BenchTarget {
    pub(crate) rt: NonNull<ffi::p4dp_runtime>,
    program: Program,
    /// Not Send/Sync: benches must run on the EAL main lcore.
    _not_send: PhantomData<*mut ()>,
}

impl BenchTarget {
    /// Load `so_path` with `max_workers` worker contexts (>= the workers of every bench run on it).
    pub fn load(so_path: &Path, max_workers: u32) -> Result<BenchTarget> {
        if !Eal::initialized() {
            return Err(Error::EalNotInitialized);
        }
        let path = CString::new(so_path.as_os_str().as_encoded_bytes())
            .map_err(|_| Error::NulByte { what: "program path" })?;
        let params = ffi::p4dp_runtime_params {
            program_path: path.as_ptr(),
            max_workers,
            digest_qlen: 0,
            n_mbufs: 0,
            socket_id: -1,
            log_fn: None,
            log_arg: std::ptr::null_mut(),
        };
        let mut rt = std::ptr::null_mut();
        // SAFETY: params and path are valid for the call; rt receives the runtime.
        check("load program", unsafe { ffi::p4dp_runtime_create(&params, &mut rt) })?;
        let rt = NonNull::new(rt).ok_or_else(|| Error::Invalid("runtime_create returned NULL".into()))?;
        // SAFETY: the program of a live runtime, validated by it.
        let program = unsafe { schema::from_raw(&*ffi::p4dp_runtime_program_get(rt.as_ptr())) };
        Ok(BenchTarget {
            rt,
            program,
            _not_send: PhantomData,
        })
    }

    /// The program's schema.
    pub fn program(&self) -> &Program {
        &self.program
    }

    /// Install `n` entries with keys `key_base .. key_base + n - 1` in `table` (one exact key field
    /// of at most 64 bits), each running `action` (index into the program's actions) with
    /// `params` (big-endian bytes per parameter). Returns the number installed.
    pub fn table_fill(&mut self, table: u32, key_base: u64, n: u64, action: u32, params: &[Vec<u8>]) -> Result<u64> {
        let rt = self.rt.as_ptr();
        fill(0, None, params, |_, n_params, raw| {
            // SAFETY: raw and the byte vectors it points into live for the call.
            unsafe { sys::p4dp_bench_table_fill(rt, table, key_base, n, action, n_params, raw) }
        })
    }

    /// `@entry_lock` bias revocations so far (p4dp_rt_stats.lock_revocations).
    pub fn lock_revocations(&self) -> Result<u64> {
        let mut st = ffi::p4dp_rt_stats::default();
        // SAFETY: live runtime, valid output pointer.
        check("stats", unsafe {
            ffi::p4dp_runtime_stats_get(self.rt.as_ptr(), &mut st)
        })?;
        Ok(st.lock_revocations)
    }

    /// Install one entry of any match kinds in `table` (index) through the control API.
    pub fn entry_add(&mut self, table: u32, e: &crate::TableEntry) -> Result<()> {
        let r = crate::runtime::raw_entry(&e.matches, e.priority, e.action, &e.params)?;
        // SAFETY: r.entry points into r's vectors, valid for the call; live runtime.
        check("table add", unsafe {
            ffi::p4dp_runtime_table_entry_add(self.rt.as_ptr(), table, &r.entry)
        })
        .map(|_| ())
    }

    /// Delete the entry of `table` (index) whose match fields and priority are `e`'s.
    pub fn entry_delete(&mut self, table: u32, e: &crate::TableEntry) -> Result<()> {
        let r = crate::runtime::raw_entry(&e.matches, e.priority, e.action, &e.params)?;
        // SAFETY: r.entry points into r's vectors, valid for the call; live runtime.
        check("table delete", unsafe {
            ffi::p4dp_runtime_table_entry_delete(self.rt.as_ptr(), table, &r.entry)
        })
        .map(|_| ())
    }

    /// All statistics of `table` (entries, data-plane inserts and those given up, ...).
    pub fn table_stats(&self, table: u32) -> Result<crate::TableStats> {
        crate::runtime::table_stats_of(self.rt.as_ptr(), table)
    }

    /// Hits and misses of `table` counted by the program so far (all workers).
    pub fn table_hits_misses(&self, table: u32) -> Result<(u64, u64)> {
        // SAFETY: plain-data output struct, zero is a valid value.
        let mut st: ffi::p4dp_rt_table_stats = unsafe { std::mem::zeroed() };
        // SAFETY: live runtime, valid output pointer.
        check("table stats", unsafe {
            ffi::p4dp_runtime_table_stats_get(self.rt.as_ptr(), table, &mut st)
        })?;
        Ok((st.hits, st.misses))
    }
}

impl Drop for BenchTarget {
    fn drop(&mut self) {
        // SAFETY: the runtime is live and no bench borrows it (Bench holds &mut BenchTarget).
        unsafe { ffi::p4dp_runtime_free(self.rt.as_ptr()) }
    }
}

/// The checks and the call of a table fill of `n` keys: one prefix length per key when `lens` is
/// given, the parameters in the runtime's layout; `call(lens or null, n_params, params)` returns
/// the runtime's count or -errno.
pub(crate) fn fill(
    n: usize,
    lens: Option<&[u8]>,
    params: &[Vec<u8>],
    call: impl FnOnce(*const u8, u32, *const ffi::p4dp_rt_param) -> i64,
) -> Result<u64> {
    if lens.is_some_and(|l| l.len() != n) {
        return Err(Error::Invalid("one prefix length per key needed".into()));
    }
    let raw = crate::runtime::raw_params(params)?;
    let n_params = u32::try_from(raw.len()).map_err(|_| Error::Invalid("too many parameters".into()))?;
    let rc = call(lens.map_or(std::ptr::null(), <[u8]>::as_ptr), n_params, raw.as_ptr());
    if rc < 0 {
        return Err(Error::Runtime {
            op: "table fill",
            errno: -(rc as i32),
            msg: last_error(),
        });
    }
    Ok(rc as u64)
}

/// What a bench's packets look like and how long it measures.
#[derive(Debug, Clone)]
pub struct BenchParams {
    pub workers: u32,
    /// Bench ports (P4 ports 0..ports-1); 0 = one per worker.
    pub ports: u32,
    /// Pre-built packets in circulation (all workers).
    pub packets: u32,
    /// Packet template (14..=1500 bytes).
    pub template: Vec<u8>,
    /// Key field: byte offset and length (0 = no key) in the packet, big-endian.
    pub key_offset: u32,
    pub key_bytes: u32,
    /// Packets carry keys `key_base + perm[j mod n_keys]` (perm: a seeded random permutation).
    pub key_base: u64,
    pub n_keys: u64,
    pub seed: u64,
    pub warmup: Duration,
    pub duration: Duration,
    /// How program runs spread flows over workers (the ring ports have no RSS: `Auto` is
    /// software dispatch; `None` with a partitioning source emulates RSS).
    pub dispatch: Dispatch,
}

/// Which loop a measurement runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// rx burst -> tx burst (the raw DPDK floor).
    Floor,
    /// Floor + key extraction + one bulk lookup per burst on this table (index).
    Table(u32),
    /// The runtime's worker loop running the program.
    Program,
    /// Diagnostic: as `Table`, with one single-key lookup per packet instead of the bulk lookup.
    TableSingle(u32),
    /// The "l2fwd floor": the floor plus a read and write of each packet's first cache line
    /// (Ethernet addresses swapped).
    L2fwd,
    /// The floor plus DPDK rte_lpm bulk lookups ([`Bench::measure_rte_lpm`] only).
    RteLpm,
    /// A router on the floor: rte_lpm bulk lookups, then each packet's Ethernet destination set
    /// to its next hop's MAC address ([`Bench::measure_rte_lpm_route`] only).
    RteLpmRoute,
    /// The floor plus DPDK rte_acl classification ([`Bench::measure_rte_acl`] only).
    RteAcl,
    /// The floor plus DPDK rte_lpm6 bulk lookups ([`Bench::measure_rte_lpm6`] only).
    RteLpm6,
    /// The floor plus bulk lookups of 16-byte keys on a table of one 128-bit key field
    /// ([`Bench::measure_table128`] only).
    Table128(u32),
}

/// One worker's figures.
#[derive(Debug, Clone, Copy)]
pub struct WorkerFigures {
    pub packets: u64,
    pub mpps: f64,
    pub cycles_per_pkt: f64,
}

/// The result of one measurement.
#[derive(Debug, Clone)]
pub struct Measurement {
    pub kind: Kind,
    pub tsc_hz: u64,
    pub window_cycles: u64,
    pub packets: u64,
    pub mpps: f64,
    /// Core cycles per packet: workers * window cycles / packets.
    pub cycles_per_pkt: f64,
    /// Table baseline: lookups that hit / missed.
    pub hits: u64,
    pub misses: u64,
    /// Program runs only: packets missing after the run although the measurement stands, because
    /// the runtime counted them as lost outside the window (in the warm-up or at shutdown). The
    /// bench cannot be measured again after this.
    pub lost_outside_window: u64,
    /// Of those, losses the runtime counted in the warm-up (the rest: after the window).
    pub lost_warmup: u64,
    pub workers: Vec<WorkerFigures>,
}

/// Bench ports and packets on a [`BenchTarget`].
pub struct Bench<'a> {
    pub(crate) b: NonNull<sys::p4dp_bench>,
    /// The target's runtime, for its statistics.
    pub(crate) rt: NonNull<ffi::p4dp_runtime>,
    _target: PhantomData<&'a mut BenchTarget>,
}

impl<'a> Bench<'a> {
    /// Create the bench ports (net_ring), the packet pool and the packets.
    pub fn new(target: &'a mut BenchTarget, p: &BenchParams) -> Result<Bench<'a>> {
        let len = u32::try_from(p.template.len()).map_err(|_| Error::Invalid("packet template too long".into()))?;
        let ms = |d: Duration| u64::try_from(d.as_millis()).unwrap_or(u64::MAX);
        let raw = sys::p4dp_bench_params {
            n_workers: p.workers,
            n_ports: p.ports,
            n_pkts: p.packets,
            tmpl: p.template.as_ptr(),
            tmpl_len: len,
            key_offset: p.key_offset,
            key_bytes: p.key_bytes,
            key_base: p.key_base,
            n_keys: p.n_keys,
            seed: p.seed,
            warmup_ms: ms(p.warmup),
            duration_ms: ms(p.duration),
            dispatch: crate::runtime::dispatch_raw(p.dispatch),
        };
        let mut b = std::ptr::null_mut();
        // SAFETY: raw points to the template for the call (the C side copies it); live runtime.
        check("bench create", unsafe {
            sys::p4dp_bench_create(target.rt.as_ptr(), &raw, &mut b)
        })?;
        let b = NonNull::new(b).ok_or_else(|| Error::Invalid("bench_create returned NULL".into()))?;
        Ok(Bench {
            b,
            rt: target.rt,
            _target: PhantomData,
        })
    }

    /// Packets the target's program has processed so far (the runtime's `packets` statistic,
    /// all workers; the floor loops do not run the program and do not count).
    pub fn runtime_packets(&self) -> Result<u64> {
        let mut st = ffi::p4dp_rt_stats::default();
        // SAFETY: the target's runtime lives as long as the bench borrows it; valid output.
        check("stats", unsafe {
            ffi::p4dp_runtime_stats_get(self.rt.as_ptr(), &mut st)
        })?;
        Ok(st.packets)
    }

    /// Set cell `index` of rtc.p4 `Counter` `ext` of the target (between measurements, or
    /// during one: a relaxed atomic store the workers see).
    pub fn rtc_counter_set(&mut self, ext: u32, index: u32, value: u64) -> Result<()> {
        // SAFETY: the target's runtime lives as long as the bench borrows it; plain values.
        check("rtc counter set", unsafe {
            ffi::p4dp_runtime_rtc_counter_set(self.rt.as_ptr(), ext, index, value)
        })
        .map(|_| ())
    }

    /// All statistics of table `table` of the target's program.
    pub fn table_stats(&self, table: u32) -> Result<crate::TableStats> {
        crate::runtime::table_stats_of(self.rt.as_ptr(), table)
    }

    /// Run one measurement (blocks for about warm-up + duration).
    pub fn measure(&mut self, kind: Kind) -> Result<Measurement> {
        let (k, table): (c_int, u32) = match kind {
            Kind::Floor => (0, 0),
            Kind::Table(t) => (1, t),
            Kind::Program => (2, 0),
            Kind::TableSingle(t) => (3, t),
            Kind::L2fwd => (4, 0),
            Kind::RteLpm => return Err(Error::Invalid("rte_lpm loops are measured by measure_rte_lpm".into())),
            Kind::RteLpmRoute => {
                return Err(Error::Invalid(
                    "rte_lpm router loops are measured by measure_rte_lpm_route".into(),
                ))
            }
            Kind::RteAcl => return Err(Error::Invalid("rte_acl loops are measured by measure_rte_acl".into())),
            Kind::RteLpm6 => return Err(Error::Invalid("rte_lpm6 loops are measured by measure_rte_lpm6".into())),
            Kind::Table128(_) => {
                return Err(Error::Invalid(
                    "128-bit table loops are measured by measure_table128".into(),
                ))
            }
        };
        // SAFETY: live bench; `measured` passes a valid output pointer.
        measured("bench measure", kind, |r| unsafe {
            sys::p4dp_bench_measure(self.b.as_ptr(), k, table, r)
        })
    }
}

/// Measurement `kind`: `run` (the C measuring call `op` names) fills a zeroed result through
/// the pointer it is given.
pub(crate) fn measured(
    op: &'static str,
    kind: Kind,
    run: impl FnOnce(*mut sys::p4dp_bench_result) -> c_int,
) -> Result<Measurement> {
    // SAFETY: plain-data output struct; zero is valid.
    let mut r: sys::p4dp_bench_result = unsafe { std::mem::zeroed() };
    check(op, run(&mut r))?;
    Ok(measurement(kind, &r))
}

/// A measurement from the runtime's result.
fn measurement(kind: Kind, r: &sys::p4dp_bench_result) -> Measurement {
    let n = (r.n_workers.min(MAX_WORKERS)) as usize;
    Measurement {
        kind,
        tsc_hz: r.tsc_hz,
        window_cycles: r.window_cycles,
        packets: r.packets,
        mpps: r.mpps,
        cycles_per_pkt: r.cycles_per_pkt,
        hits: r.hits,
        misses: r.misses,
        lost_outside_window: r.lost,
        lost_warmup: r.lost_before_window,
        workers: r.w[..n]
            .iter()
            .map(|w| WorkerFigures {
                packets: w.packets,
                mpps: w.mpps,
                cycles_per_pkt: w.cycles_per_pkt,
            })
            .collect(),
    }
}

impl Drop for Bench<'_> {
    fn drop(&mut self) {
        // SAFETY: live bench, freed once.
        unsafe { sys::p4dp_bench_free(self.b.as_ptr()) }
    }
}
