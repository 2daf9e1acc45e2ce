//! The Write batch and its atomicity (the specification's "Batch Atomicity").
//!
//! - CONTINUE_ON_ERROR: every update is attempted in order; each gets its own result.
//! - ROLLBACK_ON_ERROR: all or nothing. First every update is validated without writing (table
//!   entries completely; the others are validated by their own write before it writes). Any
//!   invalid update: nothing is written. Then the updates are applied in order; before each, the
//!   state it will change is read back (an undo: the old entry, default entry, extern cells,
//!   replication entry or value set members). At the first failure the applied updates are undone in reverse order,
//!   so both the server's and the data plane's state read back as before the batch.
//! - DATAPLANE_ATOMIC: as ROLLBACK_ON_ERROR, with the writing phase (and a rollback) inside
//!   `Runtime::batch`: the workers wait at a burst boundary meanwhile, so every packet sees the
//!   state before the batch or after it, on every table of the batch (docs/p4runtime.md).
//!
//! Errors of a failed all-or-nothing batch: the failing update has its own code; every other
//! update is ABORTED (its message says whether it was rolled back or not attempted).
//! Entities without an undo (action profiles, direct meters, ...) are UNIMPLEMENTED in these
//! modes, as the specification allows for batches a server cannot execute that way.

use p4dp_rt::{ProfileRef, Runtime};
use tonic::Code;

use crate::externs::{self as x, Pre};
use crate::proto::p4::v1::{
    entity, packet_replication_engine_entry, update, CloneSessionEntry, CounterEntry, DirectCounterEntry, Entity,
    MeterEntry, MulticastGroupEntry, PacketReplicationEngineEntry, RegisterEntry, Update, ValueSetEntry,
};
use crate::server::{apply, entity_name, update_op};
use crate::switch::Pipeline;
use crate::tables::{self, err, invalid, rt_err, Op, OpError, TableWrite};

/// The atomicity of a WriteRequest.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Atomicity {
    ContinueOnError,
    RollbackOnError,
    DataplaneAtomic,
}

impl Atomicity {
    fn name(self) -> &'static str {
        match self {
            Atomicity::ContinueOnError => "CONTINUE_ON_ERROR",
            Atomicity::RollbackOnError => "ROLLBACK_ON_ERROR",
            Atomicity::DataplaneAtomic => "DATAPLANE_ATOMIC",
        }
    }
}

/// Applies `updates` as `mode` asks; one result per update, in order.
pub fn write(pipe: &Pipeline, pre: &mut Pre, updates: &[Update], mode: Atomicity) -> Vec<Result<(), OpError>> {
    if mode == Atomicity::ContinueOnError {
        return continue_on_error(pipe, pre, updates);
    }
    // validation: nothing written yet
    let plans: Vec<Result<Planned, OpError>> = updates.iter().map(|u| plan(pipe, u)).collect();
    if plans.iter().any(|p| p.is_err()) {
        return plans
            .into_iter()
            .map(|p| match p {
                Ok(_) => Err(err(
                    Code::Aborted,
                    format!("not applied: another update of this {} batch is invalid", mode.name()),
                )),
                Err(e) => Err(e),
            })
            .collect();
    }
    let plans: Vec<Planned> = plans.into_iter().flatten().collect();
    let outcome = if mode == Atomicity::DataplaneAtomic {
        match pipe.rt.batch(|| apply_all(pipe, pre, &plans)) {
            Ok((o, times)) => {
                crate::timing::note_batch(times);
                o
            }
            Err(e) => {
                let e = err(
                    Code::Internal,
                    format!("the data-plane atomic batch could not run: {e}"),
                );
                return updates.iter().map(|_| Err(e.clone())).collect();
            }
        }
    } else {
        apply_all(pipe, pre, &plans)
    };
    match outcome {
        Ok(()) => updates.iter().map(|_| Ok(())).collect(),
        Err(f) => (0..updates.len())
            .map(|i| {
                Err(if i == f.index {
                    f.error.clone()
                } else {
                    err(
                        Code::Aborted,
                        format!(
                            "{}: update {} of this {} batch failed",
                            if i < f.index { "rolled back" } else { "not attempted" },
                            f.index,
                            mode.name()
                        ),
                    )
                })
            })
            .collect(),
    }
}

/// CONTINUE_ON_ERROR: every update in order, each with its own result. perf: consecutive
/// inserts of entries with a direct action and nothing besides (no idle timeout, direct
/// resource or metadata) into one table go to the runtime together ([`Runtime::entries_add`]:
/// one call, one lock per run instead of per entry); every other update is applied on its own
/// when its turn comes. An insert's validation reads no state, so one refused by it gets its
/// error at once; the runtime's own refusals (an existing entry, a full table) come back per
/// entry, in the order the entries were added.
fn continue_on_error(pipe: &Pipeline, pre: &mut Pre, updates: &[Update]) -> Vec<Result<(), OpError>> {
    let rt = &*pipe.rt;
    let mut out: Vec<Result<(), OpError>> = Vec::with_capacity(updates.len());
    // the pending run: its table, its entries and their places in `out`
    let mut run: Option<u32> = None;
    let mut entries: Vec<p4dp_rt::TableEntry> = Vec::new();
    let mut slots: Vec<usize> = Vec::new();
    let flush = |entries: &mut Vec<p4dp_rt::TableEntry>,
                 slots: &mut Vec<usize>,
                 table: u32,
                 out: &mut Vec<Result<(), OpError>>| {
        for (slot, r) in slots.drain(..).zip(rt.entries_add(table, entries)) {
            out[slot] = r.map_err(rt_err);
        }
        entries.clear();
    };
    for u in updates {
        match bulk_insert(pipe, u) {
            Some(Ok((table, entry))) => {
                if let Some(t) = run.filter(|&t| t != table) {
                    flush(&mut entries, &mut slots, t, &mut out);
                }
                run = Some(table);
                slots.push(out.len());
                out.push(Ok(()));
                entries.push(entry);
            }
            Some(Err(e)) => out.push(Err(e)),
            None => {
                if let Some(t) = run.take() {
                    flush(&mut entries, &mut slots, t, &mut out);
                }
                out.push(apply(pipe, pre, u));
            }
        }
    }
    if let Some(t) = run {
        flush(&mut entries, &mut slots, t, &mut out);
    }
    out
}

/// An insert [`continue_on_error`] may hand to the runtime with others: Some(Ok) with its table
/// index and runtime entry, Some(Err) when its validation refuses it (what [`apply`] would
/// answer, having written nothing), None for every other update (applied on its own).
fn bulk_insert(pipe: &Pipeline, u: &Update) -> Option<Result<(u32, p4dp_rt::TableEntry), OpError>> {
    if update::Type::try_from(u.r#type) != Ok(update::Type::Insert) {
        return None;
    }
    let Some(entity::Entity::TableEntry(t)) = u.entity.as_ref().and_then(|e| e.entity.as_ref()) else {
        return None;
    };
    // tables implemented by a profile go through crate::actprof (members, groups, one-shots)
    let p = pipe.rt.program();
    let info = tables::table_by_id(p, t.table_id).ok()?;
    if info.implementation.is_some() || t.is_default_action {
        return None;
    }
    match tables::prepare(p, t, Op::Insert) {
        Ok(TableWrite::Direct {
            table,
            entry,
            insert: true,
            extras,
        }) if extras == tables::Extras::default() => Some(Ok((table, entry))),
        Ok(_) => None,
        Err(e) => Some(Err(e)),
    }
}

/// An update validated as far as possible before anything is written.
enum Planned<'a> {
    Table(TableWrite),
    /// Externs and replication entries: their write validates before it writes.
    Other(&'a Update),
}

/// What puts back the state an update changed.
enum Undo {
    Table(TableWrite),
    /// A MODIFY of an extern cell or direct counter with its old value.
    Update(Update),
    Group(u32, Option<MulticastGroupEntry>),
    Clone(u32, Option<CloneSessionEntry>),
    /// A value set with its old members.
    ValueSet(ValueSetEntry),
}

struct Failure {
    index: usize,
    error: OpError,
}

fn plan<'a>(pipe: &Pipeline, u: &'a Update) -> Result<Planned<'a>, OpError> {
    use entity::Entity as E;
    let op = update_op(u)?;
    let p = pipe.rt.program();
    match u.entity.as_ref().and_then(|e| e.entity.as_ref()) {
        None => Err(invalid("the update has no entity")),
        Some(E::TableEntry(t)) => {
            if crate::actprof::of(pipe).one_shot_table(p, t.table_id) {
                return Err(err(
                    Code::Unimplemented,
                    "entries with one-shot action sets cannot be rolled back: use CONTINUE_ON_ERROR",
                ));
            }
            Ok(Planned::Table(tables::prepare(p, t, op)?))
        }
        Some(
            E::CounterEntry(_)
            | E::RegisterEntry(_)
            | E::MeterEntry(_)
            | E::DirectCounterEntry(_)
            | E::PacketReplicationEngineEntry(_),
        ) => Ok(Planned::Other(u)),
        Some(E::ValueSetEntry(v)) => {
            crate::vset::check(pipe, v, op)?;
            Ok(Planned::Other(u))
        }
        Some(other) => Err(err(
            Code::Unimplemented,
            format!(
                "{} cannot be rolled back: write them with CONTINUE_ON_ERROR",
                entity_name(other)
            ),
        )),
    }
}

/// Applies every plan in order; at the first failure, undoes what was applied.
fn apply_all(pipe: &Pipeline, pre: &mut Pre, plans: &[Planned]) -> Result<(), Failure> {
    let rt = &*pipe.rt;
    let mut undo: Vec<Undo> = Vec::new();
    for (index, p) in plans.iter().enumerate() {
        let r = match p {
            Planned::Table(w) => apply_table(rt, w, &mut undo),
            Planned::Other(u) => snapshot(rt, pre, u).and_then(|mut un| {
                // restoring cells or replication entries that the failed write did not
                // change is harmless, so the undo is kept even when the write fails midway
                undo.append(&mut un);
                apply(pipe, pre, u)
            }),
        };
        if let Err(error) = r {
            if let Err(e) = rollback(pipe, pre, undo) {
                eprintln!("p4runtime: rolling back a batch failed: {}", e.msg);
                return Err(Failure {
                    index,
                    error: err(
                        Code::Internal,
                        format!("{} (and rolling back the batch failed: {})", error.msg, e.msg),
                    ),
                });
            }
            return Err(Failure { index, error });
        }
    }
    Ok(())
}

fn rollback(pipe: &Pipeline, pre: &mut Pre, undo: Vec<Undo>) -> Result<(), OpError> {
    let rt = &*pipe.rt;
    let mut first: Option<OpError> = None;
    for u in undo.into_iter().rev() {
        let r = match u {
            Undo::Table(w) => w.apply(rt),
            Undo::Update(u) => apply(pipe, pre, &u),
            Undo::Group(id, old) => {
                let now = pre.groups.contains_key(&id);
                match (old, now) {
                    (Some(g), true) => pre.write_group(rt, &g, Op::Modify),
                    (Some(g), false) => pre.write_group(rt, &g, Op::Insert),
                    (None, true) => pre.write_group(
                        rt,
                        &MulticastGroupEntry {
                            multicast_group_id: id,
                            ..Default::default()
                        },
                        Op::Delete,
                    ),
                    (None, false) => Ok(()),
                }
            }
            Undo::ValueSet(old) => crate::vset::restore(rt, &old),
            Undo::Clone(id, old) => {
                let now = pre.clones.contains_key(&id);
                match (old, now) {
                    (Some(c), true) => pre.write_clone(rt, &c, Op::Modify),
                    (Some(c), false) => pre.write_clone(rt, &c, Op::Insert),
                    (None, true) => pre.write_clone(
                        rt,
                        &CloneSessionEntry {
                            session_id: id,
                            ..Default::default()
                        },
                        Op::Delete,
                    ),
                    (None, false) => Ok(()),
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
fn apply_table(rt: &Runtime, w: &TableWrite, undo: &mut Vec<Undo>) -> Result<(), OpError> {
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
        TableWrite::DefaultSet { table, .. } | TableWrite::DefaultReset { table } => {
            let (action, params) = rt.default_get(*table).map_err(rt_err)?;
            return Ok(Some(TableWrite::DefaultSet {
                table: *table,
                action,
                params,
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
    Undo::Update(Update {
        r#type: update::Type::Modify as i32,
        entity: Some(Entity { entity: Some(e) }),
    })
}

/// The old state of the cells or replication entry `u` writes (not of a wildcard: that write
/// fails before writing).
fn snapshot(rt: &Runtime, pre: &Pre, u: &Update) -> Result<Vec<Undo>, OpError> {
    use entity::Entity as E;
    use packet_replication_engine_entry::Type as P;
    let mut out = Vec::new();
    match u.entity.as_ref().and_then(|e| e.entity.as_ref()) {
        Some(E::CounterEntry(c)) if c.counter_id != 0 => {
            let mut v = Vec::new();
            x::read_counter(
                rt,
                &CounterEntry {
                    data: None,
                    ..c.clone()
                },
                &mut v,
            )?;
            out.extend(v.into_iter().map(|c| modify(E::CounterEntry(c))));
        }
        Some(E::RegisterEntry(r)) if r.register_id != 0 => {
            let mut v = Vec::new();
            x::read_register(
                rt,
                &RegisterEntry {
                    data: None,
                    ..r.clone()
                },
                &mut v,
            )?;
            out.extend(v.into_iter().map(|r| modify(E::RegisterEntry(r))));
        }
        Some(E::MeterEntry(m)) if m.meter_id != 0 => {
            let mut v = Vec::new();
            x::read_meter(
                rt,
                &MeterEntry {
                    config: None,
                    counter_data: None,
                    ..m.clone()
                },
                &mut v,
            )?;
            out.extend(v.into_iter().map(|m| modify(E::MeterEntry(m))));
        }
        Some(E::DirectCounterEntry(d)) if d.table_entry.as_ref().is_some_and(|t| t.table_id != 0) => {
            let mut v = Vec::new();
            x::read_direct_counter(
                rt,
                &DirectCounterEntry {
                    table_entry: d.table_entry.clone(),
                    data: None,
                },
                &mut v,
            )?;
            out.extend(v.into_iter().map(|d| modify(E::DirectCounterEntry(d))));
        }
        Some(E::PacketReplicationEngineEntry(PacketReplicationEngineEntry { r#type: Some(t) })) => match t {
            P::MulticastGroupEntry(g) => out.push(Undo::Group(
                g.multicast_group_id,
                pre.groups.get(&g.multicast_group_id).cloned(),
            )),
            P::CloneSessionEntry(c) => out.push(Undo::Clone(c.session_id, pre.clones.get(&c.session_id).cloned())),
        },
        Some(E::ValueSetEntry(v)) => {
            let vs = crate::vset::by_id(rt.program(), v.value_set_id)?;
            out.push(Undo::ValueSet(crate::vset::snapshot(rt, vs)?));
        }
        _ => {}
    }
    Ok(out)
}
