//! Per-entry idle timeouts (rt.h "Idle timeout"): an entry's own TTL (P4Runtime
//! `idle_timeout_ns`) and the time since its last hit (`time_since_last_hit`).

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
}
