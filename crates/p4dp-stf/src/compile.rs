//! Checking a parsed script against the program and turning it into a
//! [`Plan`]: every name resolved, every value encoded, every error reported
//! (all of them, not just the first) before anything touches the target.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use crate::ast::{self, Int, KeyValue, Name, Pattern, Script, StmtKind};
use crate::diag::{Diagnostics, Reporter, Span};
use crate::resolve::{self, CounterRef, ResolveError};
use crate::schema::{CounterUnit, ProgramSchema, TableSchema};
use crate::target::{ActionCall, FieldMatch, KeyFieldMatch, MeterCells, MeterRate, Port};
use crate::value::{self, EncodeError};

pub use crate::ast::{CmpOp, CounterUnitSel};

/// Which cell a `check_counter` reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CheckCell {
    Index(u32),
    /// The direct-counter cell of the entry with this label.
    Label(String),
}

/// One resolved statement.
#[derive(Clone, Debug, PartialEq)]
pub enum Op {
    Packet {
        port: Port,
        data: Vec<u8>,
    },
    /// No-op at run time (expectations are collected in [`Plan::expectations`]).
    Expect,
    Add {
        table: String,
        matches: Vec<KeyFieldMatch>,
        priority: Option<u32>,
        action: ActionCall,
        label: Option<String>,
    },
    SetDefault {
        table: String,
        action: ActionCall,
    },
    RemoveAll,
    CheckCounter {
        counter: String,
        unit: CounterUnit,
        cell: CheckCell,
        checks: Vec<(CounterUnitSel, CmpOp, u64)>,
    },
    Wait,
    NoPacket,
    MirroringAdd {
        session: u32,
        port: Port,
    },
    MirroringAddMc {
        session: u32,
        mgrp: u32,
    },
    MirroringDelete {
        session: u32,
    },
    MirroringGet {
        session: u32,
    },
    McMgrpCreate {
        mgrp: u32,
    },
    McNodeCreate {
        rid: u32,
        ports: Vec<Port>,
    },
    /// `node` is the STF handle: the n-th `mc_node_create` of the script.
    McNodeUpdate {
        node: u32,
        ports: Vec<Port>,
    },
    McNodeAssociate {
        mgrp: u32,
        node: u32,
    },
    CounterRead {
        name: String,
        index: u32,
    },
    CounterWrite {
        name: String,
        index: u32,
        packets: u64,
        bytes: u64,
    },
    RegisterRead {
        name: String,
        index: u32,
    },
    RegisterWrite {
        name: String,
        index: u32,
        value: Vec<u8>,
    },
    RegisterReset {
        name: String,
    },
    MeterGetRates {
        name: String,
        index: u32,
    },
    MeterSetRates {
        name: String,
        cells: MeterCells,
        rates: Vec<MeterRate>,
    },
    AdvanceTime {
        ns: u64,
    },
    /// Run background pipeline `name` `n` times; its packets are received like a packet's.
    Background {
        name: String,
        n: u32,
    },
    /// p4dp extension statements for action profiles (compile_ap.rs); ids are the script's
    /// per-profile handles.
    ActProfCreateMember {
        profile: String,
        member: u32,
        action: ActionCall,
    },
    ActProfCreateGroup {
        profile: String,
        group: u32,
    },
    ActProfAddMemberToGroup {
        profile: String,
        member: u32,
        group: u32,
    },
    AddIndirect {
        table: String,
        matches: Vec<KeyFieldMatch>,
        priority: Option<u32>,
        group: bool,
        id: u32,
    },
}

#[path = "compile_ap.rs"]
mod ap;

/// A resolved statement with its source line.
#[derive(Clone, Debug, PartialEq)]
pub struct PlanStep {
    pub line: u32,
    /// The statement's source text (trimmed), for reports.
    pub text: String,
    pub op: Op,
}

/// One `expect` line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expectation {
    pub line: u32,
    /// `None`: any packet.
    pub pattern: Option<Pattern>,
}

/// A script ready to run.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    pub file: String,
    pub steps: Vec<PlanStep>,
    /// Expectations per port, in file order.
    pub expectations: BTreeMap<Port, Vec<Expectation>>,
    /// Ports named by any `packet` or `expect` statement (the ports that are
    /// "captured", docs/stf.md, "Pass or fail").
    pub mentioned_ports: BTreeSet<Port>,
}

struct Cx<'a> {
    schema: &'a ProgramSchema,
    rep: Reporter<'a>,
    /// label → (table, line of definition)
    labels: HashMap<String, (String, u32)>,
    mc_nodes: u32,
    /// action profile → (members, groups) created so far (compile_ap.rs)
    ap_handles: HashMap<String, (u32, u32)>,
}

/// Which statement a table entry comes from. They differ only in how two errors are reported
/// (as each did before they shared [`Cx::entry_match`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum EntryStmt {
    /// `add`: a missing priority gets a note on how to write one; a bad key value is pointed at
    /// the value.
    Add,
    /// `table_indirect_add[_with_group]`: no note; a bad key value is pointed at the key's name.
    Indirect,
}

/// The match part of a table entry, resolved and encoded.
struct EntryMatch {
    priority: Option<u32>,
    /// One per key field of the table, in the table's order.
    matches: Vec<KeyFieldMatch>,
}

fn u32_of(rep: &mut Reporter<'_>, i: Int, what: &str) -> Option<u32> {
    match u32::try_from(i.value) {
        Ok(v) => Some(v),
        Err(_) => {
            rep.error(
                i.span,
                format!("{what} {} is too large (maximum {})", i.value, u32::MAX),
            );
            None
        }
    }
}

impl<'a> Cx<'a> {
    fn resolve_err(&mut self, span: Span, e: ResolveError) {
        let mut d = self.rep.make(span, e.message);
        d.note = e.note;
        self.rep.push(d);
    }

    fn encode_err(&mut self, span: Span, e: EncodeError) {
        let mut d = self.rep.make(span, e.message);
        d.note = e.note;
        self.rep.push(d);
    }

    fn table(&mut self, name: &Name) -> Option<&'a TableSchema> {
        let schema = self.schema;
        match resolve::resolve_table(schema, &name.text) {
            Ok(t) => Some(t),
            Err(e) => {
                self.resolve_err(name.span, e);
                None
            }
        }
    }

    /// Resolve and encode `name(args)` for `table`.
    fn action(&mut self, table: &TableSchema, call: &ast::ActionCall, for_default: bool) -> Option<ActionCall> {
        let aref = match resolve::resolve_action(table, &call.name.text) {
            Ok(a) => a,
            Err(e) => {
                self.resolve_err(call.name.span, e);
                return None;
            }
        };
        if let Err(e) = resolve::check_scope(table, aref, for_default) {
            self.resolve_err(call.name.span, e);
            return None;
        }
        let Some(action) = self.schema.action(&aref.name) else {
            self.rep.error(
                call.name.span,
                format!(
                    "action `{}` of table `{}` is missing from the program schema",
                    aref.name, table.name
                ),
            );
            return None;
        };
        let mut ok = true;
        let mut args: Vec<Option<Vec<u8>>> = vec![None; action.params.len()];
        for arg in &call.args {
            let Some(pi) = action.params.iter().position(|p| p.name == arg.name.text) else {
                let names: Vec<String> = action.params.iter().map(|p| format!("`{}`", p.name)).collect();
                let mut d = self.rep.make(
                    arg.name.span,
                    format!("action `{}` has no parameter `{}`", action.name, arg.name.text),
                );
                d.note = Some(if names.is_empty() {
                    "it takes no control-plane parameters".into()
                } else {
                    format!("its parameters are {}", names.join(", "))
                });
                self.rep.push(d);
                ok = false;
                continue;
            };
            if args[pi].is_some() {
                self.rep
                    .error(arg.name.span, format!("parameter `{}` is given twice", arg.name.text));
                ok = false;
                continue;
            }
            let p = &action.params[pi];
            let what = format!("{}-bit parameter `{}` of action `{}`", p.width, p.name, action.name);
            match value::encode_plain(&arg.value, p.width, &what) {
                Ok(v) => args[pi] = Some(v),
                Err(e) => {
                    self.encode_err(arg.value.span, e);
                    ok = false;
                }
            }
        }
        let missing: Vec<String> = action
            .params
            .iter()
            .zip(&args)
            .filter(|(_, a)| a.is_none())
            .filter(|(p, _)| !call.args.iter().any(|a| a.name.text == p.name))
            .map(|(p, _)| format!("`{}`", p.name))
            .collect();
        if !missing.is_empty() {
            let s = if missing.len() == 1 { "" } else { "s" };
            self.rep.error(
                call.span,
                format!(
                    "missing argument{s} {} for action `{}`",
                    missing.join(", "),
                    action.name
                ),
            );
            ok = false;
        }
        if !ok {
            return None;
        }
        Some(ActionCall {
            name: action.name.clone(),
            args: args.into_iter().flatten().collect(),
        })
    }

    /// Resolve and encode the match part of a table entry (`add`, `table_indirect_add[_with_group]`):
    /// the priority, checked against whether `table` needs one, and the key fields, in the
    /// table's key order with the fields not given matching anything. Reports every error
    /// found; `None` if there was one.
    fn entry_match(
        &mut self,
        table_name: &Name,
        table: &TableSchema,
        priority: Option<Int>,
        keys: &[ast::KeyMatch],
        stmt: EntryStmt,
    ) -> Option<EntryMatch> {
        let mut ok = true;
        let prio = match (priority, table.needs_priority) {
            (Some(p), true) => {
                let v = u32_of(&mut self.rep, p, "priority");
                ok &= v.is_some();
                v
            }
            (None, true) => {
                let mut d = self.rep.make(
                    table_name.span,
                    format!(
                        "table `{}` needs a priority (it has a ternary, range or optional key)",
                        table.name
                    ),
                );
                if stmt == EntryStmt::Add {
                    d.note = Some(format!(
                        "write it after the table name, e.g. `add {} 10 ...`; larger numbers win",
                        table_name.text
                    ));
                }
                self.rep.push(d);
                ok = false;
                None
            }
            (_, false) => None,
        };
        let mut matches: Vec<Option<FieldMatch>> = vec![None; table.keys.len()];
        for k in keys {
            let ki = match resolve::resolve_key(table, &k.name.text) {
                Ok(i) => i,
                Err(e) => {
                    self.resolve_err(k.name.span, e);
                    ok = false;
                    continue;
                }
            };
            if matches[ki].is_some() {
                self.rep.error(
                    k.name.span,
                    format!("key field `{}` is given twice", table.keys[ki].name),
                );
                ok = false;
                continue;
            }
            match value::encode_key(&k.value, &table.keys[ki]) {
                Ok(m) => matches[ki] = Some(m),
                Err(e) => {
                    let span = match stmt {
                        EntryStmt::Add => key_value_span(&k.value),
                        EntryStmt::Indirect => k.name.span,
                    };
                    self.encode_err(span, e);
                    ok = false;
                }
            }
        }
        if !ok {
            return None;
        }
        let matches = table
            .keys
            .iter()
            .zip(matches)
            .map(|(k, m)| KeyFieldMatch {
                field: k.name.clone(),
                m: m.unwrap_or_else(|| value::default_match(k)),
            })
            .collect();
        Some(EntryMatch {
            priority: prio,
            matches,
        })
    }

    fn add(
        &mut self,
        table_name: &Name,
        priority: Option<Int>,
        keys: &[ast::KeyMatch],
        call: &ast::ActionCall,
        label: Option<&Name>,
        line: u32,
    ) -> Option<Op> {
        let table = self.table(table_name)?;
        if table.const_entries {
            self.rep.error(
                table_name.span,
                format!("table `{}` has `const entries`; it cannot be modified", table.name),
            );
            return None;
        }
        let m = self.entry_match(table_name, table, priority, keys, EntryStmt::Add);
        let action = self.action(table, call, false);
        let mut ok = true;
        let label = match label {
            Some(l) => {
                if let Some((_, def)) = self.labels.get(&l.text) {
                    let def = *def;
                    self.rep.error(
                        l.span,
                        format!("entry label `{}` is already used at line {def}", l.text),
                    );
                    ok = false;
                } else {
                    self.labels.insert(l.text.clone(), (table.name.clone(), line));
                }
                Some(l.text.clone())
            }
            None => None,
        };
        let action = action?;
        let m = m?;
        if !ok {
            return None;
        }
        Some(Op::Add {
            table: table.name.clone(),
            matches: m.matches,
            priority: m.priority,
            action,
            label,
        })
    }

    fn check_counter(&mut self, counter: &Name, cell: &ast::CounterCell, cond: Option<ast::Condition>) -> Option<Op> {
        let schema = self.schema;
        let r = match resolve::resolve_counter(schema, &counter.text) {
            Ok(r) => r,
            Err(e) => {
                self.resolve_err(counter.span, e);
                return None;
            }
        };
        let (name, unit, cell) = match (r, cell) {
            (CounterRef::Indexed(i), ast::CounterCell::Index(idx)) => {
                let c = &schema.counters[i];
                if idx.value >= u64::from(c.size) {
                    self.rep.error(
                        idx.span,
                        format!(
                            "index {} is out of range for counter `{}` (size {})",
                            idx.value, c.name, c.size
                        ),
                    );
                    return None;
                }
                (c.name.clone(), c.unit, CheckCell::Index(idx.value as u32))
            }
            (CounterRef::Direct(i), ast::CounterCell::Label(l)) => {
                let c = &schema.direct_counters[i];
                match self.labels.get(&l.text) {
                    None => {
                        let mut d = self
                            .rep
                            .make(l.span, format!("no entry is labelled `{}` before this line", l.text));
                        d.note = Some("label an entry with `add ... = NAME`, then refer to it as `$NAME`".into());
                        self.rep.push(d);
                        return None;
                    }
                    Some((t, _)) if *t != c.table => {
                        self.rep.error(
                            l.span,
                            format!(
                                "entry `{}` is in table `{t}`, but direct counter `{}` belongs to table `{}`",
                                l.text, c.name, c.table
                            ),
                        );
                        return None;
                    }
                    Some(_) => {}
                }
                (c.name.clone(), c.unit, CheckCell::Label(l.text.clone()))
            }
            (CounterRef::Indexed(i), ast::CounterCell::Label(l)) => {
                self.rep.error(
                    l.span,
                    format!(
                        "counter `{}` is an indexed counter; give an index, not an entry label",
                        schema.counters[i].name
                    ),
                );
                return None;
            }
            (CounterRef::Direct(i), ast::CounterCell::Index(idx)) => {
                let mut d = self.rep.make(
                    idx.span,
                    format!(
                        "counter `{}` is a direct counter; refer to an entry as `$LABEL`",
                        schema.direct_counters[i].name
                    ),
                );
                d.note = Some("label the entry with `add ... = LABEL`".into());
                self.rep.push(d);
                return None;
            }
        };
        let checks = match cond {
            Some(c) => {
                let counts = match c.unit {
                    CounterUnitSel::Packets => unit != CounterUnit::Bytes,
                    CounterUnitSel::Bytes => unit != CounterUnit::Packets,
                };
                if !counts {
                    let u = if c.unit == CounterUnitSel::Packets {
                        "packets"
                    } else {
                        "bytes"
                    };
                    self.rep.error(c.span, format!("counter `{name}` does not count {u}"));
                    return None;
                }
                vec![(c.unit, c.op, c.value)]
            }
            // Default condition: "== 0" for whatever the counter counts.
            None => match unit {
                CounterUnit::Packets => vec![(CounterUnitSel::Packets, CmpOp::Eq, 0)],
                CounterUnit::Bytes => vec![(CounterUnitSel::Bytes, CmpOp::Eq, 0)],
                CounterUnit::PacketsAndBytes => {
                    vec![
                        (CounterUnitSel::Packets, CmpOp::Eq, 0),
                        (CounterUnitSel::Bytes, CmpOp::Eq, 0),
                    ]
                }
            },
        };
        Some(Op::CheckCounter {
            counter: name,
            unit,
            cell,
            checks,
        })
    }

    /// Resolve an extern name (exact) and check an index against its size.
    fn extern_cell(&mut self, kind: &str, name: &Name, index: Option<Int>) -> Option<(String, u32)> {
        let schema = self.schema;
        let (names, sizes): (Vec<&str>, Vec<u32>) = match kind {
            "counter" => schema.counters.iter().map(|c| (c.name.as_str(), c.size)).unzip(),
            "register" => schema.registers.iter().map(|c| (c.name.as_str(), c.size)).unzip(),
            _ => schema.meters.iter().map(|c| (c.name.as_str(), c.size)).unzip(),
        };
        let i = match resolve::resolve_exact(names.iter().copied(), &name.text, kind) {
            Ok(i) => i,
            Err(e) => {
                self.resolve_err(name.span, e);
                return None;
            }
        };
        let mut idx = 0;
        if let Some(ix) = index {
            if ix.value >= u64::from(sizes[i]) {
                self.rep.error(
                    ix.span,
                    format!(
                        "index {} is out of range for {kind} `{}` (size {})",
                        ix.value, names[i], sizes[i]
                    ),
                );
                return None;
            }
            idx = ix.value as u32;
        }
        Some((names[i].to_string(), idx))
    }

    fn ports(&mut self, ports: &[Int]) -> Option<Vec<Port>> {
        let v: Vec<Option<u32>> = ports.iter().map(|p| u32_of(&mut self.rep, *p, "port")).collect();
        v.into_iter().collect()
    }

    fn node(&mut self, node: Int) -> Option<u32> {
        if node.value >= u64::from(self.mc_nodes) {
            let mut d = self.rep.make(
                node.span,
                format!("node handle {} has not been created yet", node.value),
            );
            d.note = Some(format!(
                "handles are numbered 0, 1, 2, ... in `mc_node_create` order; {} created so far",
                self.mc_nodes
            ));
            self.rep.push(d);
            return None;
        }
        Some(node.value as u32)
    }

    fn stmt(&mut self, line: u32, kind: &StmtKind) -> Option<Op> {
        let op = match kind {
            StmtKind::Packet { port, data } => Op::Packet {
                port: port.value as u32,
                data: data.clone(),
            },
            StmtKind::Expect { .. } => Op::Expect,
            StmtKind::Add {
                table,
                priority,
                keys,
                action,
                label,
            } => return self.add(table, *priority, keys, action, label.as_ref(), line),
            StmtKind::SetDefault { table, action } => {
                let t = self.table(table)?;
                if t.const_default_action {
                    self.rep.error(
                        table.span,
                        format!(
                            "the default action of table `{}` is `const`; it cannot be changed",
                            t.name
                        ),
                    );
                    return None;
                }
                let action = self.action(t, action, true)?;
                Op::SetDefault {
                    table: t.name.clone(),
                    action,
                }
            }
            StmtKind::RemoveAll => Op::RemoveAll,
            StmtKind::CheckCounter { counter, cell, cond } => return self.check_counter(counter, cell, *cond),
            StmtKind::Wait => Op::Wait,
            StmtKind::NoPacket => Op::NoPacket,
            StmtKind::MirroringAdd { session, port } => Op::MirroringAdd {
                session: u32_of(&mut self.rep, *session, "session id")?,
                port: u32_of(&mut self.rep, *port, "port")?,
            },
            StmtKind::MirroringAddMc { session, mgrp } => Op::MirroringAddMc {
                session: u32_of(&mut self.rep, *session, "session id")?,
                mgrp: u32_of(&mut self.rep, *mgrp, "multicast group")?,
            },
            StmtKind::MirroringDelete { session } => Op::MirroringDelete {
                session: u32_of(&mut self.rep, *session, "session id")?,
            },
            StmtKind::MirroringGet { session } => Op::MirroringGet {
                session: u32_of(&mut self.rep, *session, "session id")?,
            },
            StmtKind::McMgrpCreate { mgrp } => Op::McMgrpCreate {
                mgrp: u32_of(&mut self.rep, *mgrp, "multicast group")?,
            },
            StmtKind::McNodeCreate { rid, ports } => {
                // Count the node even if its operands are bad, so later
                // handles keep their numbers.
                self.mc_nodes += 1;
                let rid = u32_of(&mut self.rep, *rid, "replication id");
                let ports = self.ports(ports);
                Op::McNodeCreate {
                    rid: rid?,
                    ports: ports?,
                }
            }
            StmtKind::McNodeUpdate { node, ports } => {
                let node = self.node(*node);
                let ports = self.ports(ports);
                Op::McNodeUpdate {
                    node: node?,
                    ports: ports?,
                }
            }
            StmtKind::McNodeAssociate { mgrp, node } => {
                let mgrp = u32_of(&mut self.rep, *mgrp, "multicast group");
                let node = self.node(*node);
                Op::McNodeAssociate {
                    mgrp: mgrp?,
                    node: node?,
                }
            }
            StmtKind::CounterRead { name, index } => {
                let (name, index) = self.extern_cell("counter", name, Some(*index))?;
                Op::CounterRead { name, index }
            }
            StmtKind::CounterWrite {
                name,
                index,
                packets,
                bytes,
            } => {
                let (name, index) = self.extern_cell("counter", name, Some(*index))?;
                Op::CounterWrite {
                    name,
                    index,
                    packets: packets.value,
                    bytes: bytes.value,
                }
            }
            StmtKind::RegisterRead { name, index } => {
                let (name, index) = self.extern_cell("register", name, Some(*index))?;
                Op::RegisterRead { name, index }
            }
            StmtKind::RegisterWrite { name, index, value } => {
                let (rname, index) = self.extern_cell("register", name, Some(*index))?;
                let width = self
                    .schema
                    .registers
                    .iter()
                    .find(|r| r.name == rname)
                    .map_or(0, |r| r.width);
                let what = format!("{width}-bit cell of register `{rname}`");
                match value::encode_plain(value, width, &what) {
                    Ok(v) => Op::RegisterWrite {
                        name: rname,
                        index,
                        value: v,
                    },
                    Err(e) => {
                        self.encode_err(value.span, e);
                        return None;
                    }
                }
            }
            StmtKind::RegisterReset { name } => Op::RegisterReset {
                name: self.extern_cell("register", name, None)?.0,
            },
            StmtKind::MeterGetRates { name, index } => {
                let (name, index) = self.extern_cell("meter", name, Some(*index))?;
                Op::MeterGetRates { name, index }
            }
            StmtKind::MeterSetRates { name, index, rates } => {
                let (name, index) = self.extern_cell("meter", name, Some(*index))?;
                Op::MeterSetRates {
                    name,
                    cells: MeterCells::Index(index),
                    rates: meter_rates(rates),
                }
            }
            StmtKind::MeterArraySetRates { name, rates } => {
                let (name, _) = self.extern_cell("meter", name, None)?;
                Op::MeterSetRates {
                    name,
                    cells: MeterCells::All,
                    rates: meter_rates(rates),
                }
            }
            StmtKind::AdvanceTime { ns } => Op::AdvanceTime { ns: *ns },
            StmtKind::Background { name, n } => Op::Background {
                name: name.text.clone(),
                n: *n,
            },
            StmtKind::ActProfCreateMember { .. }
            | StmtKind::ActProfCreateGroup { .. }
            | StmtKind::ActProfAddMemberToGroup { .. }
            | StmtKind::AddIndirect { .. } => return self.act_prof_stmt(kind),
        };
        Some(op)
    }
}

fn meter_rates(rates: &[ast::RateBurst]) -> Vec<MeterRate> {
    rates
        .iter()
        .map(|r| MeterRate {
            rate_per_us: r.rate,
            burst: r.burst,
        })
        .collect()
}

fn key_value_span(v: &KeyValue) -> Span {
    match v {
        KeyValue::Num {
            num,
            prefix_len: Some(l),
        } => num.span.to(l.span),
        KeyValue::Num { num, prefix_len: None } => num.span,
        KeyValue::Range { lo, hi } => lo.span.to(hi.span),
        KeyValue::Wildcard(s) => *s,
    }
}

/// Resolve and encode every statement of `script` against `schema`.
/// Reports every error found.
pub fn compile(script: &Script, schema: &ProgramSchema) -> Result<Plan, Diagnostics> {
    let mut cx = Cx {
        schema,
        rep: Reporter::new(&script.file, &script.lines),
        labels: HashMap::new(),
        mc_nodes: 0,
        ap_handles: HashMap::new(),
    };
    let mut steps = Vec::new();
    let mut expectations: BTreeMap<Port, Vec<Expectation>> = BTreeMap::new();
    let mut mentioned_ports = BTreeSet::new();
    for stmt in &script.stmts {
        match &stmt.kind {
            StmtKind::Packet { port, .. } => {
                mentioned_ports.insert(port.value as u32);
            }
            StmtKind::Expect { port, pattern } => {
                mentioned_ports.insert(port.value as u32);
                expectations.entry(port.value as u32).or_default().push(Expectation {
                    line: stmt.line,
                    pattern: pattern.clone(),
                });
            }
            _ => {}
        }
        if let Some(op) = cx.stmt(stmt.line, &stmt.kind) {
            let text = script
                .lines
                .get(stmt.line as usize - 1)
                .map(|l| l.trim().to_string())
                .unwrap_or_default();
            steps.push(PlanStep {
                line: stmt.line,
                text,
                op,
            });
        }
    }
    if cx.rep.has_errors() {
        return Err(Diagnostics(cx.rep.diags));
    }
    Ok(Plan {
        file: script.file.clone(),
        steps,
        expectations,
        mentioned_ports,
    })
}
