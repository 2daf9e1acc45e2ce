//! The loaded program's schema (tables, keys, actions, parameters, externs), copied out of the
//! `p4dp_program` metadata the compiled program exports.

use std::ffi::CStr;
use std::os::raw::c_char;

use crate::ffi;

/// Match kind of a key field (`enum p4dp_match_kind`).
pub use p4dp_ir::KeyMatch as MatchKind;

/// The match kind of `enum p4dp_match_kind` value `k`.
fn match_kind_from_raw(k: u8) -> Option<MatchKind> {
    Some(match k {
        0 => MatchKind::Exact,
        1 => MatchKind::Lpm,
        2 => MatchKind::Ternary,
        3 => MatchKind::Range,
        4 => MatchKind::Optional,
        _ => return None,
    })
}

/// Where an action may be used in a table (P4 `@tableonly` / `@defaultonly`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ActionScope {
    Any,
    TableOnly,
    DefaultOnly,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExternKind {
    Counter,
    DirectCounter,
    Meter,
    DirectMeter,
    Register,
    Digest,
    ActionProfile,
    ActionSelector,
    Other,
    /// rtc.p4 `Counter`: atomic 64-bit cells shared by every pipeline.
    RtcCounter,
    /// rtc.p4 `Lock`: test-and-set locks.
    RtcLock,
    /// rtc.p4 `Queue<T>`: n_cells is its depth.
    RtcQueue,
}

impl ExternKind {
    fn from_raw(k: u8) -> ExternKind {
        match k {
            1 => ExternKind::Counter,
            2 => ExternKind::DirectCounter,
            3 => ExternKind::Meter,
            4 => ExternKind::DirectMeter,
            5 => ExternKind::Register,
            6 => ExternKind::Digest,
            7 => ExternKind::ActionProfile,
            8 => ExternKind::ActionSelector,
            10 => ExternKind::RtcCounter,
            11 => ExternKind::RtcLock,
            12 => ExternKind::RtcQueue,
            _ => ExternKind::Other,
        }
    }
}

/// A meter's type (abi.h `enum p4dp_meter_type`): the marker it runs and the configurations it
/// takes.
pub use p4dp_ir::MeterType;

/// The meter type of `enum p4dp_meter_type` value `t` (0, and what no meter carries: two-rate).
fn meter_type_from_raw(t: u8) -> MeterType {
    match t {
        1 => MeterType::SingleRateThreeColor,
        2 => MeterType::SingleRateTwoColor,
        _ => MeterType::TwoRateThreeColor,
    }
}

/// Counter/meter unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    None,
    Packets,
    Bytes,
    Both,
}

#[derive(Debug, Clone)]
pub struct ParamInfo {
    pub name: String,
    pub id: u32,
    pub bitwidth: u32,
}

#[derive(Debug, Clone)]
pub struct ActionInfo {
    pub index: u32,
    pub name: String,
    pub id: u32,
    pub params: Vec<ParamInfo>,
}

#[derive(Debug, Clone)]
pub struct KeyInfo {
    pub name: String,
    pub id: u32,
    pub match_kind: MatchKind,
    pub bitwidth: u32,
}

#[derive(Debug, Clone)]
pub struct TableAction {
    /// Index into [`Program::actions`].
    pub action: u32,
    pub scope: ActionScope,
}

#[derive(Debug, Clone)]
pub struct TableInfo {
    pub index: u32,
    pub name: String,
    pub id: u32,
    pub keys: Vec<KeyInfo>,
    pub actions: Vec<TableAction>,
    /// Index into [`Program::actions`] of the program's default action.
    pub default_action: u32,
    /// Declared size (0 = not declared; the runtime uses `P4DP_TABLE_DEFAULT_SIZE`).
    pub size: u64,
    pub needs_priority: bool,
    pub const_default_action: bool,
    pub const_entries: bool,
    /// Idle timeout with notifications to the control plane (v1model `support_timeout`, PNA
    /// `pna_idle_timeout = NOTIFY_CONTROL`; P4Info `idle_timeout_behavior: NOTIFY_CONTROL`).
    pub idle_notify: bool,
    /// Number of entries the program installs at load time.
    pub initial_entries: u32,
    /// Index into [`Program::externs`].
    pub direct_counter: Option<u32>,
    pub direct_meter: Option<u32>,
    /// Index into [`Program::externs`] of the action profile/selector implementing the table
    /// (its entries then refer to members or groups; see [`crate::ProfileRef`]).
    pub implementation: Option<u32>,
}

#[derive(Debug, Clone)]
pub struct ExternInfo {
    pub index: u32,
    pub name: String,
    pub id: u32,
    pub kind: ExternKind,
    pub unit: Unit,
    /// Indexed externs: cells; direct externs: the table size the program declared.
    pub n_cells: u32,
    /// Registers: cell width in bits; digests: message bytes.
    pub bitwidth: u32,
    /// Direct counters/meters: index of the owning table.
    pub table: Option<u32>,
    /// Meters: the type (two-rate three-colour for every other extern).
    pub meter_type: MeterType,
}

#[derive(Debug, Clone)]
pub struct Program {
    pub name: String,
    pub arch: String,
    pub tables: Vec<TableInfo>,
    pub actions: Vec<ActionInfo>,
    pub externs: Vec<ExternInfo>,
    pub errors: Vec<String>,
    /// rtc.p4: the background pipelines, by their ingress control's name.
    pub background: Vec<String>,
    /// Parser value sets, indexed as `Runtime::value_set_set` takes them.
    pub value_sets: Vec<ValueSetInfo>,
}

/// A parser value set (`value_set<T>(size)`).
#[derive(Debug, Clone)]
pub struct ValueSetInfo {
    pub index: u32,
    /// Control-plane name.
    pub name: String,
    /// P4Info id.
    pub id: u32,
    /// Most members.
    pub size: u32,
    /// Width in bits of each field of a member (one for a scalar element type).
    pub widths: Vec<u32>,
}

impl Program {
    pub fn table(&self, name: &str) -> Option<&TableInfo> {
        self.tables.iter().find(|t| t.name == name)
    }
    pub fn action(&self, name: &str) -> Option<&ActionInfo> {
        self.actions.iter().find(|a| a.name == name)
    }
    pub fn extern_(&self, name: &str) -> Option<&ExternInfo> {
        self.externs.iter().find(|x| x.name == name)
    }
}

fn string(p: *const c_char) -> String {
    if p.is_null() {
        return String::new();
    }
    // SAFETY: the runtime validated the metadata; names are NUL-terminated C strings that live as
    // long as the loaded program.
    unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
}

/// # Safety
/// `ptr` must point to `n` valid elements (or n == 0).
unsafe fn slice<'a, T>(ptr: *const T, n: u32) -> &'a [T] {
    if n == 0 || ptr.is_null() {
        &[]
    } else {
        std::slice::from_raw_parts(ptr, n as usize)
    }
}

fn opt_index(i: i32) -> Option<u32> {
    u32::try_from(i).ok()
}

/// Copy the schema out of a program the runtime has validated.
///
/// # Safety
/// `p` must be the program of a live runtime (`p4dp_runtime_program_get`).
pub(crate) unsafe fn from_raw(p: &ffi::p4dp_program) -> Program {
    let actions = slice(p.actions, p.n_actions)
        .iter()
        .enumerate()
        .map(|(i, a)| ActionInfo {
            index: i as u32,
            name: string(a.name),
            id: a.id,
            params: slice(a.params, a.n_params)
                .iter()
                .map(|pi| ParamInfo {
                    name: string(pi.name),
                    id: pi.id,
                    bitwidth: pi.bitwidth,
                })
                .collect(),
        })
        .collect();
    let impls = slice(p.table_impl, if p.table_impl.is_null() { 0 } else { p.n_tables });
    let tables = slice(p.tables, p.n_tables)
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let acts = slice(t.actions, t.n_actions);
            let scopes = slice(t.action_scopes, if t.action_scopes.is_null() { 0 } else { t.n_actions });
            TableInfo {
                index: i as u32,
                name: string(t.name),
                id: t.id,
                keys: slice(t.keys, t.n_keys)
                    .iter()
                    .map(|k| KeyInfo {
                        name: string(k.name),
                        id: k.id,
                        match_kind: match_kind_from_raw(k.match_kind).unwrap_or(MatchKind::Exact),
                        bitwidth: k.bitwidth,
                    })
                    .collect(),
                actions: acts
                    .iter()
                    .enumerate()
                    .map(|(j, &a)| TableAction {
                        action: a,
                        scope: match scopes.get(j) {
                            Some(1) => ActionScope::TableOnly,
                            Some(2) => ActionScope::DefaultOnly,
                            _ => ActionScope::Any,
                        },
                    })
                    .collect(),
                default_action: t.default_action,
                size: t.size,
                needs_priority: t.flags & ffi::P4DP_TABLE_F_NEEDS_PRIORITY != 0,
                const_default_action: t.flags & ffi::P4DP_TABLE_F_DEFAULT_CONST != 0,
                const_entries: t.flags & ffi::P4DP_TABLE_F_ENTRIES_CONST != 0,
                idle_notify: t.flags & ffi::P4DP_TABLE_F_IDLE_NOTIFY != 0,
                initial_entries: t.n_entries,
                direct_counter: opt_index(t.direct_counter),
                direct_meter: opt_index(t.direct_meter),
                implementation: impls.get(i).and_then(|x| opt_index(*x)),
            }
        })
        .collect();
    let externs = slice(p.externs, p.n_externs)
        .iter()
        .enumerate()
        .map(|(i, x)| ExternInfo {
            index: i as u32,
            name: string(x.name),
            id: x.id,
            kind: ExternKind::from_raw(x.kind),
            unit: match x.unit {
                1 => Unit::Packets,
                2 => Unit::Bytes,
                3 => Unit::Both,
                _ => Unit::None,
            },
            n_cells: x.n_cells,
            bitwidth: x.bitwidth,
            table: opt_index(x.table),
            meter_type: meter_type_from_raw(x.meter_type),
        })
        .collect();
    let errors = slice(p.errors, p.n_errors).iter().map(|&e| string(e)).collect();
    let background = slice(p.background_names, p.n_background)
        .iter()
        .map(|&e| string(e))
        .collect();
    let value_sets = slice(p.value_sets, p.n_value_sets)
        .iter()
        .enumerate()
        .map(|(i, v)| ValueSetInfo {
            index: i as u32,
            name: string(v.name),
            id: v.id,
            size: v.size,
            widths: slice(v.widths, v.n_fields).to_vec(),
        })
        .collect();
    Program {
        name: string(p.name),
        arch: string(p.arch),
        tables,
        actions,
        externs,
        errors,
        background,
        value_sets,
    }
}
