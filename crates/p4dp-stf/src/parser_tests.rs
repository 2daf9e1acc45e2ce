//! Parser tests: every statement form and every parse error.

use crate::ast::*;
use crate::diag::Span;
use crate::parser::parse;

fn one(line: &str) -> StmtKind {
    let s = parse("t.stf", line).unwrap_or_else(|e| panic!("{line}: {e}"));
    assert_eq!(s.stmts.len(), 1, "{line}");
    s.stmts.into_iter().next().map(|s| s.kind).unwrap_or(StmtKind::Wait)
}

/// The rendered diagnostic for a one-line script.
fn err(line: &str) -> String {
    match parse("t.stf", line) {
        Ok(s) => panic!("`{line}` parsed: {:?}", s.stmts),
        Err(d) => {
            assert_eq!(d.0.len(), 1, "{d}");
            d.0[0].to_string()
        }
    }
}

/// Just the headline (`t.stf:1:COL: error: MSG`).
fn err_head(line: &str) -> String {
    match parse("t.stf", line) {
        Ok(s) => panic!("`{line}` parsed: {:?}", s.stmts),
        Err(d) => d.0[0].headline(),
    }
}

fn int(v: u64) -> u64 {
    v
}

fn ints(v: &[Int]) -> Vec<u64> {
    v.iter().map(|i| i.value).collect()
}

#[test]
fn empty_comments_blank() {
    let s = parse("t.stf", "\n# comment\n   \t\n  # indented\n").unwrap();
    assert!(s.stmts.is_empty());
    assert_eq!(s.lines.len(), 5);
}

#[test]
fn packet() {
    match one("packet 0 00000101 0000 0202 0a00000 1") {
        StmtKind::Packet { port, data } => {
            assert_eq!(port.value, 0);
            assert_eq!(data, vec![0, 0, 1, 1, 0, 0, 2, 2, 0x0a, 0, 0, 1]);
        }
        k => panic!("{k:?}"),
    }
    match one("PACKET 12 aBcD\r") {
        StmtKind::Packet { port, data } => {
            assert_eq!(port.value, 12);
            assert_eq!(data, vec![0xab, 0xcd]);
        }
        k => panic!("{k:?}"),
    }
    // A `packet` line without data injects a zero-length packet (p4c's runner does the same).
    for line in ["packet 3", "packet 3 \t "] {
        match one(line) {
            StmtKind::Packet { port, data } => {
                assert_eq!(port.value, 3);
                assert!(data.is_empty());
            }
            k => panic!("{k:?}"),
        }
    }
}

#[test]
fn packet_errors() {
    assert_eq!(
        err("packet 0 abc"),
        "t.stf:1:10: error: packet data has an odd number of hex digits (3); a packet is whole bytes\n 1 | packet 0 abc\n   |          ^^^"
    );
    assert_eq!(
        err_head("packet"),
        "t.stf:1:1: error: expected a port number after `packet`"
    );
    assert_eq!(
        err_head("packet x1 00"),
        "t.stf:1:8: error: expected a decimal port number after `packet`, found `x1`"
    );
    assert_eq!(
        err_head("packet 99999999999 00"),
        "t.stf:1:8: error: port number `99999999999` is too large"
    );
    // Ports the runtime does not have are refused, not wrapped to the program's port width.
    assert_eq!(
        err_head("packet 512 00"),
        "t.stf:1:8: error: port 512 is out of range: ports are 0 to 510 (511 is the drop port)"
    );
    assert_eq!(
        err_head("packet 4294967295 00"),
        "t.stf:1:8: error: port 4294967295 is out of range: ports are 0 to 510 (511 is the drop port)"
    );
    assert_eq!(
        err_head("packet 511 00"),
        "t.stf:1:8: error: port 511 is out of range: ports are 0 to 510 (511 is the drop port)"
    );
    assert_eq!(
        err_head("expect 512 00"),
        "t.stf:1:8: error: port 512 is out of range: ports are 0 to 510 (511 is the drop port)"
    );
    assert_eq!(
        err_head("mirroring_add 1 600"),
        "t.stf:1:17: error: port 600 is out of range: ports are 0 to 510 (511 is the drop port)"
    );
    assert_eq!(
        err_head("mc_node_create 1 2 3 999"),
        "t.stf:1:22: error: port 999 is out of range: ports are 0 to 510 (511 is the drop port)"
    );
    assert!(matches!(one("packet 510 00"), StmtKind::Packet { .. }));
    assert_eq!(
        err("packet 0 0x0800"),
        "t.stf:1:11: error: invalid character `x` in packet data\n 1 | packet 0 0x0800\n   |           ^\n   = note: packet data is plain hex digits, without a `0x` prefix"
    );
    assert_eq!(
        err_head("packet 0 00 # c"),
        "t.stf:1:13: error: a comment is not allowed on a `packet` line"
    );
    assert_eq!(
        err_head("packet 0 00 **"),
        "t.stf:1:13: error: invalid character `*` in packet data"
    );
}

#[test]
fn expect() {
    match one("expect 2 00000101 ******** **** 7f 66") {
        StmtKind::Expect { port, pattern: Some(p) } => {
            assert_eq!(port.value, 2);
            assert_eq!(p.text(), "00000101************7F66");
            assert!(!p.exact_len);
        }
        k => panic!("{k:?}"),
    }
    match one("Expect 1 0102 $") {
        StmtKind::Expect { pattern: Some(p), .. } => {
            assert_eq!(p.nibbles, vec![Some(0), Some(1), Some(0), Some(2)]);
            assert!(p.exact_len);
        }
        k => panic!("{k:?}"),
    }
    assert_eq!(
        one("expect 3"),
        StmtKind::Expect {
            port: Int {
                value: 3,
                span: Span::new(1, 8, 1)
            },
            pattern: None
        }
    );
    // Odd-length patterns are prefixes at nibble granularity.
    assert!(matches!(one("expect 3 abc"), StmtKind::Expect { pattern: Some(_), .. }));
}

#[test]
fn expect_errors() {
    assert_eq!(
        err_head("expect 1 00$ 11"),
        "t.stf:1:12: error: `$` must be the last character of an expect pattern"
    );
    assert_eq!(
        err_head("expect 1 001$"),
        "t.stf:1:10: error: pattern ends in `$` but has an odd number of nibbles (3), so no packet can match it"
    );
    assert_eq!(
        err_head("expect 1 00 # c"),
        "t.stf:1:13: error: a comment is not allowed on an `expect` line"
    );
    assert_eq!(
        err_head("expect 1 0g"),
        "t.stf:1:11: error: invalid character `g` in expect data"
    );
    assert_eq!(
        err_head("expect"),
        "t.stf:1:1: error: expected a port number after `expect`"
    );
}

#[test]
fn add_full_form() {
    match one("add test1 503 data.f1:0x****0202 ingress.setb1(val:7, port:3) = A") {
        StmtKind::Add {
            table,
            priority,
            keys,
            action,
            label,
        } => {
            assert_eq!(table.text, "test1");
            assert_eq!(table.span, Span::new(1, 5, 5));
            assert_eq!(priority.map(|p| p.value), Some(503));
            assert_eq!(keys.len(), 1);
            assert_eq!(keys[0].name.text, "data.f1");
            match &keys[0].value {
                KeyValue::Num { num, prefix_len: None } => {
                    assert_eq!(num.radix, Radix::Hex);
                    assert_eq!(num.digits, "****0202");
                }
                v => panic!("{v:?}"),
            }
            assert_eq!(action.name.text, "ingress.setb1");
            let args: Vec<(String, String)> = action
                .args
                .iter()
                .map(|a| (a.name.text.clone(), a.value.text()))
                .collect();
            assert_eq!(args, vec![("val".into(), "7".into()), ("port".into(), "3".into())]);
            assert_eq!(label.map(|l| l.text), Some("A".into()));
        }
        k => panic!("{k:?}"),
    }
}

#[test]
fn add_variants() {
    // No priority, no args, several keys, stack index forms, quoted name.
    match one("ADD c.t extra$0.h:0x25 hdr.vlan[1].vid:10 \"my.key\":0b1*0 NoAction()") {
        StmtKind::Add {
            table,
            priority: None,
            keys,
            action,
            label: None,
        } => {
            assert_eq!(table.text, "c.t");
            let names: Vec<&str> = keys.iter().map(|k| k.name.text.as_str()).collect();
            assert_eq!(names, vec!["extra$0.h", "hdr.vlan[1].vid", "my.key"]);
            assert_eq!(action.name.text, "NoAction");
            assert!(action.args.is_empty());
        }
        k => panic!("{k:?}"),
    }
    // No keys at all (keyless table).
    assert!(matches!(one("add t a()"), StmtKind::Add { ref keys, .. } if keys.is_empty()));
    // lpm /len, range, wildcard, validity key.
    match one("add t k1:0x0a000000/8 k2:10..0x20 k3:* $valid$:1 a(x:1)") {
        StmtKind::Add { keys, .. } => {
            assert!(matches!(
                &keys[0].value,
                KeyValue::Num {
                    prefix_len: Some(Int { value: 8, .. }),
                    ..
                }
            ));
            match &keys[1].value {
                KeyValue::Range { lo, hi } => {
                    assert_eq!(lo.text(), "10");
                    assert_eq!(hi.text(), "0x20");
                }
                v => panic!("{v:?}"),
            }
            assert_eq!(keys[2].value, KeyValue::Wildcard(Span::new(1, 38, 1)));
            assert_eq!(keys[3].name.text, "$valid$");
        }
        k => panic!("{k:?}"),
    }
}

#[test]
fn add_errors() {
    assert_eq!(
        err_head("add"),
        "t.stf:1:4: error: expected a table name, found end of line"
    );
    assert_eq!(
        err_head("add t"),
        "t.stf:1:6: error: expected a key name or an action, found end of line"
    );
    assert_eq!(
        err_head("add t k:1"),
        "t.stf:1:10: error: expected a key name or the action, found end of line"
    );
    assert_eq!(
        err_head("add t k 1"),
        "t.stf:1:9: error: expected `:` (key `k`) or `(` (action `k`), found number `1`"
    );
    assert_eq!(
        err_head("add t k: a()"),
        "t.stf:1:10: error: expected a key value, found `a`"
    );
    assert_eq!(
        err_head("add t k:1 a(x:1 y:2)"),
        "t.stf:1:17: error: expected `,` or `)`, found `y`"
    );
    assert_eq!(
        err_head("add t k:1 a(x 1)"),
        "t.stf:1:15: error: expected `:` after parameter `x`, found number `1`"
    );
    assert_eq!(
        err_head("add t k:1 a(x:)"),
        "t.stf:1:15: error: expected a value for parameter `x`, found `)`"
    );
    assert_eq!(
        err_head("add t k:1 a(x:0x1*)"),
        "t.stf:1:15: error: `*` is only allowed in ternary and lpm key values"
    );
    assert_eq!(
        err_head("add t k:1 a(x:1"),
        "t.stf:1:16: error: expected `,` or `)`, found end of line"
    );
    assert_eq!(
        err_head("add t k:1 a() = "),
        "t.stf:1:17: error: expected an entry label, found end of line"
    );
    assert_eq!(
        err_head("add t k:1 a() junk"),
        "t.stf:1:15: error: unexpected `junk` at the end of the `add` statement"
    );
    assert_eq!(
        err_head("add t k:1/ a()"),
        "t.stf:1:12: error: expected a prefix length, found `a`"
    );
    assert_eq!(
        err_head("add t k:1.. a()"),
        "t.stf:1:13: error: expected the upper bound of a range, found `a`"
    );
    assert_eq!(
        err_head("add t. k:1 a()"),
        "t.stf:1:8: error: expected a name component right after `.`, found `k`"
    );
    assert_eq!(
        err_head("add t .k:1 a()"),
        "t.stf:1:7: error: expected a key name or an action, found `.`"
    );
    // `add a.b k:1 c()`: spaces end a name.
    assert!(matches!(one("add a.b k:1 c()"), StmtKind::Add { ref table, .. } if table.text == "a.b"));
    assert_eq!(
        err_head("add t[x] k:1 a()"),
        "t.stf:1:7: error: expected an index, found `x`"
    );
    assert_eq!(
        err_head("add t k:0x a()"),
        "t.stf:1:9: error: expected hex digits after `0x`"
    );
    assert_eq!(
        err_head("add t k:1 a() ; x"),
        "t.stf:1:15: error: unexpected character `;`"
    );
    // The comma missing in p4tc's routing_default.stf is an error here.
    assert_eq!(
        err_head("add t k:1 a(x:1 y:2)"),
        "t.stf:1:17: error: expected `,` or `)`, found `y`"
    );
}

#[test]
fn comment_after_statement_is_fine() {
    assert!(matches!(one("add t k:1 a() = L  # label"), StmtKind::Add { .. }));
    assert_eq!(one("wait # barrier"), StmtKind::Wait);
}

#[test]
fn setdefault() {
    match one("setdefault ingress.t ingress.drop(reason:0x2)") {
        StmtKind::SetDefault { table, action } => {
            assert_eq!(table.text, "ingress.t");
            assert_eq!(action.name.text, "ingress.drop");
            assert_eq!(action.args[0].name.text, "reason");
        }
        k => panic!("{k:?}"),
    }
    assert_eq!(
        err_head("setdefault t"),
        "t.stf:1:13: error: expected an action name, found end of line"
    );
    assert_eq!(
        err_head("setdefault t a"),
        "t.stf:1:15: error: expected `(` after action `a`, found end of line"
    );
}

#[test]
fn remove_wait_no_packet() {
    assert_eq!(one("remove all"), StmtKind::RemoveAll);
    assert_eq!(one("REMOVE ALL"), StmtKind::RemoveAll);
    assert_eq!(one("wait"), StmtKind::Wait);
    assert_eq!(one("no_packet"), StmtKind::NoPacket);
    assert_eq!(
        err("remove t"),
        "t.stf:1:8: error: expected `all`, found `t`\n 1 | remove t\n   |        ^\n   = note: only `remove all` exists; STF has no per-entry removal"
    );
    assert_eq!(
        err_head("wait 1"),
        "t.stf:1:6: error: unexpected number `1` at the end of the `wait` statement"
    );
}

#[test]
fn check_counter() {
    match one("check_counter cnt(10)") {
        StmtKind::CheckCounter {
            counter,
            cell: CounterCell::Index(i),
            cond: None,
        } => {
            assert_eq!(counter.text, "cnt");
            assert_eq!(i.value, 10);
        }
        k => panic!("{k:?}"),
    }
    match one("check_counter ingress.cnt($A) packets >= 3") {
        StmtKind::CheckCounter {
            counter,
            cell: CounterCell::Label(l),
            cond: Some(c),
        } => {
            assert_eq!(counter.text, "ingress.cnt");
            assert_eq!(l.text, "A");
            assert_eq!((c.unit, c.op, c.value), (CounterUnitSel::Packets, CmpOp::Ge, 3));
        }
        k => panic!("{k:?}"),
    }
    for (op, want) in [
        ("==", CmpOp::Eq),
        ("!=", CmpOp::Ne),
        ("<", CmpOp::Lt),
        ("<=", CmpOp::Le),
        (">", CmpOp::Gt),
        (">=", CmpOp::Ge),
    ] {
        match one(&format!("check_counter c(0) BYTES {op} 64")) {
            StmtKind::CheckCounter { cond: Some(c), .. } => {
                assert_eq!((c.unit, c.op, c.value), (CounterUnitSel::Bytes, want, 64));
            }
            k => panic!("{k:?}"),
        }
    }
}

#[test]
fn check_counter_errors() {
    assert_eq!(
        err_head("check_counter c"),
        "t.stf:1:16: error: expected `(`, found end of line"
    );
    assert_eq!(
        err_head("check_counter c(A)"),
        "t.stf:1:17: error: expected a counter index or `$LABEL`, found `A`"
    );
    assert_eq!(
        err_head("check_counter c($)"),
        "t.stf:1:17: error: expected a counter index or `$LABEL`, found `$`"
    );
    assert_eq!(
        err_head("check_counter c(1"),
        "t.stf:1:18: error: expected `)`, found end of line"
    );
    assert_eq!(
        err_head("check_counter c(1) frames == 1"),
        "t.stf:1:20: error: expected `packets` or `bytes`, found `frames`"
    );
    assert_eq!(
        err_head("check_counter c(1) packets = 1"),
        "t.stf:1:28: error: expected a comparison (`==`, `!=`, `<`, `<=`, `>`, `>=`), found `=`"
    );
    assert_eq!(
        err_head("check_counter c(1) packets =="),
        "t.stf:1:30: error: expected a count, found end of line"
    );
    assert_eq!(
        err_head("check_counter c(1) 5"),
        "t.stf:1:20: error: expected `packets` or `bytes`, found number `5`"
    );
}

#[test]
fn mirroring_and_multicast() {
    assert!(matches!(
        one("mirroring_add 5 4"),
        StmtKind::MirroringAdd {
            session: Int { value: 5, .. },
            port: Int { value: 4, .. }
        }
    ));
    assert!(matches!(
        one("mirroring_add_mc 5 1"),
        StmtKind::MirroringAddMc {
            session: Int { value: 5, .. },
            mgrp: Int { value: 1, .. }
        }
    ));
    assert!(matches!(
        one("mirroring_delete 5"),
        StmtKind::MirroringDelete {
            session: Int { value: 5, .. }
        }
    ));
    assert!(matches!(
        one("mirroring_get 5"),
        StmtKind::MirroringGet {
            session: Int { value: 5, .. }
        }
    ));
    assert!(matches!(
        one("mc_mgrp_create 1"),
        StmtKind::McMgrpCreate {
            mgrp: Int { value: 1, .. }
        }
    ));
    match one("mc_node_create 400 6 8 9") {
        StmtKind::McNodeCreate { rid, ports } => {
            assert_eq!(rid.value, int(400));
            assert_eq!(ints(&ports), vec![6, 8, 9]);
        }
        k => panic!("{k:?}"),
    }
    match one("mc_node_update 0 1 2") {
        StmtKind::McNodeUpdate { node, ports } => {
            assert_eq!(node.value, 0);
            assert_eq!(ints(&ports), vec![1, 2]);
        }
        k => panic!("{k:?}"),
    }
    assert!(matches!(
        one("mc_node_associate 1 0"),
        StmtKind::McNodeAssociate {
            mgrp: Int { value: 1, .. },
            node: Int { value: 0, .. }
        }
    ));
    assert_eq!(
        err_head("mirroring_add 5"),
        "t.stf:1:16: error: expected a port, found end of line"
    );
    assert_eq!(
        err_head("mc_node_create 1"),
        "t.stf:1:17: error: expected a port, found end of line"
    );
    assert_eq!(
        err_head("mc_mgrp_create x"),
        "t.stf:1:16: error: expected a multicast group, found `x`"
    );
    assert_eq!(
        err_head("mc_node_associate 1 0 7"),
        "t.stf:1:23: error: unexpected number `7` at the end of the `mc_node_associate` statement"
    );
    assert_eq!(
        err_head("mirroring_get 0x*"),
        "t.stf:1:15: error: `*` is only allowed in ternary and lpm key values"
    );
    assert_eq!(
        err_head("mirroring_get 99999999999999999999"),
        "t.stf:1:15: error: number `99999999999999999999` is too large (maximum 2^64-1)"
    );
}

#[test]
fn counters_registers_meters() {
    match one("counter_read ingress.port_pkt_ip_bytes_in 1") {
        StmtKind::CounterRead { name, index } => {
            assert_eq!(name.text, "ingress.port_pkt_ip_bytes_in");
            assert_eq!(index.value, 1);
        }
        k => panic!("{k:?}"),
    }
    match one("counter_write c.x 2 10 640") {
        StmtKind::CounterWrite {
            name,
            index,
            packets,
            bytes,
        } => {
            assert_eq!(
                (name.text.as_str(), index.value, packets.value, bytes.value),
                ("c.x", 2, 10, 640)
            );
        }
        k => panic!("{k:?}"),
    }
    assert!(matches!(
        one("register_read cIngress.regfile 5"),
        StmtKind::RegisterRead { .. }
    ));
    match one("register_write cIngress.regfile 5 100") {
        StmtKind::RegisterWrite { name, index, value } => {
            assert_eq!(
                (name.text.as_str(), index.value, value.text()),
                ("cIngress.regfile", 5, "100".to_string())
            );
        }
        k => panic!("{k:?}"),
    }
    assert!(matches!(
        one("register_reset cIngress.regfile"),
        StmtKind::RegisterReset { .. }
    ));
    assert!(matches!(
        one("meter_get_rates cIngress.meter0 0"),
        StmtKind::MeterGetRates { .. }
    ));
    match one("meter_set_rates cIngress.meter0 3 0.000005:2 0.00001:3") {
        StmtKind::MeterSetRates { name, index, rates } => {
            assert_eq!(name.text, "cIngress.meter0");
            assert_eq!(index.value, 3);
            assert_eq!(rates.len(), 2);
            assert_eq!((rates[0].rate, rates[0].burst), (0.000005, 2));
            assert_eq!((rates[1].rate_text.as_str(), rates[1].burst), ("0.00001", 3));
        }
        k => panic!("{k:?}"),
    }
    match one("meter_array_set_rates m 1:10 2:20") {
        StmtKind::MeterArraySetRates { rates, .. } => {
            assert_eq!(
                rates.iter().map(|r| (r.rate, r.burst)).collect::<Vec<_>>(),
                vec![(1.0, 10), (2.0, 20)]
            );
        }
        k => panic!("{k:?}"),
    }
    assert_eq!(
        err_head("counter_read c"),
        "t.stf:1:15: error: expected an index, found end of line"
    );
    assert_eq!(
        err_head("counter_write c 1 2"),
        "t.stf:1:20: error: expected a byte count, found end of line"
    );
    assert_eq!(
        err_head("register_write r 1"),
        "t.stf:1:19: error: expected a value, found end of line"
    );
    assert_eq!(
        err_head("register_write r 1 0x1*"),
        "t.stf:1:20: error: `*` is only allowed in ternary and lpm key values"
    );
    assert_eq!(
        err_head("meter_set_rates m 0"),
        "t.stf:1:20: error: expected a rate `RATE:BURST` (rate in units per microsecond), found end of line"
    );
    assert_eq!(
        err_head("meter_set_rates m 0 1.5"),
        "t.stf:1:24: error: expected `:` between rate and burst, found end of line"
    );
    assert_eq!(
        err_head("meter_set_rates m 0 1.5:"),
        "t.stf:1:25: error: expected a burst size, found end of line"
    );
    assert_eq!(
        err_head("meter_array_set_rates m 0x10:1"),
        "t.stf:1:25: error: expected a rate `RATE:BURST` (rate in units per microsecond), found number `0x10`"
    );
}

#[test]
fn background() {
    let bg = |line: &str| match one(line) {
        StmtKind::Background { name, n } => (name.text, n),
        k => panic!("{k:?}"),
    };
    assert_eq!(bg("background Reporter"), ("Reporter".to_string(), 1));
    assert_eq!(bg("BACKGROUND ager 3"), ("ager".to_string(), 3));
    assert!(err_head("background").contains("expected a background pipeline's name"));
    assert!(err_head("background x 4294967296").contains("too many iterations"));
}

#[test]
fn advance_time() {
    assert_eq!(one("advance_time 10ns"), StmtKind::AdvanceTime { ns: 10 });
    assert_eq!(one("advance_time 10 us"), StmtKind::AdvanceTime { ns: 10_000 });
    assert_eq!(one("ADVANCE_TIME 3MS"), StmtKind::AdvanceTime { ns: 3_000_000 });
    assert_eq!(one("advance_time 2s"), StmtKind::AdvanceTime { ns: 2_000_000_000 });
    assert_eq!(
        err("advance_time 10"),
        "t.stf:1:16: error: expected a time unit (`ns`, `us`, `ms` or `s`), found end of line\n 1 | advance_time 10\n   |                ^\n   = note: write the duration with its unit, e.g. `advance_time 1500ms`"
    );
    assert_eq!(
        err_head("advance_time 10 min"),
        "t.stf:1:17: error: expected a time unit (`ns`, `us`, `ms` or `s`), found `min`"
    );
    assert_eq!(
        err_head("advance_time 18446744073709551615s"),
        "t.stf:1:14: error: duration is too large (more than 2^64 nanoseconds)"
    );
    assert_eq!(
        err_head("advance_time"),
        "t.stf:1:13: error: expected a duration such as `10ms`, found end of line"
    );
}

#[test]
fn unknown_statement() {
    assert_eq!(
        err_head("table_add t a 1 => 2"),
        "t.stf:1:1: error: unknown statement `table_add`"
    );
    let d = parse("t.stf", "frobnicate").unwrap_err();
    assert!(d.0[0]
        .note
        .as_deref()
        .unwrap_or("")
        .starts_with("statements are: packet, expect, add"));
    assert_eq!(
        err_head("  42 add"),
        "t.stf:1:3: error: expected a statement keyword, found `4`"
    );
    // A keyword is only recognised as the first word.
    assert_eq!(
        err_head("wait packet"),
        "t.stf:1:6: error: unexpected `packet` at the end of the `wait` statement"
    );
}

#[test]
fn all_errors_reported_with_lines() {
    let text = "add t k:1 a()\nbogus\npacket 0 0\nwait\nexpect 1 1$\n";
    let d = parse("x.stf", text).unwrap_err();
    let heads: Vec<String> = d.0.iter().map(|d| d.headline()).collect();
    assert_eq!(
        heads,
        vec![
            "x.stf:2:1: error: unknown statement `bogus`",
            "x.stf:3:10: error: packet data has an odd number of hex digits (1); a packet is whole bytes",
            "x.stf:5:10: error: pattern ends in `$` but has an odd number of nibbles (1), so no packet can match it",
        ]
    );
    assert!(d.to_string().ends_with("3 errors"));
}

#[test]
fn statement_lines_and_spans() {
    let s = parse("t.stf", "# c\n\n  wait\npacket 1 00\n").unwrap();
    assert_eq!(s.stmts[0].line, 3);
    assert_eq!(s.stmts[0].span, Span::new(3, 3, 4));
    assert_eq!(s.stmts[1].line, 4);
}

/// Parsing and compiling arbitrary junk never panics (a tiny deterministic
/// fuzzer: random lines built from STF-ish fragments and random characters).
#[test]
fn never_panics_on_junk() {
    let frags = [
        "add",
        "packet",
        "expect",
        "check_counter",
        "setdefault",
        "remove",
        "all",
        "meter_set_rates",
        "advance_time",
        "mc_node_create",
        "register_write",
        "t",
        "c.t",
        "e",
        "f1",
        "$A",
        "$valid$",
        "extra$0.h",
        "\"q",
        "\"q.r\"",
        ":",
        "(",
        ")",
        ",",
        "=",
        "==",
        "/",
        "..",
        ".",
        "*",
        "#",
        "$",
        "0x",
        "0x1*",
        "0b1*",
        "12",
        "0.5",
        "99999999999999999999999",
        "ms",
        "packets",
        "bytes",
        "[",
        "]",
        "[0]",
        "é",
        "\t",
        " ",
        "ff",
        "0a0b",
    ];
    let schema = crate::compile_tests::schema();
    let mut seed: u64 = 0x9e3779b97f4a7c15;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for _ in 0..20_000 {
        let n = (next() % 9) as usize;
        let mut line = String::new();
        for _ in 0..n {
            let r = next();
            if r % 5 == 0 {
                line.push(char::from_u32((r >> 8) as u32 % 0x80).unwrap_or('?'));
            } else {
                line.push_str(frags[(r >> 8) as usize % frags.len()]);
                if r % 3 != 0 {
                    line.push(' ');
                }
            }
        }
        if let Ok(script) = parse("f.stf", &line) {
            if let Err(d) = crate::compile::compile(&script, &schema) {
                let _ = d.to_string();
            }
        } else if let Err(d) = parse("f.stf", &line) {
            let _ = d.to_string();
        }
    }
}
