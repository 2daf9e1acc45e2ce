//! Action profile members and groups (ActionProfileMember, ActionProfileGroup): Write and Read;
//! one-shot action sets (ActionProfileActionSet in a table entry of an action-selector table).
//!
//! The runtime keeps the members and groups (`p4dp_runtime_actprof_*`); the server keeps which
//! ids exist per profile (for wildcard reads) and each group's `max_size` as written. A group
//! MODIFY is applied member by member: a packet may see a group between the old and the new
//! membership (each member it selects is complete).
//!
//! Group sizes follow the selector's P4Info (`selector_size_semantics`, `max_group_size`,
//! `max_member_weight`, see [`Sizing`]); a one-shot set's `size_semantics` may choose either
//! semantics for its own group (the runtime holds both: docs/p4runtime.md "Selector sizes").
//! A selector whose P4Info has `weights_disallowed` takes only weight 0 (unset) and weighs every
//! member 1; reads give 0 back, as written (docs/p4runtime.md "Weights chosen by the switch").
//!
//! A one-shot action set becomes hidden members and a hidden group (ids the server picks; they
//! never appear in member or group reads) that the entry refers to; reads give the set back as
//! written. A selector holds either one-shot sets or members and groups written as such, never
//! both (INVALID_ARGUMENT, as the specification requires).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::MutexGuard;

use p4dp_rt::{ExternInfo, ExternKind, Program, Runtime};
use tonic::Code;

use p4dp_rt::ProfileRef;

use crate::proto::p4::config::v1::{action_profile::SelectorSizeSemantics, P4Info};
use crate::proto::p4::v1::{
    action_profile_action, action_profile_action_set, action_profile_group, table_action, ActionProfileActionSet,
    ActionProfileGroup, ActionProfileMember, TableAction, TableEntry,
};
use crate::switch::Pipeline;
use crate::tables::{action_msg, action_of, err, invalid, match_of, rt_err, table_by_id, Op, OpError};

/// The largest group p4dp holds, in members (rt.h P4DP_RT_ACTPROF_GROUP_MAX) or, by the sum of
/// weights, in units of weight: the target's maximum when neither `max_group_size` nor the
/// group's `max_size` gives one.
const GROUP_MAX: u32 = 4096;

/// A selector's group limits as its P4Info states them.
#[derive(Debug, Clone, Copy, Default)]
struct Sizing {
    /// `sum_of_members`: a group's size is its number of members; else the sum of its weights.
    by_members: bool,
    /// `max_group_size` (0: none).
    max_group_size: u32,
    /// `sum_of_members.max_member_weight` (0: any weight).
    max_member_weight: u32,
    /// `weights_disallowed`: the controller gives no weight (0) and the switch weighs each
    /// member 1.
    weights_disallowed: bool,
}

impl Sizing {
    /// The weight a member or one-shot action written with `weight` has in the runtime:
    /// INVALID_ARGUMENT for a weight the selector does not take (the specification: with
    /// `weights_disallowed` 0 (unset) is the only valid weight, without it 0 is not valid).
    fn weight(&self, what: &str, weight: i32) -> Result<u32, OpError> {
        match (self.weights_disallowed, weight) {
            (true, 0) => Ok(1),
            (true, w) => Err(invalid(format!(
                "{what} has weight {w}: the selector's weights are the switch's (weights_disallowed), leave it 0"
            ))),
            (false, w) if w >= 1 => Ok(w as u32),
            (false, w) => Err(invalid(format!("{what} has weight {w} (at least 1)"))),
        }
    }

    /// The weight a read gives back for one the runtime holds: 0 (as written) where the
    /// switch chooses the weights.
    fn written(&self, weight: u32) -> i32 {
        if self.weights_disallowed {
            0
        } else {
            weight as i32
        }
    }

    /// Checks a group's weights (all >= 1) against the limits, counted as members
    /// (`by_members`) or as the sum of the weights. `max_size` is the group's own (0: none).
    /// Errors as the specification gives them: a weight above `max_member_weight` or a group
    /// above `max_group_size` INVALID_ARGUMENT, above `max_size` or the target's largest group
    /// RESOURCE_EXHAUSTED.
    fn check(&self, what: &str, by_members: bool, weights: &[u32], max_size: u32) -> Result<(), OpError> {
        if by_members && self.max_member_weight > 0 {
            if let Some(w) = weights.iter().find(|&&w| w > self.max_member_weight) {
                return Err(invalid(format!(
                    "{what}: weight {w} is above the selector's max_member_weight {}",
                    self.max_member_weight
                )));
            }
        }
        let (size, unit) = if by_members {
            (weights.len() as u64, "members")
        } else {
            (weights.iter().map(|&w| u64::from(w)).sum(), "as the sum of weights")
        };
        let (limit, code, whose) = if max_size > 0 {
            (max_size, Code::ResourceExhausted, "the group's max_size")
        } else if self.max_group_size > 0 {
            (
                self.max_group_size,
                Code::InvalidArgument,
                "the selector's max_group_size",
            )
        } else {
            (GROUP_MAX, Code::ResourceExhausted, "the largest p4dp group")
        };
        if size > u64::from(limit) {
            return Err(err(code, format!("{what}: size {size} {unit}, above {whose} {limit}")));
        }
        Ok(())
    }
}

/// The member and group ids of a pipeline's profiles (keyed by profile id).
#[derive(Default)]
pub struct Profiles {
    /// each selector's limits (keyed by profile id)
    sizing: BTreeMap<u32, Sizing>,
    members: BTreeMap<u32, BTreeSet<u32>>,
    /// group id -> max_size as written
    groups: BTreeMap<u32, BTreeMap<u32, i32>>,
    /// (profile id, group id) -> the watch setting of each member that has one, as written
    watches: BTreeMap<(u32, u32), BTreeMap<u32, action_profile_group::member::WatchKind>>,
    /// one-shot sets: (profile id, hidden group id) -> the set as written, its hidden members
    oneshots: BTreeMap<(u32, u32), (ActionProfileActionSet, Vec<u32>)>,
    /// the last hidden id given out
    next_hidden: u32,
}

/// The profile state of a pipeline (its lock; a panic while holding it leaves plain data).
pub(crate) fn of(p: &Pipeline) -> MutexGuard<'_, Profiles> {
    p.profiles.lock().unwrap_or_else(|e| e.into_inner())
}

fn profile(p: &Program, id: u32) -> Result<&ExternInfo, OpError> {
    p.externs
        .iter()
        .find(|x| x.id == id && matches!(x.kind, ExternKind::ActionProfile | ExternKind::ActionSelector))
        .ok_or_else(|| err(Code::NotFound, format!("no action profile with id {id}")))
}

/// Profiles a read addresses: one by id, or all (id 0).
fn profiles(p: &Program, id: u32) -> Result<Vec<&ExternInfo>, OpError> {
    if id != 0 {
        return Ok(vec![profile(p, id)?]);
    }
    Ok(p.externs
        .iter()
        .filter(|x| matches!(x.kind, ExternKind::ActionProfile | ExternKind::ActionSelector))
        .collect())
}

impl Profiles {
    /// The profiles of a pipeline whose P4Info is `info`, none programmed yet.
    pub fn new(info: &P4Info) -> Profiles {
        let sizing = info
            .action_profiles
            .iter()
            .filter(|a| a.with_selector)
            .filter_map(|a| {
                let id = a.preamble.as_ref()?.id;
                let members = match &a.selector_size_semantics {
                    Some(SelectorSizeSemantics::SumOfMembers(m)) => Some(m.max_member_weight.max(0) as u32),
                    _ => None,
                };
                Some((
                    id,
                    Sizing {
                        by_members: members.is_some(),
                        max_group_size: a.max_group_size.max(0) as u32,
                        max_member_weight: members.unwrap_or(0),
                        weights_disallowed: a.weights_disallowed,
                    },
                ))
            })
            .collect();
        Profiles {
            sizing,
            ..Default::default()
        }
    }

    fn sizing(&self, prof: u32) -> Sizing {
        self.sizing.get(&prof).copied().unwrap_or_default()
    }

    pub fn write_member(&mut self, rt: &Runtime, m: &ActionProfileMember, op: Op) -> Result<(), OpError> {
        let p = rt.program();
        let x = profile(p, m.action_profile_id)?;
        if m.member_id == 0 {
            return Err(invalid("member id 0 is not allowed in a write"));
        }
        if op == Op::Insert && self.one_shot(x.id) {
            return Err(invalid(format!(
                "{} is programmed with one-shot action sets: members cannot be mixed in",
                x.name
            )));
        }
        let ids = self.members.entry(x.id).or_default();
        // hidden one-shot members are not the controller's: they do not exist for it
        if op != Op::Insert && !ids.contains(&m.member_id) {
            return Err(err(Code::NotFound, format!("no member {} in {}", m.member_id, x.name)));
        }
        if let Op::Delete = op {
            rt.actprof_member_delete(x.index, m.member_id).map_err(rt_err)?;
            ids.remove(&m.member_id);
            return Ok(());
        }
        let a = m
            .action
            .as_ref()
            .ok_or_else(|| invalid(format!("member {} has no action", m.member_id)))?;
        // the action must be one of every table the profile implements (the runtime checks all)
        let t = p
            .tables
            .iter()
            .find(|t| t.implementation == Some(x.index))
            .ok_or_else(|| invalid(format!("action profile {} implements no table", x.name)))?;
        let (action, params) = action_of(p, t, a, false)?;
        if let Op::Insert = op {
            rt.actprof_member_add(x.index, m.member_id, action, &params)
                .map_err(rt_err)?;
            ids.insert(m.member_id);
        } else {
            rt.actprof_member_modify(x.index, m.member_id, action, &params)
                .map_err(rt_err)?;
        }
        Ok(())
    }

    pub fn read_member(
        &self,
        rt: &Runtime,
        m: &ActionProfileMember,
        out: &mut Vec<ActionProfileMember>,
    ) -> Result<(), OpError> {
        let p = rt.program();
        for x in profiles(p, m.action_profile_id)? {
            let Some(ids) = self.members.get(&x.id) else { continue };
            for &id in ids {
                if m.member_id != 0 && id != m.member_id {
                    continue;
                }
                let (action, params) = rt.actprof_member_get(x.index, id).map_err(rt_err)?;
                let ta = action_msg(p, action, &params);
                let Some(crate::proto::p4::v1::table_action::Type::Action(a)) = ta.r#type else {
                    continue;
                };
                out.push(ActionProfileMember {
                    action_profile_id: x.id,
                    member_id: id,
                    action: Some(a),
                });
            }
        }
        Ok(())
    }

    pub fn write_group(&mut self, rt: &Runtime, g: &ActionProfileGroup, op: Op) -> Result<(), OpError> {
        let p = rt.program();
        let x = profile(p, g.action_profile_id)?;
        if !matches!(x.kind, ExternKind::ActionSelector) {
            return Err(invalid(format!(
                "action profile {} has no selector: it has no groups",
                x.name
            )));
        }
        if g.group_id == 0 {
            return Err(invalid("group id 0 is not allowed in a write"));
        }
        if op == Op::Insert && self.one_shot(x.id) {
            return Err(invalid(format!(
                "{} is programmed with one-shot action sets: groups cannot be mixed in",
                x.name
            )));
        }
        let sizing = self.sizing(x.id);
        let groups = self.groups.entry(x.id).or_default();
        if let Op::Delete = op {
            if !groups.contains_key(&g.group_id) {
                return Err(err(Code::NotFound, format!("no group {}", g.group_id)));
            }
            rt.actprof_group_delete(x.index, g.group_id).map_err(rt_err)?;
            groups.remove(&g.group_id);
            self.watches.remove(&(x.id, g.group_id));
            return Ok(());
        }
        // validate the whole membership before changing anything
        if g.max_size < 0 {
            return Err(invalid(format!("group {}: negative max_size", g.group_id)));
        }
        let mut want: BTreeMap<u32, u32> = BTreeMap::new();
        // member -> (the watch port, the watch setting as written)
        let mut watch: BTreeMap<u32, (Option<u32>, action_profile_group::member::WatchKind)> = BTreeMap::new();
        for m in &g.members {
            let weight = sizing.weight(&format!("group {}: member {}", g.group_id, m.member_id), m.weight)?;
            if let Some(w) = &m.watch_kind {
                watch.insert(m.member_id, (member_watch(rt, Some(w))?, w.clone()));
            }
            if want.insert(m.member_id, weight).is_some() {
                return Err(invalid(format!(
                    "group {}: member {} given twice",
                    g.group_id, m.member_id
                )));
            }
            if !self.members.get(&x.id).is_some_and(|s| s.contains(&m.member_id)) {
                return Err(err(
                    Code::NotFound,
                    format!("group {}: no member {} in profile {}", g.group_id, m.member_id, x.name),
                ));
            }
        }
        // rules on setting max_size: within the P4Info's max_group_size (INVALID_ARGUMENT), or
        // without one within what p4dp holds (RESOURCE_EXHAUSTED)
        if sizing.max_group_size > 0 && g.max_size as u32 > sizing.max_group_size {
            return Err(invalid(format!(
                "group {}: max_size {} is above the selector's max_group_size {}",
                g.group_id, g.max_size, sizing.max_group_size
            )));
        }
        if g.max_size as u32 > GROUP_MAX {
            return Err(err(
                Code::ResourceExhausted,
                format!(
                    "group {}: max_size {} is above the {GROUP_MAX} a p4dp group holds",
                    g.group_id, g.max_size
                ),
            ));
        }
        let weights: Vec<u32> = want.values().copied().collect();
        sizing.check(
            &format!("group {}", g.group_id),
            sizing.by_members,
            &weights,
            g.max_size as u32,
        )?;
        if let (Op::Modify, Some(&old)) = (&op, groups.get(&g.group_id)) {
            if old != g.max_size {
                return Err(invalid(format!(
                    "group {}: max_size cannot be changed ({old} when created)",
                    g.group_id
                )));
            }
        }
        let have: Vec<(u32, u32)> = match op {
            Op::Insert => {
                if groups.contains_key(&g.group_id) {
                    return Err(err(Code::AlreadyExists, format!("group {} exists", g.group_id)));
                }
                rt.actprof_group_create(x.index, g.group_id).map_err(rt_err)?;
                vec![]
            }
            _ => {
                if !groups.contains_key(&g.group_id) {
                    return Err(err(Code::NotFound, format!("no group {}", g.group_id)));
                }
                rt.actprof_group_members(x.index, g.group_id).map_err(rt_err)?
            }
        };
        let old_watch = self.watches.get(&(x.id, g.group_id));
        let res = (|| {
            for &(m, w) in &have {
                if want.get(&m) != Some(&w) {
                    rt.actprof_group_remove_member(x.index, g.group_id, m)?;
                }
            }
            for (&m, &w) in &want {
                if !have.contains(&(m, w)) {
                    rt.actprof_group_add_member(x.index, g.group_id, m, w)?;
                }
                // the watch port (a member added again has none in the runtime)
                let had = old_watch.is_some_and(|o| o.contains_key(&m));
                let port = watch.get(&m).and_then(|w| w.0);
                if port.is_some() || had {
                    rt.actprof_group_member_watch(x.index, g.group_id, m, port)?;
                }
            }
            Ok::<(), p4dp_rt::Error>(())
        })();
        if let Err(e) = res {
            if let Op::Insert = op {
                let _ = rt.actprof_group_delete(x.index, g.group_id);
            }
            return Err(rt_err(e));
        }
        groups.insert(g.group_id, g.max_size);
        if watch.is_empty() {
            self.watches.remove(&(x.id, g.group_id));
        } else {
            self.watches.insert(
                (x.id, g.group_id),
                watch.into_iter().map(|(m, (_, w))| (m, w)).collect(),
            );
        }
        Ok(())
    }

    pub fn read_group(
        &self,
        rt: &Runtime,
        g: &ActionProfileGroup,
        out: &mut Vec<ActionProfileGroup>,
    ) -> Result<(), OpError> {
        let p = rt.program();
        for x in profiles(p, g.action_profile_id)? {
            let Some(groups) = self.groups.get(&x.id) else { continue };
            let sizing = self.sizing(x.id);
            for (&id, &max_size) in groups {
                if g.group_id != 0 && id != g.group_id {
                    continue;
                }
                let members = rt.actprof_group_members(x.index, id).map_err(rt_err)?;
                let watches = self.watches.get(&(x.id, id));
                out.push(ActionProfileGroup {
                    action_profile_id: x.id,
                    group_id: id,
                    members: members
                        .into_iter()
                        .map(|(member_id, weight)| action_profile_group::Member {
                            member_id,
                            weight: sizing.written(weight),
                            watch_kind: watches.and_then(|w| w.get(&member_id)).cloned(),
                        })
                        .collect(),
                    max_size,
                });
            }
        }
        Ok(())
    }
}

/// The selector implementing table `table_id`, if any.
fn selector_of(p: &Program, table_id: u32) -> Option<&ExternInfo> {
    let t = p.tables.iter().find(|t| t.id == table_id)?;
    let imp = t.implementation?;
    p.externs
        .iter()
        .find(|x| x.index == imp && matches!(x.kind, ExternKind::ActionSelector))
}

/// Is table `table_id` implemented by an action selector? (Its entries are written through
/// [`Profiles::write_entry`].)
pub fn selector_table(p: &Program, table_id: u32) -> bool {
    selector_of(p, table_id).is_some()
}

/// `e` with a one-shot action set replaced by a group id (0): what [`crate::tables::prepare`]
/// validates of it before the set is made.
pub fn by_group_id(e: &TableEntry) -> TableEntry {
    let mut by_id = e.clone();
    if let Some(table_action::Type::ActionProfileActionSet(_)) = e.action.as_ref().and_then(|a| a.r#type.as_ref()) {
        by_id.action = Some(TableAction {
            r#type: Some(table_action::Type::ActionProfileGroupId(0)),
        });
    }
    by_id
}

/// The one-shot group an entry of an action-selector table holds now (None: no such entry, or
/// it refers to something else).
fn current_group(rt: &Runtime, e: &TableEntry) -> Option<u32> {
    let p = rt.program();
    let t = table_by_id(p, e.table_id).ok()?;
    let m = match_of(t, &e.r#match).ok()?;
    let x = rt.entry_get(t.index, &m, e.priority).ok()?;
    match ProfileRef::of_entry(&x) {
        Some(ProfileRef::Group(g)) => Some(g),
        _ => None,
    }
}

impl Profiles {
    /// Does the profile hold members or groups written as such (not one-shot)?
    fn explicit(&self, prof: u32) -> bool {
        self.members.get(&prof).is_some_and(|s| !s.is_empty()) || self.groups.get(&prof).is_some_and(|s| !s.is_empty())
    }

    /// Does the profile hold one-shot action sets?
    fn one_shot(&self, prof: u32) -> bool {
        self.oneshots.range((prof, 0)..=(prof, u32::MAX)).next().is_some()
    }

    fn fresh_id(&mut self) -> u32 {
        self.next_hidden = self.next_hidden.checked_add(1).unwrap_or(1);
        self.next_hidden
    }

    /// Removes a one-shot group and its members from the runtime and the records.
    fn free_one_shot(&mut self, rt: &Runtime, x: &ExternInfo, group: u32) {
        if let Some((_, members)) = self.oneshots.remove(&(x.id, group)) {
            // the entry no longer refers to the group: these cannot fail but for a runtime bug
            let _ = rt.actprof_group_delete(x.index, group);
            for m in members {
                let _ = rt.actprof_member_delete(x.index, m);
            }
        }
    }

    /// Creates the hidden group of a one-shot action set (validated first); returns its id.
    fn make_one_shot(
        &mut self,
        rt: &Runtime,
        x: &ExternInfo,
        t: &p4dp_rt::TableInfo,
        set: &ActionProfileActionSet,
    ) -> Result<u32, OpError> {
        use action_profile_action_set::{ActionSelectionMode as Mode, SizeSemantics as Size};
        let p = rt.program();
        let random = match Mode::try_from(set.action_selection_mode) {
            Ok(Mode::DefaultModeDeterminedByActionSelector | Mode::Hash) => false,
            Ok(Mode::Random) => true,
            Err(_) => {
                return Err(invalid(format!(
                    "action set: unknown action_selection_mode {}",
                    set.action_selection_mode
                )))
            }
        };
        // the set's own size semantics override the selector's for its group (p4dp holds both)
        let sizing = self.sizing(x.id);
        let by_members = match Size::try_from(set.size_semantics) {
            Ok(Size::DefaultSizeDeterminedByActionSelector) => sizing.by_members,
            Ok(Size::SumOfWeights) => false,
            Ok(Size::SumOfMembers) => true,
            Err(_) => {
                return Err(invalid(format!(
                    "action set: unknown size_semantics {}",
                    set.size_semantics
                )))
            }
        };
        if set.action_profile_actions.is_empty() {
            return Err(invalid("an action profile action set needs at least one action"));
        }
        let mut actions = Vec::with_capacity(set.action_profile_actions.len());
        for (i, a) in set.action_profile_actions.iter().enumerate() {
            let act = a
                .action
                .as_ref()
                .ok_or_else(|| invalid(format!("action set: action {i} is missing")))?;
            let weight = sizing.weight(&format!("action set: action {i}"), a.weight)?;
            let watch = action_watch(rt, a.watch_kind.as_ref())?;
            let (action, params) = action_of(p, t, act, false)?;
            actions.push((action, params, weight, watch));
        }
        let weights: Vec<u32> = actions.iter().map(|a| a.2).collect();
        sizing.check("action set", by_members, &weights, 0)?;
        let group = self.fresh_id();
        rt.actprof_group_create(x.index, group).map_err(rt_err)?;
        let mut members = Vec::with_capacity(actions.len());
        let res = (|| {
            for (action, params, weight, watch) in &actions {
                let m = self.fresh_id();
                rt.actprof_member_add(x.index, m, *action, params)?;
                members.push(m);
                rt.actprof_group_add_member(x.index, group, m, *weight)?;
                if watch.is_some() {
                    rt.actprof_group_member_watch(x.index, group, m, *watch)?;
                }
            }
            if random {
                rt.actprof_group_random(x.index, group, true)?;
            }
            Ok::<(), p4dp_rt::Error>(())
        })();
        self.oneshots.insert((x.id, group), (set.clone(), members));
        if let Err(e) = res {
            self.free_one_shot(rt, x, group);
            return Err(rt_err(e));
        }
        Ok(group)
    }

    /// Writes a table entry: entries of action-selector tables may carry one-shot action sets
    /// (kept as hidden members and a hidden group, freed when the entry no longer uses them);
    /// every other entry goes to [`crate::tables::write`] unchanged.
    pub fn write_entry(&mut self, rt: &Runtime, e: &TableEntry, op: Op) -> Result<(), OpError> {
        let p = rt.program();
        let Some(x) = selector_of(p, e.table_id) else {
            return crate::tables::write(rt, e, op);
        };
        let set = match e.action.as_ref().and_then(|a| a.r#type.as_ref()) {
            Some(table_action::Type::ActionProfileActionSet(s)) if op != Op::Delete => Some(s),
            Some(table_action::Type::ActionProfileMemberId(_) | table_action::Type::ActionProfileGroupId(_))
                if op != Op::Delete && self.one_shot(x.id) =>
            {
                return Err(invalid(format!(
                    "{} is programmed with one-shot action sets: member and group ids cannot be mixed in",
                    x.name
                )))
            }
            _ => None,
        };
        let old = if op == Op::Insert || e.is_default_action {
            None
        } else {
            current_group(rt, e).filter(|g| self.oneshots.contains_key(&(x.id, *g)))
        };
        let Some(set) = set else {
            crate::tables::write(rt, e, op)?;
            if let Some(g) = old {
                self.free_one_shot(rt, x, g);
            }
            return Ok(());
        };
        if self.explicit(x.id) {
            return Err(invalid(format!(
                "{} is programmed with members and groups: one-shot action sets cannot be mixed in",
                x.name
            )));
        }
        // everything of the entry but its action is validated before the group is made
        let mut by_id = by_group_id(e);
        crate::tables::prepare(p, &by_id, op)?;
        let t = table_by_id(p, e.table_id)?;
        let group = self.make_one_shot(rt, x, t, set)?;
        by_id.action = Some(TableAction {
            r#type: Some(table_action::Type::ActionProfileGroupId(group)),
        });
        if let Err(er) = crate::tables::write(rt, &by_id, op) {
            self.free_one_shot(rt, x, group);
            return Err(er);
        }
        if let Some(g) = old {
            self.free_one_shot(rt, x, g);
        }
        Ok(())
    }

    /// Replaces the hidden group ids of one-shot entries read back by the action sets as written.
    pub fn restore_one_shots(&self, p: &Program, entries: &mut [TableEntry]) {
        for te in entries {
            let Some(x) = selector_of(p, te.table_id) else { continue };
            let Some(table_action::Type::ActionProfileGroupId(g)) = te.action.as_ref().and_then(|a| a.r#type.as_ref())
            else {
                continue;
            };
            if let Some((set, _)) = self.oneshots.get(&(x.id, *g)) {
                te.action = Some(TableAction {
                    r#type: Some(table_action::Type::ActionProfileActionSet(set.clone())),
                });
            }
        }
    }
}

/// The port a watch setting names (P4Runtime `watch_port`, or the deprecated `watch`): None for
/// no watch port (unset, an empty `watch_port`, the deprecated 0). The port must be a port of the
/// device (INVALID_ARGUMENT otherwise, as the specification requires).
fn watch_port(rt: &Runtime, bytes: Option<&[u8]>, deprecated: Option<i32>) -> Result<Option<u32>, OpError> {
    let port = match (bytes, deprecated) {
        (Some(b), _) if !b.is_empty() => {
            crate::bytes::to_u64(b).ok_or_else(|| invalid("watch_port does not fit in 64 bits"))?
        }
        (_, Some(v)) if v < 0 => return Err(invalid(format!("watch port {v} is negative"))),
        (_, Some(v)) if v > 0 => v as u64,
        _ => return Ok(None),
    };
    let p = u32::try_from(port)
        .ok()
        .filter(|&p| p < p4dp_rt::PORT_DROP && rt.port_stats(p).is_ok())
        .ok_or_else(|| invalid(format!("watch port {port} is not a port of the device")))?;
    Ok(Some(p))
}

/// The watch port of a group member.
fn member_watch(rt: &Runtime, w: Option<&action_profile_group::member::WatchKind>) -> Result<Option<u32>, OpError> {
    use action_profile_group::member::WatchKind as W;
    #[allow(deprecated)]
    match w {
        None => Ok(None),
        Some(W::WatchPort(v)) => watch_port(rt, Some(v), None),
        Some(W::Watch(v)) => watch_port(rt, None, Some(*v)),
    }
}

/// The watch port of a one-shot action.
fn action_watch(rt: &Runtime, w: Option<&action_profile_action::WatchKind>) -> Result<Option<u32>, OpError> {
    use action_profile_action::WatchKind as W;
    #[allow(deprecated)]
    match w {
        None => Ok(None),
        Some(W::WatchPort(v)) => watch_port(rt, Some(v), None),
        Some(W::Watch(v)) => watch_port(rt, None, Some(*v)),
    }
}
