//! RECONCILE_AND_COMMIT: a new program starts forwarding with the state the controller gave the
//! old one, for every P4 object the two programs describe alike.
//!
//! The state is read from the old pipeline through the Read path and written into the new one,
//! loaded but not yet forwarding, through the Write path, so everything a Read returns and a
//! Write takes is carried in the same form and with the same checks. An object is unchanged when
//! its P4Info description is equal in both programs, and for a table also the descriptions of
//! its actions, its action profile and its direct counter and meter. Its behaviour (the actions'
//! bodies, the control flow around it) may change: that is what a reconcile is for.
//!
//! - Kept: the entries of every unchanged table that is not const (with their direct counter
//!   counts, direct meter configurations, idle timeouts and metadata), each default entry the
//!   controller changed, the members and groups of every unchanged action profile, the cells of
//!   unchanged counters, registers and meters (meters: the configurations written), the members
//!   of unchanged value sets, the configurations of unchanged digests, and every multicast group
//!   and clone session (they belong to the device, not to a program).
//! - Refused, with FAILED_PRECONDITION and nothing changed: a table, action profile or value set
//!   that holds state and that the new program changes or removes. The controller deletes that
//!   state first, or commits with VERIFY_AND_COMMIT, which resets everything.
//! - Reset: cells of counters, registers and meters, and digest configurations, whose object
//!   changed or went away (named in the switch's log).
//!
//! The old pipeline forwards while its state is read; the server's lock holds every other Write
//! back meanwhile. Entries the old data plane adds itself (add-on-miss) after they were read are
//! not carried.

use std::collections::HashMap;

use tonic::Code;

use crate::externs::Pre;
use crate::proto::p4::config::v1::P4Info;
use crate::proto::p4::v1::{
    entity, packet_replication_engine_entry, update, ActionProfileGroup, ActionProfileMember, CounterData,
    CounterEntry, DigestEntry, Entity, MeterConfig, MeterEntry, PacketReplicationEngineEntry, RegisterEntry,
    TableEntry, Update, ValueSetEntry,
};
use crate::server::{apply, read_entity};
use crate::switch::Pipeline;
use crate::tables::{err, OpError};

/// What a reconcile carried into the new pipeline.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Carried {
    pub entries: usize,
    pub defaults: usize,
    pub members: usize,
    pub groups: usize,
    pub cells: usize,
    pub value_sets: usize,
    pub digests: usize,
    pub replication: usize,
    /// Objects whose cells or configuration were reset (changed or removed).
    pub reset: Vec<String>,
}

/// Carries the state of `old` (with its replication entries `old_pre`) into `new`, which is
/// loaded and not forwarding; `new_pre` receives the replication entries. On error `new` is to
/// be dropped: `old` is unchanged either way.
pub fn carry(old: &Pipeline, old_pre: &Pre, new: &Pipeline, new_pre: &mut Pre) -> Result<Carried, OpError> {
    let (a, b) = (&old.p4info, &new.p4info);
    let mut c = Carried::default();
    let read = |e: entity::Entity| -> Result<Vec<entity::Entity>, OpError> {
        let mut out = Vec::new();
        read_entity(old, Some(old_pre), &Entity { entity: Some(e) }, &mut out)?;
        Ok(out.into_iter().filter_map(|e| e.entity).collect())
    };
    let write = |t: update::Type, e: entity::Entity, pre: &mut Pre| -> Result<(), OpError> {
        apply(
            new,
            pre,
            &Update {
                r#type: t as i32,
                entity: Some(Entity { entity: Some(e) }),
            },
        )
    };
    let kept = |what: &str, e: OpError| {
        err(
            Code::FailedPrecondition,
            format!("RECONCILE_AND_COMMIT: the new program refused {what}: {}", e.msg),
        )
    };

    // the device's replication entries
    for g in old_pre.groups.values() {
        let e = PacketReplicationEngineEntry {
            r#type: Some(packet_replication_engine_entry::Type::MulticastGroupEntry(g.clone())),
        };
        write(
            update::Type::Insert,
            entity::Entity::PacketReplicationEngineEntry(e),
            new_pre,
        )
        .map_err(|e| kept(&format!("multicast group {}", g.multicast_group_id), e))?;
        c.replication += 1;
    }
    for s in old_pre.clones.values() {
        let e = PacketReplicationEngineEntry {
            r#type: Some(packet_replication_engine_entry::Type::CloneSessionEntry(s.clone())),
        };
        write(
            update::Type::Insert,
            entity::Entity::PacketReplicationEngineEntry(e),
            new_pre,
        )
        .map_err(|e| kept(&format!("clone session {}", s.session_id), e))?;
        c.replication += 1;
    }

    // action profiles: members, then groups (one-shot ones come back with their table's entries)
    for ap in &a.action_profiles {
        let (id, name) = id_name(&ap.preamble);
        let members = read(entity::Entity::ActionProfileMember(ActionProfileMember {
            action_profile_id: id,
            ..Default::default()
        }))?;
        let groups = read(entity::Entity::ActionProfileGroup(ActionProfileGroup {
            action_profile_id: id,
            ..Default::default()
        }))?;
        if members.is_empty() && groups.is_empty() {
            continue;
        }
        let now = b.action_profiles.iter().find(|x| same_id(&x.preamble, id));
        let why = match now {
            None => Some("the new program has no action profile with its id".to_string()),
            Some(n) if n != ap => Some("its P4Info description differs".to_string()),
            Some(_) => ap.table_ids.iter().find_map(|t| table_change(a, b, *t)),
        };
        if let Some(why) = why {
            return Err(holds(
                &format!("action profile `{name}`"),
                &format!("{} members and {} groups", members.len(), groups.len()),
                &why,
            ));
        }
        for m in members {
            write(update::Type::Insert, m, new_pre).map_err(|e| kept(&format!("a member of `{name}`"), e))?;
            c.members += 1;
        }
        for g in groups {
            write(update::Type::Insert, g, new_pre).map_err(|e| kept(&format!("a group of `{name}`"), e))?;
            c.groups += 1;
        }
    }

    // tables: entries, then default entries the controller changed
    let initial: HashMap<u32, &TableEntry> = old.initial_defaults.iter().map(|e| (e.table_id, e)).collect();
    for t in &a.tables {
        let (id, name) = id_name(&t.preamble);
        let with_extras = |is_default_action| {
            entity::Entity::TableEntry(TableEntry {
                table_id: id,
                is_default_action,
                counter_data: Some(CounterData::default()),
                meter_config: Some(MeterConfig::default()),
                ..Default::default()
            })
        };
        let entries = if t.is_const_table || t.match_fields.is_empty() {
            vec![]
        } else {
            read(with_extras(false))?
        };
        let default = if t.const_default_action_id != 0 {
            None
        } else {
            read(with_extras(true))?.into_iter().next()
        };
        let default_changed = default.as_ref().is_some_and(|d| match (d, initial.get(&id)) {
            (entity::Entity::TableEntry(d), Some(i)) => d.action != i.action || d.metadata != i.metadata,
            _ => false,
        });
        if let Some(why) = table_change(a, b, id) {
            let what = match (entries.len(), default_changed) {
                (0, false) => continue, // nothing the controller wrote: the new table starts fresh
                (0, true) => "a default entry the controller wrote".to_string(),
                (n, false) => format!("{n} entries"),
                (n, true) => format!("{n} entries and a default entry the controller wrote"),
            };
            return Err(holds(&format!("table `{name}`"), &what, &why));
        }
        for e in entries {
            // a program may install entries of its own at load time: the controller's version wins
            match write(update::Type::Insert, e.clone(), new_pre) {
                Err(x) if x.code == Code::AlreadyExists => write(update::Type::Modify, e, new_pre),
                r => r,
            }
            .map_err(|e| kept(&format!("an entry of `{name}`"), e))?;
            c.entries += 1;
        }
        // the default entry's own counter and meter cells, and its action only when the
        // controller changed it (else the new program's default action stands: no action in a
        // MODIFY of the default entry is the program's)
        if let Some(entity::Entity::TableEntry(mut d)) = default {
            if !default_changed {
                d.action = None;
            }
            write(update::Type::Modify, entity::Entity::TableEntry(d), new_pre)
                .map_err(|e| kept(&format!("the default entry of `{name}`"), e))?;
            c.defaults += usize::from(default_changed);
        }
    }

    // indexed externs: counters, registers, meters; each unchanged one's cells, every cell read
    // (meters: only the configured ones; an unconfigured cell reads without a configuration and
    // the new one is as fresh)
    let mut indexed: Vec<(String, bool, entity::Entity)> = Vec::new();
    for x in &a.counters {
        let (id, name) = id_name(&x.preamble);
        let q = CounterEntry {
            counter_id: id,
            ..Default::default()
        };
        indexed.push((
            format!("counter `{name}`"),
            b.counters.contains(x),
            entity::Entity::CounterEntry(q),
        ));
    }
    for x in &a.registers {
        let (id, name) = id_name(&x.preamble);
        let q = RegisterEntry {
            register_id: id,
            ..Default::default()
        };
        indexed.push((
            format!("register `{name}`"),
            b.registers.contains(x),
            entity::Entity::RegisterEntry(q),
        ));
    }
    for x in &a.meters {
        let (id, name) = id_name(&x.preamble);
        let q = MeterEntry {
            meter_id: id,
            ..Default::default()
        };
        indexed.push((
            format!("meter `{name}`"),
            b.meters.contains(x),
            entity::Entity::MeterEntry(q),
        ));
    }
    for (what, unchanged, query) in indexed {
        if !unchanged {
            c.reset.push(what);
            continue;
        }
        for e in read(query)? {
            if matches!(&e, entity::Entity::MeterEntry(m) if m.config.is_none()) {
                continue;
            }
            write(update::Type::Modify, e, new_pre).map_err(|e| kept(&format!("a cell of {what}"), e))?;
            c.cells += 1;
        }
    }

    // value sets and digests
    for v in &a.value_sets {
        let (id, name) = id_name(&v.preamble);
        let cur = read(entity::Entity::ValueSetEntry(ValueSetEntry {
            value_set_id: id,
            ..Default::default()
        }))?;
        let members = cur
            .iter()
            .any(|e| matches!(e, entity::Entity::ValueSetEntry(s) if !s.members.is_empty()));
        if !members {
            continue;
        }
        if !b.value_sets.iter().any(|n| n == v) {
            return Err(holds(
                &format!("value set `{name}`"),
                "members",
                "the new program changes or removes it",
            ));
        }
        for e in cur {
            write(update::Type::Modify, e, new_pre).map_err(|e| kept(&format!("the members of `{name}`"), e))?;
            c.value_sets += 1;
        }
    }
    for d in &a.digests {
        let (id, name) = id_name(&d.preamble);
        let cfg = read(entity::Entity::DigestEntry(DigestEntry {
            digest_id: id,
            config: None,
        }))?;
        if cfg.is_empty() {
            continue;
        }
        if !b.digests.iter().any(|n| n == d) {
            c.reset.push(format!("digest `{name}`"));
            continue;
        }
        for e in cfg {
            write(update::Type::Insert, e, new_pre).map_err(|e| kept(&format!("the configuration of `{name}`"), e))?;
            c.digests += 1;
        }
    }
    Ok(c)
}

/// Why table `id` of `a` is not unchanged in `b`, if it is not: it is missing, or its P4Info
/// description differs, or that of one of its actions, its action profile or its direct
/// resources.
fn table_change(a: &P4Info, b: &P4Info, id: u32) -> Option<String> {
    let ta = a.tables.iter().find(|t| same_id(&t.preamble, id))?;
    let Some(tb) = b.tables.iter().find(|t| same_id(&t.preamble, id)) else {
        return Some("the new program has no table with its id".into());
    };
    if ta != tb {
        return Some("its P4Info description differs (key, actions, size, properties or name)".into());
    }
    for r in &ta.action_refs {
        let pa = a.actions.iter().find(|x| same_id(&x.preamble, r.id));
        let pb = b.actions.iter().find(|x| same_id(&x.preamble, r.id));
        if pa != pb {
            let name = pa.map_or_else(|| r.id.to_string(), |x| id_name(&x.preamble).1);
            return Some(format!("its action `{name}` differs (name or parameters)"));
        }
    }
    if ta.implementation_id != 0 {
        let pa = a
            .action_profiles
            .iter()
            .find(|x| same_id(&x.preamble, ta.implementation_id));
        let pb = b
            .action_profiles
            .iter()
            .find(|x| same_id(&x.preamble, ta.implementation_id));
        if pa != pb {
            return Some("its action profile differs".into());
        }
    }
    for &r in &ta.direct_resource_ids {
        let counters = |p: &P4Info| p.direct_counters.iter().find(|x| same_id(&x.preamble, r)).cloned();
        let meters = |p: &P4Info| p.direct_meters.iter().find(|x| same_id(&x.preamble, r)).cloned();
        if counters(a) != counters(b) || meters(a) != meters(b) {
            return Some("its direct counter or meter differs".into());
        }
    }
    None
}

fn holds(object: &str, state: &str, why: &str) -> OpError {
    err(
        Code::FailedPrecondition,
        format!(
            "RECONCILE_AND_COMMIT cannot keep the state of {object}: it holds {state} and {why}; delete them first, or commit with VERIFY_AND_COMMIT, which resets all state"
        ),
    )
}

fn same_id(p: &Option<crate::proto::p4::config::v1::Preamble>, id: u32) -> bool {
    p.as_ref().is_some_and(|p| p.id == id)
}

fn id_name(p: &Option<crate::proto::p4::config::v1::Preamble>) -> (u32, String) {
    p.as_ref().map_or((0, String::new()), |p| (p.id, p.name.clone()))
}
