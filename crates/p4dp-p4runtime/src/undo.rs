//! The undo of an all-or-nothing Write batch (crate::batch): before an update is applied, the
//! state it will change is read back as an [`Undo`]; at the first failure the undos of the applied
//! updates run in reverse order, so every entity reads back as before the batch.
//!
//! Entities with a fixed set of cells (counters, registers, meters, direct counters and meters)
//! are restored by a MODIFY with their old values. Entities that exist or not (multicast groups,
//! clone sessions, action-profile members and groups, entries of action-selector tables, digest
//! configurations) keep their old form or `None`; the undo compares it with what exists when it
//! runs ([`restore_op`]), so an update that failed halfway is undone as well as a complete one.

use std::sync::MutexGuard;

use p4dp_rt::{ProfileRef, Runtime};

use crate::digest::Digests;
use crate::externs::{self as x, Pre};
use crate::proto::p4::v1::{
    digest_entry, entity, packet_replication_engine_entry, update, ActionProfileGroup, ActionProfileMember,
    CloneSessionEntry, CounterData, CounterEntry, DigestEntry, DirectCounterEntry, DirectMeterEntry, Entity,
    MeterConfig, MeterCounterData, MeterEntry, MulticastGroupEntry, PacketReplicationEngineEntry, RegisterEntry,
    TableEntry, Update, ValueSetEntry,
};
use crate::server::{apply, update_op};
use crate::switch::Pipeline;
use crate::tables::{self, rt_err, Op, OpError, TableWrite};

/// What puts back the state an update changed.
pub(crate) enum Undo {
    /// Entries and default entries of tables without a selector, with their extras.
    Table(TableWrite),
    /// A MODIFY of extern cells, a direct counter or a direct meter with the old value.
    Update(Update),
    Group(u32, Option<MulticastGroupEntry>),
    Clone(u32, Option<CloneSessionEntry>),
    /// A value set with its old members.
    ValueSet(ValueSetEntry),
    /// An action-profile member: (profile id, member id), the member as it was.
    Member(u32, u32, Option<ActionProfileMember>),
    /// An action-profile group: (profile id, group id), the group as it was.
    ProfileGroup(u32, u32, Option<ActionProfileGroup>),
    /// An entry of an action-selector table (its key: table, match, priority), as it was read
    /// back: one-shot action sets as written, with its extras.
    SelectorEntry(TableEntry, Option<TableEntry>),
    /// A digest's configuration.
    Digest(u32, Option<digest_entry::Config>),
}

/// The state a batch writes besides the runtime's: the replication engine's entries and, when
/// the batch has DigestEntry updates, the digests, locked for the whole batch so the
/// notification thread never sends lists under a configuration the batch then rolls back.
pub(crate) struct Ctx<'a> {
    pub pipe: &'a Pipeline,
    pub pre: &'a mut Pre,
    pub digests: Option<MutexGuard<'a, Digests>>,
}

impl Ctx<'_> {
    /// Applies one update ([`crate::server::apply`]; digests through the held lock).
    pub fn apply(&mut self, u: &Update) -> Result<(), OpError> {
        if let (Some(d), Some(entity::Entity::DigestEntry(e))) =
            (self.digests.as_mut(), u.entity.as_ref().and_then(|e| e.entity.as_ref()))
        {
            return d.write(e, update_op(u)?);
        }
        apply(self.pipe, self.pre, u)
    }

    fn digests(&mut self) -> &mut Digests {
        if self.digests.is_none() {
            self.digests = Some(crate::stream::digests(self.pipe));
        }
        self.digests.as_mut().expect("just locked")
    }
}

/// The write that puts back an entity that existed (`old`) or not, given whether it exists
/// now; None: nothing to do.
fn restore_op(old: bool, now: bool) -> Option<Op> {
    match (old, now) {
        (true, true) => Some(Op::Modify),
        (true, false) => Some(Op::Insert),
        (false, true) => Some(Op::Delete),
        (false, false) => None,
    }
}

fn wrap(op: Op, e: entity::Entity) -> Update {
    let t = match op {
        Op::Insert => update::Type::Insert,
        Op::Modify => update::Type::Modify,
        Op::Delete => update::Type::Delete,
    };
    Update {
        r#type: t as i32,
        entity: Some(Entity { entity: Some(e) }),
    }
}

/// Puts back `old` (None: the entity did not exist; `key` names it) given whether it exists now.
fn put_back<T: Clone>(
    ctx: &mut Ctx,
    now: bool,
    old: Option<T>,
    key: T,
    mk: impl Fn(T) -> entity::Entity,
) -> Result<(), OpError> {
    match restore_op(old.is_some(), now) {
        None => Ok(()),
        Some(Op::Delete) => ctx.apply(&wrap(Op::Delete, mk(key))),
        Some(op) => ctx.apply(&wrap(op, mk(old.unwrap_or(key)))),
    }
}

/// Runs the undos in reverse order; every one is attempted, the first error is returned.
pub(crate) fn rollback(ctx: &mut Ctx, undo: Vec<Undo>) -> Result<(), OpError> {
    use entity::Entity as E;
    use packet_replication_engine_entry::Type as P;
    let pre_entry = |t: P| E::PacketReplicationEngineEntry(PacketReplicationEngineEntry { r#type: Some(t) });
    let mut first: Option<OpError> = None;
    for u in undo.into_iter().rev() {
        let r = match u {
            Undo::Table(w) => w.apply(&ctx.pipe.rt),
            Undo::Update(u) => ctx.apply(&u),
            Undo::Group(id, old) => {
                let now = ctx.pre.groups.contains_key(&id);
                let key = MulticastGroupEntry {
                    multicast_group_id: id,
                    ..Default::default()
                };
                put_back(ctx, now, old, key, |g| pre_entry(P::MulticastGroupEntry(g)))
            }
            Undo::Clone(id, old) => {
                let now = ctx.pre.clones.contains_key(&id);
                let key = CloneSessionEntry {
                    session_id: id,
                    ..Default::default()
                };
                put_back(ctx, now, old, key, |c| pre_entry(P::CloneSessionEntry(c)))
            }
            Undo::ValueSet(old) => crate::vset::restore(&ctx.pipe.rt, &old),
            Undo::Member(prof, id, old) => member(ctx.pipe, prof, id).and_then(|now| {
                let key = ActionProfileMember {
                    action_profile_id: prof,
                    member_id: id,
                    action: None,
                };
                put_back(ctx, now.is_some(), old, key, E::ActionProfileMember)
            }),
            Undo::ProfileGroup(prof, id, old) => group(ctx.pipe, prof, id).and_then(|now| {
                let key = ActionProfileGroup {
                    action_profile_id: prof,
                    group_id: id,
                    ..Default::default()
                };
                put_back(ctx, now.is_some(), old, key, E::ActionProfileGroup)
            }),
            Undo::SelectorEntry(key, old) => {
                selector_entry(ctx.pipe, &key).and_then(|now| put_back(ctx, now.is_some(), old, key, E::TableEntry))
            }
            Undo::Digest(id, old) => {
                let d = ctx.digests();
                match digest(d, id) {
                    Ok(now) => {
                        let key = DigestEntry {
                            digest_id: id,
                            config: None,
                        };
                        let old = old.map(|c| DigestEntry {
                            digest_id: id,
                            config: Some(c),
                        });
                        match restore_op(old.is_some(), now.is_some()) {
                            None => Ok(()),
                            Some(Op::Delete) => d.write(&key, Op::Delete),
                            Some(op) => d.write(&old.unwrap_or(key), op),
                        }
                    }
                    Err(e) => Err(e),
                }
            }
        };
        // keep undoing the rest: every restored update counts
        if let Err(e) = r {
            first.get_or_insert(e);
        }
    }
    first.map_or(Ok(()), Err)
}

/// Applies a table write; the undo is recorded once the entry is written.
pub(crate) fn apply_table(rt: &Runtime, w: &TableWrite, undo: &mut Vec<Undo>) -> Result<(), OpError> {
    let old = table_undo(rt, w)?;
    w.apply_entry(rt)?;
    undo.extend(old.map(Undo::Table));
    w.apply_extras(rt)
}

/// The write that restores what `w` changes (None: `w` will fail without changing anything).
fn table_undo(rt: &Runtime, w: &TableWrite) -> Result<Option<TableWrite>, OpError> {
    let (table, matches, priority, insert) = match w {
        TableWrite::Direct {
            insert: true,
            entry,
            table,
            ..
        } => {
            return Ok(Some(TableWrite::Delete {
                table: *table,
                matches: entry.matches.clone(),
                priority: entry.priority,
            }))
        }
        TableWrite::Indirect {
            insert: true,
            table,
            matches,
            priority,
            ..
        } => {
            return Ok(Some(TableWrite::Delete {
                table: *table,
                matches: matches.clone(),
                priority: *priority,
            }))
        }
        TableWrite::DefaultSet { table, .. } | TableWrite::DefaultReset { table, .. } => {
            // the default action with its direct counter and meter cells and its metadata
            let (action, params) = rt.default_get(*table).map_err(rt_err)?;
            let info = tables::table_by_index(rt.program(), *table)?;
            return Ok(Some(TableWrite::DefaultSet {
                table: *table,
                action,
                params,
                extras: tables::Extras::current_default(rt, info)?,
            }));
        }
        TableWrite::Direct { table, entry, .. } => (*table, &entry.matches, entry.priority, false),
        TableWrite::Indirect {
            table,
            matches,
            priority,
            ..
        } => (*table, matches, *priority, false),
        TableWrite::Delete {
            table,
            matches,
            priority,
        } => (*table, matches, *priority, true),
    };
    let old = match rt.entry_get(table, matches, priority) {
        Ok(e) => e,
        Err(e) if e.errno() == Some(p4dp_rt::errno::ENOENT) => return Ok(None),
        Err(e) => return Err(rt_err(e)),
    };
    let info = tables::table_by_index(rt.program(), table)?;
    let extras = tables::Extras::current(rt, info, matches, priority)?;
    Ok(Some(match ProfileRef::of_entry(&old) {
        Some(r) => TableWrite::Indirect {
            table,
            matches: old.matches,
            priority: old.priority,
            r,
            insert,
            extras,
        },
        None => TableWrite::Direct {
            table,
            entry: old,
            insert,
            extras,
        },
    }))
}

fn modify(e: entity::Entity) -> Undo {
    Undo::Update(wrap(Op::Modify, e))
}

/// The member `id` of profile `prof` as a read returns it.
fn member(pipe: &Pipeline, prof: u32, id: u32) -> Result<Option<ActionProfileMember>, OpError> {
    let mut v = Vec::new();
    let q = ActionProfileMember {
        action_profile_id: prof,
        member_id: id,
        action: None,
    };
    crate::actprof::of(pipe).read_member(&pipe.rt, &q, &mut v)?;
    Ok(v.pop())
}

/// The group `id` of profile `prof` as a read returns it.
fn group(pipe: &Pipeline, prof: u32, id: u32) -> Result<Option<ActionProfileGroup>, OpError> {
    let mut v = Vec::new();
    let q = ActionProfileGroup {
        action_profile_id: prof,
        group_id: id,
        ..Default::default()
    };
    crate::actprof::of(pipe).read_group(&pipe.rt, &q, &mut v)?;
    Ok(v.pop())
}

/// The entry of an action-selector table that `key` names (its match and priority) as a read
/// returns it, with every extra its table has (direct counter, direct meter, metadata, idle
/// timeout) and a one-shot action set as written: what a write of it puts back.
fn selector_entry(pipe: &Pipeline, key: &TableEntry) -> Result<Option<TableEntry>, OpError> {
    let p = pipe.rt.program();
    let t = tables::table_by_id(p, key.table_id)?;
    let q = TableEntry {
        table_id: key.table_id,
        r#match: key.r#match.clone(),
        priority: key.priority,
        counter_data: t.direct_counter.map(|_| CounterData::default()),
        meter_config: t.direct_meter.map(|_| MeterConfig::default()),
        meter_counter_data: t.direct_meter.map(|_| MeterCounterData::default()),
        ..Default::default()
    };
    let mut v = Vec::new();
    tables::read(&pipe.rt, t, &q, &mut v)?;
    crate::actprof::of(pipe).restore_one_shots(p, &mut v);
    Ok(v.pop().map(|e| TableEntry { is_const: false, ..e }))
}

fn digest(d: &Digests, id: u32) -> Result<Option<digest_entry::Config>, OpError> {
    let mut v = Vec::new();
    d.read(
        &DigestEntry {
            digest_id: id,
            config: None,
        },
        &mut v,
    )?;
    Ok(v.pop().and_then(|e| e.config))
}

/// The old state of what `u` writes (not of a wildcard: that write fails before writing).
pub(crate) fn snapshot(ctx: &mut Ctx, u: &Update) -> Result<Vec<Undo>, OpError> {
    use entity::Entity as E;
    use packet_replication_engine_entry::Type as P;
    let rt = &*ctx.pipe.rt;
    let mut out = Vec::new();
    match u.entity.as_ref().and_then(|e| e.entity.as_ref()) {
        Some(E::TableEntry(t)) if !t.r#match.is_empty() => out.push(Undo::SelectorEntry(
            TableEntry {
                table_id: t.table_id,
                r#match: t.r#match.clone(),
                priority: t.priority,
                ..Default::default()
            },
            selector_entry(ctx.pipe, t)?,
        )),
        Some(E::CounterEntry(c)) if c.counter_id != 0 => {
            let mut v = Vec::new();
            let q = CounterEntry { data: None, ..*c };
            x::read_counter(rt, &q, &mut v)?;
            out.extend(v.into_iter().map(|c| modify(E::CounterEntry(c))));
        }
        Some(E::RegisterEntry(r)) if r.register_id != 0 => {
            let mut v = Vec::new();
            let q = RegisterEntry {
                data: None,
                ..r.clone()
            };
            x::read_register(rt, &q, &mut v)?;
            out.extend(v.into_iter().map(|r| modify(E::RegisterEntry(r))));
        }
        Some(E::MeterEntry(m)) if m.meter_id != 0 => {
            let mut v = Vec::new();
            // with counter_data: the read returns the per-colour counts too
            let q = MeterEntry {
                config: None,
                counter_data: Some(MeterCounterData::default()),
                ..*m
            };
            x::read_meter(rt, &q, &mut v)?;
            out.extend(v.into_iter().map(|m| modify(E::MeterEntry(m))));
        }
        Some(E::DirectCounterEntry(d)) if d.table_entry.as_ref().is_some_and(|t| t.table_id != 0) => {
            let mut v = Vec::new();
            let q = DirectCounterEntry {
                table_entry: d.table_entry.clone(),
                data: None,
            };
            x::read_direct_counter(rt, &q, &mut v)?;
            out.extend(v.into_iter().map(|d| modify(E::DirectCounterEntry(d))));
        }
        Some(E::DirectMeterEntry(d)) if d.table_entry.as_ref().is_some_and(|t| t.table_id != 0) => {
            // an unconfigured meter reads back without config, and a MODIFY without config
            // unconfigures it: the read (with the per-colour counts) is its own undo
            let mut v = Vec::new();
            let q = DirectMeterEntry {
                table_entry: d.table_entry.clone(),
                config: None,
                counter_data: Some(MeterCounterData::default()),
            };
            x::read_direct_meter(rt, &q, &mut v)?;
            out.extend(v.into_iter().map(|d| modify(E::DirectMeterEntry(d))));
        }
        Some(E::ActionProfileMember(m)) if m.action_profile_id != 0 && m.member_id != 0 => out.push(Undo::Member(
            m.action_profile_id,
            m.member_id,
            member(ctx.pipe, m.action_profile_id, m.member_id)?,
        )),
        Some(E::ActionProfileGroup(g)) if g.action_profile_id != 0 && g.group_id != 0 => out.push(Undo::ProfileGroup(
            g.action_profile_id,
            g.group_id,
            group(ctx.pipe, g.action_profile_id, g.group_id)?,
        )),
        Some(E::PacketReplicationEngineEntry(PacketReplicationEngineEntry { r#type: Some(t) })) => match t {
            P::MulticastGroupEntry(g) => out.push(Undo::Group(
                g.multicast_group_id,
                ctx.pre.groups.get(&g.multicast_group_id).cloned(),
            )),
            P::CloneSessionEntry(c) => out.push(Undo::Clone(c.session_id, ctx.pre.clones.get(&c.session_id).cloned())),
        },
        Some(E::ValueSetEntry(v)) => {
            let vs = crate::vset::by_id(rt.program(), v.value_set_id)?;
            out.push(Undo::ValueSet(crate::vset::snapshot(rt, vs)?));
        }
        Some(E::DigestEntry(d)) => {
            let old = digest(ctx.digests(), d.digest_id)?;
            out.push(Undo::Digest(d.digest_id, old));
        }
        _ => {}
    }
    Ok(out)
}
