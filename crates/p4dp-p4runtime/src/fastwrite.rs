//! A WriteRequest read straight from its wire bytes when it is made only of table-entry updates
//! in the plain form a controller sends for inserts (table id, match fields, priority, a direct
//! action with its parameters): the updates are borrowed views of the message's bytes, with no
//! allocation per update, which the Write handler validates and turns into runtime entries
//! (crate::batch). Anything else (another entity, any other field of a table entry, an unknown
//! field, a field given twice, a malformed or truncated field) makes [`parse`] answer None and
//! the request is decoded by prost, the reference, whose messages and errors are then the
//! Write's. [`FastWrite::to_updates`] gives the prost form of what [`parse`] read: prost's
//! decoding of the same bytes (the tests compare the two on random and mutated messages).
//!
//! perf: prost allocates every entry's match list, parameter list and their byte strings and
//! moves an Update of about 400 bytes per entry; that was about a third of a batched insert's
//! CPU time on the switch.

use prost::encoding::{decode_varint, WireType};

use crate::proto::p4::v1::{
    action, entity, field_match, table_action, Action, Entity, FieldMatch, TableAction, TableEntry, Uint128, Update,
};
use crate::tables::{FieldRef, MatchRef};

/// A WriteRequest of table-entry updates, borrowed from its encoding.
#[derive(Debug, Clone, PartialEq)]
pub struct FastWrite<'a> {
    pub device_id: u64,
    /// Deprecated `role_id` (kept for the prost form).
    pub role_id: u64,
    pub role: &'a str,
    pub election_id: Option<Uint128>,
    pub atomicity: i32,
    pub updates: Vec<FastUpdate>,
    /// Every update's match fields, in order; [`FastEntry::fields`] indexes them.
    fields: Vec<FieldRef<'a>>,
    /// Every update's action parameters (id, value), in order.
    params: Vec<(u32, &'a [u8])>,
}

/// One update: its type and its table entry.
#[derive(Debug, Clone, PartialEq)]
pub struct FastUpdate {
    pub r#type: i32,
    pub entry: FastEntry,
}

/// A table entry with only a table id, match fields, a priority and an action.
#[derive(Debug, Clone, PartialEq)]
pub struct FastEntry {
    pub table_id: u32,
    pub priority: i32,
    fields: std::ops::Range<u32>,
    pub action: FastAction,
}

/// The entry's `action` field.
#[derive(Debug, Clone, PartialEq)]
pub enum FastAction {
    /// No `action` field.
    Absent,
    /// A TableAction with no `type`.
    Empty,
    /// A direct action and its parameters (a range of [`FastWrite`]'s parameters).
    Direct {
        action_id: u32,
        params: std::ops::Range<u32>,
    },
}

impl<'a> FastWrite<'a> {
    /// The match fields of `e` as given.
    pub fn fields(&self, e: &FastEntry) -> &[FieldRef<'a>] {
        &self.fields[e.fields.start as usize..e.fields.end as usize]
    }

    /// The parameters (id, value) of a direct action's range.
    pub fn params(&self, r: &std::ops::Range<u32>) -> &[(u32, &'a [u8])] {
        &self.params[r.start as usize..r.end as usize]
    }

    /// Update `i` in prost's form.
    pub fn to_update(&self, i: usize) -> Update {
        let u = &self.updates[i];
        let e = &u.entry;
        let action = match &e.action {
            FastAction::Absent => None,
            FastAction::Empty => Some(TableAction { r#type: None }),
            FastAction::Direct { action_id, params } => Some(TableAction {
                r#type: Some(table_action::Type::Action(Action {
                    action_id: *action_id,
                    params: self
                        .params(params)
                        .iter()
                        .map(|(id, v)| action::Param {
                            param_id: *id,
                            value: v.to_vec(),
                        })
                        .collect(),
                })),
            }),
        };
        Update {
            r#type: u.r#type,
            entity: Some(Entity {
                entity: Some(entity::Entity::TableEntry(TableEntry {
                    table_id: e.table_id,
                    r#match: self.fields(e).iter().map(field_msg).collect(),
                    action,
                    priority: e.priority,
                    ..Default::default()
                })),
            }),
        }
    }

    /// Every update in prost's form.
    pub fn to_updates(&self) -> Vec<Update> {
        (0..self.updates.len()).map(|i| self.to_update(i)).collect()
    }
}

fn field_msg(f: &FieldRef) -> FieldMatch {
    use field_match::FieldMatchType as F;
    let m = match f.m {
        MatchRef::Absent => None,
        MatchRef::Exact(v) => Some(F::Exact(field_match::Exact { value: v.to_vec() })),
        MatchRef::Ternary(v, m) => Some(F::Ternary(field_match::Ternary {
            value: v.to_vec(),
            mask: m.to_vec(),
        })),
        MatchRef::Lpm(v, p) => Some(F::Lpm(field_match::Lpm {
            value: v.to_vec(),
            prefix_len: p,
        })),
        MatchRef::Range(lo, hi) => Some(F::Range(field_match::Range {
            low: lo.to_vec(),
            high: hi.to_vec(),
        })),
        MatchRef::Optional(v) => Some(F::Optional(field_match::Optional { value: v.to_vec() })),
        // never made by parse (an `other` match goes to prost)
        MatchRef::Other => None,
    };
    FieldMatch {
        field_id: f.field_id,
        field_match_type: m,
    }
}

/// One field of a message: its number and its value.
enum Val<'a> {
    Varint(u64),
    Bytes(&'a [u8]),
}

/// Reads the fields of one message; None at anything malformed or of a wire type other than
/// varint and length-delimited (none of the messages read here has another).
struct Fields<'a> {
    b: &'a [u8],
}

/// A varint read from the front of `b`, as prost's `decode_varint` reads it (the tests compare
/// the two), with the one-byte varints (tags, lengths and ids below 128: most of a table entry's)
/// read here.
///
/// perf: a Write of 1000 inserts, each of one exact field and one parameter, was read in 173 ns
/// per entry; with this, [`Fields::next`] and [`each`] inlined into each message's reader, in
/// 116 (best of 30 rounds each; without the one-byte path 123). A call of `next` per field
/// returned its result through memory.
#[inline(always)]
fn read_varint(b: &mut &[u8]) -> Option<u64> {
    match b.first() {
        Some(&x) if x < 0x80 => {
            *b = &b[1..];
            Some(u64::from(x))
        }
        _ => decode_varint(b).ok(),
    }
}

impl<'a> Fields<'a> {
    #[inline(always)]
    fn next(&mut self) -> Option<Option<(u32, Val<'a>)>> {
        if self.b.is_empty() {
            return Some(None);
        }
        let key = read_varint(&mut self.b)?;
        if key > u64::from(u32::MAX) {
            return None;
        }
        let tag = (key >> 3) as u32;
        if tag == 0 {
            return None;
        }
        match WireType::try_from(key & 7).ok()? {
            WireType::Varint => Some(Some((tag, Val::Varint(read_varint(&mut self.b)?)))),
            WireType::LengthDelimited => {
                let len = usize::try_from(read_varint(&mut self.b)?).ok()?;
                if len > self.b.len() {
                    return None;
                }
                let (v, rest) = self.b.split_at(len);
                self.b = rest;
                Some(Some((tag, Val::Bytes(v))))
            }
            _ => None,
        }
    }
}

/// Calls `f` for each field of the message `b`; None when `b` is malformed or `f` refuses a
/// field.
#[inline(always)]
fn each<'a>(b: &'a [u8], mut f: impl FnMut(u32, Val<'a>) -> Option<()>) -> Option<()> {
    let mut r = Fields { b };
    while let Some((tag, v)) = r.next()? {
        f(tag, v)?;
    }
    Some(())
}

/// A set of field numbers below 64 already read: a singular field given twice is refused
/// (prost would merge or overwrite; prost decides those).
#[derive(Default)]
struct Once(u64);

impl Once {
    fn first(&mut self, tag: u32) -> Option<()> {
        // no field read here has a number of 64 or more: those are refused
        let bit = 1u64.checked_shl(tag).filter(|_| tag < 64)?;
        if self.0 & bit != 0 {
            return None;
        }
        self.0 |= bit;
        Some(())
    }
}

fn varint(v: Val<'_>) -> Option<u64> {
    match v {
        Val::Varint(x) => Some(x),
        Val::Bytes(_) => None,
    }
}

fn bytes<'a>(v: Val<'a>) -> Option<&'a [u8]> {
    match v {
        Val::Bytes(b) => Some(b),
        Val::Varint(_) => None,
    }
}

/// The WriteRequest encoded in `b`, when it is made only of table-entry updates of the plain
/// form (see the module documentation); None otherwise (prost decodes it then).
pub fn parse(b: &[u8]) -> Option<FastWrite<'_>> {
    let mut w = FastWrite {
        device_id: 0,
        role_id: 0,
        role: "",
        election_id: None,
        atomicity: 0,
        updates: Vec::with_capacity(crate::codec::count_updates(b).min(crate::server::MAX_UPDATES_PER_WRITE + 1)),
        fields: Vec::new(),
        params: Vec::new(),
    };
    let mut once = Once::default();
    each(b, |tag, v| {
        if tag != 4 {
            once.first(tag)?;
        }
        match tag {
            1 => w.device_id = varint(v)?,
            2 => w.role_id = varint(v)?,
            3 => w.election_id = Some(uint128(bytes(v)?)?),
            4 => {
                let u = update(bytes(v)?, &mut w.fields, &mut w.params)?;
                w.updates.push(u);
            }
            5 => w.atomicity = varint(v)? as i32,
            6 => w.role = std::str::from_utf8(bytes(v)?).ok()?,
            _ => return None,
        }
        Some(())
    })?;
    Some(w)
}

fn uint128(b: &[u8]) -> Option<Uint128> {
    let mut x = Uint128::default();
    let mut once = Once::default();
    each(b, |tag, v| {
        once.first(tag)?;
        match tag {
            1 => x.high = varint(v)?,
            2 => x.low = varint(v)?,
            _ => return None,
        }
        Some(())
    })?;
    Some(x)
}

fn update<'a>(b: &'a [u8], fields: &mut Vec<FieldRef<'a>>, params: &mut Vec<(u32, &'a [u8])>) -> Option<FastUpdate> {
    let mut ty = 0;
    let mut entry = None;
    let mut once = Once::default();
    each(b, |tag, v| {
        once.first(tag)?;
        match tag {
            1 => ty = varint(v)? as i32,
            2 => {
                // Entity: only its table_entry, once
                let mut e = None;
                let mut once = Once::default();
                each(bytes(v)?, |tag, v| {
                    once.first(tag)?;
                    match tag {
                        2 => e = Some(table_entry(bytes(v)?, fields, params)?),
                        _ => return None,
                    }
                    Some(())
                })?;
                entry = Some(e?);
            }
            _ => return None,
        }
        Some(())
    })?;
    Some(FastUpdate {
        r#type: ty,
        entry: entry?,
    })
}

fn table_entry<'a>(
    b: &'a [u8],
    fields: &mut Vec<FieldRef<'a>>,
    params: &mut Vec<(u32, &'a [u8])>,
) -> Option<FastEntry> {
    let start = u32::try_from(fields.len()).ok()?;
    let mut e = FastEntry {
        table_id: 0,
        priority: 0,
        fields: start..start,
        action: FastAction::Absent,
    };
    let mut once = Once::default();
    each(b, |tag, v| {
        if tag != 2 {
            once.first(tag)?;
        }
        match tag {
            1 => e.table_id = varint(v)? as u32,
            2 => fields.push(field(bytes(v)?)?),
            3 => e.action = table_action(bytes(v)?, params)?,
            4 => e.priority = varint(v)? as i32,
            _ => return None,
        }
        Some(())
    })?;
    e.fields.end = u32::try_from(fields.len()).ok()?;
    Some(e)
}

fn field(b: &[u8]) -> Option<FieldRef<'_>> {
    let mut f = FieldRef {
        field_id: 0,
        m: MatchRef::Absent,
    };
    let mut once = Once::default();
    let mut kinds = 0;
    each(b, |tag, v| {
        once.first(tag)?;
        if tag != 1 {
            // one member of the oneof (prost merges or replaces a second)
            kinds += 1;
            if kinds > 1 {
                return None;
            }
        }
        match tag {
            1 => f.field_id = varint(v)? as u32,
            2 => f.m = MatchRef::Exact(one_bytes(bytes(v)?)?),
            3 => {
                let (v, m) = two(bytes(v)?)?;
                f.m = MatchRef::Ternary(v, m);
            }
            4 => {
                // LPM: value = 1, prefix_len = 2 (int32)
                let mut val: &[u8] = &[];
                let mut plen = 0;
                let mut once = Once::default();
                each(bytes(v)?, |tag, v| {
                    once.first(tag)?;
                    match tag {
                        1 => val = bytes(v)?,
                        2 => plen = varint(v)? as i32,
                        _ => return None,
                    }
                    Some(())
                })?;
                f.m = MatchRef::Lpm(val, plen);
            }
            6 => {
                let (lo, hi) = two(bytes(v)?)?;
                f.m = MatchRef::Range(lo, hi);
            }
            7 => f.m = MatchRef::Optional(one_bytes(bytes(v)?)?),
            _ => return None,
        }
        Some(())
    })?;
    Some(f)
}

/// A message whose only field is bytes field 1.
fn one_bytes(b: &[u8]) -> Option<&[u8]> {
    let mut val: &[u8] = &[];
    let mut once = Once::default();
    each(b, |tag, v| {
        once.first(tag)?;
        match tag {
            1 => val = bytes(v)?,
            _ => return None,
        }
        Some(())
    })?;
    Some(val)
}

/// A message of bytes fields 1 and 2.
fn two(b: &[u8]) -> Option<(&[u8], &[u8])> {
    let (mut x, mut y): (&[u8], &[u8]) = (&[], &[]);
    let mut once = Once::default();
    each(b, |tag, v| {
        once.first(tag)?;
        match tag {
            1 => x = bytes(v)?,
            2 => y = bytes(v)?,
            _ => return None,
        }
        Some(())
    })?;
    Some((x, y))
}

fn table_action<'a>(b: &'a [u8], params: &mut Vec<(u32, &'a [u8])>) -> Option<FastAction> {
    let mut a = FastAction::Empty;
    let mut once = Once::default();
    each(b, |tag, v| {
        once.first(tag)?;
        match tag {
            1 => {
                let start = u32::try_from(params.len()).ok()?;
                let mut action_id = 0;
                let mut once = Once::default();
                each(bytes(v)?, |tag, v| {
                    if tag != 4 {
                        once.first(tag)?;
                    }
                    match tag {
                        1 => action_id = varint(v)? as u32,
                        4 => {
                            let (id, val) = param(bytes(v)?)?;
                            params.push((id, val));
                        }
                        _ => return None,
                    }
                    Some(())
                })?;
                let end = u32::try_from(params.len()).ok()?;
                a = FastAction::Direct {
                    action_id,
                    params: start..end,
                };
            }
            _ => return None,
        }
        Some(())
    })?;
    Some(a)
}

/// Action.Param: param_id = 2, value = 3.
fn param(b: &[u8]) -> Option<(u32, &[u8])> {
    let (mut id, mut val): (u32, &[u8]) = (0, &[]);
    let mut once = Once::default();
    each(b, |tag, v| {
        once.first(tag)?;
        match tag {
            2 => id = varint(v)? as u32,
            3 => val = bytes(v)?,
            _ => return None,
        }
        Some(())
    })?;
    Some((id, val))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proto::p4::v1::WriteRequest;
    use crate::tables::OpError;
    use p4dp_rt::{ActionInfo, ActionScope, KeyInfo, MatchKind, PackedEntries, ParamInfo, Program, TableInfo};
    use prost::Message;

    /// splitmix64: the tests' random numbers, seeded (a failure names its seed).
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        }
        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
        fn chance(&mut self, in_n: u64) -> bool {
            self.below(in_n) == 0
        }
        fn bytes(&mut self, max: u64) -> Vec<u8> {
            let n = self.below(max + 1);
            (0..n).map(|_| self.next() as u8).collect()
        }
        /// Small numbers mostly (the ids of the test program), any 32-bit value sometimes.
        fn id(&mut self) -> u32 {
            if self.chance(8) {
                self.next() as u32
            } else {
                self.below(6) as u32
            }
        }
    }

    fn random_field(r: &mut Rng) -> FieldMatch {
        use field_match::FieldMatchType as F;
        let m = match r.below(8) {
            0 => None,
            1 => Some(F::Ternary(field_match::Ternary {
                value: r.bytes(3),
                mask: r.bytes(3),
            })),
            2 => Some(F::Lpm(field_match::Lpm {
                value: r.bytes(3),
                prefix_len: r.below(20) as i32 - 2,
            })),
            3 => Some(F::Range(field_match::Range {
                low: r.bytes(3),
                high: r.bytes(3),
            })),
            4 => Some(F::Optional(field_match::Optional { value: r.bytes(3) })),
            5 if r.chance(4) => Some(F::Other(prost_types::Any {
                type_url: "x".into(),
                value: r.bytes(2),
            })),
            _ => Some(F::Exact(field_match::Exact { value: r.bytes(3) })),
        };
        FieldMatch {
            field_id: r.id(),
            field_match_type: m,
        }
    }

    /// A random table entry: mostly of the plain form, sometimes with other fields set.
    #[allow(deprecated)]
    fn random_entry(r: &mut Rng) -> TableEntry {
        let action = match r.below(10) {
            0 => None,
            1 => Some(TableAction { r#type: None }),
            2 => Some(TableAction {
                r#type: Some(table_action::Type::ActionProfileMemberId(r.id())),
            }),
            _ => Some(TableAction {
                r#type: Some(table_action::Type::Action(Action {
                    action_id: r.id(),
                    params: (0..r.below(4))
                        .map(|_| action::Param {
                            param_id: r.id(),
                            value: r.bytes(5),
                        })
                        .collect(),
                })),
            }),
        };
        let mut e = TableEntry {
            table_id: r.id(),
            r#match: (0..r.below(4)).map(|_| random_field(r)).collect(),
            action,
            priority: r.below(4) as i32 - 1,
            ..Default::default()
        };
        match r.below(16) {
            0 => e.is_default_action = true,
            1 => e.metadata = r.bytes(3),
            2 => e.idle_timeout_ns = r.below(3) as i64,
            3 => e.controller_metadata = r.below(3),
            _ => {}
        }
        e
    }

    fn random_write(r: &mut Rng) -> WriteRequest {
        WriteRequest {
            device_id: r.below(3),
            role: if r.chance(4) { "role".into() } else { String::new() },
            election_id: r.chance(2).then(|| Uint128 {
                high: r.below(2),
                low: r.below(5),
            }),
            atomicity: r.below(4) as i32,
            updates: (0..r.below(6))
                .map(|_| Update {
                    r#type: r.below(5) as i32,
                    entity: if r.chance(20) {
                        Some(Entity {
                            entity: Some(entity::Entity::CounterEntry(Default::default())),
                        })
                    } else {
                        Some(Entity {
                            entity: Some(entity::Entity::TableEntry(random_entry(r))),
                        })
                    },
                })
                .collect(),
            ..Default::default()
        }
    }

    /// Random changes to an encoding: bytes changed, cut, inserted, or a stretch repeated.
    fn mutate(r: &mut Rng, mut b: Vec<u8>) -> Vec<u8> {
        for _ in 0..1 + r.below(3) {
            let at = r.below(b.len() as u64 + 1) as usize;
            match r.below(4) {
                0 if at < b.len() => b[at] = r.next() as u8,
                1 => b.truncate(at),
                2 => b.insert(at, r.next() as u8),
                _ => {
                    let n = r.below(8) as usize;
                    let piece: Vec<u8> = b[at..(at + n).min(b.len())].to_vec();
                    b.splice(at..at, piece);
                }
            }
        }
        b
    }

    /// Prost's decoding of `b` and [`parse`]'s: whatever parse reads, prost decodes to the same
    /// message ([`FastWrite::to_updates`] and the head); what prost refuses, parse refuses.
    /// Returns whether parse read it.
    #[allow(deprecated)]
    fn check_same(b: &[u8], seed: u64) -> bool {
        let prost = WriteRequest::decode(b);
        let Some(w) = parse(b) else { return false };
        let r = prost.unwrap_or_else(|e| panic!("seed {seed}: parse read what prost refuses ({e}): {b:?}"));
        let mine = WriteRequest {
            device_id: w.device_id,
            role_id: w.role_id,
            role: w.role.to_string(),
            election_id: w.election_id,
            updates: w.to_updates(),
            atomicity: w.atomicity,
        };
        assert_eq!(mine, r, "seed {seed}: {b:?}");
        true
    }

    #[test]
    fn varints_read_as_prost_reads_them() {
        let mut cases: Vec<Vec<u8>> = vec![
            vec![],
            vec![0],
            vec![0x7f, 1],
            vec![0x80],
            vec![0x80, 0x00],
            vec![0xff, 0x01, 9],
            vec![0xff; 9],
            vec![0xff; 10],
            [vec![0xff; 9], vec![0x01]].concat(),
            [vec![0xff; 9], vec![0x02]].concat(),
            vec![0xff; 11],
        ];
        let mut r = Rng(7);
        for _ in 0..2000 {
            let n = 1 + r.below(12) as usize;
            cases.push((0..n).map(|_| r.next() as u8).collect());
        }
        for c in &cases {
            let (mut a, mut b) = (&c[..], &c[..]);
            let ours = read_varint(&mut a);
            let prost = decode_varint(&mut b).ok();
            assert_eq!(ours, prost, "{c:02x?}");
            if ours.is_some() {
                assert_eq!(a.len(), b.len(), "{c:02x?}: rest");
            }
        }
    }

    #[test]
    fn reads_what_prost_decodes_and_refuses_the_rest() {
        let (mut fast, mut plain, mut mutated_fast) = (0, 0, 0);
        for seed in 0..20_000u64 {
            let mut r = Rng(seed);
            let w = random_write(&mut r);
            let b = w.encode_to_vec();
            let read = check_same(&b, seed);
            // every plain one is read: an entity other than a table entry, or a table entry with
            // another field set, goes to prost
            let is_plain = w.updates.iter().all(|u| {
                matches!(
                    u.entity.as_ref().and_then(|e| e.entity.as_ref()),
                    Some(entity::Entity::TableEntry(t)) if *t == TableEntry {
                        table_id: t.table_id,
                        r#match: t.r#match.clone(),
                        action: t.action.clone(),
                        priority: t.priority,
                        ..Default::default()
                    } && !matches!(t.action.as_ref().and_then(|a| a.r#type.as_ref()),
                        Some(x) if !matches!(x, table_action::Type::Action(_)))
                        && t.r#match.iter().all(|f| !matches!(f.field_match_type, Some(field_match::FieldMatchType::Other(_))))
                )
            });
            assert_eq!(read, is_plain, "seed {seed}: {w:?}");
            fast += read as u32;
            plain += is_plain as u32;
            for _ in 0..4 {
                mutated_fast += check_same(&mutate(&mut r, b.clone()), seed) as u32;
            }
        }
        // the generator makes both kinds, and mutated messages that parse still read
        assert!(fast > 5_000 && plain == fast, "{fast} read of {plain} plain");
        assert!(mutated_fast > 5_000, "{mutated_fast} mutated read");
    }

    /// A program of one table with a key of every kind and two actions.
    fn program() -> Program {
        let key = |id: u32, match_kind, bitwidth| KeyInfo {
            name: format!("k{id}"),
            id,
            match_kind,
            bitwidth,
        };
        let table = |index: u32, id: u32, keys: Vec<KeyInfo>, needs_priority| TableInfo {
            index,
            name: format!("t{id}"),
            id,
            keys,
            actions: vec![
                p4dp_rt::TableAction {
                    action: 0,
                    scope: ActionScope::Any,
                },
                p4dp_rt::TableAction {
                    action: 1,
                    scope: ActionScope::DefaultOnly,
                },
            ],
            default_action: 0,
            size: 0,
            needs_priority,
            const_default_action: false,
            const_entries: false,
            idle_notify: false,
            initial_entries: 0,
            direct_counter: None,
            direct_meter: None,
            implementation: None,
        };
        Program {
            name: "p".into(),
            arch: "v1model".into(),
            tables: vec![
                table(
                    0,
                    1,
                    vec![key(1, MatchKind::Exact, 12), key(2, MatchKind::Lpm, 16)],
                    false,
                ),
                table(
                    1,
                    2,
                    vec![
                        key(1, MatchKind::Exact, 9),
                        key(2, MatchKind::Ternary, 8),
                        key(3, MatchKind::Range, 16),
                        key(4, MatchKind::Optional, 4),
                    ],
                    true,
                ),
                TableInfo {
                    idle_notify: true,
                    ..table(2, 3, vec![key(1, MatchKind::Exact, 8)], false)
                },
                TableInfo {
                    const_entries: true,
                    ..table(3, 4, vec![key(1, MatchKind::Exact, 8)], false)
                },
                table(4, 5, vec![], false),
                // t1's keys with direct resources and idle timeouts (what a modify resets)
                TableInfo {
                    idle_notify: true,
                    direct_counter: Some(0),
                    direct_meter: Some(1),
                    ..table(
                        5,
                        6,
                        vec![key(1, MatchKind::Exact, 12), key(2, MatchKind::Lpm, 16)],
                        false,
                    )
                },
            ],
            actions: vec![
                ActionInfo {
                    index: 0,
                    name: "a".into(),
                    id: 1,
                    params: vec![
                        ParamInfo {
                            name: "p".into(),
                            id: 1,
                            bitwidth: 9,
                        },
                        ParamInfo {
                            name: "q".into(),
                            id: 2,
                            bitwidth: 32,
                        },
                    ],
                },
                ActionInfo {
                    index: 1,
                    name: "b".into(),
                    id: 2,
                    params: vec![],
                },
            ],
            externs: vec![],
            errors: vec![],
            background: vec![],
            value_sets: vec![],
        }
    }

    /// An entry of [`program`]'s tables 1 and 2 whose fields and parameters fit, canonical or
    /// padded.
    fn fitting_entry(r: &mut Rng) -> TableEntry {
        use field_match::FieldMatchType as F;
        let v = |r: &mut Rng, bytes: u64, top: u8| -> Vec<u8> {
            let mut x: Vec<u8> = (0..bytes).map(|_| r.next() as u8).collect();
            x[0] &= top;
            if r.chance(2) {
                x.insert(0, 0);
            }
            x
        };
        let f = |id, m| FieldMatch {
            field_id: id,
            field_match_type: Some(m),
        };
        let (table_id, mut fields, priority) = if r.chance(5) {
            // the idle-timeout table: its plain inserts carry an idle timeout of 0
            (3, vec![f(1, F::Exact(field_match::Exact { value: v(r, 1, 0xff) }))], 0)
        } else if r.chance(2) {
            let mut fs = vec![f(1, F::Exact(field_match::Exact { value: v(r, 2, 0x0f) }))];
            if r.chance(2) {
                fs.push(f(
                    2,
                    F::Lpm(field_match::Lpm {
                        value: vec![0x80, 0],
                        prefix_len: 1 + r.below(16) as i32,
                    }),
                ));
            }
            (1, fs, 0)
        } else {
            let mut fs = vec![f(1, F::Exact(field_match::Exact { value: v(r, 2, 0x01) }))];
            if r.chance(2) {
                fs.push(f(
                    2,
                    F::Ternary(field_match::Ternary {
                        value: vec![0x10],
                        mask: vec![0xf0],
                    }),
                ));
            }
            if r.chance(2) {
                fs.push(f(
                    3,
                    F::Range(field_match::Range {
                        low: vec![1],
                        high: v(r, 2, 0xff),
                    }),
                ));
            }
            if r.chance(2) {
                fs.push(f(4, F::Optional(field_match::Optional { value: v(r, 1, 0x0f) })));
            }
            (2, fs, 1 + r.below(9) as i32)
        };
        if r.chance(2) {
            fields.reverse();
        }
        let mut params = vec![
            action::Param {
                param_id: 1,
                value: v(r, 2, 0x01),
            },
            action::Param {
                param_id: 2,
                value: v(r, 4, 0xff),
            },
        ];
        if r.chance(2) {
            params.reverse();
        }
        TableEntry {
            table_id,
            r#match: fields,
            action: Some(TableAction {
                r#type: Some(table_action::Type::Action(Action { action_id: 1, params })),
            }),
            priority,
            ..Default::default()
        }
    }

    /// Gives the updates of `w` but one in `keep_one_in` the type `ty`, and half of those the
    /// entry `entry` makes (one of the program's tables with values that fit), a third of which
    /// get one random change.
    fn fitting_updates(
        r: &mut Rng,
        w: &mut WriteRequest,
        keep_one_in: u64,
        ty: impl Fn(&mut Rng) -> i32,
        entry: impl Fn(&mut Rng) -> TableEntry,
    ) {
        for u in &mut w.updates {
            if r.chance(keep_one_in) {
                continue;
            }
            u.r#type = ty(r);
            if r.chance(2) {
                let mut e = entry(r);
                if r.chance(3) {
                    match r.below(4) {
                        0 => e.r#match.push(random_field(r)),
                        1 => e.r#match[0] = random_field(r),
                        2 => e.priority = r.below(3) as i32,
                        _ => e.action = random_entry(r).action,
                    }
                }
                u.entity = Some(Entity {
                    entity: Some(entity::Entity::TableEntry(e)),
                });
            }
        }
    }

    /// The Write path's decision for each update read by [`parse`] (batch::pack_insert_fast: an
    /// insert packed into a run for the runtime, its error, or applied on its own) is the one
    /// of the single path's validation (tables::prepare) for prost's form of it, and so is
    /// batch::pack_insert's for prost's form: the same entries, the same errors.
    #[test]
    fn validates_as_the_prost_path() {
        let p = program();
        let (mut accepted, mut refused) = (0, 0);
        for seed in 0..20_000u64 {
            let mut r = Rng(seed ^ 0x5eed);
            let mut w = random_write(&mut r);
            // mostly inserts
            fitting_updates(&mut r, &mut w, 4, |_| 1, fitting_entry);
            let b = w.encode_to_vec();
            let Some(f) = parse(&b) else { continue };
            for i in 0..f.updates.len() {
                let u = f.to_update(i);
                let want = crate::batch::bulk_insert(&p, &u);
                // each packed into a run holding an entry already, which it must not change
                let packed =
                    |table: Option<&p4dp_rt::TableInfo>,
                     pack: &dyn Fn(&p4dp_rt::TableInfo, &mut PackedEntries) -> _| {
                        let mut run = PackedEntries::new();
                        if let Some(Ok((_, e))) = &want {
                            let t = table.unwrap();
                            for r in [crate::batch::pack_insert(&p, t, &u, &mut run), pack(t, &mut run)] {
                                assert_eq!(r, Some(Ok(())));
                            }
                            run.abandon();
                            assert_eq!(run.len(), 2);
                            assert_eq!(&run.entry(0), e);
                        }
                        let first = run.len();
                        let r: Option<Result<(), OpError>> = pack(table?, &mut run);
                        let joined = r == Some(Ok(()));
                        assert_eq!(run.len(), first + joined as usize, "seed {seed} update {i}: run length");
                        r.map(|r| r.map(|()| (table.unwrap().index, run.entry(first))))
                    };
                let got = packed(crate::batch::run_table_fast(&p, &f, i), &|t, run| {
                    crate::batch::pack_insert_fast(&p, t, &f, i, run)
                });
                assert_eq!(got, want, "seed {seed} update {i}: {u:?}");
                let got_prost = packed(crate::batch::run_table(&p, &u), &|t, run| {
                    crate::batch::pack_insert(&p, t, &u, run)
                });
                assert_eq!(got_prost, want, "seed {seed} update {i} in prost's form: {u:?}");
                match got {
                    Some(Ok(_)) => accepted += 1,
                    Some(Err(_)) => refused += 1,
                    None => {}
                }
            }
        }
        assert!(
            accepted > 100 && refused > 1000,
            "{accepted} accepted, {refused} refused"
        );
    }

    /// A modify or delete read by [`parse`] of an entry of a table without an action profile is
    /// validated by batch::prepare_single_fast into the table write that tables::prepare (the
    /// single path's validation, which server::apply then writes the same way) makes of its
    /// prost form: the same entry, extras and errors. Every other update is left to prost's form.
    /// A modify that batch::pack_modify_fast packs into buffers gives that entry, its table and
    /// extras, or that error, too.
    #[test]
    fn modifies_and_deletes_validate_as_the_prost_path() {
        let p = program();
        let (mut modifies, mut deletes, mut refused, mut left, mut packed_modifies) = (0, 0, 0, 0, 0);
        for seed in 0..20_000u64 {
            let mut r = Rng(seed ^ 0xde1e7e);
            let mut w = random_write(&mut r);
            // mostly modifies and deletes, half of t1's entries moved to t6 (direct resources)
            let ty = |r: &mut Rng| if r.chance(2) { 2 } else { 3 };
            let entry = |r: &mut Rng| {
                let mut e = fitting_entry(r);
                if e.table_id == 1 && r.chance(2) {
                    e.table_id = 6;
                }
                e
            };
            fitting_updates(&mut r, &mut w, 5, ty, entry);
            let b = w.encode_to_vec();
            let Some(f) = parse(&b) else { continue };
            for i in 0..f.updates.len() {
                let u = f.to_update(i);
                let Some(entity::Entity::TableEntry(t)) = u.entity.as_ref().and_then(|e| e.entity.as_ref()) else {
                    unreachable!("parse reads table entries only");
                };
                let op = match u.r#type {
                    2 => crate::tables::Op::Modify,
                    3 => crate::tables::Op::Delete,
                    _ => {
                        assert!(crate::batch::prepare_single_fast(&p, &f, i).is_none());
                        left += 1;
                        continue;
                    }
                };
                let want = crate::tables::prepare(&p, t, op);
                // a modify packed into buffers: the same entry, table, extras and errors
                let mut run = p4dp_rt::PackedEntries::new();
                let packed = crate::batch::pack_modify_fast(&p, &f, i, &mut run);
                match (&packed, &crate::batch::prepare_single_fast(&p, &f, i)) {
                    (
                        Some(Ok((table, extras))),
                        Some(Ok(crate::tables::TableWrite::Direct {
                            table: t2,
                            entry,
                            insert: false,
                            extras: x2,
                        })),
                    ) => {
                        assert_eq!((run.len(), &run.entry(0)), (1, entry), "seed {seed} update {i}");
                        assert_eq!((table, extras), (t2, x2), "seed {seed} update {i}");
                    }
                    (Some(Err(a)), Some(Err(b))) => assert_eq!(a, b, "seed {seed} update {i}"),
                    (None, single) => assert!(
                        op == crate::tables::Op::Delete || single.is_none(),
                        "seed {seed} update {i}: {single:?}"
                    ),
                    (packed, single) => panic!("seed {seed} update {i}: packed {packed:?}, single {single:?}"),
                }
                if packed.is_some() {
                    packed_modifies += 1;
                }
                let Some(got) = crate::batch::prepare_single_fast(&p, &f, i) else {
                    // only unknown tables and table id 0, whose refusal comes from prost's path
                    assert!(t.table_id == 0 || want.is_err(), "seed {seed} update {i}: {u:?}");
                    left += 1;
                    continue;
                };
                assert_eq!(got, want, "seed {seed} update {i}: {u:?}");
                match got {
                    Ok(crate::tables::TableWrite::Delete { .. }) => deletes += 1,
                    Ok(_) => modifies += 1,
                    Err(_) => refused += 1,
                }
            }
        }
        assert!(
            modifies > 100 && deletes > 100 && refused > 1000 && left > 100 && packed_modifies > 1000,
            "{modifies} modifies, {deletes} deletes, {refused} refused, {left} left to prost's form, {packed_modifies} packed modifies"
        );
    }
}
