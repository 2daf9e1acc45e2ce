//! What the STF runner needs to know about the compiled program.
//!
//! The integration (the `p4dp stf` command) fills a [`ProgramSchema`] from the
//! compiled program's metadata. All names are the control-plane names (the
//! P4Info `preamble.name`s): fully qualified, with `@name` annotations
//! applied, e.g. table `ingress.c.t`, action `ingress.setb1` or `NoAction`,
//! key `hdr.ipv4.dstAddr` or an `@name` such as `dstAddr_lsbs`, register
//! `cIngress.regfile`. A validity key (`hdr.x.isValid()`) is named
//! `hdr.x.$valid$`, kind [`MatchKind::Exact`], width 1.

/// A match kind of a key field.
pub use p4dp_ir::KeyMatch as MatchKind;

/// One key field of a table, in key order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyFieldSchema {
    pub name: String,
    pub match_kind: MatchKind,
    /// Width in bits (1 for a validity/`bool` key).
    pub width: u32,
}

/// Where an action may be used in a table (P4 `@tableonly`/`@defaultonly`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ActionScope {
    #[default]
    TableAndDefault,
    TableOnly,
    DefaultOnly,
}

/// A reference from a table to one of its actions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ActionRefSchema {
    /// Full action name, as in [`ActionSchema::name`].
    pub name: String,
    pub scope: ActionScope,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableSchema {
    /// Fully-qualified control-plane name, e.g. `ingress.c.t`.
    pub name: String,
    pub keys: Vec<KeyFieldSchema>,
    pub actions: Vec<ActionRefSchema>,
    /// The default action is declared `const default_action`.
    pub const_default_action: bool,
    /// The table has `const entries` (its entries cannot be changed).
    pub const_entries: bool,
    /// Entries need a priority: some key is ternary, range or optional.
    /// (Use [`TableSchema::keys_need_priority`] to compute it from the keys.)
    pub needs_priority: bool,
}

impl TableSchema {
    /// True if any key's match kind requires entry priorities (ternary,
    /// range, optional), as in P4Runtime.
    pub fn keys_need_priority(keys: &[KeyFieldSchema]) -> bool {
        keys.iter().any(|k| k.match_kind.needs_priority())
    }
}

/// One control-plane (directionless) parameter of an action.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamSchema {
    pub name: String,
    pub width: u32,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ActionSchema {
    /// Full name, e.g. `ingress.setb1` or `NoAction`.
    pub name: String,
    /// Control-plane parameters in declaration order (parameters bound in
    /// the P4 source are not listed).
    pub params: Vec<ParamSchema>,
}

/// What a counter counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum CounterUnit {
    Packets,
    Bytes,
    #[default]
    PacketsAndBytes,
}

/// An indexed counter (`counter`/`Counter` extern instance).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CounterSchema {
    pub name: String,
    pub size: u32,
    pub unit: CounterUnit,
}

/// A direct counter, attached to one table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DirectCounterSchema {
    pub name: String,
    /// Fully-qualified name of the table it is attached to.
    pub table: String,
    pub unit: CounterUnit,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegisterSchema {
    pub name: String,
    pub size: u32,
    /// Width of one cell in bits.
    pub width: u32,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MeterSchema {
    pub name: String,
    /// Number of cells (indexed meters).
    pub size: u32,
}

/// Everything the STF compiler resolves names against.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ProgramSchema {
    pub tables: Vec<TableSchema>,
    pub actions: Vec<ActionSchema>,
    pub counters: Vec<CounterSchema>,
    pub direct_counters: Vec<DirectCounterSchema>,
    pub registers: Vec<RegisterSchema>,
    pub meters: Vec<MeterSchema>,
    /// Action profiles and selectors (p4dp extension statements `act_prof_*`).
    pub action_profiles: Vec<ActionProfileSchema>,
}

/// An action profile or selector and the tables it implements.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ActionProfileSchema {
    pub name: String,
    /// Fully-qualified names of the tables whose `implementation` it is.
    pub tables: Vec<String>,
    /// An action selector (has groups).
    pub selector: bool,
}

impl ProgramSchema {
    pub fn action(&self, name: &str) -> Option<&ActionSchema> {
        self.actions.iter().find(|a| a.name == name)
    }
}
