//! Action profiles and selectors (rt.h "Action profiles and selectors"): members, groups and the
//! entries of tables implemented by a profile, which refer to a member or a group.

use std::os::raw::{c_int, c_void};

use crate::ffi;
use crate::runtime::{collect_entry, raw_entry, raw_params};
use crate::{check, Error, MatchField, Result, Runtime, TableEntry};

/// `TableEntry::action` of an entry (read back) that refers to a member; its one parameter is the
/// member id (4 bytes, big-endian).
pub const REF_MEMBER_ACTION: u32 = 0xffff_fff0;
/// `TableEntry::action` of an entry (read back) that refers to a group.
pub const REF_GROUP_ACTION: u32 = 0xffff_fff1;

/// What an entry of an indirect table refers to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProfileRef {
    Member(u32),
    Group(u32),
}

impl ProfileRef {
    /// The reference an entry read back from an indirect table holds (None for direct entries).
    pub fn of_entry(e: &TableEntry) -> Option<ProfileRef> {
        let id = match e.params.as_slice() {
            [p] if p.len() == 4 => u32::from_be_bytes([p[0], p[1], p[2], p[3]]),
            _ => return None,
        };
        match e.action {
            REF_MEMBER_ACTION => Some(ProfileRef::Member(id)),
            REF_GROUP_ACTION => Some(ProfileRef::Group(id)),
            _ => None,
        }
    }

    fn raw(self) -> (u32, u32) {
        match self {
            ProfileRef::Member(id) => (1, id),
            ProfileRef::Group(id) => (2, id),
        }
    }
}

extern "C" {
    fn p4dp_runtime_actprof_member_add(
        rt: *mut ffi::p4dp_runtime,
        ext: u32,
        member: u32,
        action: u32,
        n_params: u32,
        params: *const ffi::p4dp_rt_param,
    ) -> c_int;
    fn p4dp_runtime_actprof_member_modify(
        rt: *mut ffi::p4dp_runtime,
        ext: u32,
        member: u32,
        action: u32,
        n_params: u32,
        params: *const ffi::p4dp_rt_param,
    ) -> c_int;
    fn p4dp_runtime_actprof_member_delete(rt: *mut ffi::p4dp_runtime, ext: u32, member: u32) -> c_int;
    fn p4dp_runtime_actprof_member_get(
        rt: *mut ffi::p4dp_runtime,
        ext: u32,
        member: u32,
        cb: ffi::p4dp_rt_entry_cb,
        arg: *mut c_void,
    ) -> c_int;
    fn p4dp_runtime_actprof_group_create(rt: *mut ffi::p4dp_runtime, ext: u32, group: u32) -> c_int;
    fn p4dp_runtime_actprof_group_delete(rt: *mut ffi::p4dp_runtime, ext: u32, group: u32) -> c_int;
    fn p4dp_runtime_actprof_group_member_add(
        rt: *mut ffi::p4dp_runtime,
        ext: u32,
        group: u32,
        member: u32,
        weight: u32,
    ) -> c_int;
    fn p4dp_runtime_actprof_group_member_remove(rt: *mut ffi::p4dp_runtime, ext: u32, group: u32, member: u32)
        -> c_int;
    fn p4dp_runtime_actprof_group_member_watch_set(
        rt: *mut ffi::p4dp_runtime,
        ext: u32,
        group: u32,
        member: u32,
        watch: u32,
    ) -> c_int;
    fn p4dp_runtime_actprof_group_random_set(rt: *mut ffi::p4dp_runtime, ext: u32, group: u32, random: c_int) -> c_int;
    fn p4dp_runtime_actprof_group_get(
        rt: *mut ffi::p4dp_runtime,
        ext: u32,
        group: u32,
        members: *mut u32,
        weights: *mut u32,
        max: u32,
    ) -> c_int;
    fn p4dp_runtime_table_indirect_entry_add(
        rt: *mut ffi::p4dp_runtime,
        table: u32,
        e: *const ffi::p4dp_rt_entry,
        kind: u32,
        id: u32,
    ) -> c_int;
    fn p4dp_runtime_table_indirect_entry_modify(
        rt: *mut ffi::p4dp_runtime,
        table: u32,
        e: *const ffi::p4dp_rt_entry,
        kind: u32,
        id: u32,
    ) -> c_int;
}

impl Runtime {
    /// Extern index of the action profile/selector implementing `table`, if any.
    pub fn table_implementation(&self, table: u32) -> Option<u32> {
        self.program().tables.get(table as usize).and_then(|t| t.implementation)
    }

    /// Create member `member` of profile `ext`: `action` (index into the program's actions) with
    /// its parameters (big-endian bytes).
    pub fn actprof_member_add(&self, ext: u32, member: u32, action: u32, params: &[Vec<u8>]) -> Result<()> {
        let ps = raw_params(params)?;
        // SAFETY: ps points into `params`, valid for the call.
        check("action profile member add", unsafe {
            p4dp_runtime_actprof_member_add(self.p(), ext, member, action, ps.len() as u32, ps.as_ptr())
        })
        .map(|_| ())
    }

    /// Replace the action and parameters of member `member`.
    pub fn actprof_member_modify(&self, ext: u32, member: u32, action: u32, params: &[Vec<u8>]) -> Result<()> {
        let ps = raw_params(params)?;
        // SAFETY: as actprof_member_add.
        check("action profile member modify", unsafe {
            p4dp_runtime_actprof_member_modify(self.p(), ext, member, action, ps.len() as u32, ps.as_ptr())
        })
        .map(|_| ())
    }

    /// Delete member `member` (fails with EBUSY while a group or table entry uses it).
    pub fn actprof_member_delete(&self, ext: u32, member: u32) -> Result<()> {
        // SAFETY: plain call.
        check("action profile member delete", unsafe {
            p4dp_runtime_actprof_member_delete(self.p(), ext, member)
        })
        .map(|_| ())
    }

    /// Action and parameters of member `member`.
    pub fn actprof_member_get(&self, ext: u32, member: u32) -> Result<(u32, Vec<Vec<u8>>)> {
        let mut out: Vec<TableEntry> = Vec::new();
        // SAFETY: the callback only pushes into `out`, which outlives the call.
        check("action profile member get", unsafe {
            p4dp_runtime_actprof_member_get(self.p(), ext, member, collect_entry, &mut out as *mut _ as *mut c_void)
        })?;
        let e = out
            .pop()
            .ok_or_else(|| Error::Invalid("member get returned nothing".into()))?;
        Ok((e.action, e.params))
    }

    /// Create empty group `group` of selector `ext`.
    pub fn actprof_group_create(&self, ext: u32, group: u32) -> Result<()> {
        // SAFETY: plain call.
        check("action selector group create", unsafe {
            p4dp_runtime_actprof_group_create(self.p(), ext, group)
        })
        .map(|_| ())
    }

    /// Delete group `group` (fails with EBUSY while a table entry uses it).
    pub fn actprof_group_delete(&self, ext: u32, group: u32) -> Result<()> {
        // SAFETY: plain call.
        check("action selector group delete", unsafe {
            p4dp_runtime_actprof_group_delete(self.p(), ext, group)
        })
        .map(|_| ())
    }

    /// Add member `member` with `weight` to group `group`.
    pub fn actprof_group_add_member(&self, ext: u32, group: u32, member: u32, weight: u32) -> Result<()> {
        // SAFETY: plain call.
        check("action selector group add member", unsafe {
            p4dp_runtime_actprof_group_member_add(self.p(), ext, group, member, weight)
        })
        .map(|_| ())
    }

    /// Remove member `member` from group `group`.
    pub fn actprof_group_remove_member(&self, ext: u32, group: u32, member: u32) -> Result<()> {
        // SAFETY: plain call.
        check("action selector group remove member", unsafe {
            p4dp_runtime_actprof_group_member_remove(self.p(), ext, group, member)
        })
        .map(|_| ())
    }

    /// Sets the watch port of member `member` of group `group` (None: always selectable): while
    /// that port is down the member is left out of the group's selection.
    pub fn actprof_group_member_watch(&self, ext: u32, group: u32, member: u32, watch: Option<u32>) -> Result<()> {
        // SAFETY: plain call.
        check("action selector group member watch port", unsafe {
            p4dp_runtime_actprof_group_member_watch_set(self.p(), ext, group, member, watch.unwrap_or(u32::MAX))
        })
        .map(|_| ())
    }

    /// Sets how group `group` picks a packet's member: at random (`random`; each member as often
    /// as its weight, among those whose watch port is live) or by the selector hash (a new
    /// group's mode).
    pub fn actprof_group_random(&self, ext: u32, group: u32, random: bool) -> Result<()> {
        // SAFETY: plain call.
        check("action selector group selection mode", unsafe {
            p4dp_runtime_actprof_group_random_set(self.p(), ext, group, c_int::from(random))
        })
        .map(|_| ())
    }

    /// (member id, weight) of every member of group `group`, in selection order.
    pub fn actprof_group_members(&self, ext: u32, group: u32) -> Result<Vec<(u32, u32)>> {
        // SAFETY: max 0 with NULL arrays only returns the count.
        let n = check("action selector group get", unsafe {
            p4dp_runtime_actprof_group_get(self.p(), ext, group, std::ptr::null_mut(), std::ptr::null_mut(), 0)
        })? as usize;
        let (mut m, mut w) = (vec![0u32; n], vec![0u32; n]);
        // SAFETY: m and w hold n elements each.
        let n2 = check("action selector group get", unsafe {
            p4dp_runtime_actprof_group_get(self.p(), ext, group, m.as_mut_ptr(), w.as_mut_ptr(), n as u32)
        })? as usize;
        m.truncate(n2.min(n));
        Ok(m.into_iter().zip(w).collect())
    }

    /// Add an entry with this match to indirect table `table`, referring to `r`.
    pub fn indirect_add(&self, table: u32, matches: &[MatchField], priority: i32, r: ProfileRef) -> Result<()> {
        let raw = raw_entry(matches, priority, 0, &[])?;
        let (kind, id) = r.raw();
        // SAFETY: raw.entry points into raw's vectors, valid for the call.
        check("indirect table add", unsafe {
            p4dp_runtime_table_indirect_entry_add(self.p(), table, &raw.entry, kind, id)
        })
        .map(|_| ())
    }

    /// Re-point the entry with this match of indirect table `table` to `r`.
    pub fn indirect_modify(&self, table: u32, matches: &[MatchField], priority: i32, r: ProfileRef) -> Result<()> {
        let raw = raw_entry(matches, priority, 0, &[])?;
        let (kind, id) = r.raw();
        // SAFETY: as indirect_add.
        check("indirect table modify", unsafe {
            p4dp_runtime_table_indirect_entry_modify(self.p(), table, &raw.entry, kind, id)
        })
        .map(|_| ())
    }
}
