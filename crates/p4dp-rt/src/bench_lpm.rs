//! The pieces of the longest-prefix-match benchmark (`runtime/include/p4dp/bench_lpm.h`, and the
//! list functions of `bench.h`): installing a list of keys or prefixes in a table, giving a
//! bench's packets a list of keys, and DPDK's `rte_lpm` holding the same prefixes as the baseline.
//! Like the rest of [`crate::bench`], everything runs on the EAL main lcore.

use std::marker::PhantomData;
use std::ptr::NonNull;

use crate::bench::{measurement, raw_params, Bench, BenchTarget, Kind, Measurement};
use crate::{check, last_error, Error, Result};

mod sys {
    #![allow(non_camel_case_types)]
    use std::os::raw::c_int;

    use crate::bench::sys::{p4dp_bench, p4dp_bench_result};
    use crate::ffi::{p4dp_rt_param, p4dp_runtime};

    #[repr(C)]
    pub struct p4dp_bench_rte_lpm {
        _opaque: [u8; 0],
    }

    extern "C" {
        pub fn p4dp_bench_keys_set(b: *mut p4dp_bench, keys: *const u64, n: u64) -> c_int;
        pub fn p4dp_bench_table_fill_list(
            rt: *mut p4dp_runtime,
            table: u32,
            keys: *const u64,
            lens: *const u8,
            n: u64,
            action: u32,
            n_params: u32,
            params: *const p4dp_rt_param,
        ) -> i64;
        pub fn p4dp_bench_rte_lpm_create(
            addr: *const u32,
            lens: *const u8,
            n: u64,
            socket_id: c_int,
            out: *mut *mut p4dp_bench_rte_lpm,
        ) -> c_int;
        pub fn p4dp_bench_rte_lpm_measure(
            b: *mut p4dp_bench,
            l: *mut p4dp_bench_rte_lpm,
            res: *mut p4dp_bench_result,
        ) -> c_int;
        pub fn p4dp_bench_rte_lpm_free(l: *mut p4dp_bench_rte_lpm);
    }
}

impl BenchTarget {
    /// Install one entry per key in `table` (one exact or lpm key field of at most 64 bits): key
    /// `keys[i]`, for an lpm field prefix length `lens[i]` (`None`: the full width), each running
    /// `action` with `params` (big-endian bytes per parameter). Returns the number installed.
    pub fn table_fill_list(
        &mut self,
        table: u32,
        keys: &[u64],
        lens: Option<&[u8]>,
        action: u32,
        params: &[Vec<u8>],
    ) -> Result<u64> {
        if lens.is_some_and(|l| l.len() != keys.len()) {
            return Err(Error::Invalid("one prefix length per key needed".into()));
        }
        let raw = raw_params(params)?;
        let n_params = u32::try_from(raw.len()).map_err(|_| Error::Invalid("too many parameters".into()))?;
        // SAFETY: keys, lens and raw (and the vectors it points into) live for the call; lens has
        // keys.len() elements.
        let rc = unsafe {
            sys::p4dp_bench_table_fill_list(
                self.rt.as_ptr(),
                table,
                keys.as_ptr(),
                lens.map_or(std::ptr::null(), <[u8]>::as_ptr),
                keys.len() as u64,
                action,
                n_params,
                raw.as_ptr(),
            )
        };
        if rc < 0 {
            return Err(Error::Runtime {
                op: "table fill",
                errno: -(rc as i32),
                msg: last_error(),
            });
        }
        Ok(rc as u64)
    }
}

/// DPDK's `rte_lpm` (DIR-24-8) holding a set of IPv4 prefixes, for [`Bench::measure_rte_lpm`].
pub struct RteLpm {
    l: NonNull<sys::p4dp_bench_rte_lpm>,
    _not_send: PhantomData<*mut ()>,
}

impl RteLpm {
    /// An `rte_lpm` of the prefixes `addr[i]/lens[i]` (lengths 1..=32, host bits zero).
    pub fn new(addr: &[u32], lens: &[u8]) -> Result<RteLpm> {
        if addr.len() != lens.len() {
            return Err(Error::Invalid("one prefix length per address needed".into()));
        }
        let mut l = std::ptr::null_mut();
        // SAFETY: both slices have addr.len() elements and live for the call.
        check("rte_lpm create", unsafe {
            sys::p4dp_bench_rte_lpm_create(addr.as_ptr(), lens.as_ptr(), addr.len() as u64, -1, &mut l)
        })?;
        let l = NonNull::new(l).ok_or_else(|| Error::Invalid("rte_lpm_create returned NULL".into()))?;
        Ok(RteLpm {
            l,
            _not_send: PhantomData,
        })
    }
}

impl Drop for RteLpm {
    fn drop(&mut self) {
        // SAFETY: live, freed once.
        unsafe { sys::p4dp_bench_rte_lpm_free(self.l.as_ptr()) }
    }
}

impl Bench<'_> {
    /// From the next measurement on, the packets carry `keys` (in a seeded random order) instead
    /// of `key_base + i`.
    pub fn set_keys(&mut self, keys: &[u64]) -> Result<()> {
        // SAFETY: live bench; keys lives for the call (the C side copies them).
        check("bench keys", unsafe {
            sys::p4dp_bench_keys_set(self.b.as_ptr(), keys.as_ptr(), keys.len() as u64)
        })
        .map(|_| ())
    }

    /// The floor plus one `rte_lpm_lookup_bulk` per burst of the packets' IPv4 keys in `l`.
    pub fn measure_rte_lpm(&mut self, l: &RteLpm) -> Result<Measurement> {
        // SAFETY: plain-data output struct; zero is valid.
        let mut r: crate::bench::sys::p4dp_bench_result = unsafe { std::mem::zeroed() };
        // SAFETY: live bench and rte_lpm, valid output pointer.
        check("bench measure rte_lpm", unsafe {
            sys::p4dp_bench_rte_lpm_measure(self.b.as_ptr(), l.l.as_ptr(), &mut r)
        })?;
        Ok(measurement(Kind::RteLpm, &r))
    }
}
