//! Per-entry control-plane state kept beside the tables (rt.h "Idle timeout"): an entry's own TTL
//! (P4Runtime `idle_timeout_ns`), the time since its last hit (`time_since_last_hit`) and its
//! opaque metadata (`metadata`).

use std::os::raw::c_void;

use crate::ffi;
use crate::runtime::raw_entry;
use crate::{check, MatchField, Result, Runtime};

/// Idle-timeout state of one entry ([`Runtime::entry_idle_get`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EntryIdle {
    /// The entry's own TTL ([`Runtime::entry_ttl_set`]), or else its expire profile's duration;
    /// 0 = never expires.
    pub ttl_ns: u64,
    /// Time since the entry's last hit (or its insert), ns.
    pub since_hit_ns: u64,
    /// The TTL was set by [`Runtime::entry_ttl_set`].
    pub own_ttl: bool,
}

impl Runtime {
    /// Gives the entry `matches`/`priority` of an idle-timeout table its own TTL (0 = never
    /// expires) and restarts its timer; it is reported by [`Runtime::idle_poll`] once it has not
    /// been hit for `ttl_ns`, and again every `ttl_ns` it stays idle.
    pub fn entry_ttl_set(&self, table: u32, matches: &[MatchField], priority: i32, ttl_ns: u64) -> Result<()> {
        let r = raw_entry(matches, priority, 0, &[])?;
        // SAFETY: r is valid for the call.
        check("entry TTL set", unsafe {
            ffi::p4dp_runtime_table_entry_ttl_set(self.p(), table, &r.entry, ttl_ns)
        })
        .map(|_| ())
    }

    /// The idle-timeout state of the entry `matches`/`priority` of an idle-timeout table.
    pub fn entry_idle_get(&self, table: u32, matches: &[MatchField], priority: i32) -> Result<EntryIdle> {
        let r = raw_entry(matches, priority, 0, &[])?;
        let mut st = ffi::p4dp_rt_idle::default();
        // SAFETY: r and st are valid for the call.
        check("entry idle state", unsafe {
            ffi::p4dp_runtime_table_entry_idle_get(self.p(), table, &r.entry, &mut st)
        })?;
        Ok(EntryIdle {
            ttl_ns: st.ttl_ns,
            since_hit_ns: st.since_hit_ns,
            own_ttl: st.own_ttl != 0,
        })
    }

    /// Attaches opaque bytes to the entry `matches`/`priority` (empty: removes them); they stay
    /// with it across modifies and go with its delete.
    pub fn entry_meta_set(&self, table: u32, matches: &[MatchField], priority: i32, meta: &[u8]) -> Result<()> {
        let r = raw_entry(matches, priority, 0, &[])?;
        self.meta_set_at(table, &r.entry, meta)
    }

    /// How many entries of `table` hold opaque bytes; never fewer than do, so 0 means that none
    /// has any and removing an entry's bytes would change nothing.
    pub fn table_meta_entries(&self, table: u32) -> Result<u64> {
        let mut n = 0u64;
        // SAFETY: n is valid for the call.
        check("table metadata count", unsafe {
            ffi::p4dp_runtime_table_meta_entries(self.p(), table, &mut n)
        })?;
        Ok(n)
    }

    /// Attaches opaque bytes to the table's default entry (empty: removes them).
    pub fn default_meta_set(&self, table: u32, meta: &[u8]) -> Result<()> {
        self.meta_set_at(table, std::ptr::null(), meta)
    }

    /// `e`: an entry's match, or NULL for the default entry.
    fn meta_set_at(&self, table: u32, e: *const ffi::p4dp_rt_entry, meta: &[u8]) -> Result<()> {
        let len = u32::try_from(meta.len()).map_err(|_| crate::Error::Invalid("metadata too long".into()))?;
        // SAFETY: e is NULL or valid for the call, meta is valid for the call.
        check("entry metadata set", unsafe {
            ffi::p4dp_runtime_table_entry_meta_set(self.p(), table, e, meta.as_ptr() as *const c_void, len)
        })
        .map(|_| ())
    }

    /// The opaque bytes of the entry `matches`/`priority` (empty: none).
    pub fn entry_meta_get(&self, table: u32, matches: &[MatchField], priority: i32) -> Result<Vec<u8>> {
        let r = raw_entry(matches, priority, 0, &[])?;
        self.meta_get_at(table, &r.entry)
    }

    /// The opaque bytes of the table's default entry (empty: none).
    pub fn default_meta_get(&self, table: u32) -> Result<Vec<u8>> {
        self.meta_get_at(table, std::ptr::null())
    }

    /// `e`: an entry's match, or NULL for the default entry.
    fn meta_get_at(&self, table: u32, e: *const ffi::p4dp_rt_entry) -> Result<Vec<u8>> {
        let mut buf = vec![0u8; 64];
        loop {
            let mut len = 0u32;
            // SAFETY: e is NULL or valid for the call, buf has buf.len() writable bytes.
            check("entry metadata get", unsafe {
                ffi::p4dp_runtime_table_entry_meta_get(
                    self.p(),
                    table,
                    e,
                    buf.as_mut_ptr() as *mut c_void,
                    buf.len() as u32,
                    &mut len,
                )
            })?;
            if len as usize <= buf.len() {
                buf.truncate(len as usize);
                return Ok(buf);
            }
            buf.resize(len as usize, 0);
        }
    }
}
