//! The STF runner's [`Target`] implemented on the p4dp runtime, and the STF schema built from the
//! loaded program's metadata. Also used to apply `--table-entries` files.

use std::collections::HashMap;

use p4dp_rt::{CounterValue as RtCounter, ExternKind, MatchField, MeterConfig, MeterType, Runtime, TableEntry, Unit};
use p4dp_stf::{
    ActionCall, ActionRefSchema, ActionSchema, CounterCell, CounterSchema, CounterUnit, CounterValue,
    DirectCounterSchema, EntryHandle, FieldMatch, KeyFieldMatch, McNodeHandle, MeterCells, MeterRate, MeterSchema,
    ParamSchema, Port, ProgramSchema, RegisterSchema, TableSchema, Target, TargetError,
};

/// The control-plane key name STF uses for a key: validity keys `hdr.x.isValid()` are `hdr.x.$valid$`.
fn stf_key_name(name: &str) -> String {
    match name.strip_suffix(".isValid()") {
        Some(base) => format!("{base}.$valid$"),
        None => name.to_string(),
    }
}

fn unit(u: Unit) -> CounterUnit {
    match u {
        Unit::Packets => CounterUnit::Packets,
        Unit::Bytes => CounterUnit::Bytes,
        _ => CounterUnit::PacketsAndBytes,
    }
}

/// Builds the STF schema from the runtime's view of the program.
pub fn schema(rt: &Runtime) -> ProgramSchema {
    let p = rt.program();
    let mut s = ProgramSchema::default();
    for a in &p.actions {
        if s.action(&a.name).is_none() {
            s.actions.push(ActionSchema {
                name: a.name.clone(),
                params: a
                    .params
                    .iter()
                    .map(|q| ParamSchema {
                        name: q.name.clone(),
                        width: q.bitwidth,
                    })
                    .collect(),
            });
        }
    }
    for t in &p.tables {
        let keys: Vec<p4dp_stf::KeyFieldSchema> = t
            .keys
            .iter()
            .map(|k| p4dp_stf::KeyFieldSchema {
                name: stf_key_name(&k.name),
                match_kind: k.match_kind,
                width: k.bitwidth,
            })
            .collect();
        s.tables.push(TableSchema {
            name: t.name.clone(),
            actions: t
                .actions
                .iter()
                .map(|ta| ActionRefSchema {
                    name: p.actions[ta.action as usize].name.clone(),
                    scope: match ta.scope {
                        p4dp_rt::ActionScope::Any => p4dp_stf::ActionScope::TableAndDefault,
                        p4dp_rt::ActionScope::TableOnly => p4dp_stf::ActionScope::TableOnly,
                        p4dp_rt::ActionScope::DefaultOnly => p4dp_stf::ActionScope::DefaultOnly,
                    },
                })
                .collect(),
            const_default_action: t.const_default_action,
            const_entries: t.const_entries,
            needs_priority: t.needs_priority,
            keys,
        });
    }
    for e in &p.externs {
        match e.kind {
            ExternKind::Counter => s.counters.push(CounterSchema {
                name: e.name.clone(),
                size: e.n_cells,
                unit: unit(e.unit),
            }),
            ExternKind::DirectCounter => {
                if let Some(t) = e.table {
                    s.direct_counters.push(DirectCounterSchema {
                        name: e.name.clone(),
                        table: p.tables[t as usize].name.clone(),
                        unit: unit(e.unit),
                    })
                }
            }
            ExternKind::Register => s.registers.push(RegisterSchema {
                name: e.name.clone(),
                size: e.n_cells,
                width: e.bitwidth,
            }),
            ExternKind::Meter => s.meters.push(MeterSchema {
                name: e.name.clone(),
                size: e.n_cells,
            }),
            ExternKind::ActionProfile | ExternKind::ActionSelector => {
                s.action_profiles.push(p4dp_stf::ActionProfileSchema {
                    name: e.name.clone(),
                    tables: p
                        .tables
                        .iter()
                        .filter(|t| t.implementation == Some(e.index))
                        .map(|t| t.name.clone())
                        .collect(),
                    selector: e.kind == ExternKind::ActionSelector,
                })
            }
            _ => {}
        }
    }
    s
}

/// An entry added by the script: enough to find it again (delete, direct counters).
struct Added {
    table: u32,
    matches: Vec<MatchField>,
    priority: i32,
}

pub struct RtTarget<'a> {
    pub rt: &'a Runtime,
    added: HashMap<u64, Added>,
    next_handle: u64,
}

impl<'a> RtTarget<'a> {
    pub fn new(rt: &'a Runtime) -> Self {
        RtTarget {
            rt,
            added: HashMap::new(),
            next_handle: 1,
        }
    }

    fn table(&self, name: &str) -> Result<u32, TargetError> {
        self.rt.table_index(name).map_err(fail)
    }

    fn action_in_table(&self, table: u32, name: &str) -> Result<u32, TargetError> {
        let p = self.rt.program();
        let t = &p.tables[table as usize];
        t.actions
            .iter()
            .map(|ta| ta.action)
            .find(|a| p.actions[*a as usize].name == name)
            .ok_or_else(|| TargetError::Failed(format!("action `{name}` is not an action of table `{}`", t.name)))
    }

    fn ext(&self, name: &str) -> Result<u32, TargetError> {
        self.rt.extern_index(name).map_err(fail)
    }
}

fn fail(e: p4dp_rt::Error) -> TargetError {
    TargetError::Failed(e.to_string())
}

fn to_match(m: &FieldMatch) -> MatchField {
    match m {
        FieldMatch::Exact(v) => MatchField::Exact(v.clone()),
        FieldMatch::Lpm { value, prefix_len } => MatchField::Lpm(value.clone(), *prefix_len),
        FieldMatch::Ternary { value, mask } => MatchField::Ternary(value.clone(), mask.clone()),
        FieldMatch::Range { lo, hi } => MatchField::Range(lo.clone(), hi.clone()),
        FieldMatch::Optional(v) => MatchField::Optional(v.clone()),
    }
}

impl Target for RtTarget<'_> {
    fn add_entry(
        &mut self,
        table: &str,
        matches: &[KeyFieldMatch],
        priority: Option<u32>,
        action: &ActionCall,
    ) -> Result<EntryHandle, TargetError> {
        let t = self.table(table)?;
        let a = self.action_in_table(t, &action.name)?;
        // The runtime wants priority > 0 where priorities exist; STF allows 0 as the lowest.
        let priority = match priority {
            Some(p) => i32::try_from(p)
                .ok()
                .and_then(|p| p.checked_add(1))
                .ok_or_else(|| TargetError::Failed(format!("priority {p} is too large")))?,
            None => 0,
        };
        let ms: Vec<MatchField> = matches.iter().map(|k| to_match(&k.m)).collect();
        let e = TableEntry {
            matches: ms.clone(),
            priority,
            action: a,
            params: action.args.clone(),
        };
        self.rt.entry_add(t, &e).map_err(fail)?;
        let h = self.next_handle;
        self.next_handle += 1;
        self.added.insert(
            h,
            Added {
                table: t,
                matches: ms,
                priority,
            },
        );
        Ok(EntryHandle(h))
    }

    fn set_default(&mut self, table: &str, action: &ActionCall) -> Result<(), TargetError> {
        let t = self.table(table)?;
        let a = self.action_in_table(t, &action.name)?;
        self.rt.default_set(t, a, &action.args).map_err(fail)
    }

    fn clear_entries(&mut self, table: &str, entries: &[EntryHandle]) -> Result<(), TargetError> {
        let t = self.table(table)?;
        for h in entries {
            if let Some(a) = self.added.remove(&h.0) {
                self.rt.entry_delete(a.table, &a.matches, a.priority).map_err(fail)?;
            }
        }
        if !self.rt.program().tables[t as usize].const_default_action {
            self.rt.default_reset(t).map_err(fail)?;
        }
        Ok(())
    }

    fn inject(&mut self, port: Port, data: &[u8]) -> Result<Vec<(Port, Vec<u8>)>, TargetError> {
        self.rt.inject(port, data).map_err(fail)
    }

    fn counter_read(&mut self, name: &str, cell: CounterCell) -> Result<CounterValue, TargetError> {
        let x = self.ext(name)?;
        let v = match cell {
            CounterCell::Index(i) => self.rt.counter_read(x, i).map_err(fail)?,
            CounterCell::Entry(table_entry) => {
                let a = self
                    .added
                    .get(&table_entry.0)
                    .ok_or_else(|| TargetError::Failed("the entry was removed".into()))?;
                self.rt
                    .direct_counter_read(a.table, &a.matches, a.priority)
                    .map_err(fail)?
            }
        };
        Ok(CounterValue {
            packets: v.packets,
            bytes: v.bytes,
        })
    }

    fn counter_write(&mut self, name: &str, index: u32, value: CounterValue) -> Result<(), TargetError> {
        let x = self.ext(name)?;
        self.rt
            .counter_write(
                x,
                index,
                RtCounter {
                    packets: value.packets,
                    bytes: value.bytes,
                },
            )
            .map_err(fail)
    }

    fn register_read(&mut self, name: &str, index: u32) -> Result<Vec<u8>, TargetError> {
        let x = self.ext(name)?;
        self.rt.register_read(x, index).map_err(fail)
    }

    fn register_write(&mut self, name: &str, index: u32, value: &[u8]) -> Result<(), TargetError> {
        let x = self.ext(name)?;
        self.rt.register_write(x, index, value).map_err(fail)
    }

    fn register_reset(&mut self, name: &str) -> Result<(), TargetError> {
        let x = self.ext(name)?;
        self.rt.register_reset(x).map_err(fail)
    }

    fn meter_set_rates(&mut self, name: &str, cells: MeterCells, rates: &[MeterRate]) -> Result<(), TargetError> {
        let x = self.ext(name)?;
        let (c, p) = match rates {
            [c] => (*c, *c),
            [c, p] => (*c, *p),
            _ => {
                return Err(TargetError::Failed(format!(
                    "expected 1 or 2 rate:burst pairs, got {}",
                    rates.len()
                )))
            }
        };
        // STF rates are units per microsecond; the runtime takes units per second.
        let per_s = |r: f64| (r * 1e6).round().max(0.0) as u64;
        let cfg = if self.rt.program().externs[x as usize].meter_type == MeterType::SingleRateThreeColor {
            // a single-rate three-colour meter's second pair is its excess bucket (docs/stf.md)
            if per_s(p.rate_per_us) != per_s(c.rate_per_us) {
                return Err(TargetError::Failed(format!(
                    "meter {name} is single-rate three-color: its excess bucket fills at the committed rate \
                     (the second rate:burst pair has rate {}, the first {})",
                    p.rate_per_us, c.rate_per_us
                )));
            }
            MeterConfig {
                cir: per_s(c.rate_per_us),
                cburst: c.burst,
                pir: per_s(c.rate_per_us),
                pburst: c.burst,
                eburst: if rates.len() == 2 { p.burst } else { 0 },
            }
        } else {
            MeterConfig {
                cir: per_s(c.rate_per_us),
                cburst: c.burst,
                pir: per_s(p.rate_per_us),
                pburst: p.burst,
                eburst: 0,
            }
        };
        match cells {
            MeterCells::Index(i) => self.rt.meter_set(x, i, Some(cfg)).map_err(fail),
            MeterCells::All => {
                let n = self.rt.program().externs[x as usize].n_cells;
                for i in 0..n {
                    self.rt.meter_set(x, i, Some(cfg)).map_err(fail)?;
                }
                Ok(())
            }
        }
    }

    fn mirroring_add(&mut self, session: u32, port: Port) -> Result<(), TargetError> {
        self.rt.clone_session_set(session, &[(port, 0)], 0).map_err(fail)
    }

    fn mirroring_add_mc(&mut self, session: u32, mgrp: u32) -> Result<(), TargetError> {
        self.rt.clone_session_set_group(session, mgrp, 0).map_err(fail)
    }

    fn mirroring_delete(&mut self, session: u32) -> Result<(), TargetError> {
        self.rt.clone_session_delete(session).map_err(fail)
    }

    fn mc_mgrp_create(&mut self, mgrp: u32) -> Result<(), TargetError> {
        self.rt.mcast_group_create(mgrp).map_err(fail)
    }

    fn mc_node_create(&mut self, rid: u32, ports: &[Port]) -> Result<McNodeHandle, TargetError> {
        let rid = u16::try_from(rid).map_err(|_| TargetError::Failed(format!("rid {rid} does not fit 16 bits")))?;
        self.rt
            .mcast_node_create(rid, ports)
            .map(|h| McNodeHandle(h as u64))
            .map_err(fail)
    }

    fn mc_node_associate(&mut self, mgrp: u32, node: McNodeHandle) -> Result<(), TargetError> {
        self.rt.mcast_node_associate(mgrp, node.0 as u32).map_err(fail)
    }

    fn advance_time(&mut self, ns: u64) -> Result<(), TargetError> {
        self.rt.advance_time(ns);
        Ok(())
    }

    fn background(&mut self, name: &str, n: u32) -> Result<Vec<(Port, Vec<u8>)>, TargetError> {
        let out = self.rt.background_run(name, n).map_err(fail)?;
        Ok(out)
    }

    fn act_prof_create_member(&mut self, profile: &str, member: u32, action: &ActionCall) -> Result<(), TargetError> {
        let x = self.ext(profile)?;
        let a = self.rt.action_index(&action.name).map_err(fail)?;
        self.rt.actprof_member_add(x, member, a, &action.args).map_err(fail)
    }

    fn act_prof_create_group(&mut self, profile: &str, group: u32) -> Result<(), TargetError> {
        let x = self.ext(profile)?;
        self.rt.actprof_group_create(x, group).map_err(fail)
    }

    fn act_prof_add_member_to_group(&mut self, profile: &str, member: u32, group: u32) -> Result<(), TargetError> {
        let x = self.ext(profile)?;
        self.rt.actprof_group_add_member(x, group, member, 1).map_err(fail)
    }

    fn add_indirect_entry(
        &mut self,
        table: &str,
        matches: &[KeyFieldMatch],
        priority: Option<u32>,
        group: bool,
        id: u32,
    ) -> Result<EntryHandle, TargetError> {
        let t = self.table(table)?;
        // as add_entry: STF priority 0 is the lowest, the runtime's lowest is 1
        let priority = match priority {
            Some(p) => i32::try_from(p)
                .ok()
                .and_then(|p| p.checked_add(1))
                .ok_or_else(|| TargetError::Failed(format!("priority {p} is too large")))?,
            None => 0,
        };
        let ms: Vec<MatchField> = matches.iter().map(|k| to_match(&k.m)).collect();
        let r = if group {
            p4dp_rt::ProfileRef::Group(id)
        } else {
            p4dp_rt::ProfileRef::Member(id)
        };
        self.rt.indirect_add(t, &ms, priority, r).map_err(fail)?;
        let h = self.next_handle;
        self.next_handle += 1;
        self.added.insert(
            h,
            Added {
                table: t,
                matches: ms,
                priority,
            },
        );
        Ok(EntryHandle(h))
    }
}
