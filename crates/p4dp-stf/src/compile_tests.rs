//! Resolution and encoding tests through `compile` (docs/stf.md, names and key values).

use crate::compile::{CheckCell, CmpOp, CounterUnitSel, Op};
use crate::schema::*;
use crate::target::{ActionCall, FieldMatch, KeyFieldMatch, MeterCells, MeterRate};
use crate::{load, Plan};

fn key(name: &str, match_kind: MatchKind, width: u32) -> KeyFieldSchema {
    KeyFieldSchema {
        name: name.into(),
        match_kind,
        width,
    }
}

fn table(name: &str, keys: Vec<KeyFieldSchema>, actions: &[&str]) -> TableSchema {
    TableSchema {
        name: name.into(),
        needs_priority: TableSchema::keys_need_priority(&keys),
        keys,
        actions: actions
            .iter()
            .map(|a| ActionRefSchema {
                name: (*a).into(),
                scope: ActionScope::TableAndDefault,
            })
            .collect(),
        const_default_action: false,
        const_entries: false,
    }
}

fn action(name: &str, params: &[(&str, u32)]) -> ActionSchema {
    ActionSchema {
        name: name.into(),
        params: params
            .iter()
            .map(|(n, w)| ParamSchema {
                name: (*n).into(),
                width: *w,
            })
            .collect(),
    }
}

/// A schema shaped like p4c's ternary2-bmv2 plus a few more tables.
pub(crate) fn schema() -> ProgramSchema {
    let mut t2 = table("egress.t2", vec![key("meta.x", MatchKind::Exact, 8)], &["NoAction"]);
    t2.const_default_action = true;
    let mut ce = table("ingress.ce", vec![key("meta.x", MatchKind::Exact, 8)], &["NoAction"]);
    ce.const_entries = true;
    let mut ct = table(
        "ingress.c.t",
        vec![key("e", MatchKind::Exact, 8)],
        &["ingress.c.a", "NoAction", "ingress.only_default"],
    );
    ct.actions[2].scope = ActionScope::DefaultOnly;
    ProgramSchema {
        tables: vec![
            table(
                "ingress.test1",
                vec![key("hdrs.data.f1", MatchKind::Ternary, 32)],
                &["ingress.setb1", "ingress.noop"],
            ),
            table(
                "ingress.ex1",
                vec![key("hdrs.extra[0].h", MatchKind::Ternary, 16)],
                &["ingress.act1", "ingress.act2"],
            ),
            ct,
            table(
                "ingress.lpm_t",
                vec![
                    key("hdr.ipv4.dstAddr", MatchKind::Lpm, 32),
                    key("hdr.ipv4.$valid$", MatchKind::Exact, 1),
                ],
                &["ingress.setb1", "NoAction"],
            ),
            table(
                "ingress.rt",
                vec![
                    key("meta.port", MatchKind::Range, 16),
                    key("meta.o", MatchKind::Optional, 8),
                    key("meta.e", MatchKind::Exact, 4),
                ],
                &["NoAction"],
            ),
            t2,
            ce,
            table("ingress.x.dup", vec![], &["NoAction"]),
            table("egress.y.dup", vec![], &["NoAction"]),
        ],
        actions: vec![
            action("ingress.setb1", &[("val", 8), ("port", 9)]),
            action("ingress.noop", &[]),
            action("ingress.act1", &[("val", 8)]),
            action("ingress.act2", &[("val", 8)]),
            action("ingress.c.a", &[("x", 16)]),
            action("ingress.only_default", &[]),
            action("NoAction", &[]),
        ],
        counters: vec![CounterSchema {
            name: "ingress.cnt".into(),
            size: 8,
            unit: CounterUnit::Packets,
        }],
        direct_counters: vec![DirectCounterSchema {
            name: "ingress.dc".into(),
            table: "ingress.c.t".into(),
            unit: CounterUnit::PacketsAndBytes,
        }],
        registers: vec![RegisterSchema {
            name: "ingress.regfile".into(),
            size: 16,
            width: 32,
        }],
        meters: vec![MeterSchema {
            name: "ingress.meter0".into(),
            size: 4,
        }],
        action_profiles: vec![],
    }
}

fn plan(text: &str) -> Plan {
    load("t.stf", text, &schema()).unwrap_or_else(|d| panic!("{d}"))
}

fn ops(text: &str) -> Vec<Op> {
    plan(text).steps.into_iter().map(|s| s.op).collect()
}

/// Headlines of all compile errors.
fn errs(text: &str) -> Vec<String> {
    match load("t.stf", text, &schema()) {
        Ok(p) => panic!("compiled: {:?}", p.steps),
        Err(d) => d.0.iter().map(|d| d.headline()).collect(),
    }
}

fn err1(text: &str) -> String {
    let e = errs(text);
    assert_eq!(e.len(), 1, "{e:?}");
    e[0].clone()
}

fn tern(value: &[u8], mask: &[u8]) -> FieldMatch {
    FieldMatch::Ternary {
        value: value.to_vec(),
        mask: mask.to_vec(),
    }
}

#[test]
fn worked_example_ternary2() {
    let o = ops("add test1 0   data.f1:0x****0101 ingress.setb1(val:0x7f, port:2)\n\
                 add test1 503 data.f1:0x****0202 ingress.setb1(val:7, port:3)\n\
                 add ex1 100 extra$0.h:0x25** act1(val:0x25)\n\
                 add ex1 110 extra$0.h:0x2525 act2(val:0x27)      # wins for h == 0x2525\n");
    assert_eq!(
        o[0],
        Op::Add {
            table: "ingress.test1".into(),
            matches: vec![KeyFieldMatch {
                field: "hdrs.data.f1".into(),
                m: tern(&[0, 0, 1, 1], &[0, 0, 0xff, 0xff])
            }],
            priority: Some(0),
            action: ActionCall {
                name: "ingress.setb1".into(),
                args: vec![vec![0x7f], vec![0, 2]]
            },
            label: None,
        }
    );
    match &o[1] {
        Op::Add {
            priority,
            matches,
            action,
            ..
        } => {
            assert_eq!(*priority, Some(503));
            assert_eq!(matches[0].m, tern(&[0, 0, 2, 2], &[0, 0, 0xff, 0xff]));
            assert_eq!(action.args, vec![vec![7], vec![0, 3]]);
        }
        o => panic!("{o:?}"),
    }
    match (&o[2], &o[3]) {
        (
            Op::Add {
                table,
                matches: m1,
                priority: p1,
                action: a1,
                ..
            },
            Op::Add {
                matches: m2,
                priority: p2,
                action: a2,
                ..
            },
        ) => {
            assert_eq!(table, "ingress.ex1");
            assert_eq!(m1[0].field, "hdrs.extra[0].h");
            assert_eq!(m1[0].m, tern(&[0x25, 0], &[0xff, 0]));
            assert_eq!(m2[0].m, tern(&[0x25, 0x25], &[0xff, 0xff]));
            assert_eq!((*p1, *p2), (Some(100), Some(110)));
            assert_eq!(a1.name, "ingress.act1");
            assert_eq!(
                a2,
                &ActionCall {
                    name: "ingress.act2".into(),
                    args: vec![vec![0x27]]
                }
            );
        }
        o => panic!("{o:?}"),
    }
}

#[test]
fn lpm_and_validity_keys_and_defaults() {
    let o = ops(
        "add lpm_t hdr.ipv4.dstAddr:0x0a01**** hdr.ipv4.valid:1 setb1(port:1, val:2)\n\
                 add lpm_t ipv4.dstAddr:0x0a000000/8 NoAction()\n\
                 add lpm_t valid:1 NoAction()\n",
    );
    match &o[0] {
        Op::Add {
            matches,
            priority,
            action,
            ..
        } => {
            assert_eq!(*priority, None);
            assert_eq!(
                matches[0].m,
                FieldMatch::Lpm {
                    value: vec![10, 1, 0, 0],
                    prefix_len: 16
                }
            );
            assert_eq!(matches[1].m, FieldMatch::Exact(vec![1]));
            // arguments are in declaration order, whatever order they were written in
            assert_eq!(action.args, vec![vec![2], vec![0, 1]]);
        }
        o => panic!("{o:?}"),
    }
    match &o[1] {
        Op::Add { matches, .. } => {
            assert_eq!(
                matches[0].m,
                FieldMatch::Lpm {
                    value: vec![10, 0, 0, 0],
                    prefix_len: 8
                }
            );
            // left-out exact key → 0
            assert_eq!(matches[1].m, FieldMatch::Exact(vec![0]));
        }
        o => panic!("{o:?}"),
    }
    match &o[2] {
        Op::Add { matches, .. } => {
            // left-out lpm key → 0/0
            assert_eq!(
                matches[0].m,
                FieldMatch::Lpm {
                    value: vec![0; 4],
                    prefix_len: 0
                }
            );
            assert_eq!(matches[1].m, FieldMatch::Exact(vec![1]));
        }
        o => panic!("{o:?}"),
    }
    // left-out ternary key → 0 &&& 0
    match &ops("add test1 1 noop()")[0] {
        Op::Add { matches, .. } => assert_eq!(matches[0].m, tern(&[0; 4], &[0; 4])),
        o => panic!("{o:?}"),
    }
}

#[test]
fn range_and_optional_extension() {
    match &ops("add rt 5 port:100..200 o:7 NoAction()\nadd rt 6 o:* NoAction()")[..] {
        [Op::Add {
            matches: a,
            priority: pa,
            ..
        }, Op::Add { matches: b, .. }] => {
            assert_eq!(*pa, Some(5));
            assert_eq!(
                a[0].m,
                FieldMatch::Range {
                    lo: vec![0, 100],
                    hi: vec![0, 200]
                }
            );
            assert_eq!(a[1].m, FieldMatch::Optional(Some(vec![7])));
            assert_eq!(a[2].m, FieldMatch::Exact(vec![0]));
            assert_eq!(
                b[0].m,
                FieldMatch::Range {
                    lo: vec![0, 0],
                    hi: vec![0xff, 0xff]
                }
            );
            assert_eq!(b[1].m, FieldMatch::Optional(None));
        }
        o => panic!("{o:?}"),
    }
    assert_eq!(
        err1("add rt port:1 NoAction()"),
        "t.stf:1:5: error: table `ingress.rt` needs a priority (it has a ternary, range or optional key)"
    );
}

#[test]
fn name_errors() {
    assert_eq!(err1("add nosuch a()"), "t.stf:1:5: error: unknown table `nosuch`");
    assert_eq!(
        err1("add dup NoAction()"),
        "t.stf:1:5: error: table name `dup` is ambiguous"
    );
    assert!(ops("add x.dup NoAction()").len() == 1);
    assert_eq!(
        err1("add c.t e:1 setb1(val:1, port:1)"),
        "t.stf:1:13: error: `setb1` is not an action of table `ingress.c.t`"
    );
    assert_eq!(
        err1("add c.t f:1 NoAction()"),
        "t.stf:1:9: error: table `ingress.c.t` has no key field `f`"
    );
    assert_eq!(
        err1("add c.t e:1 e:2 NoAction()"),
        "t.stf:1:13: error: key field `e` is given twice"
    );
    assert_eq!(
        err1("add c.t e:1 only_default()"),
        "t.stf:1:13: error: action `ingress.only_default` is `@defaultonly` in table `ingress.c.t`; it cannot be used in an entry"
    );
    assert!(ops("setdefault c.t only_default()").len() == 1);
}

#[test]
fn argument_errors() {
    assert_eq!(
        err1("add c.t e:1 c.a()"),
        "t.stf:1:13: error: missing argument `x` for action `ingress.c.a`"
    );
    assert_eq!(
        err1("add lpm_t valid:1 setb1(val:1)"),
        "t.stf:1:19: error: missing argument `port` for action `ingress.setb1`"
    );
    assert_eq!(
        err1("add c.t e:1 c.a(x:1, y:2)"),
        "t.stf:1:22: error: action `ingress.c.a` has no parameter `y`"
    );
    assert_eq!(
        err1("add c.t e:1 c.a(x:1, x:2)"),
        "t.stf:1:22: error: parameter `x` is given twice"
    );
    assert_eq!(
        err1("add c.t e:1 c.a(x:0x10000)"),
        "t.stf:1:19: error: value 0x10000 does not fit in 16-bit parameter `x` of action `ingress.c.a`"
    );
    assert_eq!(
        err1("add lpm_t valid:1 setb1(val:1, port:512)"),
        "t.stf:1:37: error: value 512 does not fit in 9-bit parameter `port` of action `ingress.setb1`"
    );
}

#[test]
fn value_errors_name_the_field() {
    assert_eq!(
        err1("add c.t e:256 NoAction()"),
        "t.stf:1:11: error: value 256 does not fit in 8-bit exact key `e`"
    );
    assert_eq!(
        err1("add test1 1 f1:5 noop()"),
        "t.stf:1:16: error: decimal value 5 for 32-bit ternary key `hdrs.data.f1`: ternary values must be hex or binary"
    );
    assert_eq!(
        err1("add lpm_t valid:2 NoAction()"),
        "t.stf:1:17: error: value 2 does not fit in 1-bit exact key `hdr.ipv4.$valid$`"
    );
}

#[test]
fn priority_rules() {
    assert_eq!(
        err1("add test1 f1:0x1 noop()"),
        "t.stf:1:5: error: table `ingress.test1` needs a priority (it has a ternary, range or optional key)"
    );
    let d = load("t.stf", "add test1 f1:0x1 noop()", &schema()).unwrap_err();
    assert_eq!(
        d.0[0].note.as_deref(),
        Some("write it after the table name, e.g. `add test1 10 ...`; larger numbers win")
    );
    // Accepted and ignored for exact/lpm-only tables.
    match &ops("add c.t 7 e:1 NoAction()")[0] {
        Op::Add { priority, .. } => assert_eq!(*priority, None),
        o => panic!("{o:?}"),
    }
    assert_eq!(
        err1("add test1 4294967296 noop()"),
        "t.stf:1:11: error: priority 4294967296 is too large (maximum 4294967295)"
    );
}

#[test]
fn table_modification_rules() {
    assert_eq!(
        err1("setdefault t2 NoAction()"),
        "t.stf:1:12: error: the default action of table `egress.t2` is `const`; it cannot be changed"
    );
    assert_eq!(
        err1("add ce x:1 NoAction()"),
        "t.stf:1:5: error: table `ingress.ce` has `const entries`; it cannot be modified"
    );
    match &ops("setdefault ingress.c.t c.a(x:0x1234)")[0] {
        Op::SetDefault { table, action } => {
            assert_eq!(table, "ingress.c.t");
            assert_eq!(action.args, vec![vec![0x12, 0x34]]);
        }
        o => panic!("{o:?}"),
    }
}

#[test]
fn check_counter_resolution() {
    let o = ops("add c.t e:1 NoAction() = A\ncheck_counter cnt(3)\ncheck_counter dc($A) bytes > 10\ncheck_counter ingress.dc($A)");
    assert_eq!(
        o[1],
        Op::CheckCounter {
            counter: "ingress.cnt".into(),
            unit: CounterUnit::Packets,
            cell: CheckCell::Index(3),
            checks: vec![(CounterUnitSel::Packets, CmpOp::Eq, 0)]
        }
    );
    match (&o[2], &o[3]) {
        (Op::CheckCounter { cell, checks, .. }, Op::CheckCounter { checks: c2, .. }) => {
            assert_eq!(*cell, CheckCell::Label("A".into()));
            assert_eq!(*checks, vec![(CounterUnitSel::Bytes, CmpOp::Gt, 10)]);
            assert_eq!(
                *c2,
                vec![
                    (CounterUnitSel::Packets, CmpOp::Eq, 0),
                    (CounterUnitSel::Bytes, CmpOp::Eq, 0)
                ]
            );
        }
        o => panic!("{o:?}"),
    }
    assert_eq!(
        err1("check_counter nope(1)"),
        "t.stf:1:15: error: unknown counter `nope`"
    );
    assert_eq!(
        err1("check_counter cnt(8)"),
        "t.stf:1:19: error: index 8 is out of range for counter `ingress.cnt` (size 8)"
    );
    assert_eq!(
        err1("check_counter cnt(1) bytes == 0"),
        "t.stf:1:22: error: counter `ingress.cnt` does not count bytes"
    );
    assert_eq!(
        err1("check_counter dc($B)"),
        "t.stf:1:18: error: no entry is labelled `B` before this line"
    );
    assert_eq!(
        err1("add lpm_t valid:1 NoAction() = L\ncheck_counter dc($L)"),
        "t.stf:2:18: error: entry `L` is in table `ingress.lpm_t`, but direct counter `ingress.dc` belongs to table `ingress.c.t`"
    );
    assert_eq!(
        err1("check_counter dc(1)"),
        "t.stf:1:18: error: counter `ingress.dc` is a direct counter; refer to an entry as `$LABEL`"
    );
    assert_eq!(
        err1("add c.t e:1 NoAction() = A\ncheck_counter cnt($A)"),
        "t.stf:2:19: error: counter `ingress.cnt` is an indexed counter; give an index, not an entry label"
    );
    assert_eq!(
        err1("add c.t e:1 NoAction() = A\nadd c.t e:2 NoAction() = A"),
        "t.stf:2:26: error: entry label `A` is already used at line 1"
    );
}

#[test]
fn pass_through_commands() {
    let o = ops("register_write ingress.regfile 5 100\nregister_read ingress.regfile 5\nregister_reset ingress.regfile\n\
                 counter_write ingress.cnt 1 2 3\ncounter_read ingress.cnt 1\n\
                 meter_set_rates ingress.meter0 1 0.5:10 1:20\nmeter_array_set_rates ingress.meter0 2:3\nmeter_get_rates ingress.meter0 3\n\
                 mc_mgrp_create 1\nmc_node_create 0 1 2\nmc_node_associate 1 0\nmc_node_update 0 3\n\
                 mirroring_add 5 4\nmirroring_add_mc 6 1\nmirroring_get 5\nmirroring_delete 5\nadvance_time 1ms\nwait\nno_packet\nremove all");
    assert_eq!(
        o[0],
        Op::RegisterWrite {
            name: "ingress.regfile".into(),
            index: 5,
            value: vec![0, 0, 0, 100]
        }
    );
    assert_eq!(
        o[3],
        Op::CounterWrite {
            name: "ingress.cnt".into(),
            index: 1,
            packets: 2,
            bytes: 3
        }
    );
    assert_eq!(
        o[5],
        Op::MeterSetRates {
            name: "ingress.meter0".into(),
            cells: MeterCells::Index(1),
            rates: vec![
                MeterRate {
                    rate_per_us: 0.5,
                    burst: 10
                },
                MeterRate {
                    rate_per_us: 1.0,
                    burst: 20
                }
            ]
        }
    );
    assert!(matches!(
        &o[6],
        Op::MeterSetRates {
            cells: MeterCells::All,
            ..
        }
    ));
    assert_eq!(
        o[9],
        Op::McNodeCreate {
            rid: 0,
            ports: vec![1, 2]
        }
    );
    assert_eq!(o[16], Op::AdvanceTime { ns: 1_000_000 });
    assert_eq!(o[19], Op::RemoveAll);
    assert_eq!(o.len(), 20);
}

#[test]
fn pass_through_errors() {
    let e = load("t.stf", "register_read regfile 1", &schema()).unwrap_err();
    assert_eq!(e.0[0].headline(), "t.stf:1:15: error: unknown register `regfile`");
    assert_eq!(
        e.0[0].note.as_deref(),
        Some("did you mean `ingress.regfile`? register names in CLI commands must be fully qualified")
    );
    assert_eq!(
        err1("register_read ingress.regfile 16"),
        "t.stf:1:31: error: index 16 is out of range for register `ingress.regfile` (size 16)"
    );
    assert_eq!(
        err1("register_write ingress.regfile 0 0x100000000"),
        "t.stf:1:34: error: value 0x100000000 does not fit in 32-bit cell of register `ingress.regfile`"
    );
    assert_eq!(err1("counter_read nope 0"), "t.stf:1:14: error: unknown counter `nope`");
    assert_eq!(
        err1("meter_get_rates ingress.meter0 4"),
        "t.stf:1:32: error: index 4 is out of range for meter `ingress.meter0` (size 4)"
    );
    assert_eq!(
        err1("mc_node_associate 1 0"),
        "t.stf:1:21: error: node handle 0 has not been created yet"
    );
    assert_eq!(
        err1("mc_node_create 1 2\nmc_node_update 1 3"),
        "t.stf:2:16: error: node handle 1 has not been created yet"
    );
    assert_eq!(
        err1("mirroring_add 4294967296 1"),
        "t.stf:1:15: error: session id 4294967296 is too large (maximum 4294967295)"
    );
}

#[test]
fn every_error_is_reported() {
    let e = errs("add nosuch a()\nadd c.t e:1 c.a()\npacket 0 00\nadd test1 f1:0x1 noop()\ncheck_counter x(1)\n");
    assert_eq!(
        e,
        vec![
            "t.stf:1:5: error: unknown table `nosuch`",
            "t.stf:2:13: error: missing argument `x` for action `ingress.c.a`",
            "t.stf:4:5: error: table `ingress.test1` needs a priority (it has a ternary, range or optional key)",
            "t.stf:5:15: error: unknown counter `x`",
        ]
    );
}

#[test]
fn rendered_compile_error() {
    let d = load("t.stf", "add c.t e:1 c.a(x:0x10000)", &schema()).unwrap_err();
    assert_eq!(
        d.to_string(),
        "t.stf:1:19: error: value 0x10000 does not fit in 16-bit parameter `x` of action `ingress.c.a`\n 1 | add c.t e:1 c.a(x:0x10000)\n   |                   ^^^^^^^\n1 error"
    );
}

#[test]
fn expectations_and_ports() {
    let p = plan("expect 2 00 01\npacket 0 0001\nexpect 2 ff\nexpect 3\n");
    assert_eq!(p.mentioned_ports.iter().copied().collect::<Vec<_>>(), vec![0, 2, 3]);
    let e2: Vec<u32> = p.expectations[&2].iter().map(|e| e.line).collect();
    assert_eq!(e2, vec![1, 3]);
    assert_eq!(p.expectations[&3][0].pattern, None);
    assert!(!p.expectations.contains_key(&0));
}
