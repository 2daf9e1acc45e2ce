//! Table entries: P4Runtime `TableEntry` <-> the runtime's control-plane entries, with the
//! specification's validation (match kinds, don't-care rules, priorities, default entries,
//! canonical bytestrings) done before the runtime is called, so a rejected update changes nothing.

use p4dp_rt::{
    ActionScope, MatchField, MatchKind, PackedEntries, PackedKey, ProfileRef, Program, Runtime, Span, TableInfo,
};
use tonic::Code;

use crate::bytes::{canonical, fit, fit_into, is_ones, is_zero, ones};
use crate::extras;
pub use crate::extras::Extras;
use crate::proto::p4::v1::{
    action, field_match, table_action, table_entry, Action, CounterData, FieldMatch, MeterConfig, TableAction,
    TableEntry,
};

/// An error of one update or read, with its canonical code.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{msg}")]
pub struct OpError {
    pub code: Code,
    pub msg: String,
}

pub fn err(code: Code, msg: impl Into<String>) -> OpError {
    OpError { code, msg: msg.into() }
}
pub fn invalid(msg: impl Into<String>) -> OpError {
    err(Code::InvalidArgument, msg)
}

/// Maps a runtime error to its canonical code.
pub fn rt_err(e: p4dp_rt::Error) -> OpError {
    use p4dp_rt::errno::*;
    let code = match e.errno() {
        Some(EEXIST) => Code::AlreadyExists,
        Some(ENOENT) => Code::NotFound,
        Some(ENOSPC) | Some(ENOMEM) => Code::ResourceExhausted,
        Some(EINVAL) => Code::InvalidArgument,
        Some(EBUSY) => Code::FailedPrecondition,
        _ => Code::Internal,
    };
    err(code, e.to_string())
}

/// The table with runtime index `index`.
pub fn table_by_index(p: &Program, index: u32) -> Result<&TableInfo, OpError> {
    p.tables
        .iter()
        .find(|t| t.index == index)
        .ok_or_else(|| err(Code::Internal, format!("no table with index {index}")))
}

pub fn table_by_id(p: &Program, id: u32) -> Result<&TableInfo, OpError> {
    p.tables
        .iter()
        .find(|t| t.id == id)
        .ok_or_else(|| err(Code::NotFound, format!("no table with id {id}")))
}

/// A match field of a write, borrowed: from prost's [`FieldMatch`] or from a Write's wire bytes
/// (crate::fastwrite).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FieldRef<'a> {
    pub field_id: u32,
    pub m: MatchRef<'a>,
}

/// The match of a [`FieldRef`] (`Absent`: no `field_match_type`; `Other`: the `other` kind).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MatchRef<'a> {
    Absent,
    Exact(&'a [u8]),
    Ternary(&'a [u8], &'a [u8]),
    Lpm(&'a [u8], i32),
    Range(&'a [u8], &'a [u8]),
    Optional(&'a [u8]),
    Other,
}

impl<'a> From<&'a FieldMatch> for FieldRef<'a> {
    fn from(f: &'a FieldMatch) -> FieldRef<'a> {
        use field_match::FieldMatchType as F;
        FieldRef {
            field_id: f.field_id,
            m: match &f.field_match_type {
                None => MatchRef::Absent,
                Some(F::Exact(e)) => MatchRef::Exact(&e.value),
                Some(F::Ternary(t)) => MatchRef::Ternary(&t.value, &t.mask),
                Some(F::Lpm(l)) => MatchRef::Lpm(&l.value, l.prefix_len),
                Some(F::Range(r)) => MatchRef::Range(&r.low, &r.high),
                Some(F::Optional(o)) => MatchRef::Optional(&o.value),
                Some(F::Other(_)) => MatchRef::Other,
            },
        }
    }
}

/// The runtime match of a P4Runtime match (fields in any order; omitted non-exact fields are
/// don't-care). Validates every rule of the specification's "Match Format" section.
pub fn match_of(t: &TableInfo, fields: &[FieldMatch]) -> Result<Vec<MatchField>, OpError> {
    match_refs(t, fields.iter().map(FieldRef::from))
}

/// [`match_of`] of borrowed match fields.
pub fn match_refs<'a>(
    t: &TableInfo,
    fields: impl IntoIterator<Item = FieldRef<'a>>,
) -> Result<Vec<MatchField>, OpError> {
    let mut out = Owned::new(t.keys.len());
    match_into(t, fields, &mut out)?;
    Ok(out.matches)
}

/// A validated match field, its values as the [`EntryOut`] keeps them.
pub enum Key<V> {
    Exact(V),
    Lpm(V, u32),
    Ternary(V, V),
    Range(V, V),
    Optional(V),
}

/// Where the validation of an entry puts its values: the entry's own vectors ([`Owned`], for a
/// [`p4dp_rt::TableEntry`]) or a run's shared buffers ([`PackedEntries`]: crate::batch's runs of
/// inserts, with no allocation per entry). Validation fills an entry begun with every match
/// field unset.
pub trait EntryOut {
    type V;
    /// `v` as exactly ceil(`w`/8) bytes (crate::bytes::fit), or None if it does not fit.
    fn fit(&mut self, v: &[u8], w: u32) -> Option<Self::V>;
    fn bytes<'s>(&'s self, v: &'s Self::V) -> &'s [u8];
    /// Whether match field `pos` is set.
    fn is_set(&self, pos: usize) -> bool;
    fn set_key(&mut self, pos: usize, k: Key<Self::V>);
    /// Gives the entry `n` parameters, all unset.
    fn begin_params(&mut self, n: usize);
    fn set_param(&mut self, pos: usize, v: Self::V);
}

/// An entry's match and parameters in their own vectors.
pub struct Owned {
    pub matches: Vec<MatchField>,
    pub params: Vec<Vec<u8>>,
}

impl Owned {
    /// An entry of `n_keys` unset match fields.
    pub fn new(n_keys: usize) -> Owned {
        // a given field never becomes DontCare, so a slot still DontCare was not given
        Owned {
            matches: vec![MatchField::DontCare; n_keys],
            params: Vec::new(),
        }
    }
}

impl EntryOut for Owned {
    type V = Vec<u8>;
    fn fit(&mut self, v: &[u8], w: u32) -> Option<Vec<u8>> {
        fit(v, w)
    }
    fn bytes<'s>(&'s self, v: &'s Vec<u8>) -> &'s [u8] {
        v
    }
    fn is_set(&self, pos: usize) -> bool {
        !matches!(self.matches[pos], MatchField::DontCare)
    }
    fn set_key(&mut self, pos: usize, k: Key<Vec<u8>>) {
        self.matches[pos] = match k {
            Key::Exact(v) => MatchField::Exact(v),
            Key::Lpm(v, plen) => MatchField::Lpm(v, plen),
            Key::Ternary(v, m) => MatchField::Ternary(v, m),
            Key::Range(lo, hi) => MatchField::Range(lo, hi),
            Key::Optional(v) => MatchField::Optional(Some(v)),
        };
    }
    fn begin_params(&mut self, n: usize) {
        self.params = vec![Vec::new(); n];
    }
    fn set_param(&mut self, pos: usize, v: Vec<u8>) {
        self.params[pos] = v;
    }
}

impl EntryOut for PackedEntries {
    type V = Span;
    fn fit(&mut self, v: &[u8], w: u32) -> Option<Span> {
        self.value(|out| fit_into(v, w, out))
    }
    fn bytes<'s>(&'s self, v: &'s Span) -> &'s [u8] {
        PackedEntries::bytes(self, *v)
    }
    fn is_set(&self, pos: usize) -> bool {
        self.key(pos) != PackedKey::DontCare
    }
    fn set_key(&mut self, pos: usize, k: Key<Span>) {
        let k = match k {
            Key::Exact(v) => PackedKey::Exact(v),
            Key::Lpm(v, plen) => PackedKey::Lpm(v, plen),
            Key::Ternary(v, m) => PackedKey::Ternary(v, m),
            Key::Range(lo, hi) => PackedKey::Range(lo, hi),
            Key::Optional(v) => PackedKey::Optional(Some(v)),
        };
        PackedEntries::set_key(self, pos, k);
    }
    fn begin_params(&mut self, n: usize) {
        PackedEntries::begin_params(self, n);
    }
    fn set_param(&mut self, pos: usize, v: Span) {
        PackedEntries::set_param(self, pos, v);
    }
}

/// Validates the match fields `fields` of an entry of table `t` into `out` (an entry begun with
/// `t`'s fields unset): [`match_refs`]'s checks, in its order, with its errors.
pub fn match_into<'a, O: EntryOut>(
    t: &TableInfo,
    fields: impl IntoIterator<Item = FieldRef<'a>>,
    out: &mut O,
) -> Result<(), OpError> {
    for f in fields {
        let pos = t
            .keys
            .iter()
            .position(|k| k.id == f.field_id)
            .ok_or_else(|| invalid(format!("table {}: no match field with id {}", t.name, f.field_id)))?;
        let k = &t.keys[pos];
        if out.is_set(pos) {
            return Err(invalid(format!("match field {} given twice", k.name)));
        }
        let w = k.bitwidth;
        let val = |out: &mut O, v: &[u8], what: &str| {
            out.fit(v, w).ok_or_else(|| {
                invalid(format!(
                    "match field {}: {what} {} does not fit in {w} bits",
                    k.name,
                    hex(v)
                ))
            })
        };
        use MatchRef as R;
        let m = match (f.m, k.match_kind) {
            (R::Exact(e), MatchKind::Exact) => Key::Exact(val(out, e, "value")?),
            (R::Lpm(lv, prefix_len), MatchKind::Lpm) => {
                if prefix_len <= 0 || prefix_len as u32 > w {
                    return Err(invalid(format!(
                        "match field {}: prefix length {} must be in 1..={w} (omit the field for a wildcard)",
                        k.name, prefix_len
                    )));
                }
                let v = val(out, lv, "value")?;
                let plen = prefix_len as u32;
                if !prefix_clear(out.bytes(&v), plen, w) {
                    return Err(invalid(format!(
                        "match field {}: value {} has bits set beyond the /{plen} prefix",
                        k.name,
                        hex(lv)
                    )));
                }
                Key::Lpm(v, plen)
            }
            (R::Ternary(tv, tm), MatchKind::Ternary) => {
                let v = val(out, tv, "value")?;
                let m = val(out, tm, "mask")?;
                if is_zero(out.bytes(&m)) {
                    return Err(invalid(format!(
                        "match field {}: an all-zero mask is a wildcard: omit the field",
                        k.name
                    )));
                }
                if !masked_clear(out.bytes(&v), out.bytes(&m)) {
                    return Err(invalid(format!(
                        "match field {}: value {} has bits set outside the mask {}",
                        k.name,
                        hex(tv),
                        hex(tm)
                    )));
                }
                Key::Ternary(v, m)
            }
            (R::Range(low, high), MatchKind::Range) => {
                let lo = val(out, low, "low")?;
                let hi = val(out, high, "high")?;
                let (l, h) = (out.bytes(&lo), out.bytes(&hi));
                if l > h {
                    return Err(invalid(format!("match field {}: low is above high", k.name)));
                }
                if is_zero(l) && is_ones(h, w) {
                    return Err(invalid(format!(
                        "match field {}: the full range is a wildcard: omit the field",
                        k.name
                    )));
                }
                Key::Range(lo, hi)
            }
            (R::Optional(o), MatchKind::Optional) => Key::Optional(val(out, o, "value")?),
            (R::Absent, _) => return Err(invalid(format!("match field {}: no match value", k.name))),
            (other, kind) => {
                return Err(invalid(format!(
                    "match field {} is {kind:?}, the update gives {}",
                    k.name,
                    kind_name(other)
                )))
            }
        };
        out.set_key(pos, m);
    }
    if let Some(k) = t
        .keys
        .iter()
        .enumerate()
        .find(|&(pos, k)| k.match_kind == MatchKind::Exact && !out.is_set(pos))
        .map(|(_, k)| k)
    {
        return Err(invalid(format!("exact match field {} is missing", k.name)));
    }
    Ok(())
}

fn kind_name(f: MatchRef) -> &'static str {
    match f {
        MatchRef::Exact(_) => "exact",
        MatchRef::Ternary(..) => "ternary",
        MatchRef::Lpm(..) => "lpm",
        MatchRef::Range(..) => "range",
        MatchRef::Optional(_) => "optional",
        MatchRef::Other => "another match kind",
        MatchRef::Absent => "no match value",
    }
}

#[cfg(test)]
fn prefix_mask(plen: u32, w: u32) -> Vec<u8> {
    let n = w.div_ceil(8) as usize;
    let mut m = vec![0u8; n];
    let spare = n as u32 * 8 - w;
    for bit in 0..plen {
        let b = spare + bit; // from the most significant bit of the byte string
        m[(b / 8) as usize] |= 0x80 >> (b % 8);
    }
    m
}

/// Whether `v` (ceil(`w`/8) bytes) has no bit set beyond its /`plen` prefix: as
/// `masked_clear(v, &prefix_mask(plen, w))`, without building the mask.
fn prefix_clear(v: &[u8], plen: u32, w: u32) -> bool {
    let spare = (v.len() as u32 * 8).saturating_sub(w);
    // bits from the most significant bit of the byte string: the prefix is [spare, spare + plen)
    let end = spare + plen;
    v.iter().enumerate().all(|(i, &b)| {
        // this byte's bits of the prefix, counted from its most significant bit: [lo, hi)
        let first = i as u32 * 8;
        let lo = spare.clamp(first, first + 8) - first;
        let hi = end.clamp(first, first + 8) - first;
        let keep = ((0xffu32 >> lo) & !(0xffu32 >> hi)) as u8;
        b & !keep == 0
    })
}

fn masked_clear(v: &[u8], m: &[u8]) -> bool {
    v.iter().zip(m).all(|(a, b)| a & !b == 0)
}

fn hex(v: &[u8]) -> String {
    if v.is_empty() {
        return "(empty)".into();
    }
    let s: String = v.iter().map(|b| format!("{b:02x}")).collect();
    format!("0x{s}")
}

/// Checks the priority rule: > 0 for tables with ternary/range/optional fields, else 0.
pub fn check_priority(t: &TableInfo, priority: i32) -> Result<(), OpError> {
    if t.needs_priority && priority <= 0 {
        return Err(invalid(format!(
            "table {} has ternary, range or optional fields: the priority must be > 0",
            t.name
        )));
    }
    if !t.needs_priority && priority != 0 {
        return Err(invalid(format!(
            "table {} has only exact and lpm fields: the priority must be 0",
            t.name
        )));
    }
    Ok(())
}

/// Runtime action index and parameter values of a P4Runtime action in table `t`.
/// `default`: for the default entry (`@tableonly` actions refused), else `@defaultonly` refused.
pub fn action_of(p: &Program, t: &TableInfo, a: &Action, default: bool) -> Result<(u32, Vec<Vec<u8>>), OpError> {
    action_refs(
        p,
        t,
        a.action_id,
        a.params.iter().map(|g| (g.param_id, &g.value[..])),
        default,
    )
}

/// [`action_of`] of an action id and borrowed parameters (id, value).
pub fn action_refs<'a>(
    p: &Program,
    t: &TableInfo,
    action_id: u32,
    params: impl IntoIterator<Item = (u32, &'a [u8])>,
    default: bool,
) -> Result<(u32, Vec<Vec<u8>>), OpError> {
    let index = action_index(p, t, action_id, default)?;
    Ok((index, param_refs(p, index, params)?))
}

/// The runtime index of action `action_id` of table `t`, if an entry (or, with `default`, the
/// default entry) may have it.
fn action_index(p: &Program, t: &TableInfo, action_id: u32, default: bool) -> Result<u32, OpError> {
    let ai = p
        .actions
        .iter()
        .find(|x| x.id == action_id)
        .ok_or_else(|| invalid(format!("no action with id {action_id}")))?;
    let ta = t
        .actions
        .iter()
        .find(|ta| ta.action == ai.index)
        .ok_or_else(|| invalid(format!("action {} is not an action of table {}", ai.name, t.name)))?;
    match (ta.scope, default) {
        (ActionScope::TableOnly, true) => Err(invalid(format!(
            "action {} is @tableonly in table {}: not a default action",
            ai.name, t.name
        ))),
        (ActionScope::DefaultOnly, false) => Err(invalid(format!(
            "action {} is @defaultonly in table {}: not for entries",
            ai.name, t.name
        ))),
        _ => Ok(ai.index),
    }
}

/// Parameter values of action `index` in declaration order.
pub fn params_of(p: &Program, index: u32, given: &[action::Param]) -> Result<Vec<Vec<u8>>, OpError> {
    param_refs(p, index, given.iter().map(|g| (g.param_id, &g.value[..])))
}

/// [`params_of`] of borrowed parameters (id, value).
pub fn param_refs<'a>(
    p: &Program,
    index: u32,
    given: impl IntoIterator<Item = (u32, &'a [u8])>,
) -> Result<Vec<Vec<u8>>, OpError> {
    let mut out = Owned::new(0);
    params_into(p, index, given, &mut out)?;
    Ok(out.params)
}

/// Validates the parameters `given` of action `index` into `out`'s entry: [`param_refs`]'s
/// checks, in its order, with its errors.
pub fn params_into<'a, O: EntryOut>(
    p: &Program,
    index: u32,
    given: impl IntoIterator<Item = (u32, &'a [u8])>,
    out: &mut O,
) -> Result<(), OpError> {
    let ai = &p.actions[index as usize];
    out.begin_params(ai.params.len());
    let mut seen = Seen::new(ai.params.len());
    for (param_id, value) in given {
        let pos = ai
            .params
            .iter()
            .position(|x| x.id == param_id)
            .ok_or_else(|| invalid(format!("action {}: no parameter with id {param_id}", ai.name)))?;
        let pi = &ai.params[pos];
        if !seen.insert(pos) {
            return Err(invalid(format!(
                "action {}: parameter {} given twice",
                ai.name, pi.name
            )));
        }
        let v = out.fit(value, pi.bitwidth).ok_or_else(|| {
            invalid(format!(
                "action {}: parameter {} value {} does not fit in {} bits",
                ai.name,
                pi.name,
                hex(value),
                pi.bitwidth
            ))
        })?;
        out.set_param(pos, v);
    }
    if let Some(pi) = (0..ai.params.len()).find(|&i| !seen.has(i)).map(|i| &ai.params[i]) {
        return Err(invalid(format!("action {}: parameter {} is missing", ai.name, pi.name)));
    }
    Ok(())
}

/// A set of positions below a bound: a word of bits for up to 64, else a vector.
enum Seen {
    Word(u64),
    Many(Vec<bool>),
}

impl Seen {
    fn new(n: usize) -> Seen {
        if n <= 64 {
            Seen::Word(0)
        } else {
            Seen::Many(vec![false; n])
        }
    }

    /// Adds `i`; false if it was there.
    fn insert(&mut self, i: usize) -> bool {
        match self {
            Seen::Word(w) => {
                let was = *w & (1 << i) != 0;
                *w |= 1 << i;
                !was
            }
            Seen::Many(v) => !std::mem::replace(&mut v[i], true),
        }
    }

    fn has(&self, i: usize) -> bool {
        match self {
            Seen::Word(w) => *w & (1 << i) != 0,
            Seen::Many(v) => v[i],
        }
    }
}

/// The P4Runtime form of a runtime match: canonical values, wildcards omitted.
pub fn fields_of(t: &TableInfo, m: &[MatchField]) -> Vec<FieldMatch> {
    use field_match::FieldMatchType as F;
    let mut out = Vec::new();
    for (k, f) in t.keys.iter().zip(m) {
        let fm = match f {
            MatchField::Exact(v) => F::Exact(field_match::Exact { value: canonical(v) }),
            MatchField::Lpm(_, 0) => continue,
            MatchField::Lpm(v, p) => F::Lpm(field_match::Lpm {
                value: canonical(v),
                prefix_len: *p as i32,
            }),
            MatchField::Ternary(_, mk) if is_zero(mk) => continue,
            MatchField::Ternary(v, mk) => F::Ternary(field_match::Ternary {
                value: canonical(v),
                mask: canonical(mk),
            }),
            MatchField::Range(lo, hi) if is_zero(lo) && *hi == ones(k.bitwidth) => continue,
            MatchField::Range(lo, hi) => F::Range(field_match::Range {
                low: canonical(lo),
                high: canonical(hi),
            }),
            MatchField::Optional(Some(v)) => F::Optional(field_match::Optional { value: canonical(v) }),
            MatchField::Optional(None) | MatchField::DontCare => continue,
        };
        out.push(FieldMatch {
            field_id: k.id,
            field_match_type: Some(fm),
        });
    }
    out
}

/// The P4Runtime action of a runtime action and its parameters.
pub fn action_msg(p: &Program, action: u32, params: &[Vec<u8>]) -> TableAction {
    if let Some(r) = ProfileRef::of_entry(&p4dp_rt::TableEntry {
        matches: vec![],
        priority: 0,
        action,
        params: params.to_vec(),
    }) {
        return TableAction {
            r#type: Some(match r {
                ProfileRef::Member(m) => table_action::Type::ActionProfileMemberId(m),
                ProfileRef::Group(g) => table_action::Type::ActionProfileGroupId(g),
            }),
        };
    }
    let Some(ai) = p.actions.get(action as usize) else {
        return TableAction { r#type: None };
    };
    TableAction {
        r#type: Some(table_action::Type::Action(Action {
            action_id: ai.id,
            params: ai
                .params
                .iter()
                .zip(params)
                .map(|(pi, v)| action::Param {
                    param_id: pi.id,
                    value: canonical(v),
                })
                .collect(),
        })),
    }
}

/// What a write of a table entry asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Insert,
    Modify,
    Delete,
}

/// A validated table-entry write in runtime form: what [`prepare`] makes of an update, before
/// anything is written.
#[derive(Clone, Debug, PartialEq)]
pub enum TableWrite {
    /// Add (`insert`) or modify an entry with a direct action; then set its extras.
    Direct {
        table: u32,
        entry: p4dp_rt::TableEntry,
        insert: bool,
        extras: Extras,
    },
    /// Add or modify an entry of an action-profile table; then set its extras.
    Indirect {
        table: u32,
        matches: Vec<MatchField>,
        priority: i32,
        r: ProfileRef,
        insert: bool,
        extras: Extras,
    },
    Delete {
        table: u32,
        matches: Vec<MatchField>,
        priority: i32,
    },
    /// Set the default entry's action; then its extras.
    DefaultSet {
        table: u32,
        action: u32,
        params: Vec<Vec<u8>>,
        extras: Extras,
    },
    /// Put back the program's default action; then set the default entry's extras.
    DefaultReset { table: u32, extras: Extras },
}

impl TableWrite {
    /// Writes it to the runtime: [`TableWrite::apply_entry`], then [`TableWrite::apply_extras`].
    pub fn apply(&self, rt: &Runtime) -> Result<(), OpError> {
        self.apply_entry(rt)?;
        self.apply_extras(rt)
    }

    /// Writes the entry (or default entry); on error nothing was written.
    pub fn apply_entry(&self, rt: &Runtime) -> Result<(), OpError> {
        match self {
            TableWrite::Direct {
                table, entry, insert, ..
            } => {
                if *insert {
                    rt.entry_add(*table, entry)
                } else {
                    rt.entry_modify(*table, entry)
                }
            }
            TableWrite::Indirect {
                table,
                matches,
                priority,
                r,
                insert,
                ..
            } => {
                if *insert {
                    rt.indirect_add(*table, matches, *priority, *r)
                } else {
                    rt.indirect_modify(*table, matches, *priority, *r)
                }
            }
            TableWrite::Delete {
                table,
                matches,
                priority,
            } => rt.entry_delete(*table, matches, *priority),
            TableWrite::DefaultSet {
                table, action, params, ..
            } => rt.default_set(*table, *action, params),
            TableWrite::DefaultReset { table, .. } => rt.default_reset(*table),
        }
        .map_err(rt_err)
    }

    /// Sets the written entry's extras (idle timeout, direct meter and counter, metadata) as the
    /// update gave them.
    pub fn apply_extras(&self, rt: &Runtime) -> Result<(), OpError> {
        match self {
            TableWrite::DefaultSet { table, extras, .. } | TableWrite::DefaultReset { table, extras } => {
                return extras.apply_default(rt, *table)
            }
            _ => {}
        }
        match self.extras() {
            Some((table, m, prio, x)) => x.apply(rt, table, m, prio),
            None => Ok(()),
        }
    }

    /// The entry an insert or modify writes and what it sets after it.
    fn extras(&self) -> Option<(u32, &[MatchField], i32, &Extras)> {
        match self {
            TableWrite::Direct {
                table, entry, extras, ..
            } => Some((*table, &entry.matches, entry.priority, extras)),
            TableWrite::Indirect {
                table,
                matches,
                priority,
                extras,
                ..
            } => Some((*table, matches, *priority, extras)),
            _ => None,
        }
    }
}

/// Applies one table-entry update. Everything is validated before the runtime is called.
pub fn write(rt: &Runtime, e: &TableEntry, op: Op) -> Result<(), OpError> {
    prepare(rt.program(), e, op)?.apply(rt)
}

/// Validates one table-entry update completely (no runtime call) and returns it in runtime form.
pub fn prepare(p: &Program, e: &TableEntry, op: Op) -> Result<TableWrite, OpError> {
    if e.table_id == 0 {
        return Err(invalid("table_id 0 (a wildcard) is not allowed in a write"));
    }
    let t = table_by_id(p, e.table_id)?;
    if e.is_default_action {
        return prepare_default(p, t, e, op);
    }
    prepare_entry(
        p,
        t,
        op,
        || Extras::of(p, t, e, op),
        e.r#match.iter().map(FieldRef::from),
        e.priority,
        action_ref(e),
    )
}

/// The action of `e`, borrowed.
pub fn action_ref(e: &TableEntry) -> Option<ActionRef<impl Iterator<Item = (u32, &[u8])>>> {
    Some(match e.action.as_ref()?.r#type.as_ref()? {
        table_action::Type::Action(a) => {
            ActionRef::Direct(a.action_id, a.params.iter().map(|g| (g.param_id, &g.value[..])))
        }
        table_action::Type::ActionProfileMemberId(m) => ActionRef::Member(*m),
        table_action::Type::ActionProfileGroupId(g) => ActionRef::Group(*g),
        table_action::Type::ActionProfileActionSet(_) => ActionRef::Set,
    })
}

/// The action of an entry being written, borrowed: a direct action (id, parameters as
/// (id, value)), an action-profile member or group, or an action set.
pub enum ActionRef<P> {
    Direct(u32, P),
    Member(u32),
    Group(u32),
    Set,
}

/// [`prepare`] of a non-default entry of table `t` from borrowed parts (crate::fastwrite's
/// entries, which have no extras: `extras` gives them): the same checks, in the same order, with
/// the same errors.
pub fn prepare_entry<'a, P: IntoIterator<Item = (u32, &'a [u8])>>(
    p: &Program,
    t: &TableInfo,
    op: Op,
    extras: impl FnOnce() -> Result<Extras, OpError>,
    fields: impl IntoIterator<Item = FieldRef<'a>>,
    priority: i32,
    act: Option<ActionRef<P>>,
) -> Result<TableWrite, OpError> {
    let mut out = Owned::new(t.keys.len());
    let (what, extras) = prepare_into(p, t, op, extras, fields, priority, act, &mut out)?;
    let table = t.index;
    let matches = out.matches;
    Ok(match what {
        Prepared::Delete => TableWrite::Delete {
            table,
            matches,
            priority,
        },
        Prepared::Direct { action, insert } => TableWrite::Direct {
            table,
            entry: p4dp_rt::TableEntry {
                matches,
                priority,
                action,
                params: out.params,
            },
            insert,
            extras,
        },
        Prepared::Indirect { r, insert } => TableWrite::Indirect {
            table,
            matches,
            priority,
            r,
            insert,
            extras,
        },
    })
}

/// What [`prepare_into`] found besides the values it wrote.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Prepared {
    Delete,
    /// A direct action: its runtime index (its parameters are in the entry's values).
    Direct {
        action: u32,
        insert: bool,
    },
    /// An action-profile member or group.
    Indirect {
        r: ProfileRef,
        insert: bool,
    },
}

/// [`prepare_entry`] with the entry's match and parameters written into `out` (an entry begun
/// with `t`'s match fields unset), and its extras.
#[allow(clippy::too_many_arguments)]
pub fn prepare_into<'a, P: IntoIterator<Item = (u32, &'a [u8])>, O: EntryOut>(
    p: &Program,
    t: &TableInfo,
    op: Op,
    extras: impl FnOnce() -> Result<Extras, OpError>,
    fields: impl IntoIterator<Item = FieldRef<'a>>,
    priority: i32,
    act: Option<ActionRef<P>>,
    out: &mut O,
) -> Result<(Prepared, Extras), OpError> {
    if t.const_entries {
        return Err(err(
            Code::PermissionDenied,
            format!("table {} has const entries: it cannot be written", t.name),
        ));
    }
    if t.keys.is_empty() {
        return Err(invalid(format!(
            "table {} has no key: only its default entry can be written",
            t.name
        )));
    }
    let extras = extras()?;
    match_into(t, fields, out)?;
    check_priority(t, priority)?;
    let insert = match op {
        Op::Delete => return Ok((Prepared::Delete, extras)),
        Op::Insert => true,
        Op::Modify => false,
    };
    let act = act.ok_or_else(|| invalid("the entry has no action"))?;
    let indirect = |r: ProfileRef| {
        if t.implementation.is_none() {
            return Err(invalid(format!(
                "table {} is not implemented by an action profile: give an action",
                t.name
            )));
        }
        Ok(Prepared::Indirect { r, insert })
    };
    let what = match act {
        ActionRef::Direct(action_id, params) => {
            if t.implementation.is_some() {
                return Err(invalid(format!(
                    "table {} is implemented by an action profile: give a member or group id",
                    t.name
                )));
            }
            let action = action_index(p, t, action_id, false)?;
            params_into(p, action, params, out)?;
            Prepared::Direct { action, insert }
        }
        ActionRef::Member(m) => indirect(ProfileRef::Member(m))?,
        ActionRef::Group(g) => indirect(ProfileRef::Group(g))?,
        // sets of selector tables are written through crate::actprof (hidden members and a
        // group) and never get here
        ActionRef::Set => {
            return Err(invalid(format!(
                "table {} is not implemented by an action selector: it takes no action set",
                t.name
            )))
        }
    };
    Ok((what, extras))
}

pub fn counter_value(c: &CounterData) -> Result<p4dp_rt::CounterValue, OpError> {
    if c.byte_count < 0 || c.packet_count < 0 {
        return Err(invalid("counter values must not be negative"));
    }
    Ok(p4dp_rt::CounterValue {
        packets: c.packet_count as u64,
        bytes: c.byte_count as u64,
    })
}

pub fn counter_data(v: p4dp_rt::CounterValue) -> CounterData {
    CounterData {
        byte_count: v.bytes.min(i64::MAX as u64) as i64,
        packet_count: v.packets.min(i64::MAX as u64) as i64,
    }
}

// controller_metadata: deprecated by the specification in favour of metadata, still served
#[allow(deprecated)]
fn prepare_default(p: &Program, t: &TableInfo, e: &TableEntry, op: Op) -> Result<TableWrite, OpError> {
    if !matches!(op, Op::Modify) {
        return Err(invalid(
            "the default entry can only be modified (MODIFY), not inserted or deleted",
        ));
    }
    if !e.r#match.is_empty() || e.priority != 0 {
        return Err(invalid("a default entry has no match and priority 0"));
    }
    let extras = Extras::of_default(p, t, e)?;
    if t.const_default_action {
        return Err(err(
            Code::PermissionDenied,
            format!("table {} has a const default action", t.name),
        ));
    }
    match e.action.as_ref().and_then(|a| a.r#type.as_ref()) {
        None => Ok(TableWrite::DefaultReset { table: t.index, extras }),
        Some(table_action::Type::Action(a)) => {
            let (action, params) = action_of(p, t, a, true)?;
            Ok(TableWrite::DefaultSet {
                table: t.index,
                action,
                params,
                extras,
            })
        }
        // the proto: a default entry's action "must be populated with a valid direct action"; the
        // specification restricts the default entry of indirect tables to a direct action (NoAction)
        Some(_) => Err(invalid(
            "a default entry takes a direct action, not an action-profile member, group or action set \
             (P4Runtime: the default entry of an indirect table is a direct action)",
        )),
    }
}

/// Reads entries of one table (`e.table_id` != 0) as `e` selects: the default entry
/// (`is_default_action`), one entry (a match given), or all entries.
// controller_metadata: deprecated by the specification in favour of metadata, still served
#[allow(deprecated)]
pub fn read(rt: &Runtime, t: &TableInfo, e: &TableEntry, out: &mut Vec<TableEntry>) -> Result<(), OpError> {
    let p = rt.program();
    let want_counter = e.counter_data.is_some() && t.direct_counter.is_some();
    let want_hit = e.time_since_last_hit.is_some();
    let want_meter = e.meter_config.is_some() && t.direct_meter.is_some();
    let want_meter_counts = e.meter_counter_data.is_some() && t.direct_meter.is_some();
    let has_meta = rt.table_stats(t.index).map_err(rt_err)?.meta_entries > 0;
    if want_hit && (!t.idle_notify || e.is_default_action) {
        return Err(invalid(format!(
            "time_since_last_hit: table {} {}",
            t.name,
            if e.is_default_action {
                "has no idle timeout for its default entry"
            } else {
                "does not support idle timeout"
            }
        )));
    }
    if e.is_default_action {
        // the default entry's direct counter and meter cells (the misses') and its metadata
        let (a, params) = rt.default_get(t.index).map_err(rt_err)?;
        let (controller_metadata, metadata) = extras::decode_meta(&rt.default_meta_get(t.index).map_err(rt_err)?);
        out.push(TableEntry {
            table_id: t.id,
            action: Some(action_msg(p, a, &params)),
            is_default_action: true,
            counter_data: if want_counter {
                Some(counter_data(rt.default_counter_read(t.index).map_err(rt_err)?))
            } else {
                None
            },
            meter_config: if want_meter {
                rt.default_meter_get(t.index).map_err(rt_err)?.map(extras::meter_msg)
            } else {
                None
            },
            meter_counter_data: if want_meter_counts {
                Some(extras::meter_counter_data(
                    rt.default_meter_counts_read(t.index).map_err(rt_err)?,
                ))
            } else {
                None
            },
            controller_metadata,
            metadata,
            ..Default::default()
        });
        return Ok(());
    }
    let entries = if !e.r#match.is_empty() {
        let m = match_of(t, &e.r#match)?;
        match rt.entry_get(t.index, &m, e.priority) {
            Ok(x) => vec![x],
            Err(er) if er.errno() == Some(p4dp_rt::errno::ENOENT) => vec![],
            Err(er) => return Err(rt_err(er)),
        }
    } else {
        let mut all = rt.entries(t.index).map_err(rt_err)?;
        if e.priority != 0 {
            all.retain(|x| x.priority == e.priority);
        }
        all
    };
    for x in entries {
        let counter_data = if want_counter {
            Some(counter_data(
                rt.direct_counter_read(t.index, &x.matches, x.priority)
                    .map_err(rt_err)?,
            ))
        } else {
            None
        };
        let idle = if t.idle_notify {
            Some(rt.entry_idle_get(t.index, &x.matches, x.priority).map_err(rt_err)?)
        } else {
            None
        };
        let (controller_metadata, metadata) = if has_meta {
            extras::decode_meta(&rt.entry_meta_get(t.index, &x.matches, x.priority).map_err(rt_err)?)
        } else {
            (0, Vec::new())
        };
        if (!e.metadata.is_empty() && e.metadata != metadata)
            || (e.controller_metadata != 0 && e.controller_metadata != controller_metadata)
        {
            continue; // the read's filters
        }
        let meter_config = if want_meter {
            rt.direct_meter_get(t.index, &x.matches, x.priority)
                .map_err(rt_err)?
                .map(extras::meter_msg)
        } else {
            None
        };
        let meter_counter_data = if want_meter_counts {
            Some(extras::meter_counter_data(
                rt.direct_meter_counts_read(t.index, &x.matches, x.priority)
                    .map_err(rt_err)?,
            ))
        } else {
            None
        };
        out.push(TableEntry {
            table_id: t.id,
            controller_metadata,
            metadata,
            meter_config,
            meter_counter_data,
            r#match: fields_of(t, &x.matches),
            priority: x.priority,
            action: Some(action_msg(p, x.action, &x.params)),
            counter_data,
            is_const: t.const_entries,
            // the TTL as written (entries the program or data plane installed have none: 0)
            idle_timeout_ns: idle.filter(|i| i.own_ttl).map_or(0, |i| ttl_i64(i.ttl_ns)),
            time_since_last_hit: idle.filter(|_| want_hit).map(|i| table_entry::IdleTimeout {
                elapsed_ns: ttl_i64(i.since_hit_ns),
            }),
            ..Default::default()
        });
    }
    Ok(())
}

/// A duration as the protos' int64 (the runtime's come from int64 values or a clock in ns).
pub fn ttl_i64(ns: u64) -> i64 {
    ns.min(i64::MAX as u64) as i64
}

/// A meter configuration in runtime form.
/// A meter configuration in runtime form, checked against the type of meter `x` (P4Info
/// MeterSpec.Type): two-rate three-colour ones take pir >= cir and eburst 0, single-rate ones
/// cir == pir && cburst == pburst, single-rate two-colour ones eburst 0 besides.
pub fn meter_value(c: &MeterConfig, x: &p4dp_rt::ExternInfo) -> Result<p4dp_rt::MeterConfig, OpError> {
    use p4dp_rt::MeterType as T;
    if c.cir < 0 || c.cburst < 0 || c.pir < 0 || c.pburst < 0 || c.eburst < 0 {
        return Err(invalid("meter rates and bursts must not be negative"));
    }
    let (ty, single_rate) = match x.meter_type {
        T::TwoRateThreeColor => ("TWO_RATE_THREE_COLOR", false),
        T::SingleRateThreeColor => ("SINGLE_RATE_THREE_COLOR", true),
        T::SingleRateTwoColor => ("SINGLE_RATE_TWO_COLOR", true),
    };
    let must = |what: &str| {
        invalid(format!(
            "{} is a {ty} meter: its MeterConfig must have {what} (cir {}, pir {}, cburst {}, pburst {}, eburst {})",
            x.name, c.cir, c.pir, c.cburst, c.pburst, c.eburst
        ))
    };
    if single_rate && (c.cir != c.pir || c.cburst != c.pburst) {
        return Err(must("cir == pir && cburst == pburst"));
    }
    if x.meter_type != T::SingleRateThreeColor && c.eburst != 0 {
        return Err(must("eburst == 0"));
    }
    if c.pir < c.cir {
        return Err(invalid(format!("{}: pir must be >= cir", x.name)));
    }
    Ok(p4dp_rt::MeterConfig {
        cir: c.cir as u64,
        cburst: c.cburst as u64,
        pir: c.pir as u64,
        pburst: c.pburst as u64,
        eburst: c.eburst as u64,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefix_masks() {
        assert_eq!(prefix_mask(8, 32), vec![0xff, 0, 0, 0]);
        assert_eq!(prefix_mask(1, 9), vec![0x01, 0x00]);
        assert_eq!(prefix_mask(9, 9), vec![0x01, 0xff]);
    }

    /// prefix_clear is masked_clear against prefix_mask, for every value byte pattern tried.
    #[test]
    fn prefix_clear_is_masked_clear() {
        for w in [1u32, 7, 8, 9, 12, 16, 17, 32, 48, 128] {
            let n = w.div_ceil(8) as usize;
            for plen in 1..=w {
                let m = prefix_mask(plen, w);
                for pat in [0u8, 0x01, 0x80, 0xff, 0x5a, 0xa5, 0x0f, 0xf0] {
                    for at in 0..n {
                        let mut v = m.clone();
                        v[at] |= pat;
                        assert_eq!(
                            prefix_clear(&v, plen, w),
                            masked_clear(&v, &m),
                            "w {w} plen {plen} {v:?}"
                        );
                        let mut v = vec![0u8; n];
                        v[at] = pat;
                        assert_eq!(
                            prefix_clear(&v, plen, w),
                            masked_clear(&v, &m),
                            "w {w} plen {plen} {v:?}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn seen_sets() {
        for n in [3usize, 64, 65, 200] {
            let mut s = Seen::new(n);
            assert!(s.insert(n - 1));
            assert!(!s.insert(n - 1));
            assert!(s.has(n - 1) && !s.has(0));
        }
    }
}
