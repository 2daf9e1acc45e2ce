//! The pieces of the longest-prefix-match benchmark (`runtime/include/p4dp/bench_lpm.h`, and the
//! list functions of `bench.h`): installing a list of keys or prefixes in a table, giving a
//! bench's packets a list of keys, and DPDK's `rte_lpm` (IPv4) or `rte_lpm6` (IPv6) holding the
//! same prefixes as the baseline.
//! Like the rest of [`crate::bench`], everything runs on the EAL main lcore.

use std::marker::PhantomData;
use std::ptr::NonNull;

use crate::bench::{fill, measured, Bench, BenchTarget, Kind, Measurement};
use crate::{check, Error, Result};

mod sys {
    #![allow(non_camel_case_types)]
    use std::os::raw::c_int;

    use crate::bench::sys::{p4dp_bench, p4dp_bench_result};
    use crate::ffi::{p4dp_rt_param, p4dp_runtime};

    #[repr(C)]
    pub struct p4dp_bench_rte_lpm {
        _opaque: [u8; 0],
    }

    #[repr(C)]
    pub struct p4dp_bench_rte_lpm6 {
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
        pub fn p4dp_bench_rte_lpm_next_hops(l: *mut p4dp_bench_rte_lpm, macs: *const u8, n: u32) -> c_int;
        pub fn p4dp_bench_rte_lpm_route_measure(
            b: *mut p4dp_bench,
            l: *mut p4dp_bench_rte_lpm,
            res: *mut p4dp_bench_result,
        ) -> c_int;
        pub fn p4dp_bench_rte_lpm6_create(
            addr: *const u8,
            lens: *const u8,
            n: u64,
            tbl8s: u32,
            socket_id: c_int,
            out: *mut *mut p4dp_bench_rte_lpm6,
        ) -> c_int;
        pub fn p4dp_bench_rte_lpm6_measure(
            b: *mut p4dp_bench,
            l: *mut p4dp_bench_rte_lpm6,
            res: *mut p4dp_bench_result,
        ) -> c_int;
        pub fn p4dp_bench_rte_lpm6_free(l: *mut p4dp_bench_rte_lpm6);
        pub fn p4dp_bench_table_fill_list128(
            rt: *mut p4dp_runtime,
            table: u32,
            keys: *const u8,
            lens: *const u8,
            n: u64,
            action: u32,
            n_params: u32,
            params: *const p4dp_rt_param,
        ) -> i64;
        pub fn p4dp_bench_table128_measure(
            b: *mut p4dp_bench,
            rt: *mut p4dp_runtime,
            table: u32,
            res: *mut p4dp_bench_result,
        ) -> c_int;
        pub fn p4dp_bench_lpm6_agree(
            rt: *mut p4dp_runtime,
            table: u32,
            l: *const p4dp_bench_rte_lpm6,
            addr: *const u8,
            lens: *const u8,
            n_prefixes: u64,
            dst: *const u8,
            n_dst: u64,
        ) -> c_int;
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
        let rt = self.rt.as_ptr();
        fill(keys.len(), lens, params, |lens, n_params, raw| {
            // SAFETY: keys, lens (keys.len() elements or null) and raw (and the vectors it points
            // into) live for the call.
            unsafe {
                sys::p4dp_bench_table_fill_list(
                    rt,
                    table,
                    keys.as_ptr(),
                    lens,
                    keys.len() as u64,
                    action,
                    n_params,
                    raw,
                )
            }
        })
    }

    /// Install one entry per 128-bit key in `table` (one exact or lpm key field of 128 bits):
    /// key `keys[i]` (big-endian bytes), for an lpm field prefix length `lens[i]` (`None`: /128),
    /// each running `action` with `params`. Returns the number installed.
    pub fn table_fill_list128(
        &mut self,
        table: u32,
        keys: &[[u8; 16]],
        lens: Option<&[u8]>,
        action: u32,
        params: &[Vec<u8>],
    ) -> Result<u64> {
        let rt = self.rt.as_ptr();
        fill(keys.len(), lens, params, |lens, n_params, raw| {
            // SAFETY: keys (16 bytes each), lens (keys.len() elements or null) and raw live for
            // the call.
            unsafe {
                sys::p4dp_bench_table_fill_list128(
                    rt,
                    table,
                    keys.as_ptr().cast(),
                    lens,
                    keys.len() as u64,
                    action,
                    n_params,
                    raw,
                )
            }
        })
    }

    /// Check that lpm `table` (one 128-bit lpm field, filled with the prefixes `addr`/`lens`)
    /// and `l` (built from the same list) choose the same prefix for every destination in `dst`.
    pub fn lpm6_agree(
        &mut self,
        table: u32,
        l: &RteLpm6,
        addr: &[[u8; 16]],
        lens: &[u8],
        dst: &[[u8; 16]],
    ) -> Result<()> {
        if addr.len() != lens.len() {
            return Err(Error::Invalid("one prefix length per address needed".into()));
        }
        // SAFETY: live runtime and rte_lpm6; the slices live for the call with the lengths given.
        check("lpm6 agreement", unsafe {
            sys::p4dp_bench_lpm6_agree(
                self.rt.as_ptr(),
                table,
                l.l.as_ptr(),
                addr.as_ptr().cast(),
                lens.as_ptr(),
                addr.len() as u64,
                dst.as_ptr().cast(),
                dst.len() as u64,
            )
        })
        .map(|_| ())
    }
}

/// DPDK's `rte_lpm6` holding a set of IPv6 prefixes, for [`Bench::measure_rte_lpm6`].
pub struct RteLpm6 {
    l: NonNull<sys::p4dp_bench_rte_lpm6>,
    _not_send: PhantomData<*mut ()>,
}

impl RteLpm6 {
    /// An `rte_lpm6` of the prefixes `addr[i]/lens[i]` (big-endian, lengths 1..=128, host bits
    /// zero) with `tbl8s` tbl8 groups.
    pub fn new(addr: &[[u8; 16]], lens: &[u8], tbl8s: u32) -> Result<RteLpm6> {
        if addr.len() != lens.len() {
            return Err(Error::Invalid("one prefix length per address needed".into()));
        }
        let mut l = std::ptr::null_mut();
        // SAFETY: both slices have addr.len() elements (16 bytes each for addr) and live for the call.
        check("rte_lpm6 create", unsafe {
            sys::p4dp_bench_rte_lpm6_create(
                addr.as_ptr().cast(),
                lens.as_ptr(),
                addr.len() as u64,
                tbl8s,
                -1,
                &mut l,
            )
        })?;
        let l = NonNull::new(l).ok_or_else(|| Error::Invalid("rte_lpm6_create returned NULL".into()))?;
        Ok(RteLpm6 {
            l,
            _not_send: PhantomData,
        })
    }
}

impl Drop for RteLpm6 {
    fn drop(&mut self) {
        // SAFETY: live, freed once.
        unsafe { sys::p4dp_bench_rte_lpm6_free(self.l.as_ptr()) }
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

impl RteLpm {
    /// The next hops of a router ([`Bench::measure_rte_lpm_route`]): next hop h (the rte_lpm
    /// next hop of prefix h, its index in the list given to [`RteLpm::new`]) has MAC address
    /// `macs[h % macs.len()]`.
    pub fn set_next_hops(&mut self, macs: &[[u8; 6]]) -> Result<()> {
        let n = u32::try_from(macs.len()).map_err(|_| Error::Invalid("too many next hops".into()))?;
        // SAFETY: live rte_lpm; macs (6 bytes each, n of them) lives for the call (copied).
        check("rte_lpm next hops", unsafe {
            sys::p4dp_bench_rte_lpm_next_hops(self.l.as_ptr(), macs.as_ptr().cast(), n)
        })
        .map(|_| ())
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
        // SAFETY: live bench and rte_lpm; `measured` passes a valid output pointer.
        measured("bench measure rte_lpm", Kind::RteLpm, |r| unsafe {
            sys::p4dp_bench_rte_lpm_measure(self.b.as_ptr(), l.l.as_ptr(), r)
        })
    }

    /// A router on the floor: as [`Bench::measure_rte_lpm`], then each routed packet's Ethernet
    /// destination set to its next hop's MAC address ([`RteLpm::set_next_hops`], which must have
    /// been called).
    pub fn measure_rte_lpm_route(&mut self, l: &RteLpm) -> Result<Measurement> {
        // SAFETY: live bench and rte_lpm; `measured` passes a valid output pointer.
        measured("bench measure rte_lpm router", Kind::RteLpmRoute, |r| unsafe {
            sys::p4dp_bench_rte_lpm_route_measure(self.b.as_ptr(), l.l.as_ptr(), r)
        })
    }

    /// The floor plus one `rte_lpm6_lookup_bulk_func` per burst of the packets' 16-byte keys in `l`.
    pub fn measure_rte_lpm6(&mut self, l: &RteLpm6) -> Result<Measurement> {
        // SAFETY: live bench and rte_lpm6; `measured` passes a valid output pointer.
        measured("bench measure rte_lpm6", Kind::RteLpm6, |r| unsafe {
            sys::p4dp_bench_rte_lpm6_measure(self.b.as_ptr(), l.l.as_ptr(), r)
        })
    }

    /// The floor plus one `p4dp_table_lookup_bulk` per burst of the packets' 16-byte keys on
    /// `table` (one 128-bit key field) of the bench's target.
    pub fn measure_table128(&mut self, table: u32) -> Result<Measurement> {
        // SAFETY: live bench and its own runtime; `measured` passes a valid output pointer.
        measured("bench measure 128-bit table", Kind::Table128(table), |r| unsafe {
            sys::p4dp_bench_table128_measure(self.b.as_ptr(), self.rt.as_ptr(), table, r)
        })
    }
}
