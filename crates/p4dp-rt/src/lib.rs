//! p4dp-rt: safe Rust bindings to the p4dp C runtime (`runtime/`, `libp4dp_rt.so` on DPDK).
//!
//! The only crate that talks to the C runtime. [`Eal::init`] once per process, then
//! [`Runtime::load`] a compiled program (`prog.so`) and drive it: tables (big-endian byte strings
//! per field and parameter, as in P4Runtime), counters, registers, meters, digests, the v1model
//! packet replication engine, synchronous packet injection (STF) and DPDK ports with workers.
//!
//! Binaries linking this crate find `libp4dp_rt.so` through an rpath: this crate's own tests get
//! it from `build.rs`; a dependent binary crate must emit
//! `cargo:rustc-link-arg=-Wl,-rpath,$DEP_P4DP_RT_LIB_DIR` from its build script (see [`lib_dir`]).

mod actprof;
mod batch;
pub mod bench;
pub mod bench_acl;
pub mod bench_dp;
pub mod bench_lpm;
pub mod bench_rtc;
pub mod bench_trace;
pub mod clock;
mod ffi;
mod idle;
pub mod inspect;
mod packed;
mod runtime;
mod schema;
#[cfg(test)]
mod tests;
mod vset;

use std::ffi::{CStr, CString};
use std::os::raw::{c_char, c_int};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};

pub use actprof::{ProfileRef, REF_GROUP_ACTION, REF_MEMBER_ACTION};
pub use batch::BatchTimes;
pub use ffi::P4DP_STORAGE_F_LINEAR;
pub use idle::EntryIdle;
pub use packed::{PackedEntries, PackedKey, Span};
pub use runtime::{
    stage_ahead_min_entries, table_mem_predict, CounterValue, Dispatch, IdleNotification, LogLevel, MatchField,
    MeterConfig, MeterCounts, PortState, PortStats, Replica, RtcQueueStats, RunParams, Runtime, RuntimeOptions, Stats,
    TableEntry, TableMem, TableStats, WorkerStats,
};
pub use schema::{
    ActionInfo, ActionScope, ExternInfo, ExternKind, KeyInfo, MatchKind, MeterType, ParamInfo, Program, TableAction,
    TableInfo, Unit, ValueSetInfo,
};
pub use vset::ValueSetMember;

/// Egress port value meaning "drop".
pub const PORT_DROP: u32 = ffi::P4DP_PORT_DROP;

/// Most replicas of one clone session.
pub const CLONE_REPLICAS_MAX: u32 = ffi::P4DP_CLONE_REPLICAS_MAX;

/// Errors of the runtime API. `Runtime` errors carry the C runtime's negative errno and its
/// message (`p4dp_runtime_error_get`).
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{op}: {msg}")]
    Runtime { op: &'static str, errno: i32, msg: String },
    #[error("the DPDK EAL was already initialized in this process")]
    EalAlreadyInitialized,
    #[error("the DPDK EAL is not initialized (call Eal::init first)")]
    EalNotInitialized,
    #[error("{what} contains a NUL byte")]
    NulByte { what: &'static str },
    #[error("no table named '{0}'")]
    UnknownTable(String),
    #[error("no extern named '{0}'")]
    UnknownExtern(String),
    #[error("{0}")]
    Invalid(String),
}

impl Error {
    /// The errno (positive, e.g. `libc` EINVAL = 22) of a runtime error.
    pub fn errno(&self) -> Option<i32> {
        match self {
            Error::Runtime { errno, .. } => Some(*errno),
            _ => None,
        }
    }
}

pub type Result<T> = std::result::Result<T, Error>;

/// errno values used in [`Error::Runtime`].
pub mod errno {
    pub const ENOENT: i32 = 2;
    pub const EAGAIN: i32 = 11;
    pub const ENOMEM: i32 = 12;
    pub const EBUSY: i32 = 16;
    pub const EEXIST: i32 = 17;
    pub const ENODEV: i32 = 19;
    pub const EINVAL: i32 = 22;
    pub const ENOSPC: i32 = 28;
    pub const ENOBUFS: i32 = 105;
    pub const EALREADY: i32 = 114;
}

pub(crate) fn last_error() -> String {
    // SAFETY: never NULL; a thread-local buffer of the runtime.
    unsafe { CStr::from_ptr(ffi::p4dp_runtime_error_get(std::ptr::null())) }
        .to_string_lossy()
        .into_owned()
}

/// Map a `0 / -errno` return value.
pub(crate) fn check(op: &'static str, rc: c_int) -> Result<c_int> {
    if rc >= 0 {
        Ok(rc)
    } else {
        Err(Error::Runtime {
            op,
            errno: -rc,
            msg: last_error(),
        })
    }
}

/// Directory of the runtime's public C headers (`p4dp/abi.h`, ...), for compiling programs: a
/// snapshot taken when this crate was built, so it always matches the linked `libp4dp_rt.so`.
/// `P4DP_RT_INCLUDE` overrides it.
pub fn include_dir() -> PathBuf {
    match std::env::var_os("P4DP_RT_INCLUDE") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(env!("P4DP_RT_INCLUDE_DIR")),
    }
}

/// Directory holding `libp4dp_rt.so` as built by this crate.
pub fn lib_dir() -> PathBuf {
    PathBuf::from(env!("P4DP_RT_LIB_DIR"))
}

static EAL_DONE: AtomicBool = AtomicBool::new(false);
static EAL_OK: AtomicBool = AtomicBool::new(false);

/// The DPDK environment abstraction layer, initialized once per process.
pub struct Eal;

impl Eal {
    /// Initialize DPDK with `args` (without the program name), e.g.
    /// `["--no-huge", "--no-pci", "-m", "512", "--no-shconf", "--no-telemetry", "--lcores=0@0,1@(0-1)"]`
    /// plus `--vdev` or `--log-level` options. Workers run on the EAL's worker lcores.
    /// Errors: [`Error::EalAlreadyInitialized`] on a second call; [`Error::Runtime`] if DPDK refuses.
    pub fn init<S: AsRef<str>>(args: &[S]) -> Result<()> {
        if EAL_DONE.swap(true, Ordering::SeqCst) {
            return Err(Error::EalAlreadyInitialized);
        }
        let mut owned = vec![CString::new("p4dp").map_err(|_| Error::NulByte { what: "EAL argument" })?];
        for a in args {
            match CString::new(a.as_ref()) {
                Ok(c) => owned.push(c),
                Err(_) => {
                    EAL_DONE.store(false, Ordering::SeqCst);
                    return Err(Error::NulByte { what: "EAL argument" });
                }
            }
        }
        // DPDK may keep pointers into argv: the strings are leaked on purpose (once per process).
        let mut argv: Vec<*mut c_char> = owned.into_iter().map(|c| c.into_raw()).collect();
        let argc = argv.len() as c_int;
        argv.push(std::ptr::null_mut());
        let argv = Box::leak(argv.into_boxed_slice());
        // SAFETY: argv holds argc valid NUL-terminated strings followed by NULL; leaked, so valid forever.
        let rc = unsafe { ffi::p4dp_eal_init(argc, argv.as_mut_ptr()) };
        check("EAL init", rc)?;
        EAL_OK.store(true, Ordering::SeqCst);
        Ok(())
    }

    /// Has [`Eal::init`] succeeded in this process?
    pub fn initialized() -> bool {
        EAL_OK.load(Ordering::SeqCst)
    }
}
