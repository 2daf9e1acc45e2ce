//! Executing a [`Plan`] on a [`Target`] (docs/stf.md, "What p4dp decides") and
//! judging the result (docs/stf.md, "Pass or fail").
//!
//! Statements run strictly in file order. Each `packet` is processed to
//! completion by [`Target::inject`] before the next statement, so `wait` is a
//! no-op barrier. `check_counter` is a real assertion. A statement the target
//! rejects stops the run (later statements would run against the wrong
//! state) and fails the test; output is then not compared.

use std::collections::{BTreeMap, HashMap};

use crate::ast::CounterUnitSel;
use crate::compile::{CheckCell, Expectation, Op, Plan, PlanStep};
use crate::report;
use crate::schema::CounterUnit;
use crate::target::{CounterCell, CounterValue, EntryHandle, McNodeHandle, Port, Target, TargetError};

/// A packet that left the target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReceivedPacket {
    pub port: Port,
    pub data: Vec<u8>,
    /// Line of the `packet` statement that caused it.
    pub from_line: u32,
}

/// How one (expected, received) pair on a port compared.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PairStatus {
    Match,
    /// Nibble positions that differ (or are missing/extra), and why.
    Mismatch {
        nibbles: Vec<usize>,
        reason: String,
    },
    /// Expected, but fewer packets arrived.
    Missing,
    /// Arrived, but there are fewer expectations.
    Unexpected,
}

/// Everything about one port whose output did not match.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PortFailure {
    pub port: Port,
    pub expected: Vec<Expectation>,
    pub received: Vec<ReceivedPacket>,
    /// One status per index `0..max(expected, received)`.
    pub pairs: Vec<PairStatus>,
}

/// Why a test failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Failure {
    /// The target rejected a statement; the run stopped there.
    Statement { line: u32, text: String, message: String },
    /// A `check_counter` assertion did not hold.
    CounterCheck { line: u32, text: String, message: String },
    /// A port's output did not match its expectations (count or content).
    Port(PortFailure),
}

/// Something worth knowing that does not fail the test.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Warning {
    /// A packet left on a port no `packet`/`expect` statement mentions
    /// (invisible to the reference runner, docs/stf.md, "Pass or fail").
    UnmentionedPort(ReceivedPacket),
}

/// The result of running one STF script.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    pub file: String,
    pub failures: Vec<Failure>,
    pub warnings: Vec<Warning>,
    /// Output of read-type commands (`counter_read`, `register_read`, ...),
    /// as `(line, text)`.
    pub log: Vec<(u32, String)>,
    /// Every packet the target emitted, in emission order.
    pub received: Vec<ReceivedPacket>,
    /// Number of statements executed.
    pub steps_run: usize,
    /// False if a statement error stopped the run early.
    pub completed: bool,
}

impl Outcome {
    pub fn passed(&self) -> bool {
        self.failures.is_empty()
    }
}

/// Run-time state of one execution.
struct Run<'t, T: Target> {
    target: &'t mut T,
    /// label → (handle, Some(line) once removed by `remove all`)
    labels: HashMap<String, (EntryHandle, Option<u32>)>,
    /// table → entries added since the last `remove all`
    added: BTreeMap<String, Vec<EntryHandle>>,
    /// STF node handle n → target handle
    nodes: Vec<McNodeHandle>,
    outcome: Outcome,
}

/// Run `plan` on `target` and judge the output.
pub fn run<T: Target>(plan: &Plan, target: &mut T) -> Outcome {
    let mut r = Run {
        target,
        labels: HashMap::new(),
        added: BTreeMap::new(),
        nodes: Vec::new(),
        outcome: Outcome {
            file: plan.file.clone(),
            failures: Vec::new(),
            warnings: Vec::new(),
            log: Vec::new(),
            received: Vec::new(),
            steps_run: 0,
            completed: true,
        },
    };
    for step in &plan.steps {
        r.outcome.steps_run += 1;
        if let Err(message) = r.step(step) {
            r.outcome.failures.push(Failure::Statement {
                line: step.line,
                text: step.text.clone(),
                message,
            });
            r.outcome.completed = false;
            return r.outcome;
        }
    }
    let mut outcome = r.outcome;
    check_outputs(plan, &mut outcome);
    outcome
}

fn terr(what: &str, e: TargetError) -> String {
    format!("{what} failed: {e}")
}

impl<'t, T: Target> Run<'t, T> {
    fn log(&mut self, line: u32, text: String) {
        self.outcome.log.push((line, text));
    }

    fn node(&self, stf_handle: u32) -> Result<McNodeHandle, String> {
        self.nodes
            .get(stf_handle as usize)
            .copied()
            .ok_or_else(|| format!("multicast node {stf_handle} was not created (its `mc_node_create` failed)"))
    }

    fn step(&mut self, step: &PlanStep) -> Result<(), String> {
        let line = step.line;
        match &step.op {
            Op::Packet { port, data } => {
                let out = self
                    .target
                    .inject(*port, data)
                    .map_err(|e| terr("processing the packet", e))?;
                for (p, d) in out {
                    self.outcome.received.push(ReceivedPacket {
                        port: p,
                        data: d,
                        from_line: line,
                    });
                }
            }
            Op::Expect | Op::Wait | Op::NoPacket => {}
            Op::Add {
                table,
                matches,
                priority,
                action,
                label,
            } => {
                let h = self
                    .target
                    .add_entry(table, matches, *priority, action)
                    .map_err(|e| terr("adding the entry", e))?;
                self.added.entry(table.clone()).or_default().push(h);
                if let Some(l) = label {
                    self.labels.insert(l.clone(), (h, None));
                }
            }
            Op::SetDefault { table, action } => {
                self.target
                    .set_default(table, action)
                    .map_err(|e| terr("setting the default action", e))?;
                self.added.entry(table.clone()).or_default();
            }
            Op::RemoveAll => {
                let added = std::mem::take(&mut self.added);
                for (table, handles) in &added {
                    self.target
                        .clear_entries(table, handles)
                        .map_err(|e| terr(&format!("removing the entries of table `{table}`"), e))?;
                }
                for (_, removed) in self.labels.values_mut() {
                    removed.get_or_insert(line);
                }
            }
            Op::CheckCounter {
                counter,
                cell,
                checks,
                unit,
            } => {
                let (cell_desc, tcell) = match cell {
                    CheckCell::Index(i) => (format!("{counter}[{i}]"), CounterCell::Index(*i)),
                    CheckCell::Label(l) => {
                        let Some((h, removed)) = self.labels.get(l) else {
                            return Err(format!("entry `{l}` was never added (its `add` failed)"));
                        };
                        if let Some(at) = removed {
                            return Err(format!("entry `{l}` was removed by `remove all` at line {at}"));
                        }
                        (format!("{counter}(${l})"), CounterCell::Entry(*h))
                    }
                };
                let v = self
                    .target
                    .counter_read(counter, tcell)
                    .map_err(|e| terr("reading the counter", e))?;
                let failed = checks.iter().any(|(unit, op, want)| {
                    let got = if *unit == CounterUnitSel::Packets {
                        v.packets
                    } else {
                        v.bytes
                    };
                    !op.holds(got, *want)
                });
                if failed {
                    let conds: Vec<String> = checks
                        .iter()
                        .map(|(u, op, want)| {
                            format!(
                                "{} {} {want}",
                                if *u == CounterUnitSel::Packets {
                                    "packets"
                                } else {
                                    "bytes"
                                },
                                op.text()
                            )
                        })
                        .collect();
                    let has = match unit {
                        CounterUnit::Packets => format!("packets = {}", v.packets),
                        CounterUnit::Bytes => format!("bytes = {}", v.bytes),
                        CounterUnit::PacketsAndBytes => format!("packets = {}, bytes = {}", v.packets, v.bytes),
                    };
                    self.outcome.failures.push(Failure::CounterCheck {
                        line,
                        text: step.text.clone(),
                        message: format!("{cell_desc}: expected {}; the counter has {has}", conds.join(" and ")),
                    });
                }
            }
            Op::MirroringAdd { session, port } => self
                .target
                .mirroring_add(*session, *port)
                .map_err(|e| terr("mirroring_add", e))?,
            Op::MirroringAddMc { session, mgrp } => self
                .target
                .mirroring_add_mc(*session, *mgrp)
                .map_err(|e| terr("mirroring_add_mc", e))?,
            Op::MirroringDelete { session } => self
                .target
                .mirroring_delete(*session)
                .map_err(|e| terr("mirroring_delete", e))?,
            Op::MirroringGet { session } => {
                let text = match self.target.mirroring_get(*session) {
                    Ok(s) => format!("mirroring session {session}: {s}"),
                    Err(e) => format!("mirroring_get {session}: {e}"),
                };
                self.log(line, text);
            }
            Op::McMgrpCreate { mgrp } => self
                .target
                .mc_mgrp_create(*mgrp)
                .map_err(|e| terr("mc_mgrp_create", e))?,
            Op::McNodeCreate { rid, ports } => {
                let h = self
                    .target
                    .mc_node_create(*rid, ports)
                    .map_err(|e| terr("mc_node_create", e))?;
                self.nodes.push(h);
            }
            Op::McNodeUpdate { node, ports } => {
                let h = self.node(*node)?;
                self.target
                    .mc_node_update(h, ports)
                    .map_err(|e| terr("mc_node_update", e))?
            }
            Op::McNodeAssociate { mgrp, node } => {
                let h = self.node(*node)?;
                self.target
                    .mc_node_associate(*mgrp, h)
                    .map_err(|e| terr("mc_node_associate", e))?
            }
            Op::CounterRead { name, index } => {
                let v = self
                    .target
                    .counter_read(name, CounterCell::Index(*index))
                    .map_err(|e| terr("counter_read", e))?;
                self.log(
                    line,
                    format!("{name}[{index}] = {} packets, {} bytes", v.packets, v.bytes),
                );
            }
            Op::CounterWrite {
                name,
                index,
                packets,
                bytes,
            } => self
                .target
                .counter_write(
                    name,
                    *index,
                    CounterValue {
                        packets: *packets,
                        bytes: *bytes,
                    },
                )
                .map_err(|e| terr("counter_write", e))?,
            Op::RegisterRead { name, index } => {
                let v = self
                    .target
                    .register_read(name, *index)
                    .map_err(|e| terr("register_read", e))?;
                self.log(line, format!("{name}[{index}] = 0x{}", report::hex(&v)));
            }
            Op::RegisterWrite { name, index, value } => self
                .target
                .register_write(name, *index, value)
                .map_err(|e| terr("register_write", e))?,
            Op::RegisterReset { name } => self
                .target
                .register_reset(name)
                .map_err(|e| terr("register_reset", e))?,
            Op::MeterGetRates { name, index } => {
                let text = match self.target.meter_get_rates(name, *index) {
                    Ok(rates) => {
                        let r: Vec<String> = rates.iter().map(|r| format!("{}:{}", r.rate_per_us, r.burst)).collect();
                        format!("{name}[{index}] rates: {}", r.join(" "))
                    }
                    Err(e) => format!("meter_get_rates {name} {index}: {e}"),
                };
                self.log(line, text);
            }
            Op::MeterSetRates { name, cells, rates } => self
                .target
                .meter_set_rates(name, *cells, rates)
                .map_err(|e| terr("setting meter rates", e))?,
            Op::AdvanceTime { ns } => self.target.advance_time(*ns).map_err(|e| terr("advance_time", e))?,
            Op::Background { name, n } => {
                let out = self
                    .target
                    .background(name, *n)
                    .map_err(|e| terr(&format!("running background pipeline `{name}`"), e))?;
                for (p, d) in out {
                    self.outcome.received.push(ReceivedPacket {
                        port: p,
                        data: d,
                        from_line: line,
                    });
                }
            }
            Op::ActProfCreateMember {
                profile,
                member,
                action,
            } => self
                .target
                .act_prof_create_member(profile, *member, action)
                .map_err(|e| terr("act_prof_create_member", e))?,
            Op::ActProfCreateGroup { profile, group } => self
                .target
                .act_prof_create_group(profile, *group)
                .map_err(|e| terr("act_prof_create_group", e))?,
            Op::ActProfAddMemberToGroup { profile, member, group } => self
                .target
                .act_prof_add_member_to_group(profile, *member, *group)
                .map_err(|e| terr("act_prof_add_member_to_group", e))?,
            Op::AddIndirect {
                table,
                matches,
                priority,
                group,
                id,
            } => {
                let h = self
                    .target
                    .add_indirect_entry(table, matches, *priority, *group, *id)
                    .map_err(|e| terr("adding the indirect entry", e))?;
                self.added.entry(table.clone()).or_default().push(h);
            }
        }
        Ok(())
    }
}

/// Compare received packets with the expectations (docs/stf.md, "Pass or fail") and record
/// failures and warnings in `outcome`.
fn check_outputs(plan: &Plan, outcome: &mut Outcome) {
    let mut by_port: BTreeMap<Port, Vec<ReceivedPacket>> = BTreeMap::new();
    for p in &outcome.received {
        if plan.mentioned_ports.contains(&p.port) {
            by_port.entry(p.port).or_default().push(p.clone());
        } else {
            outcome.warnings.push(Warning::UnmentionedPort(p.clone()));
        }
    }
    for &port in &plan.mentioned_ports {
        let expected = plan.expectations.get(&port).cloned().unwrap_or_default();
        let received = by_port.remove(&port).unwrap_or_default();
        let n = expected.len().max(received.len());
        let mut pairs = Vec::with_capacity(n);
        for i in 0..n {
            pairs.push(match (expected.get(i), received.get(i)) {
                (Some(e), Some(r)) => report::compare(e.pattern.as_ref(), &r.data),
                (Some(_), None) => PairStatus::Missing,
                (None, _) => PairStatus::Unexpected,
            });
        }
        if pairs.iter().any(|p| *p != PairStatus::Match) {
            outcome.failures.push(Failure::Port(PortFailure {
                port,
                expected,
                received,
                pairs,
            }));
        }
    }
}
