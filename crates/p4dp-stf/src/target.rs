//! The interface between the STF runner and a P4 target.
//!
//! The runner drives a [`Target`]: it installs entries, injects packets one at
//! a time and collects what comes out, and reads/writes extern state. All
//! names crossing this interface are fully-qualified control-plane names
//! (already resolved by the runner). All values are big-endian byte strings
//! of `ceil(width/8)` bytes, as in P4Runtime and the runtime's control API.

/// A port number (the value of `ingress_port` / `egress_spec`).
pub type Port = u32;

/// Identifies one entry added with [`Target::add_entry`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct EntryHandle(pub u64);

/// Identifies one multicast replication node.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct McNodeHandle(pub u64);

/// How one key field of an entry matches. Values are `ceil(width/8)`
/// big-endian bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FieldMatch {
    Exact(Vec<u8>),
    /// Value with all bits after the prefix cleared, and the prefix length
    /// (0 = wildcard).
    Lpm {
        value: Vec<u8>,
        prefix_len: u32,
    },
    /// Value with every bit outside the mask cleared, and the mask
    /// (all-zero = wildcard).
    Ternary {
        value: Vec<u8>,
        mask: Vec<u8>,
    },
    /// Inclusive bounds, `lo <= hi`.
    Range {
        lo: Vec<u8>,
        hi: Vec<u8>,
    },
    /// `None` = wildcard, `Some(v)` = exactly `v`.
    Optional(Option<Vec<u8>>),
}

/// One key field of an entry, with its name for messages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyFieldMatch {
    pub field: String,
    pub m: FieldMatch,
}

/// An action with its arguments: the action's control-plane parameters in
/// declaration order, each `ceil(width/8)` big-endian bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ActionCall {
    /// Full action name.
    pub name: String,
    pub args: Vec<Vec<u8>>,
}

/// A counter cell: by index for indexed counters, by entry for direct ones.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CounterCell {
    Index(u32),
    Entry(EntryHandle),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct CounterValue {
    pub packets: u64,
    pub bytes: u64,
}

/// Which meter cells a `meter_*set_rates` applies to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MeterCells {
    Index(u32),
    All,
}

/// One rate/burst pair: committed first, then peak (two-rate meters).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MeterRate {
    /// Units (packets or bytes) per microsecond.
    pub rate_per_us: f64,
    /// Burst size in units.
    pub burst: u64,
}

/// An error reported by a target; it fails the STF test at the statement
/// that caused it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TargetError {
    #[error("{0}")]
    Failed(String),
    #[error("not supported by this target: {0}")]
    Unsupported(String),
}

/// A P4 target the STF runner can drive.
///
/// Calls come from one thread, in the order of the script. Packet processing
/// is synchronous: [`Target::inject`] returns only after the packet and
/// everything derived from it (resubmits, recirculations, clones, multicast
/// copies) has been processed, which makes `wait` a no-op.
pub trait Target {
    /// Insert an entry. `matches` has one element per key field, in key order,
    /// with wildcards for fields the script left out. `priority` is `Some`
    /// exactly for tables that need one; larger numbers win (P4Runtime
    /// convention; STF priority 0 is allowed and is the lowest).
    fn add_entry(
        &mut self,
        table: &str,
        matches: &[KeyFieldMatch],
        priority: Option<u32>,
        action: &ActionCall,
    ) -> Result<EntryHandle, TargetError>;

    /// Replace the table's default (miss) action.
    fn set_default(&mut self, table: &str, action: &ActionCall) -> Result<(), TargetError>;

    /// For `remove all`: delete `entries` (all entries this script added to
    /// `table` and has not removed yet; never `const` entries) and restore the
    /// table's default action to the one the program declares.
    fn clear_entries(&mut self, table: &str, entries: &[EntryHandle]) -> Result<(), TargetError>;

    /// Process one packet arriving on `port` to completion and return every
    /// packet it caused to leave the switch, in emission order.
    fn inject(&mut self, port: Port, data: &[u8]) -> Result<Vec<(Port, Vec<u8>)>, TargetError>;

    fn counter_read(&mut self, name: &str, cell: CounterCell) -> Result<CounterValue, TargetError>;
    fn counter_write(&mut self, name: &str, index: u32, value: CounterValue) -> Result<(), TargetError>;

    /// Read one register cell (`ceil(width/8)` big-endian bytes).
    fn register_read(&mut self, name: &str, index: u32) -> Result<Vec<u8>, TargetError>;
    fn register_write(&mut self, name: &str, index: u32, value: &[u8]) -> Result<(), TargetError>;
    /// Set every cell of the register to 0.
    fn register_reset(&mut self, name: &str) -> Result<(), TargetError>;

    fn meter_set_rates(&mut self, name: &str, cells: MeterCells, rates: &[MeterRate]) -> Result<(), TargetError>;
    /// Read-only; the runner logs the result. Optional.
    fn meter_get_rates(&mut self, name: &str, index: u32) -> Result<Vec<MeterRate>, TargetError> {
        let _ = (name, index);
        Err(TargetError::Unsupported("meter_get_rates".into()))
    }

    /// Clone session `session` sends clones to `port`.
    fn mirroring_add(&mut self, session: u32, port: Port) -> Result<(), TargetError>;
    /// Clone session `session` sends clones to multicast group `mgrp`.
    fn mirroring_add_mc(&mut self, session: u32, mgrp: u32) -> Result<(), TargetError>;
    fn mirroring_delete(&mut self, session: u32) -> Result<(), TargetError>;
    /// Read-only; the runner logs the result. Optional.
    fn mirroring_get(&mut self, session: u32) -> Result<String, TargetError> {
        let _ = session;
        Err(TargetError::Unsupported("mirroring_get".into()))
    }

    fn mc_mgrp_create(&mut self, mgrp: u32) -> Result<(), TargetError>;
    /// Create a replication node with replication id `rid` and `ports`.
    fn mc_node_create(&mut self, rid: u32, ports: &[Port]) -> Result<McNodeHandle, TargetError>;
    /// Attach a node to a group; copies follow association order.
    fn mc_node_associate(&mut self, mgrp: u32, node: McNodeHandle) -> Result<(), TargetError>;
    /// Replace a node's port list. Optional (unused by the p4c corpus).
    fn mc_node_update(&mut self, node: McNodeHandle, ports: &[Port]) -> Result<(), TargetError> {
        let _ = (node, ports);
        Err(TargetError::Unsupported("mc_node_update".into()))
    }

    /// Advance the target's simulated clock by `ns` nanoseconds (p4dp
    /// extension `advance_time`; idle timeouts and meters observe it).
    fn advance_time(&mut self, ns: u64) -> Result<(), TargetError>;

    /// p4dp extension `background NAME N` (rtc.p4): run background pipeline `name` `n` times,
    /// deterministically (Sleep advances the simulated clock), and return the packets it sent,
    /// in order. Optional.
    fn background(&mut self, name: &str, n: u32) -> Result<Vec<(Port, Vec<u8>)>, TargetError> {
        let _ = (name, n);
        Err(TargetError::Unsupported("background".into()))
    }

    /// p4dp extension `act_prof_create_member`: create member `member` (the script's handle, used
    /// as the member id) of action profile `profile` running `action`. Optional.
    fn act_prof_create_member(&mut self, profile: &str, member: u32, action: &ActionCall) -> Result<(), TargetError> {
        let _ = (profile, member, action);
        Err(TargetError::Unsupported("act_prof_create_member".into()))
    }
    /// `act_prof_create_group`: create empty group `group` (the script's handle) of a selector.
    fn act_prof_create_group(&mut self, profile: &str, group: u32) -> Result<(), TargetError> {
        let _ = (profile, group);
        Err(TargetError::Unsupported("act_prof_create_group".into()))
    }
    /// `act_prof_add_member_to_group` (weight 1).
    fn act_prof_add_member_to_group(&mut self, profile: &str, member: u32, group: u32) -> Result<(), TargetError> {
        let _ = (profile, member, group);
        Err(TargetError::Unsupported("act_prof_add_member_to_group".into()))
    }
    /// `table_indirect_add[_with_group]`: an entry of a table implemented by a profile, referring
    /// to member (or, with `group`, group) `id`. Arguments otherwise as [`Target::add_entry`].
    fn add_indirect_entry(
        &mut self,
        table: &str,
        matches: &[KeyFieldMatch],
        priority: Option<u32>,
        group: bool,
        id: u32,
    ) -> Result<EntryHandle, TargetError> {
        let _ = (table, matches, priority, group, id);
        Err(TargetError::Unsupported("table_indirect_add".into()))
    }
}
