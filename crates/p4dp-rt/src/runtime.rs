//! [`Runtime`]: a loaded program with its tables, externs, ports and workers.

use std::ffi::{CStr, CString};
use std::os::raw::{c_char, c_int, c_void};
use std::path::Path;
use std::ptr::NonNull;
use std::sync::atomic::AtomicI32;
use std::sync::Mutex;
use std::time::Duration;

use crate::ffi;
use crate::schema::{self, Program};
use crate::{check, Eal, Error, Result};

/// Severity of a runtime log line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogLevel {
    Error,
    Warning,
    /// `log_msg` lines of the P4 program.
    Info,
}

type LogFn = dyn Fn(LogLevel, &str) + Send + Sync;

/// Options of [`Runtime::load`].
pub struct RuntimeOptions {
    /// Worker contexts (the most workers [`Runtime::run`] may use); at least 1.
    pub max_workers: u32,
    /// Digest queue length per worker and digest (0 = runtime default, 1024).
    pub digest_qlen: u32,
    /// mbuf pool size for ports (0 = sized from ports and workers).
    pub n_mbufs: u32,
    /// NUMA socket for data-plane memory; -1 = any.
    pub socket_id: i32,
    /// Receives log lines (assert failures, `log_msg`, warnings); `None` = stderr.
    /// Called from worker threads too.
    pub log: Option<Box<LogFn>>,
}

impl Default for RuntimeOptions {
    fn default() -> Self {
        RuntimeOptions {
            max_workers: 1,
            digest_qlen: 0,
            n_mbufs: 0,
            socket_id: -1,
            log: None,
        }
    }
}

/// One key field of a table entry, values as big-endian bytes (1..=ceil(bitwidth/8) bytes).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MatchField {
    Exact(Vec<u8>),
    /// value, prefix length
    Lpm(Vec<u8>, u32),
    /// value, mask
    Ternary(Vec<u8>, Vec<u8>),
    /// low, high (inclusive)
    Range(Vec<u8>, Vec<u8>),
    /// `None` = wildcard
    Optional(Option<Vec<u8>>),
    /// Wildcard for any non-exact field (P4Runtime's omitted field). Never returned by reads.
    DontCare,
}

/// A table entry in control-plane form. Entries read back have exactly ceil(bitwidth/8)-byte
/// values, lpm wildcards as `Lpm(zeros, 0)` and optional wildcards as `Optional(None)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableEntry {
    pub matches: Vec<MatchField>,
    /// > 0 for tables with ternary/range/optional keys, else 0.
    pub priority: i32,
    /// Index into [`Program::actions`].
    pub action: u32,
    pub params: Vec<Vec<u8>>,
}

/// The state of an rtc.p4 `Queue` ([`Runtime::rtc_queue_stats`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RtcQueueStats {
    /// Messages it holds.
    pub depth: u32,
    /// Bytes per message.
    pub elem_size: u32,
    /// Messages queued now (a snapshot).
    pub queued: u32,
    /// Pushes refused because it was full.
    pub full_drops: u64,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CounterValue {
    pub packets: u64,
    pub bytes: u64,
}

/// Meter parameters as P4Runtime's MeterConfig: rates in units/s, bursts in units (bytes or
/// packets). What a meter takes depends on its [`crate::MeterType`] (rt.h struct p4dp_meter_config).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MeterConfig {
    pub cir: u64,
    pub cburst: u64,
    pub pir: u64,
    pub pburst: u64,
    /// Single-rate three-colour meters: the excess burst size (EBS); 0 for the other types.
    pub eburst: u64,
}

/// Per-colour counts of a meter cell: what the meter coloured green, yellow and red.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MeterCounts {
    pub green: CounterValue,
    pub yellow: CounterValue,
    pub red: CounterValue,
}

impl MeterCounts {
    fn to_ffi(self) -> ffi::p4dp_meter_counts {
        let c = |v: CounterValue| ffi::p4dp_counter_cell {
            packets: v.packets,
            bytes: v.bytes,
        };
        ffi::p4dp_meter_counts {
            colour: [c(self.green), c(self.yellow), c(self.red)],
        }
    }

    fn of_ffi(k: &ffi::p4dp_meter_counts) -> MeterCounts {
        let v = |c: &ffi::p4dp_counter_cell| CounterValue {
            packets: c.packets,
            bytes: c.bytes,
        };
        MeterCounts {
            green: v(&k.colour[0]),
            yellow: v(&k.colour[1]),
            red: v(&k.colour[2]),
        }
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TableStats {
    pub entries: u64,
    pub capacity: u64,
    pub inserts: u64,
    pub deletes: u64,
    pub modifies: u64,
    pub table_full: u64,
    pub hits: u64,
    pub misses: u64,
    /// Inserts from the data plane (add_entry / add-on-miss); also counted in `inserts`.
    pub dp_inserts: u64,
    /// Data-plane inserts given up (writer busy, or free slots still in an RCU grace period).
    pub dp_busy: u64,
    /// Entries deleted by idle timeout (also counted in `deletes`).
    pub expired: u64,
    /// Expired entries reported by the expiry scan.
    pub idle_notified: u64,
    /// Entries with control-plane metadata ([`Runtime::entry_meta_set`]).
    pub meta_entries: u64,
    /// Tuple-space tables (ternary, range, optional): the hash tables ("tabs") the rules are
    /// placed in, which a lookup probes in turn; 0 for other tables.
    pub tuples: u64,
}

/// The statistics of `table` of the live runtime `rt` (a [`crate::Runtime`]'s or a bench target's).
pub(crate) fn table_stats_of(rt: *mut ffi::p4dp_runtime, table: u32) -> Result<TableStats> {
    let mut s = ffi::p4dp_rt_table_stats::default();
    // SAFETY: the caller passes a live runtime; s is a valid output struct.
    check("table stats", unsafe {
        ffi::p4dp_runtime_table_stats_get(rt, table, &mut s)
    })?;
    Ok(TableStats {
        entries: s.entries,
        capacity: s.capacity,
        inserts: s.inserts,
        deletes: s.deletes,
        modifies: s.modifies,
        table_full: s.table_full,
        hits: s.hits,
        misses: s.misses,
        dp_inserts: s.dp_inserts,
        dp_busy: s.dp_busy,
        expired: s.expired,
        idle_notified: s.idle_notified,
        meta_entries: s.meta_entries,
        tuples: s.tuples,
    })
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stats {
    pub packets: u64,
    pub drops: u64,
    pub finish_errors: u64,
    pub copies: u64,
    pub copy_errors: u64,
    pub asserts: u64,
    pub unsupported: u64,
    pub no_port: u64,
    pub multiseg: u64,
    /// `@entry_lock` entries whose bias a second worker revoked (once per entry).
    pub lock_revocations: u64,
    /// Multicast or clone replicas not made: every port of their chain (the replica and its
    /// backups) was down.
    pub replicas_down: u64,
    /// Selector group lookups that found every member's watch port down (a miss).
    pub groups_down: u64,
}

/// One replica of a multicast group or clone session with its backups, tried in order: the
/// copy goes to the first port of `port`, then `backups`, that is live.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Replica {
    pub port: u32,
    pub rid: u16,
    /// (port, instance) of each backup, most preferred first.
    pub backups: Vec<(u32, u16)>,
}

/// Liveness of one port number (Runtime::port_state).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PortState {
    /// Not taken down by the operator (Runtime::port_admin_set).
    pub admin_up: bool,
    /// Its device does not report its link down (up while the runtime does not run).
    pub link_up: bool,
}

fn replicas_flat(reps: &[Replica]) -> Vec<ffi::p4dp_rt_replica> {
    let mut v = Vec::new();
    for r in reps {
        v.push(ffi::p4dp_rt_replica {
            port: r.port,
            rid: r.rid,
            backup: 0,
        });
        for &(port, rid) in &r.backups {
            v.push(ffi::p4dp_rt_replica { port, rid, backup: 1 });
        }
    }
    v
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PortStats {
    pub rx_packets: u64,
    pub rx_bytes: u64,
    pub tx_packets: u64,
    pub tx_bytes: u64,
    pub drops: u64,
    pub tx_errors: u64,
}

/// Parameters of [`Runtime::run`]. At least one stop condition is required.
#[derive(Default)]
pub struct RunParams<'a> {
    pub n_workers: u32,
    /// Stop when the flag becomes nonzero.
    pub stop: Option<&'a AtomicI32>,
    pub duration: Option<Duration>,
    /// Stop once all pcap input was received and processed (other ports: after `idle`).
    pub until_input_done: bool,
    /// Idle time that ends the input of ports of unknown input size (default 200 ms).
    pub idle: Option<Duration>,
    /// How packets are spread over workers.
    pub dispatch: Dispatch,
    /// Software-dispatch flow key: frame bytes `[offset, offset + len)`; `None`: the IP 5-tuple.
    pub flow_key: Option<(u32, u32)>,
    /// rtc.p4: background threads running the program's background pipelines (0: they do not
    /// run); they need `n_workers + n_background` worker contexts (max workers) and EAL lcores.
    pub n_background: u32,
}

/// How [`Runtime::run`] spreads flows over workers (rt.h `enum p4dp_rt_dispatch`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Dispatch {
    /// RSS when every port supports it with `n_workers` rx queues, else software dispatch.
    #[default]
    Auto,
    /// RSS required.
    Rss,
    /// Software dispatch: the polling worker hashes the flow key and hands packets to the owner.
    Software,
    /// None: each port is polled by one worker, which processes everything it receives; for
    /// sources that already keep every flow on one port (the bench's emulated RSS).
    None,
}

/// rt.h `enum p4dp_rt_dispatch` value of `d`.
pub(crate) fn dispatch_raw(d: Dispatch) -> u32 {
    match d {
        Dispatch::Auto => 0,
        Dispatch::Rss => 1,
        Dispatch::Software => 2,
        Dispatch::None => 3,
    }
}

/// Per-worker statistics ([`Runtime::worker_stats`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WorkerStats {
    pub packets: u64,
    pub rx_packets: u64,
    pub dispatched_out: u64,
    pub dispatched_in: u64,
    pub dispatch_drops: u64,
    pub loops: u64,
    /// The last run used RSS (else software dispatch or one worker).
    pub rss: bool,
}

/// An idle-timeout notification ([`Runtime::idle_poll`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IdleNotification {
    pub table: u32,
    /// The expired entry in control-plane form.
    pub entry: TableEntry,
    /// Time of the scan that found it (simulated clock in STF runs), ns.
    pub time_ns: u64,
    /// How long it had been idle, ns.
    pub idle_ns: u64,
}

/// Predicted memory of an exact table ([`table_mem_predict`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TableMem {
    pub hash_bytes: u64,
    pub static_bytes: u64,
    pub dynamic_bytes: u64,
    pub slot_bytes: u32,
    pub dyn_entry_bytes: u32,
    /// What automatic storage selection picks: true = static array, false = dynamic.
    pub static_storage: bool,
}

/// Predict the memory of an exact table with `size` entries, `key_len` key bytes, `data_len`
/// action-data bytes at an expected fill of `fill_pct` percent (0 = 100), with the memory model of
/// Simon et al., "High-Performance Match-Action Table Updates from within Programmable Software
/// Data Planes" (Eq. 2 and 4) recomputed for p4dp's layout (runtime `p4dp_table_mem_predict`). Pure; needs no EAL.
pub fn table_mem_predict(size: u32, key_len: u32, data_len: u32, fill_pct: u32) -> Result<TableMem> {
    // the C function sets no message: say what it rejects
    if key_len == 0 || key_len > 1024 || data_len > 65536 || fill_pct > 100 {
        return Err(Error::Runtime {
            op: "table memory prediction",
            errno: 22,
            msg: format!(
                "key of {key_len} bytes (must be 1..=1024), action data of {data_len} bytes (<= 65536), fill {fill_pct}% (<= 100)"
            ),
        });
    }
    let mut m = ffi::p4dp_table_mem::default();
    // SAFETY: m is a valid output struct; the function is pure.
    let rc = unsafe { ffi::p4dp_table_mem_predict(size, key_len, data_len, fill_pct, &mut m) };
    check("table memory prediction", rc)?;
    Ok(TableMem {
        hash_bytes: m.hash_bytes,
        static_bytes: m.static_bytes,
        dynamic_bytes: m.dynamic_bytes,
        slot_bytes: m.slot_bytes,
        dyn_entry_bytes: m.dyn_entry_bytes,
        static_storage: m.choice == 1,
    })
}

/// The entries from which a later staged table is looked up in bulk ahead of the packets
/// (runtime `p4dp_table_stage_ahead_min`: the environment's `P4DP_STAGE_AHEAD_MIN`, else 32,768;
/// ARCHITECTURE.md "Later staged tables"). A smaller one is looked up where it is applied, one
/// packet at a time. Needs no EAL.
pub fn stage_ahead_min_entries() -> u64 {
    // SAFETY: reads the environment only.
    unsafe { ffi::p4dp_table_stage_ahead_min() }
}

unsafe extern "C" fn collect_idle(
    arg: *mut c_void,
    table: u32,
    e: *const ffi::p4dp_rt_entry,
    time_ns: u64,
    idle_ns: u64,
) -> c_int {
    // SAFETY: arg is the &mut Vec<IdleNotification> passed by idle_poll for the duration of the call.
    let v = unsafe { &mut *(arg as *mut Vec<IdleNotification>) };
    if let Some(e) = unsafe { e.as_ref() } {
        v.push(IdleNotification {
            table,
            entry: unsafe { entry_from_raw(e) },
            time_ns,
            idle_ns,
        });
    }
    0
}

/// A loaded program. All methods take `&self`: the C control API is thread-safe (table writes
/// are serialized per table); [`Runtime::inject`] is serialized by an internal mutex.
pub struct Runtime {
    rt: NonNull<ffi::p4dp_runtime>,
    program: Program,
    inject_lock: Mutex<()>,
    _log: Option<Box<Box<LogFn>>>,
}

// SAFETY: the C runtime's control functions are documented thread-safe with respect to each
// other (mutexes inside); inject, which is not, is serialized by `inject_lock`.
unsafe impl Send for Runtime {}
unsafe impl Sync for Runtime {}

unsafe extern "C" fn log_trampoline(arg: *mut c_void, level: c_int, msg: *const c_char) {
    if arg.is_null() || msg.is_null() {
        return;
    }
    // SAFETY: arg is the Box<Box<LogFn>> owned by the Runtime, alive while the runtime is.
    let f = unsafe { &*(arg as *const Box<LogFn>) };
    let m = unsafe { CStr::from_ptr(msg) }.to_string_lossy();
    let l = match level {
        0 => LogLevel::Error,
        1 => LogLevel::Warning,
        _ => LogLevel::Info,
    };
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(l, &m)));
}

/// Owned C form of an entry; the pointers in `entry` point into the vectors.
pub(crate) struct RawEntry {
    _keys: Vec<ffi::p4dp_rt_key>,
    _params: Vec<ffi::p4dp_rt_param>,
    pub(crate) entry: ffi::p4dp_rt_entry,
}

fn len32(v: &[u8]) -> Result<u32> {
    u32::try_from(v.len()).map_err(|_| Error::Invalid("value longer than 4 GiB".into()))
}

/// A match field with no type and no values, which the conversions fill in.
pub(crate) const NO_KEY: ffi::p4dp_rt_key = ffi::p4dp_rt_key {
    type_: 0,
    prefix_len: 0,
    value: std::ptr::null(),
    value_len: 0,
    value2: std::ptr::null(),
    value2_len: 0,
};

fn raw_key(m: &MatchField) -> Result<ffi::p4dp_rt_key> {
    let mut k = NO_KEY;
    match m {
        MatchField::Exact(v) => {
            k.type_ = 0;
            k.value = v.as_ptr();
            k.value_len = len32(v)?;
        }
        MatchField::Lpm(v, p) => {
            k.type_ = 1;
            k.value = v.as_ptr();
            k.value_len = len32(v)?;
            k.prefix_len = *p;
        }
        MatchField::Ternary(v, m) => {
            k.type_ = 2;
            k.value = v.as_ptr();
            k.value_len = len32(v)?;
            k.value2 = m.as_ptr();
            k.value2_len = len32(m)?;
        }
        MatchField::Range(lo, hi) => {
            k.type_ = 3;
            k.value = lo.as_ptr();
            k.value_len = len32(lo)?;
            k.value2 = hi.as_ptr();
            k.value2_len = len32(hi)?;
        }
        MatchField::Optional(v) => {
            k.type_ = 4;
            if let Some(v) = v {
                k.value = v.as_ptr();
                k.value_len = len32(v)?;
            }
        }
        MatchField::DontCare => k.type_ = ffi::P4DP_RT_KEY_DONT_CARE,
    }
    Ok(k)
}

pub(crate) fn raw_params(params: &[Vec<u8>]) -> Result<Vec<ffi::p4dp_rt_param>> {
    params
        .iter()
        .map(|p| {
            Ok(ffi::p4dp_rt_param {
                value: p.as_ptr(),
                len: len32(p)?,
            })
        })
        .collect()
}

pub(crate) fn raw_entry(matches: &[MatchField], priority: i32, action: u32, params: &[Vec<u8>]) -> Result<RawEntry> {
    let keys = matches.iter().map(raw_key).collect::<Result<Vec<_>>>()?;
    let params = raw_params(params)?;
    let entry = ffi::p4dp_rt_entry {
        n_keys: keys.len() as u32,
        keys: keys.as_ptr(),
        priority,
        action,
        n_params: params.len() as u32,
        params: params.as_ptr(),
    };
    Ok(RawEntry {
        _keys: keys,
        _params: params,
        entry,
    })
}

/// # Safety
/// `p` must point to `n` valid bytes (or n == 0).
unsafe fn bytes(p: *const u8, n: u32) -> Vec<u8> {
    if n == 0 || p.is_null() {
        Vec::new()
    } else {
        unsafe { std::slice::from_raw_parts(p, n as usize) }.to_vec()
    }
}

/// Convert an entry handed to a callback by the runtime.
///
/// # Safety
/// `e` must be a valid entry as passed to `p4dp_rt_entry_cb`.
pub(crate) unsafe fn entry_from_raw(e: &ffi::p4dp_rt_entry) -> TableEntry {
    let keys: &[ffi::p4dp_rt_key] = if e.n_keys == 0 {
        &[]
    } else {
        unsafe { std::slice::from_raw_parts(e.keys, e.n_keys as usize) }
    };
    let params: &[ffi::p4dp_rt_param] = if e.n_params == 0 {
        &[]
    } else {
        unsafe { std::slice::from_raw_parts(e.params, e.n_params as usize) }
    };
    let matches = keys
        .iter()
        .map(|k| unsafe {
            let v = bytes(k.value, k.value_len);
            match k.type_ {
                0 => MatchField::Exact(v),
                1 => MatchField::Lpm(v, k.prefix_len),
                2 => MatchField::Ternary(v, bytes(k.value2, k.value2_len)),
                3 => MatchField::Range(v, bytes(k.value2, k.value2_len)),
                4 => MatchField::Optional(if k.value_len == 0 { None } else { Some(v) }),
                _ => MatchField::DontCare,
            }
        })
        .collect();
    TableEntry {
        matches,
        priority: e.priority,
        action: e.action,
        params: params.iter().map(|p| unsafe { bytes(p.value, p.len) }).collect(),
    }
}

pub(crate) unsafe extern "C" fn collect_entry(arg: *mut c_void, e: *const ffi::p4dp_rt_entry) -> c_int {
    // SAFETY: arg is the &mut Vec<TableEntry> passed by the caller for the duration of the call.
    let v = unsafe { &mut *(arg as *mut Vec<TableEntry>) };
    if let Some(e) = unsafe { e.as_ref() } {
        v.push(unsafe { entry_from_raw(e) });
    }
    0
}

unsafe extern "C" fn collect_output(arg: *mut c_void, port: u32, data: *const u8, len: u32) {
    // SAFETY: arg is the &mut Vec passed by inject for the duration of the call.
    let v = unsafe { &mut *(arg as *mut Vec<(u32, Vec<u8>)>) };
    v.push((port, unsafe { bytes(data, len) }));
}

unsafe extern "C" fn collect_digest(arg: *mut c_void, worker: u32, data: *const u8, len: u32) {
    // SAFETY: arg is the &mut Vec passed by digest_poll for the duration of the call.
    let v = unsafe { &mut *(arg as *mut Vec<(u32, Vec<u8>)>) };
    v.push((worker, unsafe { bytes(data, len) }));
}

impl Runtime {
    /// Load a compiled program (`.so`) and create its tables and externs.
    pub fn load(so_path: &Path, options: RuntimeOptions) -> Result<Runtime> {
        if !Eal::initialized() {
            return Err(Error::EalNotInitialized);
        }
        let path = CString::new(so_path.as_os_str().as_encoded_bytes())
            .map_err(|_| Error::NulByte { what: "program path" })?;
        let log: Option<Box<Box<LogFn>>> = options.log.map(Box::new);
        let log_arg = log
            .as_ref()
            .map_or(std::ptr::null_mut(), |b| &**b as *const Box<LogFn> as *mut c_void);
        let params = ffi::p4dp_runtime_params {
            program_path: path.as_ptr(),
            max_workers: options.max_workers,
            digest_qlen: options.digest_qlen,
            n_mbufs: options.n_mbufs,
            socket_id: options.socket_id,
            log_fn: if log.is_some() { Some(log_trampoline) } else { None },
            log_arg,
        };
        let mut rt = std::ptr::null_mut();
        // SAFETY: params and path are valid for the call; rt receives the runtime.
        check("load program", unsafe { ffi::p4dp_runtime_create(&params, &mut rt) })?;
        let rt = NonNull::new(rt).ok_or_else(|| Error::Invalid("runtime_create returned NULL".into()))?;
        // SAFETY: the program of a live runtime, validated by it.
        let program = unsafe { schema::from_raw(&*ffi::p4dp_runtime_program_get(rt.as_ptr())) };
        Ok(Runtime {
            rt,
            program,
            inject_lock: Mutex::new(()),
            _log: log,
        })
    }

    pub(crate) fn p(&self) -> *mut ffi::p4dp_runtime {
        self.rt.as_ptr()
    }

    /// The program's schema.
    pub fn program(&self) -> &Program {
        &self.program
    }

    /// Index of the table named `name`.
    pub fn table_index(&self, name: &str) -> Result<u32> {
        self.program
            .table(name)
            .map(|t| t.index)
            .ok_or_else(|| Error::UnknownTable(name.to_string()))
    }

    /// Index of the extern named `name`.
    pub fn extern_index(&self, name: &str) -> Result<u32> {
        self.program
            .extern_(name)
            .map(|x| x.index)
            .ok_or_else(|| Error::UnknownExtern(name.to_string()))
    }

    /// Index of the action named `name`.
    pub fn action_index(&self, name: &str) -> Result<u32> {
        self.program
            .action(name)
            .map(|a| a.index)
            .ok_or_else(|| Error::Invalid(format!("no action named '{name}'")))
    }

    // ---------------------------------------------------------------- tables

    pub fn entry_add(&self, table: u32, e: &TableEntry) -> Result<()> {
        let r = raw_entry(&e.matches, e.priority, e.action, &e.params)?;
        // SAFETY: r.entry points into r's vectors, valid for the call.
        check("table add", unsafe {
            ffi::p4dp_runtime_table_entry_add(self.p(), table, &r.entry)
        })
        .map(|_| ())
    }

    pub fn entry_modify(&self, table: u32, e: &TableEntry) -> Result<()> {
        let r = raw_entry(&e.matches, e.priority, e.action, &e.params)?;
        // SAFETY: as entry_add.
        check("table modify", unsafe {
            ffi::p4dp_runtime_table_entry_modify(self.p(), table, &r.entry)
        })
        .map(|_| ())
    }

    pub fn entry_delete(&self, table: u32, matches: &[MatchField], priority: i32) -> Result<()> {
        let r = raw_entry(matches, priority, 0, &[])?;
        // SAFETY: as entry_add.
        check("table delete", unsafe {
            ffi::p4dp_runtime_table_entry_delete(self.p(), table, &r.entry)
        })
        .map(|_| ())
    }

    /// The installed entry with this match.
    pub fn entry_get(&self, table: u32, matches: &[MatchField], priority: i32) -> Result<TableEntry> {
        let r = raw_entry(matches, priority, 0, &[])?;
        let mut out: Vec<TableEntry> = Vec::new();
        // SAFETY: the callback only pushes into `out`, which outlives the call.
        check("table get", unsafe {
            ffi::p4dp_runtime_table_entry_get(
                self.p(),
                table,
                &r.entry,
                collect_entry,
                &mut out as *mut _ as *mut c_void,
            )
        })?;
        out.pop()
            .ok_or_else(|| Error::Invalid("table get returned no entry".into()))
    }

    /// Every installed entry (including the program's const entries), in no particular order.
    pub fn entries(&self, table: u32) -> Result<Vec<TableEntry>> {
        let mut out: Vec<TableEntry> = Vec::new();
        // SAFETY: as entry_get.
        check("table read", unsafe {
            ffi::p4dp_runtime_table_read(self.p(), table, collect_entry, &mut out as *mut _ as *mut c_void)
        })?;
        Ok(out)
    }

    pub fn table_clear(&self, table: u32) -> Result<()> {
        // SAFETY: plain call.
        check("table clear", unsafe { ffi::p4dp_runtime_table_clear(self.p(), table) }).map(|_| ())
    }

    pub fn default_set(&self, table: u32, action: u32, params: &[Vec<u8>]) -> Result<()> {
        let ps = raw_params(params)?;
        // SAFETY: ps points into `params`, valid for the call.
        check("set default action", unsafe {
            ffi::p4dp_runtime_table_default_set(self.p(), table, action, ps.len() as u32, ps.as_ptr())
        })
        .map(|_| ())
    }

    /// Current default action and its parameters.
    pub fn default_get(&self, table: u32) -> Result<(u32, Vec<Vec<u8>>)> {
        let mut out: Vec<TableEntry> = Vec::new();
        // SAFETY: as entry_get.
        check("get default action", unsafe {
            ffi::p4dp_runtime_table_default_get(self.p(), table, collect_entry, &mut out as *mut _ as *mut c_void)
        })?;
        let e = out
            .pop()
            .ok_or_else(|| Error::Invalid("no default entry returned".into()))?;
        Ok((e.action, e.params))
    }

    pub fn default_reset(&self, table: u32) -> Result<()> {
        // SAFETY: plain call.
        check("reset default action", unsafe {
            ffi::p4dp_runtime_table_default_reset(self.p(), table)
        })
        .map(|_| ())
    }

    pub fn table_stats(&self, table: u32) -> Result<TableStats> {
        table_stats_of(self.p(), table)
    }

    // ---------------------------------------------------------------- externs

    pub fn counter_read(&self, ext: u32, index: u32) -> Result<CounterValue> {
        let mut c = ffi::p4dp_counter_cell::default();
        // SAFETY: c is a valid output struct.
        check("counter read", unsafe {
            ffi::p4dp_runtime_counter_read(self.p(), ext, index, &mut c)
        })?;
        Ok(CounterValue {
            packets: c.packets,
            bytes: c.bytes,
        })
    }

    /// Cell `index` of rtc.p4 `Counter` `ext` (any thread; a relaxed atomic load).
    pub fn rtc_counter_get(&self, ext: u32, index: u32) -> Result<u64> {
        let mut v = 0u64;
        // SAFETY: v is a valid output.
        check("rtc counter get", unsafe {
            ffi::p4dp_runtime_rtc_counter_get(self.p(), ext, index, &mut v)
        })?;
        Ok(v)
    }

    /// Set cell `index` of rtc.p4 `Counter` `ext` (a relaxed atomic store).
    pub fn rtc_counter_set(&self, ext: u32, index: u32, value: u64) -> Result<()> {
        // SAFETY: live runtime; plain values.
        check("rtc counter set", unsafe {
            ffi::p4dp_runtime_rtc_counter_set(self.p(), ext, index, value)
        })
        .map(|_| ())
    }

    /// Depth, message size, queued messages and refused pushes of rtc.p4 `Queue` `ext`.
    pub fn rtc_queue_stats(&self, ext: u32) -> Result<RtcQueueStats> {
        let mut q = ffi::p4dp_rt_rtc_queue_stats::default();
        // SAFETY: q is a valid output struct.
        check("rtc queue stats", unsafe {
            ffi::p4dp_runtime_rtc_queue_stats_get(self.p(), ext, &mut q)
        })?;
        Ok(RtcQueueStats {
            depth: q.depth,
            elem_size: q.elem_size,
            queued: q.queued,
            full_drops: q.full_drops,
        })
    }

    /// Whether lock `index` of rtc.p4 `Lock` `ext` is held now (a snapshot).
    pub fn rtc_lock_held(&self, ext: u32, index: u32) -> Result<bool> {
        let mut h = 0u32;
        // SAFETY: h is a valid output.
        check("rtc lock get", unsafe {
            ffi::p4dp_runtime_rtc_lock_get(self.p(), ext, index, &mut h)
        })?;
        Ok(h != 0)
    }

    pub fn counter_write(&self, ext: u32, index: u32, v: CounterValue) -> Result<()> {
        let c = ffi::p4dp_counter_cell {
            packets: v.packets,
            bytes: v.bytes,
        };
        // SAFETY: c is valid for the call.
        check("counter write", unsafe {
            ffi::p4dp_runtime_counter_write(self.p(), ext, index, &c)
        })
        .map(|_| ())
    }

    pub fn counter_reset(&self, ext: u32) -> Result<()> {
        // SAFETY: plain call.
        check("counter reset", unsafe {
            ffi::p4dp_runtime_counter_reset(self.p(), ext)
        })
        .map(|_| ())
    }

    pub fn direct_counter_read(&self, table: u32, matches: &[MatchField], priority: i32) -> Result<CounterValue> {
        let r = raw_entry(matches, priority, 0, &[])?;
        self.direct_counter_read_at(table, &r.entry)
    }

    /// The direct counter cell of the table's default entry: the packets that missed.
    pub fn default_counter_read(&self, table: u32) -> Result<CounterValue> {
        self.direct_counter_read_at(table, std::ptr::null())
    }

    /// `e`: an entry's match, or NULL for the default entry's cell.
    fn direct_counter_read_at(&self, table: u32, e: *const ffi::p4dp_rt_entry) -> Result<CounterValue> {
        let mut c = ffi::p4dp_counter_cell::default();
        // SAFETY: e is NULL or valid for the call, c is a valid output.
        check("direct counter read", unsafe {
            ffi::p4dp_runtime_direct_counter_read(self.p(), table, e, &mut c)
        })?;
        Ok(CounterValue {
            packets: c.packets,
            bytes: c.bytes,
        })
    }

    /// Sets the direct counter cell of the table's default entry.
    pub fn default_counter_write(&self, table: u32, v: CounterValue) -> Result<()> {
        let c = ffi::p4dp_counter_cell {
            packets: v.packets,
            bytes: v.bytes,
        };
        // SAFETY: NULL selects the default entry; c is valid for the call.
        check("direct counter write", unsafe {
            ffi::p4dp_runtime_direct_counter_write(self.p(), table, std::ptr::null(), &c)
        })
        .map(|_| ())
    }

    pub fn direct_counter_write(
        &self,
        table: u32,
        matches: &[MatchField],
        priority: i32,
        v: CounterValue,
    ) -> Result<()> {
        let r = raw_entry(matches, priority, 0, &[])?;
        let c = ffi::p4dp_counter_cell {
            packets: v.packets,
            bytes: v.bytes,
        };
        // SAFETY: r and c are valid for the call.
        check("direct counter write", unsafe {
            ffi::p4dp_runtime_direct_counter_write(self.p(), table, &r.entry, &c)
        })
        .map(|_| ())
    }

    /// Register cell as ceil(bitwidth/8) big-endian bytes.
    pub fn register_read(&self, ext: u32, index: u32) -> Result<Vec<u8>> {
        let width = self
            .program
            .externs
            .get(ext as usize)
            .map(|x| x.bitwidth.div_ceil(8) as usize)
            .ok_or_else(|| Error::Invalid(format!("extern index {ext} out of range")))?;
        let mut buf = vec![0u8; width.max(1)];
        // SAFETY: buf has buf.len() writable bytes.
        let n = check("register read", unsafe {
            ffi::p4dp_runtime_register_read(self.p(), ext, index, buf.as_mut_ptr(), buf.len() as u32)
        })?;
        buf.truncate(n as usize);
        Ok(buf)
    }

    pub fn register_write(&self, ext: u32, index: u32, value: &[u8]) -> Result<()> {
        // SAFETY: value is valid for the call.
        check("register write", unsafe {
            ffi::p4dp_runtime_register_write(self.p(), ext, index, value.as_ptr(), len32(value)?)
        })
        .map(|_| ())
    }

    pub fn register_reset(&self, ext: u32) -> Result<()> {
        // SAFETY: plain call.
        check("register reset", unsafe {
            ffi::p4dp_runtime_register_reset(self.p(), ext)
        })
        .map(|_| ())
    }

    /// Configure a meter cell (`None` unconfigures it: GREEN).
    pub fn meter_set(&self, ext: u32, index: u32, cfg: Option<MeterConfig>) -> Result<()> {
        let c = cfg.map(|c| ffi::p4dp_meter_config {
            cir: c.cir,
            cburst: c.cburst,
            pir: c.pir,
            pburst: c.pburst,
            eburst: c.eburst,
        });
        let ptr = c.as_ref().map_or(std::ptr::null(), |c| c as *const _);
        // SAFETY: ptr is NULL or valid for the call.
        check("meter set", unsafe {
            ffi::p4dp_runtime_meter_set(self.p(), ext, index, ptr)
        })
        .map(|_| ())
    }

    pub fn meter_get(&self, ext: u32, index: u32) -> Result<Option<MeterConfig>> {
        let mut c = ffi::p4dp_meter_config::default();
        // SAFETY: c is a valid output struct.
        let rc = check("meter get", unsafe {
            ffi::p4dp_runtime_meter_get(self.p(), ext, index, &mut c)
        })?;
        Ok((rc == 1).then_some(MeterConfig {
            cir: c.cir,
            cburst: c.cburst,
            pir: c.pir,
            pburst: c.pburst,
            eburst: c.eburst,
        }))
    }

    pub fn direct_meter_set(
        &self,
        table: u32,
        matches: &[MatchField],
        priority: i32,
        cfg: Option<MeterConfig>,
    ) -> Result<()> {
        let r = raw_entry(matches, priority, 0, &[])?;
        self.direct_meter_set_at(table, &r.entry, cfg)
    }

    /// Configures the direct meter cell of the table's default entry, which meters the packets
    /// that miss (`None` unconfigures it: GREEN).
    pub fn default_meter_set(&self, table: u32, cfg: Option<MeterConfig>) -> Result<()> {
        self.direct_meter_set_at(table, std::ptr::null(), cfg)
    }

    /// `e`: an entry's match, or NULL for the default entry's cell.
    fn direct_meter_set_at(&self, table: u32, e: *const ffi::p4dp_rt_entry, cfg: Option<MeterConfig>) -> Result<()> {
        let c = cfg.map(|c| ffi::p4dp_meter_config {
            cir: c.cir,
            cburst: c.cburst,
            pir: c.pir,
            pburst: c.pburst,
            eburst: c.eburst,
        });
        let ptr = c.as_ref().map_or(std::ptr::null(), |c| c as *const _);
        // SAFETY: e and ptr are NULL or valid for the call.
        check("direct meter set", unsafe {
            ffi::p4dp_runtime_direct_meter_set(self.p(), table, e, ptr)
        })
        .map(|_| ())
    }

    /// The configuration of an entry's direct meter cell (`None`: unconfigured).
    pub fn direct_meter_get(&self, table: u32, matches: &[MatchField], priority: i32) -> Result<Option<MeterConfig>> {
        let r = raw_entry(matches, priority, 0, &[])?;
        self.direct_meter_get_at(table, &r.entry)
    }

    /// The configuration of the default entry's direct meter cell (`None`: unconfigured).
    pub fn default_meter_get(&self, table: u32) -> Result<Option<MeterConfig>> {
        self.direct_meter_get_at(table, std::ptr::null())
    }

    /// `e`: an entry's match, or NULL for the default entry's cell.
    fn direct_meter_get_at(&self, table: u32, e: *const ffi::p4dp_rt_entry) -> Result<Option<MeterConfig>> {
        let mut c = ffi::p4dp_meter_config::default();
        // SAFETY: e is NULL or valid for the call, c is a valid output.
        let rc = check("direct meter get", unsafe {
            ffi::p4dp_runtime_direct_meter_get(self.p(), table, e, &mut c)
        })?;
        Ok((rc == 1).then_some(MeterConfig {
            cir: c.cir,
            cburst: c.cburst,
            pir: c.pir,
            pburst: c.pburst,
            eburst: c.eburst,
        }))
    }

    /// The per-colour counts of a meter cell (indexed or direct meter).
    pub fn meter_counts_read(&self, ext: u32, index: u32) -> Result<MeterCounts> {
        let mut k = ffi::p4dp_meter_counts::default();
        // SAFETY: k is a valid output struct.
        check("meter counts read", unsafe {
            ffi::p4dp_runtime_meter_counts_read(self.p(), ext, index, &mut k)
        })?;
        Ok(MeterCounts::of_ffi(&k))
    }

    /// Sets the per-colour counts of a meter cell.
    pub fn meter_counts_write(&self, ext: u32, index: u32, v: MeterCounts) -> Result<()> {
        let k = v.to_ffi();
        // SAFETY: k is valid for the call.
        check("meter counts write", unsafe {
            ffi::p4dp_runtime_meter_counts_write(self.p(), ext, index, &k)
        })
        .map(|_| ())
    }

    /// The per-colour counts of an entry's direct meter cell.
    pub fn direct_meter_counts_read(&self, table: u32, matches: &[MatchField], priority: i32) -> Result<MeterCounts> {
        let r = raw_entry(matches, priority, 0, &[])?;
        self.direct_meter_counts_read_at(table, &r.entry)
    }

    /// The per-colour counts of the default entry's direct meter cell (the packets that missed).
    pub fn default_meter_counts_read(&self, table: u32) -> Result<MeterCounts> {
        self.direct_meter_counts_read_at(table, std::ptr::null())
    }

    /// `e`: an entry's match, or NULL for the default entry's cell.
    fn direct_meter_counts_read_at(&self, table: u32, e: *const ffi::p4dp_rt_entry) -> Result<MeterCounts> {
        let mut k = ffi::p4dp_meter_counts::default();
        // SAFETY: e is NULL or valid for the call, k is a valid output.
        check("direct meter counts read", unsafe {
            ffi::p4dp_runtime_direct_meter_counts_read(self.p(), table, e, &mut k)
        })?;
        Ok(MeterCounts::of_ffi(&k))
    }

    /// Sets the per-colour counts of an entry's direct meter cell.
    pub fn direct_meter_counts_write(
        &self,
        table: u32,
        matches: &[MatchField],
        priority: i32,
        v: MeterCounts,
    ) -> Result<()> {
        let r = raw_entry(matches, priority, 0, &[])?;
        self.direct_meter_counts_write_at(table, &r.entry, v)
    }

    /// Sets the per-colour counts of the default entry's direct meter cell.
    pub fn default_meter_counts_write(&self, table: u32, v: MeterCounts) -> Result<()> {
        self.direct_meter_counts_write_at(table, std::ptr::null(), v)
    }

    /// `e`: an entry's match, or NULL for the default entry's cell.
    fn direct_meter_counts_write_at(&self, table: u32, e: *const ffi::p4dp_rt_entry, v: MeterCounts) -> Result<()> {
        let k = v.to_ffi();
        // SAFETY: e is NULL or valid for the call, k is valid for the call.
        check("direct meter counts write", unsafe {
            ffi::p4dp_runtime_direct_meter_counts_write(self.p(), table, e, &k)
        })
        .map(|_| ())
    }

    /// Queued digest messages (worker, native-layout bytes), at most `max` (0 = all).
    pub fn digest_poll(&self, ext: u32, max: u32) -> Result<Vec<(u32, Vec<u8>)>> {
        let mut out: Vec<(u32, Vec<u8>)> = Vec::new();
        // SAFETY: the callback only pushes into `out`.
        check("digest poll", unsafe {
            ffi::p4dp_runtime_digest_poll(self.p(), ext, collect_digest, &mut out as *mut _ as *mut c_void, max)
        })?;
        Ok(out)
    }

    pub fn digest_drops(&self, ext: u32) -> Result<u64> {
        // SAFETY: plain call.
        let n = unsafe { ffi::p4dp_runtime_digest_drops_get(self.p(), ext) };
        if n < 0 {
            check("digest drops", n as c_int)?;
        }
        Ok(n as u64)
    }

    // ---------------------------------------------------------------- PRE

    pub fn mcast_group_create(&self, group: u32) -> Result<()> {
        // SAFETY: plain call.
        check("multicast group create", unsafe {
            ffi::p4dp_runtime_mcast_group_create(self.p(), group)
        })
        .map(|_| ())
    }

    pub fn mcast_group_delete(&self, group: u32) -> Result<()> {
        // SAFETY: plain call.
        check("multicast group delete", unsafe {
            ffi::p4dp_runtime_mcast_group_delete(self.p(), group)
        })
        .map(|_| ())
    }

    /// Create a node (replication id, ports); returns its handle.
    pub fn mcast_node_create(&self, rid: u16, ports: &[u32]) -> Result<u32> {
        let mut h = 0u32;
        // SAFETY: ports is valid for the call; h is a valid output.
        check("multicast node create", unsafe {
            ffi::p4dp_runtime_mcast_node_create(self.p(), rid, ports.as_ptr(), ports.len() as u32, &mut h)
        })?;
        Ok(h)
    }

    pub fn mcast_node_delete(&self, handle: u32) -> Result<()> {
        // SAFETY: plain call.
        check("multicast node delete", unsafe {
            ffi::p4dp_runtime_mcast_node_delete(self.p(), handle)
        })
        .map(|_| ())
    }

    pub fn mcast_node_associate(&self, group: u32, handle: u32) -> Result<()> {
        // SAFETY: plain call.
        check("multicast node associate", unsafe {
            ffi::p4dp_runtime_mcast_node_associate(self.p(), group, handle)
        })
        .map(|_| ())
    }

    pub fn mcast_node_dissociate(&self, group: u32, handle: u32) -> Result<()> {
        // SAFETY: plain call.
        check("multicast node dissociate", unsafe {
            ffi::p4dp_runtime_mcast_node_dissociate(self.p(), group, handle)
        })
        .map(|_| ())
    }

    /// P4Runtime-style replicas (port, rid) of a group, created if needed.
    pub fn mcast_group_set(&self, group: u32, replicas: &[(u32, u16)]) -> Result<()> {
        let ports: Vec<u32> = replicas.iter().map(|r| r.0).collect();
        let rids: Vec<u16> = replicas.iter().map(|r| r.1).collect();
        // SAFETY: both arrays hold replicas.len() elements.
        check("multicast group set", unsafe {
            ffi::p4dp_runtime_mcast_group_set(self.p(), group, ports.as_ptr(), rids.as_ptr(), ports.len() as u32)
        })
        .map(|_| ())
    }

    /// A clone session's replicas (port, instance) in clone order and the clones' truncation
    /// length in bytes (0: none); creates the session or replaces it.
    pub fn clone_session_set(&self, session: u32, replicas: &[(u32, u16)], trunc: u32) -> Result<()> {
        let ports: Vec<u32> = replicas.iter().map(|r| r.0).collect();
        let rids: Vec<u16> = replicas.iter().map(|r| r.1).collect();
        // SAFETY: both arrays hold replicas.len() elements.
        check("clone session set", unsafe {
            ffi::p4dp_runtime_clone_session_set(
                self.p(),
                session,
                ports.as_ptr(),
                rids.as_ptr(),
                ports.len() as u32,
                trunc,
            )
        })
        .map(|_| ())
    }

    /// A multicast group's replicas with their backups (P4Runtime), created if needed.
    pub fn mcast_group_set_replicas(&self, group: u32, replicas: &[Replica]) -> Result<()> {
        let v = replicas_flat(replicas);
        // SAFETY: v holds v.len() elements.
        check("multicast group set", unsafe {
            ffi::p4dp_runtime_mcast_group_set_replicas(self.p(), group, v.as_ptr(), v.len() as u32)
        })
        .map(|_| ())
    }

    /// A clone session's replicas with their backups in clone order, the clones' truncation
    /// length in bytes (0: none) and class of service (v1model: the clones' priority).
    pub fn clone_session_set_replicas(&self, session: u32, replicas: &[Replica], trunc: u32, cos: u8) -> Result<()> {
        let v = replicas_flat(replicas);
        // SAFETY: v holds v.len() elements.
        check("clone session set", unsafe {
            ffi::p4dp_runtime_clone_session_set_replicas(self.p(), session, v.as_ptr(), v.len() as u32, trunc, cos)
        })
        .map(|_| ())
    }

    /// Takes port number `port` down (`up` false) or brings it up again (the operator's admin
    /// state): replicas move to their backups, selector members watching it are left out.
    pub fn port_admin_set(&self, port: u32, up: bool) -> Result<()> {
        // SAFETY: plain call.
        check("port admin state", unsafe {
            ffi::p4dp_runtime_port_admin_set(self.p(), port, c_int::from(up))
        })
        .map(|_| ())
    }

    /// The liveness of port number `port`.
    pub fn port_state(&self, port: u32) -> Result<PortState> {
        let mut st = ffi::p4dp_rt_port_state::default();
        // SAFETY: st is a valid output struct.
        check("port state", unsafe {
            ffi::p4dp_runtime_port_state_get(self.p(), port, &mut st)
        })?;
        Ok(PortState {
            admin_up: st.admin_up != 0,
            link_up: st.link_up != 0,
        })
    }

    /// Points a clone session at a multicast group: the clones are the group's replicas at the
    /// time a packet is cloned (BMv2's `mirroring_add_mc`); creates the session or replaces it.
    pub fn clone_session_set_group(&self, session: u32, group: u32, trunc: u32) -> Result<()> {
        // SAFETY: plain call.
        check("clone session set group", unsafe {
            ffi::p4dp_runtime_clone_session_set_group(self.p(), session, group, trunc)
        })
        .map(|_| ())
    }

    pub fn clone_session_delete(&self, session: u32) -> Result<()> {
        // SAFETY: plain call.
        check("clone session delete", unsafe {
            ffi::p4dp_runtime_clone_session_delete(self.p(), session)
        })
        .map(|_| ())
    }

    // ---------------------------------------------------------------- packets

    /// Process one packet to completion; returns every output (port, bytes) in emission order.
    pub fn inject(&self, port: u32, packet: &[u8]) -> Result<Vec<(u32, Vec<u8>)>> {
        let _g = self.inject_lock.lock().unwrap_or_else(|e| e.into_inner());
        let mut out: Vec<(u32, Vec<u8>)> = Vec::new();
        // SAFETY: packet is valid for the call; the callback only pushes into `out`.
        check("inject", unsafe {
            ffi::p4dp_runtime_packet_inject(
                self.p(),
                port,
                packet.as_ptr(),
                len32(packet)?,
                collect_output,
                &mut out as *mut _ as *mut c_void,
            )
        })?;
        Ok(out)
    }

    /// Run background pipeline `name` (rtc.p4) `n` times at the simulated clock; returns every
    /// packet it sent (port, bytes) in order (p4dp_runtime_background_run).
    pub fn background_run(&self, name: &str, n: u32) -> Result<Vec<(u32, Vec<u8>)>> {
        let _g = self.inject_lock.lock().unwrap_or_else(|e| e.into_inner());
        let cname = CString::new(name).map_err(|_| Error::NulByte {
            what: "background pipeline name",
        })?;
        let mut out: Vec<(u32, Vec<u8>)> = Vec::new();
        // SAFETY: cname lives for the call; the callback only pushes into `out`.
        check("background_run", unsafe {
            ffi::p4dp_runtime_background_run(
                self.p(),
                cname.as_ptr(),
                n,
                collect_output,
                &mut out as *mut _ as *mut c_void,
            )
        })?;
        Ok(out)
    }

    /// Make [`Runtime::inject`] take the workers' path instead of `process`: the program's
    /// `process_mbufs` if it has one, else `process_burst` (a burst of one packet); programs with
    /// neither are unaffected.
    pub fn set_inject_burst(&self, on: bool) {
        let _g = self.inject_lock.lock().unwrap_or_else(|e| e.into_inner());
        // SAFETY: serialized with inject by the lock; the runtime pointer is valid.
        let _ = unsafe { ffi::p4dp_runtime_packet_inject_burst_set(self.p(), on as c_int) };
    }

    /// Set the simulated clock (ns) used by [`Runtime::inject`].
    pub fn set_time(&self, ns: u64) {
        let _g = self.inject_lock.lock().unwrap_or_else(|e| e.into_inner());
        // SAFETY: serialized with inject by the lock.
        unsafe { ffi::p4dp_runtime_time_set(self.p(), ns) }
    }

    pub fn advance_time(&self, ns: u64) {
        let _g = self.inject_lock.lock().unwrap_or_else(|e| e.into_inner());
        // SAFETY: as set_time.
        unsafe { ffi::p4dp_runtime_time_advance(self.p(), ns) }
    }

    pub fn time(&self) -> u64 {
        // SAFETY: plain read.
        unsafe { ffi::p4dp_runtime_time_get(self.p()) }
    }

    pub fn stats(&self) -> Result<Stats> {
        let mut s = ffi::p4dp_rt_stats::default();
        // SAFETY: s is a valid output struct.
        check("stats", unsafe { ffi::p4dp_runtime_stats_get(self.p(), &mut s) })?;
        Ok(Stats {
            packets: s.packets,
            drops: s.drops,
            finish_errors: s.finish_errors,
            copies: s.copies,
            copy_errors: s.copy_errors,
            asserts: s.asserts,
            unsupported: s.unsupported,
            no_port: s.no_port,
            multiseg: s.multiseg,
            lock_revocations: s.lock_revocations,
            replicas_down: s.replicas_down,
            groups_down: s.groups_down,
        })
    }

    // ---------------------------------------------------------------- ports

    /// Attach a DPDK vdev (e.g. `net_pcap0,rx_pcap=in.pcap,tx_pcap=out.pcap`) as P4 port `port`.
    pub fn add_port(&self, port: u32, devargs: &str) -> Result<()> {
        let d = CString::new(devargs).map_err(|_| Error::NulByte { what: "devargs" })?;
        // SAFETY: d is valid for the call.
        check("add port", unsafe {
            ffi::p4dp_runtime_port_add(self.p(), port, d.as_ptr())
        })
        .map(|_| ())
    }

    /// Attach a ring port: P4 port `port` whose packets are exchanged with the control plane
    /// ([`Runtime::ring_port_send`], [`Runtime::ring_port_recv`]) instead of a device; each queue
    /// holds `qlen` packets (0: 1024).
    pub fn add_ring_port(&self, port: u32, qlen: u32) -> Result<()> {
        // SAFETY: plain call on a valid runtime.
        check("add ring port", unsafe {
            ffi::p4dp_runtime_ring_port_add(self.p(), port, qlen)
        })
        .map(|_| ())
    }

    /// Queue a packet that the workers receive on ring port `port`. Errors: ENOBUFS (queue full
    /// or no buffer), EAGAIN (before the first run), EINVAL (empty or too long), ENOENT.
    pub fn ring_port_send(&self, port: u32, packet: &[u8]) -> Result<()> {
        // SAFETY: packet is valid for the call (the runtime copies it).
        check("ring port send", unsafe {
            ffi::p4dp_runtime_ring_port_send(self.p(), port, packet.as_ptr(), len32(packet)?)
        })
        .map(|_| ())
    }

    /// Take up to `max` (0: all) packets the program sent to ring port `port`, oldest first.
    pub fn ring_port_recv(&self, port: u32, max: u32) -> Result<Vec<Vec<u8>>> {
        let mut out: Vec<(u32, Vec<u8>)> = Vec::new();
        // SAFETY: the callback only pushes into `out`, valid for the call.
        check("ring port receive", unsafe {
            ffi::p4dp_runtime_ring_port_recv(self.p(), port, collect_output, &mut out as *mut _ as *mut c_void, max)
        })?;
        Ok(out.into_iter().map(|(_, d)| d).collect())
    }

    /// Run workers on the ports until a stop condition holds (blocks the calling thread).
    pub fn run(&self, p: &RunParams) -> Result<()> {
        let ms = |d: Option<Duration>| d.map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX).max(1));
        let raw = ffi::p4dp_run_params {
            n_workers: p.n_workers,
            stop: p.stop.map_or(std::ptr::null(), |s| s.as_ptr() as *const c_int),
            duration_ms: ms(p.duration),
            until_input_done: p.until_input_done as c_int,
            idle_ms: u32::try_from(ms(p.idle)).unwrap_or(u32::MAX),
            dispatch: dispatch_raw(p.dispatch),
            flow_key_off: p.flow_key.map_or(0, |k| k.0),
            flow_key_len: p.flow_key.map_or(0, |k| k.1),
            n_background: p.n_background,
        };
        // SAFETY: raw (and the stop flag it points to) outlive the call.
        check("run", unsafe { ffi::p4dp_runtime_run(self.p(), &raw) }).map(|_| ())
    }

    /// Statistics of worker `worker` (< max workers).
    pub fn worker_stats(&self, worker: u32) -> Result<WorkerStats> {
        let mut s = ffi::p4dp_rt_worker_stats::default();
        // SAFETY: s is a valid output struct.
        check("worker stats", unsafe {
            ffi::p4dp_runtime_worker_stats_get(self.p(), worker, &mut s)
        })?;
        Ok(WorkerStats {
            packets: s.packets,
            rx_packets: s.rx_packets,
            dispatched_out: s.dispatched_out,
            dispatched_in: s.dispatched_in,
            dispatch_drops: s.dispatch_drops,
            loops: s.loops,
            rss: s.rss != 0,
        })
    }

    /// Set the duration of expire-time profile `profile` of `table` (0 = never expires).
    pub fn set_expire_profile(&self, table: u32, profile: u32, d: Duration) -> Result<()> {
        let ns = u64::try_from(d.as_nanos()).unwrap_or(u64::MAX);
        // SAFETY: plain values.
        check("expire profile", unsafe {
            ffi::p4dp_runtime_table_expire_profile_set(self.p(), table, profile, ns)
        })
        .map(|_| ())
    }

    /// The duration of expire-time profile `profile` of `table`.
    pub fn expire_profile(&self, table: u32, profile: u32) -> Result<Duration> {
        let mut ns = 0u64;
        // SAFETY: ns is a valid output.
        check("expire profile", unsafe {
            ffi::p4dp_runtime_table_expire_profile_get(self.p(), table, profile, &mut ns)
        })?;
        Ok(Duration::from_nanos(ns))
    }

    /// Run the expiry scan now (advance_time/set_time do this themselves). Returns the number of
    /// expired entries.
    pub fn idle_scan(&self) -> Result<u32> {
        // SAFETY: plain call.
        let n = check("idle scan", unsafe { ffi::p4dp_runtime_idle_scan(self.p()) })?;
        Ok(n as u32)
    }

    /// Take up to `max` (0 = all) queued idle-timeout notifications, oldest first.
    pub fn idle_poll(&self, max: u32) -> Result<Vec<IdleNotification>> {
        let mut v: Vec<IdleNotification> = Vec::new();
        // SAFETY: v outlives the call; collect_idle only pushes to it.
        check("idle poll", unsafe {
            ffi::p4dp_runtime_idle_poll(self.p(), collect_idle, &mut v as *mut _ as *mut c_void, max)
        })?;
        Ok(v)
    }

    /// Idle-timeout notifications dropped because the queue was full.
    pub fn idle_drops(&self) -> u64 {
        // SAFETY: plain call.
        unsafe { ffi::p4dp_runtime_idle_drops_get(self.p()) }
    }

    pub fn port_stats(&self, port: u32) -> Result<PortStats> {
        let mut s = ffi::p4dp_rt_port_stats::default();
        // SAFETY: s is a valid output struct.
        check("port stats", unsafe {
            ffi::p4dp_runtime_port_stats_get(self.p(), port, &mut s)
        })?;
        Ok(PortStats {
            rx_packets: s.rx_packets,
            rx_bytes: s.rx_bytes,
            tx_packets: s.tx_packets,
            tx_bytes: s.tx_bytes,
            drops: s.drops,
            tx_errors: s.tx_errors,
        })
    }
}

impl Drop for Runtime {
    fn drop(&mut self) {
        // SAFETY: we own the runtime; nothing else uses it after drop.
        unsafe { ffi::p4dp_runtime_free(self.rt.as_ptr()) }
    }
}
