//! Indexed externs (counters, meters, registers), direct counters and meters, and the packet
//! replication engine (multicast groups, clone sessions) as P4Runtime entities.

use std::collections::BTreeMap;

use p4dp_rt::{ExternInfo, ExternKind, Program, Runtime};
use tonic::Code;

use crate::bytes::{canonical, fit, to_u64};
use crate::proto::p4::v1::{
    p4_data, replica, CloneSessionEntry, CounterEntry, DirectCounterEntry, DirectMeterEntry, Index, MeterCounterData,
    MeterEntry, MulticastGroupEntry, P4Data, RegisterEntry,
};
use crate::tables::{counter_data, counter_value, err, invalid, match_of, meter_value, rt_err, table_by_id, OpError};

fn extern_by_id<'a>(p: &'a Program, id: u32, kind: ExternKind, what: &str) -> Result<&'a ExternInfo, OpError> {
    p.externs
        .iter()
        .find(|x| x.id == id && x.kind == kind)
        .ok_or_else(|| err(Code::NotFound, format!("no {what} with id {id}")))
}

fn cell(x: &ExternInfo, index: &Option<Index>) -> Result<Option<u32>, OpError> {
    match index {
        None => Ok(None),
        Some(Index { index }) if *index >= 0 && (*index as u64) < x.n_cells as u64 => Ok(Some(*index as u32)),
        Some(Index { index }) => Err(err(
            Code::OutOfRange,
            format!("{}: index {index} is outside 0..{}", x.name, x.n_cells),
        )),
    }
}

fn cells(x: &ExternInfo, i: Option<u32>) -> std::ops::Range<u32> {
    match i {
        Some(i) => i..i + 1,
        None => 0..x.n_cells,
    }
}

/// Is this the only update type allowed for indexed externs (MODIFY)?
fn modify_only(is_modify: bool, what: &str) -> Result<(), OpError> {
    if is_modify {
        Ok(())
    } else {
        Err(invalid(format!("{what} cells always exist: only MODIFY is allowed")))
    }
}

/// An ExternEntry names an architecture-specific extern by its P4Info `extern_type_id`. p4dp's
/// P4Info lists none: every v1model and PNA extern with control-plane state (counters, meters,
/// registers, action profiles and selectors, digests) has an entity of its own, and the others
/// (hashes, checksums, random) have no state to read or write. So every type is unknown.
pub fn no_extern_type(type_id: u32) -> OpError {
    err(
        Code::NotFound,
        format!(
            "no extern type {type_id} in the P4Info: its architectures' externs with state are counters, meters, registers, action profiles and digests, each with an entity of its own"
        ),
    )
}

pub fn write_counter(rt: &Runtime, e: &CounterEntry, is_modify: bool) -> Result<(), OpError> {
    let x = extern_by_id(rt.program(), e.counter_id, ExternKind::Counter, "counter")?;
    modify_only(is_modify, "counter")?;
    let i = cell(x, &e.index)?;
    let v = counter_value(&e.data.unwrap_or_default())?;
    for c in cells(x, i) {
        rt.counter_write(x.index, c, v).map_err(rt_err)?;
    }
    Ok(())
}

pub fn read_counter(rt: &Runtime, e: &CounterEntry, out: &mut Vec<CounterEntry>) -> Result<(), OpError> {
    let p = rt.program();
    let xs: Vec<&ExternInfo> = if e.counter_id == 0 {
        p.externs.iter().filter(|x| x.kind == ExternKind::Counter).collect()
    } else {
        vec![extern_by_id(p, e.counter_id, ExternKind::Counter, "counter")?]
    };
    for x in xs {
        let i = cell(x, &e.index)?;
        for c in cells(x, i) {
            out.push(CounterEntry {
                counter_id: x.id,
                index: Some(Index { index: c as i64 }),
                data: Some(counter_data(rt.counter_read(x.index, c).map_err(rt_err)?)),
            });
        }
    }
    Ok(())
}

pub fn write_register(rt: &Runtime, e: &RegisterEntry, is_modify: bool) -> Result<(), OpError> {
    let x = extern_by_id(rt.program(), e.register_id, ExternKind::Register, "register")?;
    modify_only(is_modify, "register")?;
    let i = cell(x, &e.index)?;
    let v = match e.data.as_ref().and_then(|d| d.data.as_ref()) {
        Some(p4_data::Data::Bitstring(b)) => fit(b, x.bitwidth)
            .ok_or_else(|| invalid(format!("{}: the value does not fit in {} bits", x.name, x.bitwidth)))?,
        Some(_) => return Err(invalid(format!("{}: register data must be a bitstring", x.name))),
        None => return Err(invalid(format!("{}: no data", x.name))),
    };
    for c in cells(x, i) {
        rt.register_write(x.index, c, &v).map_err(rt_err)?;
    }
    Ok(())
}

pub fn read_register(rt: &Runtime, e: &RegisterEntry, out: &mut Vec<RegisterEntry>) -> Result<(), OpError> {
    let p = rt.program();
    let xs: Vec<&ExternInfo> = if e.register_id == 0 {
        p.externs.iter().filter(|x| x.kind == ExternKind::Register).collect()
    } else {
        vec![extern_by_id(p, e.register_id, ExternKind::Register, "register")?]
    };
    for x in xs {
        let i = cell(x, &e.index)?;
        for c in cells(x, i) {
            let v = rt.register_read(x.index, c).map_err(rt_err)?;
            out.push(RegisterEntry {
                register_id: x.id,
                index: Some(Index { index: c as i64 }),
                data: Some(P4Data {
                    data: Some(p4_data::Data::Bitstring(canonical(&v))),
                }),
            });
        }
    }
    Ok(())
}

/// A meter write's per-colour `counter_data` in runtime form (None: the counts are kept).
fn meter_counts_of(c: &Option<MeterCounterData>) -> Result<Option<p4dp_rt::MeterCounts>, OpError> {
    c.as_ref().map(crate::extras::meter_counts_value).transpose()
}

/// Writes the configuration of one cell or all (index unset; none: unconfigured) and, when
/// `counter_data` is given, its per-colour counts (else they are kept).
pub fn write_meter(rt: &Runtime, e: &MeterEntry, is_modify: bool) -> Result<(), OpError> {
    let x = extern_by_id(rt.program(), e.meter_id, ExternKind::Meter, "meter")?;
    modify_only(is_modify, "meter")?;
    let counts = meter_counts_of(&e.counter_data)?;
    let i = cell(x, &e.index)?;
    let cfg = e.config.as_ref().map(|c| meter_value(c, x)).transpose()?;
    for c in cells(x, i) {
        rt.meter_set(x.index, c, cfg).map_err(rt_err)?;
        if let Some(k) = counts {
            rt.meter_counts_write(x.index, c, k).map_err(rt_err)?;
        }
    }
    Ok(())
}

pub fn read_meter(rt: &Runtime, e: &MeterEntry, out: &mut Vec<MeterEntry>) -> Result<(), OpError> {
    let p = rt.program();
    let xs: Vec<&ExternInfo> = if e.meter_id == 0 {
        p.externs.iter().filter(|x| x.kind == ExternKind::Meter).collect()
    } else {
        vec![extern_by_id(p, e.meter_id, ExternKind::Meter, "meter")?]
    };
    for x in xs {
        let i = cell(x, &e.index)?;
        for c in cells(x, i) {
            let cfg = rt.meter_get(x.index, c).map_err(rt_err)?;
            // the per-colour counts when the request has counter_data (as for a table entry's
            // meter_counter_data)
            let counts = if e.counter_data.is_some() {
                Some(crate::extras::meter_counter_data(
                    rt.meter_counts_read(x.index, c).map_err(rt_err)?,
                ))
            } else {
                None
            };
            out.push(MeterEntry {
                meter_id: x.id,
                index: Some(Index { index: c as i64 }),
                config: cfg.map(crate::extras::meter_msg),
                counter_data: counts,
            });
        }
    }
    Ok(())
}

/// A runtime meter configuration as P4Runtime gives it.
pub fn write_direct_counter(rt: &Runtime, e: &DirectCounterEntry, is_modify: bool) -> Result<(), OpError> {
    modify_only(is_modify, "direct counter")?;
    let te = e
        .table_entry
        .as_ref()
        .ok_or_else(|| invalid("direct counter entry without table_entry"))?;
    let t = table_by_id(rt.program(), te.table_id)?;
    if t.direct_counter.is_none() {
        return Err(invalid(format!("table {} has no direct counter", t.name)));
    }
    let v = counter_value(&e.data.unwrap_or_default())?;
    if te.is_default_action {
        default_entry_key(te)?;
        return rt.default_counter_write(t.index, v).map_err(rt_err);
    }
    let m = match_of(t, &te.r#match)?;
    rt.direct_counter_write(t.index, &m, te.priority, v).map_err(rt_err)
}

/// A direct counter or meter entry's `table_entry` naming the default entry: no match, priority 0
/// (the cell is the one the table's misses use).
fn default_entry_key(te: &crate::proto::p4::v1::TableEntry) -> Result<(), OpError> {
    if !te.r#match.is_empty() || te.priority != 0 {
        return Err(invalid("a default entry has no match and priority 0"));
    }
    Ok(())
}

pub fn read_direct_counter(
    rt: &Runtime,
    e: &DirectCounterEntry,
    out: &mut Vec<DirectCounterEntry>,
) -> Result<(), OpError> {
    let te = e.table_entry.clone().unwrap_or_default();
    let p = rt.program();
    let tables: Vec<&p4dp_rt::TableInfo> = if te.table_id == 0 {
        p.tables.iter().filter(|t| t.direct_counter.is_some()).collect()
    } else {
        let t = table_by_id(p, te.table_id)?;
        if t.direct_counter.is_none() {
            return Err(invalid(format!("table {} has no direct counter", t.name)));
        }
        vec![t]
    };
    for t in tables {
        let mut entries = Vec::new();
        crate::tables::read(rt, t, &te, &mut entries)?;
        for mut x in entries {
            let v = if x.is_default_action {
                rt.default_counter_read(t.index).map_err(rt_err)?
            } else {
                let m = match_of(t, &x.r#match)?;
                rt.direct_counter_read(t.index, &m, x.priority).map_err(rt_err)?
            };
            x.counter_data = None;
            x.is_const = false;
            out.push(DirectCounterEntry {
                table_entry: Some(x),
                data: Some(counter_data(v)),
            });
        }
    }
    Ok(())
}

pub fn write_direct_meter(rt: &Runtime, e: &DirectMeterEntry, is_modify: bool) -> Result<(), OpError> {
    modify_only(is_modify, "direct meter")?;
    let counts = meter_counts_of(&e.counter_data)?;
    let te = e
        .table_entry
        .as_ref()
        .ok_or_else(|| invalid("direct meter entry without table_entry"))?;
    let t = table_by_id(rt.program(), te.table_id)?;
    let Some(dm) = t.direct_meter else {
        return Err(invalid(format!("table {} has no direct meter", t.name)));
    };
    let x = &rt.program().externs[dm as usize];
    let cfg = e.config.as_ref().map(|c| meter_value(c, x)).transpose()?;
    if te.is_default_action {
        default_entry_key(te)?;
        rt.default_meter_set(t.index, cfg).map_err(rt_err)?;
        if let Some(k) = counts {
            rt.default_meter_counts_write(t.index, k).map_err(rt_err)?;
        }
        return Ok(());
    }
    let m = match_of(t, &te.r#match)?;
    rt.direct_meter_set(t.index, &m, te.priority, cfg).map_err(rt_err)?;
    if let Some(k) = counts {
        rt.direct_meter_counts_write(t.index, &m, te.priority, k)
            .map_err(rt_err)?;
    }
    Ok(())
}

/// Reads direct meter configurations: of one entry (a match given), of every entry of one table,
/// or of every table with a direct meter (table_id 0). Unconfigured cells have no `config`.
pub fn read_direct_meter(rt: &Runtime, e: &DirectMeterEntry, out: &mut Vec<DirectMeterEntry>) -> Result<(), OpError> {
    let te = e.table_entry.clone().unwrap_or_default();
    let p = rt.program();
    let tables: Vec<&p4dp_rt::TableInfo> = if te.table_id == 0 {
        p.tables.iter().filter(|t| t.direct_meter.is_some()).collect()
    } else {
        let t = table_by_id(p, te.table_id)?;
        if t.direct_meter.is_none() {
            return Err(invalid(format!("table {} has no direct meter", t.name)));
        }
        vec![t]
    };
    for t in tables {
        let mut entries = Vec::new();
        crate::tables::read(rt, t, &te, &mut entries)?;
        for mut x in entries {
            let (cfg, counts) = if x.is_default_action {
                let counts = match &e.counter_data {
                    Some(_) => Some(rt.default_meter_counts_read(t.index).map_err(rt_err)?),
                    None => None,
                };
                (rt.default_meter_get(t.index).map_err(rt_err)?, counts)
            } else {
                let m = match_of(t, &x.r#match)?;
                let counts = match &e.counter_data {
                    Some(_) => Some(rt.direct_meter_counts_read(t.index, &m, x.priority).map_err(rt_err)?),
                    None => None,
                };
                (rt.direct_meter_get(t.index, &m, x.priority).map_err(rt_err)?, counts)
            };
            x.counter_data = None;
            x.is_const = false;
            out.push(DirectMeterEntry {
                table_entry: Some(x),
                config: cfg.map(crate::extras::meter_msg),
                counter_data: counts.map(crate::extras::meter_counter_data),
            });
        }
    }
    Ok(())
}

/// The packet replication engine's entries as written (the runtime keeps them in its own form;
/// P4Runtime reads return what was written).
#[derive(Default)]
pub struct Pre {
    pub groups: BTreeMap<u32, MulticastGroupEntry>,
    pub clones: BTreeMap<u32, CloneSessionEntry>,
}

/// A replica's or backup's port number: below the drop port.
fn port_number(port: u64, what: &str) -> Result<u32, OpError> {
    if port >= p4dp_rt::PORT_DROP as u64 {
        return Err(invalid(format!(
            "{what} port {port} is out of range (0..{})",
            p4dp_rt::PORT_DROP
        )));
    }
    Ok(port as u32)
}

fn replica_port(r: &crate::proto::p4::v1::Replica) -> Result<u32, OpError> {
    #[allow(deprecated)]
    let port = match &r.port_kind {
        Some(replica::PortKind::EgressPort(p)) => *p as u64,
        Some(replica::PortKind::Port(b)) if !b.is_empty() => {
            to_u64(b).ok_or_else(|| invalid("replica port does not fit in 64 bits"))?
        }
        _ => return Err(invalid("replica without a port")),
    };
    port_number(port, "replica")
}

fn instance(i: u32, what: &str) -> Result<u16, OpError> {
    u16::try_from(i).map_err(|_| invalid(format!("{what} instance {i} does not fit in 16 bits")))
}

/// The replicas of a multicast group or clone session with their backups (P4Runtime v1.5: a
/// replica's copy goes to the first of its port and its backups' ports that is up). Refused:
/// a (port, instance) pair given twice among all replicas and backups, a backup on its
/// replica's port, a port or instance out of range.
fn replicas(rs: &[crate::proto::p4::v1::Replica]) -> Result<Vec<p4dp_rt::Replica>, OpError> {
    let mut reps = Vec::with_capacity(rs.len());
    let mut seen = std::collections::HashSet::new();
    for r in rs {
        let rid = instance(r.instance, "replica")?;
        let port = replica_port(r)?;
        if !seen.insert((port, rid)) {
            return Err(invalid(format!("replica (port {port}, instance {rid}) given twice")));
        }
        let mut backups = Vec::with_capacity(r.backup_replicas.len());
        for b in &r.backup_replicas {
            if b.port.is_empty() {
                return Err(invalid(format!("a backup of the replica on port {port} has no port")));
            }
            let bp = to_u64(&b.port).ok_or_else(|| invalid("backup replica port does not fit in 64 bits"))?;
            let bp = port_number(bp, "backup replica")?;
            let brid = instance(b.instance, "backup replica")?;
            if bp == port {
                return Err(invalid(format!(
                    "a backup of the replica on port {port} is on the same port"
                )));
            }
            if !seen.insert((bp, brid)) {
                return Err(invalid(format!("replica (port {bp}, instance {brid}) given twice")));
            }
            backups.push((bp, brid));
        }
        reps.push(p4dp_rt::Replica { port, rid, backups });
    }
    Ok(reps)
}

/// The largest class of service of a clone session: the clones' v1model `priority` (3 bits).
pub const CLASS_OF_SERVICE_MAX: u32 = 7;

impl Pre {
    pub fn write_group(&mut self, rt: &Runtime, g: &MulticastGroupEntry, op: crate::tables::Op) -> Result<(), OpError> {
        use crate::tables::Op;
        let id = g.multicast_group_id;
        if id == 0 {
            return Err(invalid("multicast group id 0 is reserved"));
        }
        let exists = self.groups.contains_key(&id);
        match op {
            Op::Delete => {
                if !exists {
                    return Err(err(Code::NotFound, format!("no multicast group {id}")));
                }
                rt.mcast_group_delete(id).map_err(rt_err)?;
                self.groups.remove(&id);
            }
            Op::Insert | Op::Modify => {
                if matches!(op, Op::Insert) && exists {
                    return Err(err(Code::AlreadyExists, format!("multicast group {id} exists")));
                }
                if matches!(op, Op::Modify) && !exists {
                    return Err(err(Code::NotFound, format!("no multicast group {id}")));
                }
                let reps = replicas(&g.replicas)?;
                rt.mcast_group_set_replicas(id, &reps).map_err(rt_err)?;
                self.groups.insert(id, g.clone());
            }
        }
        Ok(())
    }

    pub fn write_clone(&mut self, rt: &Runtime, c: &CloneSessionEntry, op: crate::tables::Op) -> Result<(), OpError> {
        use crate::tables::Op;
        let id = c.session_id;
        if id == 0 {
            return Err(invalid("clone session id 0 is reserved"));
        }
        let exists = self.clones.contains_key(&id);
        match op {
            Op::Delete => {
                if !exists {
                    return Err(err(Code::NotFound, format!("no clone session {id}")));
                }
                rt.clone_session_delete(id).map_err(rt_err)?;
                self.clones.remove(&id);
            }
            Op::Insert | Op::Modify => {
                if matches!(op, Op::Insert) && exists {
                    return Err(err(Code::AlreadyExists, format!("clone session {id} exists")));
                }
                if matches!(op, Op::Modify) && !exists {
                    return Err(err(Code::NotFound, format!("no clone session {id}")));
                }
                if c.class_of_service > CLASS_OF_SERVICE_MAX {
                    return Err(invalid(format!(
                        "class_of_service {} is out of range (0..={CLASS_OF_SERVICE_MAX}: the clones' priority, 3 bits)",
                        c.class_of_service
                    )));
                }
                if c.replicas.len() > p4dp_rt::CLONE_REPLICAS_MAX as usize {
                    return Err(err(
                        Code::ResourceExhausted,
                        format!(
                            "clone session {id} has {} replicas, at most {}",
                            c.replicas.len(),
                            p4dp_rt::CLONE_REPLICAS_MAX
                        ),
                    ));
                }
                let reps = replicas(&c.replicas)?;
                let trunc = u32::try_from(c.packet_length_bytes)
                    .map_err(|_| invalid(format!("packet_length_bytes {} is negative", c.packet_length_bytes)))?;
                rt.clone_session_set_replicas(id, &reps, trunc, c.class_of_service as u8)
                    .map_err(rt_err)?;
                self.clones.insert(id, c.clone());
            }
        }
        Ok(())
    }
}
