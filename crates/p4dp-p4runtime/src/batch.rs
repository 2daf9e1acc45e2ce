//! The Write batch and its atomicity (the specification's "Batch Atomicity").
//!
//! - CONTINUE_ON_ERROR: every update is attempted in order; each gets its own result.
//! - ROLLBACK_ON_ERROR: all or nothing. First every update is validated without writing (table
//!   entries completely; the others are validated by their own write before it writes). Any
//!   invalid update: nothing is written. Then the updates are applied in order; before each, the
//!   state it will change is read back (its undo, crate::undo: the old entry or default entry with
//!   its extras, extern cells, direct counter or meter, action-profile member or group, one-shot
//!   action set, replication entry, value set members, digest configuration). At the first
//!   failure the applied updates are undone in reverse order, so both the server's and the data
//!   plane's state read back as before the batch.
//! - DATAPLANE_ATOMIC: as ROLLBACK_ON_ERROR, with the writing phase (and a rollback) inside
//!   `Runtime::batch`: the workers wait at a burst boundary meanwhile, so every packet sees the
//!   state before the batch or after it, on every table and extern of the batch
//!   (docs/p4runtime.md says what that means for counters, meters and digests).
//!
//! Errors of a failed all-or-nothing batch: the failing update has its own code; every other
//! update is ABORTED (its message says whether it was rolled back or not attempted).

use p4dp_rt::{PackedEntries, Program, Runtime, TableInfo};
use tonic::Code;

use crate::externs::Pre;
use crate::fastwrite::{FastAction, FastWrite};
use crate::proto::p4::v1::{entity, update, Update};
use crate::server::{apply, update_op};
use crate::switch::Pipeline;
use crate::tables::{self, err, invalid, rt_err, ActionRef, FieldRef, Op, OpError, Prepared, TableWrite};
use crate::undo::{self, Ctx, Undo};

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
/// resource or metadata) into one table are validated into one [`PackedEntries`] and go to the
/// runtime together ([`Runtime::entries_add`]: one call, one lock per run instead of per entry,
/// no allocation per entry); every other update is applied on its own when its turn comes. An
/// insert's validation reads no state, so one refused by it gets its error at once; the
/// runtime's own refusals (an existing entry, a full table) come back per entry, in the order
/// the entries were added.
///
/// [`Runtime::entries_add`]: p4dp_rt::Runtime::entries_add
fn continue_on_error(pipe: &Pipeline, pre: &mut Pre, updates: &[Update]) -> Vec<Result<(), OpError>> {
    let p = pipe.rt.program();
    continue_on_error_with(
        pipe,
        pre,
        updates.len(),
        |i| run_table(p, &updates[i]),
        |i, t, run| pack_insert(p, t, &updates[i], run),
        |pre, i| apply(pipe, pre, &updates[i]),
    )
}

/// [`continue_on_error`] of updates read from a Write's encoding (crate::fastwrite): the same
/// runs of inserts, validated from the borrowed entries; a modify or delete of an entry of a
/// table without an action profile is validated from the borrowed entry too
/// ([`prepare_single_fast`]); any other update is applied in prost's form.
pub fn continue_on_error_fast(pipe: &Pipeline, pre: &mut Pre, w: &FastWrite) -> Vec<Result<(), OpError>> {
    let rt = &*pipe.rt;
    let p = rt.program();
    continue_on_error_with(
        pipe,
        pre,
        w.updates.len(),
        |i| run_table_fast(p, w, i),
        |i, t, run| pack_insert_fast(p, t, w, i, run),
        |pre, i| {
            if let Some(r) = modify_fast(rt, w, i) {
                return r;
            }
            match prepare_single_fast(p, w, i) {
                Some(write) => write.and_then(|write| write.apply(rt)),
                None => apply(pipe, pre, &w.to_update(i)),
            }
        },
    )
}

thread_local! {
    /// [`modify_fast`]'s buffers, kept from one Write to the next on the thread that applies them.
    static MODIFY_RUN: std::cell::RefCell<PackedEntries> = std::cell::RefCell::new(PackedEntries::new());
}

/// Update `i` of `w` applied when [`pack_modify_fast`] takes it: the runtime's modify of the
/// packed entry, then the extras a plain modify sets, in [`TableWrite::apply`]'s order and with
/// its errors. None: the update is left to [`prepare_single_fast`].
///
/// perf: a single rule's modify is the update whose latency d_all measures. Its match and
/// parameters went into vectors of their own twice (the validated entry, then the runtime's
/// form); the validation and the two conversions took about 1.7 µs of the handler's 5 back to
/// back, 7 µs after 10 ms idle (TSC stamps in a local build). Packed into buffers that the
/// thread keeps they need no allocation: the handler's start -> the first packet with the new
/// entry fell from 3.5-3.8 to 3.1-3.4 µs back to back (commit 4e9f85d's message: three rounds
/// alternated with the build before).
fn modify_fast(rt: &Runtime, w: &FastWrite, i: usize) -> Option<Result<(), OpError>> {
    MODIFY_RUN.with(|cell| {
        // a modify applied inside another one's (none does today) takes the other path
        let mut run = cell.try_borrow_mut().ok()?;
        let (table, extras) = match pack_modify_fast(rt.program(), w, i, &mut run)? {
            Ok(x) => x,
            Err(e) => return Some(Err(e)),
        };
        let prio = w.updates[i].entry.priority;
        Some(
            rt.entry_modify_packed(table, &run, 0)
                .map_err(rt_err)
                .and_then(|()| extras.apply(rt, table, &run.entry(0).matches, prio)),
        )
    })
}

/// Update `i` of `w` validated into `run` (emptied first) as its only entry when it is a modify
/// of an entry of a table without an action profile: the table's index and the extras to set
/// after the entry, or the update's error; what [`prepare_single_fast`] makes of it (a
/// [`TableWrite::Direct`] of the same entry, extras and table, or the same error). None: any
/// other update.
pub(crate) fn pack_modify_fast(
    p: &Program,
    w: &FastWrite,
    i: usize,
    run: &mut PackedEntries,
) -> Option<Result<(u32, tables::Extras), OpError>> {
    let u = &w.updates[i];
    if update::Type::try_from(u.r#type) != Ok(update::Type::Modify) || u.entry.table_id == 0 {
        return None;
    }
    let info = tables::table_by_id(p, u.entry.table_id).ok()?;
    if info.implementation.is_some() {
        return None;
    }
    let e = &u.entry;
    run.clear();
    run.begin(info.keys.len());
    match tables::prepare_into(
        p,
        info,
        Op::Modify,
        // the entry has nothing besides its match, priority and action
        || Ok(tables::Extras::of_plain(info, Op::Modify)),
        w.fields(e).iter().copied(),
        e.priority,
        fast_action(w, &e.action),
        run,
    ) {
        Ok((Prepared::Direct { action, insert: false }, extras)) => {
            run.finish(e.priority, action);
            Some(Ok((info.index, extras)))
        }
        r => {
            run.abandon();
            match r {
                Ok(_) => None,
                Err(err) => Some(Err(err)),
            }
        }
    }
}

/// Update `i` of `w` validated for the runtime when it is a modify or delete of an entry of a
/// table without an action profile: what [`tables::prepare`] makes of its prost form, which
/// [`apply`] then writes the same way (perf: a single rule's modify, the update Stubbe et al.
/// time, skips prost's form: its allocations were a sixth of the handler's time). None: the
/// update goes through prost's form.
pub(crate) fn prepare_single_fast(p: &Program, w: &FastWrite, i: usize) -> Option<Result<TableWrite, OpError>> {
    let u = &w.updates[i];
    let op = match update::Type::try_from(u.r#type) {
        Ok(update::Type::Modify) => Op::Modify,
        Ok(update::Type::Delete) => Op::Delete,
        _ => return None,
    };
    // table id 0: refused by tables::prepare, through apply
    if u.entry.table_id == 0 {
        return None;
    }
    let info = tables::table_by_id(p, u.entry.table_id).ok()?;
    if info.implementation.is_some() {
        return None;
    }
    let e = &u.entry;
    Some(tables::prepare_entry(
        p,
        info,
        op,
        // the entry has nothing besides its match, priority and action
        || Ok(tables::Extras::of_plain(info, op)),
        w.fields(e).iter().copied(),
        e.priority,
        fast_action(w, &e.action),
    ))
}

/// The action of a fast-read entry, borrowed.
fn fast_action<'w, 'a>(
    w: &'w FastWrite<'a>,
    a: &FastAction,
) -> Option<ActionRef<impl Iterator<Item = (u32, &'a [u8])> + 'w>> {
    match a {
        FastAction::Absent | FastAction::Empty => None,
        FastAction::Direct { action_id, params } => {
            Some(ActionRef::Direct(*action_id, w.params(params).iter().copied()))
        }
    }
}

/// Most inserts [`continue_on_error_with`] holds before it hands them to the runtime. perf: the
/// run's packed entries and their conversion for the runtime stay in the CPU's caches. A run is
/// as long as the runtime's own hold of a table's mutex (P4DP_TABLE_BATCH_HOLD), so each call
/// still takes the mutex once.
const RUN_MAX: usize = 1024;

/// [`continue_on_error`] of `n` updates: `table(i)` is the table of update `i` if it is an
/// insert that may join a run, `pack(i, table, run)` validates it into the run
/// ([`pack_insert`]), `single(i)` applies an update on its own.
fn continue_on_error_with<'p>(
    pipe: &'p Pipeline,
    pre: &mut Pre,
    n: usize,
    table: impl Fn(usize) -> Option<&'p TableInfo>,
    pack: impl FnMut(usize, &'p TableInfo, &mut PackedEntries) -> Option<Result<(), OpError>>,
    mut single: impl FnMut(&mut Pre, usize) -> Result<(), OpError>,
) -> Vec<Result<(), OpError>> {
    let rt = &*pipe.rt;
    in_runs(
        n,
        &mut PackedEntries::new(),
        |i| table(i).map(|t| (t.index, t)),
        pack,
        |i| single(pre, i),
        |table, run| {
            let r = rt
                .entries_add(table, run)
                .into_iter()
                .map(|r| r.map_err(rt_err))
                .collect();
            run.clear();
            r
        },
    )
}

/// The results of `n` updates in order. An update `table(i)` gives a table for (its index and
/// what `pack` needs of it) is validated into `run` by `pack(i, that, run)` (Some(Ok): it joined
/// the run; Some(Err): refused; None: applied on its own after all). A run holds consecutive
/// inserts into one table, at most [`RUN_MAX`]: `add(table, run)` adds it, answers per entry in
/// order and empties it. `single(i)` applies every other update when its turn comes.
fn in_runs<R, T>(
    n: usize,
    run: &mut R,
    table: impl Fn(usize) -> Option<(u32, T)>,
    mut pack: impl FnMut(usize, T, &mut R) -> Option<Result<(), OpError>>,
    mut single: impl FnMut(usize) -> Result<(), OpError>,
    mut add: impl FnMut(u32, &mut R) -> Vec<Result<(), OpError>>,
) -> Vec<Result<(), OpError>> {
    let mut out: Vec<Result<(), OpError>> = Vec::with_capacity(n);
    // the pending run's table and its entries' places in `out`
    let mut pending: Option<u32> = None;
    let mut slots: Vec<usize> = Vec::with_capacity(n.min(RUN_MAX));
    let mut flush = |pending: &mut Option<u32>, run: &mut R, slots: &mut Vec<usize>, out: &mut Vec<_>| {
        if let Some(t) = pending.take() {
            for (slot, r) in slots.drain(..).zip(add(t, run)) {
                out[slot] = r;
            }
        }
    };
    for i in 0..n {
        let Some((t, info)) = table(i) else {
            flush(&mut pending, run, &mut slots, &mut out);
            out.push(single(i));
            continue;
        };
        if pending.is_some_and(|p| p != t) || slots.len() >= RUN_MAX {
            flush(&mut pending, run, &mut slots, &mut out);
        }
        match pack(i, info, run) {
            Some(Ok(())) => {
                pending = Some(t);
                slots.push(out.len());
                out.push(Ok(()));
            }
            Some(Err(e)) => out.push(Err(e)),
            None => {
                flush(&mut pending, run, &mut slots, &mut out);
                out.push(single(i));
            }
        }
    }
    flush(&mut pending, run, &mut slots, &mut out);
    out
}

/// The table of update `u` if it is an insert that may join a run: of a table entry (not the
/// default entry) of a table without an action profile (those go through crate::actprof).
pub(crate) fn run_table<'p>(p: &'p Program, u: &Update) -> Option<&'p TableInfo> {
    if update::Type::try_from(u.r#type) != Ok(update::Type::Insert) {
        return None;
    }
    let Some(entity::Entity::TableEntry(t)) = u.entity.as_ref().and_then(|e| e.entity.as_ref()) else {
        return None;
    };
    let info = tables::table_by_id(p, t.table_id).ok()?;
    (info.implementation.is_none() && !t.is_default_action).then_some(info)
}

/// Validates update `u`, an insert into table `info` ([`run_table`]), into `run`: Some(Ok) when
/// it joins the run, Some(Err) when validation refuses it (what [`apply`] would answer, having
/// written nothing), None when it is applied on its own after all (it has extras). The run is
/// unchanged but for an entry that joins it.
pub(crate) fn pack_insert(
    p: &Program,
    info: &TableInfo,
    u: &Update,
    run: &mut PackedEntries,
) -> Option<Result<(), OpError>> {
    let Some(entity::Entity::TableEntry(t)) = u.entity.as_ref().and_then(|e| e.entity.as_ref()) else {
        return None;
    };
    pack(
        p,
        info,
        || tables::Extras::of(p, info, t, Op::Insert),
        t.r#match.iter().map(FieldRef::from),
        t.priority,
        tables::action_ref(t),
        run,
    )
}

/// [`run_table`] of update `i` of `w`.
pub(crate) fn run_table_fast<'p>(p: &'p Program, w: &FastWrite, i: usize) -> Option<&'p TableInfo> {
    let u = &w.updates[i];
    if update::Type::try_from(u.r#type) != Ok(update::Type::Insert) {
        return None;
    }
    // table id 0: refused by tables::prepare, through apply
    if u.entry.table_id == 0 {
        return None;
    }
    let info = tables::table_by_id(p, u.entry.table_id).ok()?;
    info.implementation.is_none().then_some(info)
}

/// [`pack_insert`] of update `i` of `w`: the same answer for the same update.
pub(crate) fn pack_insert_fast(
    p: &Program,
    info: &TableInfo,
    w: &FastWrite,
    i: usize,
    run: &mut PackedEntries,
) -> Option<Result<(), OpError>> {
    let e = &w.updates[i].entry;
    pack(
        p,
        info,
        // the entry has nothing besides its match, priority and action
        || Ok(tables::Extras::of_plain(info, Op::Insert)),
        w.fields(e).iter().copied(),
        e.priority,
        fast_action(w, &e.action),
        run,
    )
}

/// Validates an insert into table `t` into `run`: [`pack_insert`]'s answer.
fn pack<'a, P: IntoIterator<Item = (u32, &'a [u8])>>(
    p: &Program,
    t: &TableInfo,
    extras: impl FnOnce() -> Result<tables::Extras, OpError>,
    fields: impl IntoIterator<Item = FieldRef<'a>>,
    priority: i32,
    act: Option<ActionRef<P>>,
    run: &mut PackedEntries,
) -> Option<Result<(), OpError>> {
    run.begin(t.keys.len());
    match tables::prepare_into(p, t, Op::Insert, extras, fields, priority, act, run) {
        Ok((Prepared::Direct { action, insert: true }, extras)) if extras == tables::Extras::default() => {
            run.finish(priority, action);
            Some(Ok(()))
        }
        r => {
            run.abandon();
            match r {
                Ok(_) => None,
                Err(e) => Some(Err(e)),
            }
        }
    }
}

/// What [`pack_insert`] decides for `u` in the form of [`tables::prepare`], the single path's
/// validation: Some(Ok) with its table and entry when it is an insert for a run, Some(Err) when
/// validation refuses it, None when it is applied on its own.
#[cfg(test)]
pub(crate) fn bulk_insert(p: &Program, u: &Update) -> Option<Result<(u32, p4dp_rt::TableEntry), OpError>> {
    run_table(p, u)?;
    let Some(entity::Entity::TableEntry(t)) = u.entity.as_ref().and_then(|e| e.entity.as_ref()) else {
        return None;
    };
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
    /// Everything else (and entries of action-selector tables): their write validates before it
    /// writes; their undo is read back just before ([`undo::snapshot`]).
    Other(&'a Update),
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
        Some(E::TableEntry(t)) if !t.is_default_action && crate::actprof::selector_table(p, t.table_id) => {
            // entries of selector tables go through crate::actprof (one-shot action sets):
            // everything but a set's actions is validated here, the set by its write
            tables::prepare(p, &crate::actprof::by_group_id(t), op)?;
            Ok(Planned::Other(u))
        }
        Some(E::TableEntry(t)) => Ok(Planned::Table(tables::prepare(p, t, op)?)),
        Some(E::ValueSetEntry(v)) => {
            crate::vset::check(pipe, v, op)?;
            Ok(Planned::Other(u))
        }
        Some(E::ExternEntry(x)) => Err(crate::externs::no_extern_type(x.extern_type_id)),
        // the others validate before they write
        Some(_) => Ok(Planned::Other(u)),
    }
}

/// Applies every plan in order; at the first failure, undoes what was applied.
fn apply_all(pipe: &Pipeline, pre: &mut Pre, plans: &[Planned]) -> Result<(), Failure> {
    let rt = &*pipe.rt;
    let mut ctx = Ctx {
        pipe,
        pre,
        digests: None,
    };
    let mut undo: Vec<Undo> = Vec::new();
    for (index, p) in plans.iter().enumerate() {
        let r = match p {
            Planned::Table(w) => undo::apply_table(rt, w, &mut undo),
            Planned::Other(u) => undo::snapshot(&mut ctx, u).and_then(|mut un| {
                // restoring what the failed write did not change is harmless, so the undo is
                // kept even when the write fails midway
                undo.append(&mut un);
                ctx.apply(u)
            }),
        };
        if let Err(error) = r {
            if let Err(e) = undo::rollback(&mut ctx, undo) {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs are at most RUN_MAX long and end at a table change and at an update applied on its
    /// own; each update gets its own result in its place, whichever path it took.
    #[test]
    fn runs_are_bounded_and_results_stay_in_order() {
        let n = 3 * RUN_MAX + 500;
        let refused = RUN_MAX + 200; // invalid: answered at once, inside a run
        let alone = 2 * RUN_MAX + 10; // applied on its own: ends the run
        let packs_alone = 2 * RUN_MAX + 600; // applied on its own after validation: ends the run
        let other_table = 3 * RUN_MAX; // from here on, inserts into table 2
        let duplicate = RUN_MAX + 1; // the runtime refuses this one
        let table = |i: usize| match i {
            i if i == alone => None,
            i => Some((if i >= other_table { 2 } else { 1 }, ())),
        };
        let mut singles = Vec::new();
        let mut runs: Vec<(u32, Vec<usize>)> = Vec::new();
        let out = in_runs(
            n,
            &mut Vec::new(),
            table,
            |i, (), run: &mut Vec<usize>| match i {
                i if i == refused => Some(Err(invalid("refused by validation"))),
                i if i == packs_alone => None,
                i => {
                    run.push(i);
                    Some(Ok(()))
                }
            },
            |i| {
                singles.push(i);
                Err(err(Code::NotFound, "applied alone"))
            },
            |table, run| {
                runs.push((table, run.clone()));
                run.drain(..)
                    .map(|e| match e {
                        e if e == duplicate => Err(err(Code::AlreadyExists, "duplicate")),
                        _ => Ok(()),
                    })
                    .collect()
            },
        );
        assert_eq!(out.len(), n);
        for (i, r) in out.iter().enumerate() {
            let code = r.as_ref().err().map(|e| e.code);
            let want = match i {
                i if i == refused => Some(Code::InvalidArgument),
                i if i == alone || i == packs_alone => Some(Code::NotFound),
                i if i == duplicate => Some(Code::AlreadyExists),
                _ => None,
            };
            assert_eq!(code, want, "update {i}");
        }
        assert_eq!(singles, vec![alone, packs_alone]);
        assert!(
            runs.iter().all(|(_, e)| !e.is_empty() && e.len() <= RUN_MAX),
            "run lengths"
        );
        // every insert went to the runtime once, in order, into its own table
        let added: Vec<usize> = runs.iter().flat_map(|(_, e)| e.iter().copied()).collect();
        let want: Vec<usize> = (0..n)
            .filter(|&i| ![refused, alone, packs_alone].contains(&i))
            .collect();
        assert_eq!(added, want);
        for (t, e) in &runs {
            assert!(e.iter().all(|&i| (i >= other_table) == (*t == 2)), "table {t}");
        }
        // the run before the update applied alone ends there, and one starts after it
        assert!(runs.iter().any(|(_, e)| e.last() == Some(&(alone - 1))));
        assert!(runs.iter().any(|(_, e)| e.first() == Some(&(alone + 1))));
        assert!(runs.iter().any(|(_, e)| e.last() == Some(&(packs_alone - 1))));
        assert!(runs.iter().any(|(_, e)| e.first() == Some(&(packs_alone + 1))));
    }
}
