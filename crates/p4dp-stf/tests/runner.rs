//! Runner tests with a toy in-memory target.
//!
//! The toy "program": table `ingress.fwd` matches the first byte of the
//! packet exactly; action `ingress.send(port)` sends the packet to `port`,
//! the default action echoes it to `ingress_port + 1`. Indexed counter
//! `ingress.in_ctr` counts packets per ingress port; direct counter
//! `ingress.fwd_ctr` counts hits per entry. A packet whose first byte is
//! 0xEE is sent to every port of multicast group 1.

use std::collections::HashMap;

use p4dp_stf::*;

#[derive(Default)]
struct Toy {
    next_handle: u64,
    /// handle → (first byte, port)
    entries: HashMap<EntryHandle, (u8, Port)>,
    direct: HashMap<EntryHandle, CounterValue>,
    in_ctr: HashMap<u32, CounterValue>,
    default_port: Option<Port>,
    registers: HashMap<u32, Vec<u8>>,
    groups: HashMap<u32, Vec<McNodeHandle>>,
    nodes: HashMap<McNodeHandle, Vec<Port>>,
    clock_ns: u64,
    calls: Vec<String>,
    /// Make `inject` fail (to test statement errors).
    fail_inject: bool,
}

fn port_of(arg: &[u8]) -> Port {
    arg.iter().fold(0u32, |a, b| (a << 8) | u32::from(*b))
}

impl Target for Toy {
    fn add_entry(
        &mut self,
        table: &str,
        m: &[KeyFieldMatch],
        priority: Option<u32>,
        a: &ActionCall,
    ) -> Result<EntryHandle, TargetError> {
        assert_eq!(table, "ingress.fwd");
        assert_eq!(priority, None);
        let FieldMatch::Exact(k) = &m[0].m else {
            return Err(TargetError::Failed("bad match".into()));
        };
        if self.entries.values().any(|(b, _)| *b == k[0]) {
            return Err(TargetError::Failed("duplicate entry".into()));
        }
        self.next_handle += 1;
        let h = EntryHandle(self.next_handle);
        self.entries.insert(h, (k[0], port_of(&a.args[0])));
        self.calls.push(format!("add {}", h.0));
        Ok(h)
    }

    fn set_default(&mut self, _table: &str, a: &ActionCall) -> Result<(), TargetError> {
        self.default_port = Some(port_of(&a.args[0]));
        Ok(())
    }

    fn clear_entries(&mut self, table: &str, entries: &[EntryHandle]) -> Result<(), TargetError> {
        self.calls.push(format!(
            "clear {table} {:?}",
            entries.iter().map(|h| h.0).collect::<Vec<_>>()
        ));
        for h in entries {
            self.entries.remove(h);
        }
        self.default_port = None;
        Ok(())
    }

    fn inject(&mut self, port: Port, data: &[u8]) -> Result<Vec<(Port, Vec<u8>)>, TargetError> {
        if self.fail_inject {
            return Err(TargetError::Failed("the packet crashed the toy".into()));
        }
        let c = self.in_ctr.entry(port).or_default();
        c.packets += 1;
        c.bytes += data.len() as u64;
        if data.first() == Some(&0xEE) {
            let mut out = Vec::new();
            for n in self.groups.get(&1).cloned().unwrap_or_default() {
                for p in &self.nodes[&n] {
                    out.push((*p, data.to_vec()));
                }
            }
            return Ok(out);
        }
        let hit = self
            .entries
            .iter()
            .find(|(_, (b, _))| Some(b) == data.first())
            .map(|(h, e)| (*h, e.1));
        let out_port = match hit {
            Some((h, p)) => {
                let d = self.direct.entry(h).or_default();
                d.packets += 1;
                d.bytes += data.len() as u64;
                p
            }
            None => self.default_port.unwrap_or(port + 1),
        };
        Ok(vec![(out_port, data.to_vec())])
    }

    fn counter_read(&mut self, name: &str, cell: CounterCell) -> Result<CounterValue, TargetError> {
        match cell {
            CounterCell::Index(i) => {
                assert_eq!(name, "ingress.in_ctr");
                Ok(self.in_ctr.get(&i).copied().unwrap_or_default())
            }
            CounterCell::Entry(h) => {
                assert_eq!(name, "ingress.fwd_ctr");
                Ok(self.direct.get(&h).copied().unwrap_or_default())
            }
        }
    }

    fn counter_write(&mut self, _name: &str, index: u32, value: CounterValue) -> Result<(), TargetError> {
        self.in_ctr.insert(index, value);
        Ok(())
    }

    fn register_read(&mut self, _name: &str, index: u32) -> Result<Vec<u8>, TargetError> {
        Ok(self.registers.get(&index).cloned().unwrap_or(vec![0; 2]))
    }

    fn register_write(&mut self, _name: &str, index: u32, value: &[u8]) -> Result<(), TargetError> {
        self.registers.insert(index, value.to_vec());
        Ok(())
    }

    fn register_reset(&mut self, _name: &str) -> Result<(), TargetError> {
        self.registers.clear();
        Ok(())
    }

    fn meter_set_rates(&mut self, name: &str, cells: MeterCells, rates: &[MeterRate]) -> Result<(), TargetError> {
        self.calls.push(format!("meter {name} {cells:?} {rates:?}"));
        Ok(())
    }

    fn mirroring_add(&mut self, session: u32, port: Port) -> Result<(), TargetError> {
        self.calls.push(format!("mirror {session} {port}"));
        Ok(())
    }

    fn mirroring_add_mc(&mut self, session: u32, mgrp: u32) -> Result<(), TargetError> {
        self.calls.push(format!("mirror_mc {session} {mgrp}"));
        Ok(())
    }

    fn mirroring_delete(&mut self, session: u32) -> Result<(), TargetError> {
        self.calls.push(format!("mirror_del {session}"));
        Ok(())
    }

    fn mc_mgrp_create(&mut self, mgrp: u32) -> Result<(), TargetError> {
        self.groups.insert(mgrp, Vec::new());
        Ok(())
    }

    fn mc_node_create(&mut self, _rid: u32, ports: &[Port]) -> Result<McNodeHandle, TargetError> {
        // Deliberately not 0, 1, 2: the runner must map STF handles.
        let h = McNodeHandle(100 + self.nodes.len() as u64);
        self.nodes.insert(h, ports.to_vec());
        Ok(h)
    }

    fn mc_node_associate(&mut self, mgrp: u32, node: McNodeHandle) -> Result<(), TargetError> {
        self.groups
            .get_mut(&mgrp)
            .ok_or_else(|| TargetError::Failed(format!("no group {mgrp}")))?
            .push(node);
        self.calls.push(format!("assoc {mgrp} {}", node.0));
        Ok(())
    }

    fn advance_time(&mut self, ns: u64) -> Result<(), TargetError> {
        self.clock_ns += ns;
        Ok(())
    }
}

fn schema() -> ProgramSchema {
    ProgramSchema {
        tables: vec![TableSchema {
            name: "ingress.fwd".into(),
            keys: vec![KeyFieldSchema {
                name: "hdr.b0".into(),
                match_kind: MatchKind::Exact,
                width: 8,
            }],
            actions: vec![ActionRefSchema {
                name: "ingress.send".into(),
                scope: ActionScope::TableAndDefault,
            }],
            const_default_action: false,
            const_entries: false,
            needs_priority: false,
        }],
        actions: vec![ActionSchema {
            name: "ingress.send".into(),
            params: vec![ParamSchema {
                name: "port".into(),
                width: 9,
            }],
        }],
        counters: vec![CounterSchema {
            name: "ingress.in_ctr".into(),
            size: 16,
            unit: CounterUnit::PacketsAndBytes,
        }],
        direct_counters: vec![DirectCounterSchema {
            name: "ingress.fwd_ctr".into(),
            table: "ingress.fwd".into(),
            unit: CounterUnit::PacketsAndBytes,
        }],
        registers: vec![RegisterSchema {
            name: "ingress.r".into(),
            size: 4,
            width: 16,
        }],
        meters: vec![MeterSchema {
            name: "ingress.m".into(),
            size: 4,
        }],
        action_profiles: vec![],
    }
}

fn run_on(toy: &mut Toy, text: &str) -> Outcome {
    let plan = load("t.stf", text, &schema()).unwrap_or_else(|d| panic!("{d}"));
    run(&plan, toy)
}

fn run_text(text: &str) -> Outcome {
    run_on(&mut Toy::default(), text)
}

fn port_failure(o: &Outcome, port: Port) -> &PortFailure {
    o.failures
        .iter()
        .find_map(|f| match f {
            Failure::Port(p) if p.port == port => Some(p),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no failure on port {port}: {o}"))
}

#[test]
fn passes_echo_and_prefix_match() {
    let o = run_text("expect 1 0a0b 0c\npacket 0 0a0b0c0d\npacket 3 ff\nexpect 4 ff$\n");
    assert!(o.passed(), "{o}");
    assert!(o.warnings.is_empty());
    assert_eq!(o.received.len(), 2);
    assert_eq!(
        o.received[0],
        ReceivedPacket {
            port: 1,
            data: vec![10, 11, 12, 13],
            from_line: 2
        }
    );
    assert!(
        o.to_string()
            .starts_with("PASS: t.stf (0 failures, 0 warnings, 2 packets received)"),
        "{o}"
    );
}

#[test]
fn empty_script_passes() {
    let o = run_text("# nothing\n");
    assert!(o.passed());
    assert_eq!(o.steps_run, 0);
}

#[test]
fn wildcards_and_any_packet() {
    assert!(run_text("packet 0 0a0b0c0d\nexpect 1 0*0b**0d$\n").passed());
    assert!(run_text("packet 0 0a0b\nexpect 1\n").passed());
    let o = run_text("packet 0 0a0b\nexpect 1 1*\n");
    assert!(!o.passed());
}

#[test]
fn count_mismatch_missing_packet() {
    let o = run_text("packet 0 0102\nexpect 1 0102\nexpect 1 0304\n");
    assert!(!o.passed());
    assert_eq!(o.failures.len(), 1);
    let f = port_failure(&o, 1);
    assert_eq!(f.pairs, vec![PairStatus::Match, PairStatus::Missing]);
    let r = o.to_string();
    assert!(r.contains("port 1: expected 2 packets, received 1"), "{r}");
    assert!(
        r.contains("packet 2: expected but not received (expect at line 3)"),
        "{r}"
    );
}

#[test]
fn count_mismatch_extra_packet() {
    // Two packets go from port 0 to port 1, which expects only one.
    let o = run_text("packet 0 01\npacket 0 02\nexpect 1 01\n");
    let f = port_failure(&o, 1);
    assert_eq!(f.pairs, vec![PairStatus::Match, PairStatus::Unexpected]);
    assert_eq!(f.received[1].from_line, 2);
    assert!(o
        .to_string()
        .contains("packet 2: received but not expected (packet from line 2)"));
    // A port mentioned only by `packet` must receive nothing.
    let o = run_text("packet 1 01\npacket 0 02\n");
    let f = port_failure(&o, 1);
    assert_eq!(f.expected.len(), 0);
    assert_eq!(f.pairs, vec![PairStatus::Unexpected]);
}

#[test]
fn byte_mismatch_report() {
    let o = run_text("expect 1 00000101 ******** **** 7f 66\npacket 0 00000101 00000202 0303 55 66 7777 88 00\n");
    let f = port_failure(&o, 1);
    match &f.pairs[0] {
        PairStatus::Mismatch { nibbles, reason } => {
            assert_eq!(nibbles, &vec![20, 21]);
            assert_eq!(reason, "2 nibbles differ");
        }
        p => panic!("{p:?}"),
    }
    let expected = "\
port 1: 1 packet of 1 differ
  packet 1: 2 nibbles differ (expect at line 1, packet from line 2)
      exp 0000: 00000101 ******** ****7F66
      got 0000: 00000101 00000202 03035566 77778800
                                      ^^
FAIL: t.stf (1 failure, 0 warnings, 1 packet received)";
    assert_eq!(o.to_string(), expected);
}

#[test]
fn exact_length_dollar() {
    assert!(run_text("packet 0 0102\nexpect 1 0102$\n").passed());
    let o = run_text("packet 0 010203\nexpect 1 0102$\n");
    match &port_failure(&o, 1).pairs[0] {
        PairStatus::Mismatch { nibbles, reason } => {
            assert_eq!(nibbles, &vec![4, 5]);
            assert_eq!(reason, "received 3 bytes, but the pattern ends in `$` at 2 bytes");
        }
        p => panic!("{p:?}"),
    }
    // Without `$`, trailing bytes are fine; a shorter packet is not.
    assert!(run_text("packet 0 010203\nexpect 1 0102\n").passed());
    assert!(!run_text("packet 0 01\nexpect 1 0102\n").passed());
}

#[test]
fn order_within_port_is_checked_across_ports_not() {
    // Expectation placement relative to packets does not matter.
    assert!(run_text("expect 2 bb\nexpect 1 aa\npacket 0 aa\npacket 1 bb\n").passed());
    // But order within one port does.
    let o = run_text("expect 1 bb\nexpect 1 aa\npacket 0 aa\npacket 0 bb\n");
    let f = port_failure(&o, 1);
    assert!(matches!(f.pairs[0], PairStatus::Mismatch { .. }));
    assert!(matches!(f.pairs[1], PairStatus::Mismatch { .. }));
}

#[test]
fn unmentioned_port_is_a_warning() {
    let o = run_text("add fwd hdr.b0:0x07 send(port:9)\npacket 0 0701\n");
    assert!(o.passed(), "{o}");
    assert_eq!(
        o.warnings,
        vec![Warning::UnmentionedPort(ReceivedPacket {
            port: 9,
            data: vec![7, 1],
            from_line: 2
        })]
    );
    let r = o.to_string();
    assert!(r.contains("warning: a packet left on port 9, which no `packet` or `expect` statement mentions (from the packet at line 2)"), "{r}");
    assert!(r.contains("got 0000: 0701"), "{r}");
}

#[test]
fn entries_take_effect_in_file_order() {
    let o = run_text("packet 0 07\nadd fwd b0:7 send(port:5)\npacket 0 07\nexpect 1 07\nexpect 5 07\n");
    assert!(o.passed(), "{o}");
    let o = run_text("setdefault fwd send(port:3)\npacket 0 01\nexpect 3 01\n");
    assert!(o.passed(), "{o}");
}

#[test]
fn check_counter_pass_and_fail() {
    let text = "check_counter in_ctr(0)\n\
                packet 0 0102\npacket 0 03\nwait\n\
                check_counter in_ctr(0) packets == 2\n\
                check_counter in_ctr(0) bytes == 3\n\
                check_counter in_ctr(1)\n\
                expect 1 0102\nexpect 1 03\n";
    let o = run_text(text);
    assert!(o.passed(), "{o}");
    let o = run_text("packet 0 0102\ncheck_counter in_ctr(0) packets > 1\ncheck_counter in_ctr(0)\nexpect 1 0102\n");
    assert_eq!(o.failures.len(), 2, "{o}");
    match &o.failures[0] {
        Failure::CounterCheck { line, message, .. } => {
            assert_eq!(*line, 2);
            assert_eq!(
                message,
                "ingress.in_ctr[0]: expected packets > 1; the counter has packets = 1, bytes = 2"
            );
        }
        f => panic!("{f:?}"),
    }
    // The default condition `== 0` covers both packets and bytes.
    match &o.failures[1] {
        Failure::CounterCheck { line: 3, message, .. } => {
            assert_eq!(
                message,
                "ingress.in_ctr[0]: expected packets == 0 and bytes == 0; the counter has packets = 1, bytes = 2"
            )
        }
        f => panic!("{f:?}"),
    }
    assert!(o
        .to_string()
        .contains("t.stf:2: check_counter failed: ingress.in_ctr[0]: expected packets > 1;"));
}

#[test]
fn check_counter_by_label() {
    let text = "add fwd b0:7 send(port:5) = A\nadd fwd b0:8 send(port:5) = B\n\
                packet 0 07\npacket 0 07ff\n\
                check_counter fwd_ctr($A) packets == 2\ncheck_counter fwd_ctr($A) bytes == 3\ncheck_counter fwd_ctr($B)\n\
                expect 5 07\nexpect 5 07\n";
    assert!(run_text(text).passed());
    let o = run_text("add fwd b0:7 send(port:5) = A\ncheck_counter fwd_ctr($A) packets == 1\n");
    assert!(!o.passed());
}

#[test]
fn remove_all_restores_state() {
    let mut toy = Toy::default();
    let text = "add fwd b0:7 send(port:5) = A\nadd fwd b0:8 send(port:6)\nsetdefault fwd send(port:9)\n\
                packet 0 07\nremove all\npacket 0 07\npacket 0 08\n\
                add fwd b0:7 send(port:6)\npacket 0 07\n\
                expect 5 07\nexpect 1 07\nexpect 1 08\nexpect 6 07\n";
    let o = run_on(&mut toy, text);
    assert!(o.passed(), "{o}");
    assert_eq!(toy.calls, vec!["add 1", "add 2", "clear ingress.fwd [1, 2]", "add 3"]);
    // A label removed by `remove all` cannot be checked any more.
    let o = run_text("add fwd b0:7 send(port:5) = A\nremove all\ncheck_counter fwd_ctr($A)\n");
    match &o.failures[..] {
        [Failure::Statement { line: 3, message, .. }] => {
            assert_eq!(message, "entry `A` was removed by `remove all` at line 2")
        }
        f => panic!("{f:?}"),
    }
    // Re-adding the same key after removal works (the toy rejects duplicates).
    assert!(run_text("add fwd b0:7 send(port:5)\nremove all\nadd fwd b0:7 send(port:5)\n").passed());
}

#[test]
fn target_error_stops_the_run() {
    let o = run_text("add fwd b0:7 send(port:5)\nadd fwd b0:7 send(port:6)\npacket 0 07\nexpect 5 07\n");
    assert!(!o.passed());
    assert!(!o.completed);
    assert_eq!(o.steps_run, 2);
    assert_eq!(
        o.failures,
        vec![Failure::Statement {
            line: 2,
            text: "add fwd b0:7 send(port:6)".into(),
            message: "adding the entry failed: duplicate entry".into()
        }]
    );
    let r = o.to_string();
    assert!(
        r.starts_with("t.stf:2: error: adding the entry failed: duplicate entry\n      add fwd b0:7 send(port:6)\n"),
        "{r}"
    );
    assert!(
        r.ends_with("FAIL: t.stf (1 failure, 0 warnings, 0 packets received, stopped after 2 statements)"),
        "{r}"
    );
    let mut toy = Toy {
        fail_inject: true,
        ..Default::default()
    };
    let o = run_on(&mut toy, "packet 0 00\n");
    assert!(
        matches!(&o.failures[0], Failure::Statement { message, .. } if message == "processing the packet failed: the packet crashed the toy")
    );
}

#[test]
fn multicast_handles_are_mapped() {
    let mut toy = Toy::default();
    let text =
        "mc_mgrp_create 1\nmc_node_create 0 2 3\nmc_node_create 1 4\nmc_node_associate 1 1\nmc_node_associate 1 0\n\
                packet 0 ee01\nexpect 4 ee01\nexpect 2 ee01\nexpect 3 ee01\n";
    let o = run_on(&mut toy, text);
    assert!(o.passed(), "{o}");
    assert_eq!(toy.calls, vec!["assoc 1 101", "assoc 1 100"]);
    // Copies arrive in association order.
    let ports: Vec<Port> = o.received.iter().map(|r| r.port).collect();
    assert_eq!(ports, vec![4, 2, 3]);
}

#[test]
fn other_commands_reach_the_target() {
    let mut toy = Toy::default();
    let text = "register_write ingress.r 2 0x1234\nregister_read ingress.r 2\ncounter_write ingress.in_ctr 3 5 50\ncounter_read ingress.in_ctr 3\n\
                meter_set_rates ingress.m 1 0.5:10 1:20\nmeter_array_set_rates ingress.m 2:3\nmeter_get_rates ingress.m 0\n\
                mirroring_add 5 4\nmirroring_add_mc 6 1\nmirroring_get 5\nmirroring_delete 5\n\
                advance_time 2ms\nadvance_time 5us\nno_packet\nmc_mgrp_create 1\nmc_node_create 0 1\nmc_node_update 0 2\n";
    let o = run_on(&mut toy, text);
    // mc_node_update is not implemented by the toy: the default method reports it.
    assert_eq!(
        o.failures,
        vec![Failure::Statement {
            line: 17,
            text: "mc_node_update 0 2".into(),
            message: "mc_node_update failed: not supported by this target: mc_node_update".into()
        }]
    );
    assert_eq!(toy.registers[&2], vec![0x12, 0x34]);
    assert_eq!(toy.in_ctr[&3], CounterValue { packets: 5, bytes: 50 });
    assert_eq!(toy.clock_ns, 2_005_000);
    assert_eq!(
        o.log,
        vec![
            (2, "ingress.r[2] = 0x1234".to_string()),
            (4, "ingress.in_ctr[3] = 5 packets, 50 bytes".to_string()),
            (
                7,
                "meter_get_rates ingress.m 0: not supported by this target: meter_get_rates".to_string()
            ),
            (
                10,
                "mirroring_get 5: not supported by this target: mirroring_get".to_string()
            ),
        ]
    );
    assert_eq!(
        toy.calls,
        vec![
            "meter ingress.m Index(1) [MeterRate { rate_per_us: 0.5, burst: 10 }, MeterRate { rate_per_us: 1.0, burst: 20 }]",
            "meter ingress.m All [MeterRate { rate_per_us: 2.0, burst: 3 }]",
            "mirror 5 4",
            "mirror_mc 6 1",
            "mirror_del 5",
        ]
    );
}
