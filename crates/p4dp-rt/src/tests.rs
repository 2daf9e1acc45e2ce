//! Tests against the hand-written program `runtime/tests/rt_prog_tiny.c` (built here with `cc`).
//! Packet layout and commands are described at the top of that file.

use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

use p4dp_testutil::pcap::{read as read_pcap, write as write_pcap};

use crate::*;

const T_FWD: u32 = 0;
const T_ACL: u32 = 1;
const T_CONST: u32 = 2;
const A_SET_PORT: u32 = 0;
const A_DROP: u32 = 1;
const A_DEF_ONLY: u32 = 2;

fn setup() -> PathBuf {
    static SO: OnceLock<PathBuf> = OnceLock::new();
    SO.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("p4dp-rt-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let so = dir.join("tiny.so");
        let src = include_dir().join("../tests/rt_prog_tiny.c");
        let st = Command::new("cc")
            .args(["-shared", "-fPIC", "-O2", "-Wall", "-Werror", "-I"])
            .arg(include_dir())
            .arg("-o")
            .arg(&so)
            .arg(&src)
            .status()
            .expect("run cc");
        assert!(st.success(), "building {} failed", src.display());
        Eal::init(&[
            "--no-huge",
            "--no-pci",
            "-m",
            "512",
            "--no-shconf",
            "--no-telemetry",
            "--lcores=0@0,1@(0-1),2@(0-1)",
            "--log-level=error",
        ])
        .expect("EAL init");
        so
    })
    .clone()
}

fn load() -> Runtime {
    Runtime::load(
        &setup(),
        RuntimeOptions {
            max_workers: 2,
            digest_qlen: 8,
            ..Default::default()
        },
    )
    .expect("load")
}

fn pkt(cmd: u8, b0: u8) -> Vec<u8> {
    let mut p = vec![0u8; 64];
    p[0] = b0;
    p[10] = cmd;
    p
}

fn exact(v: u8) -> Vec<MatchField> {
    vec![MatchField::Exact(vec![v])]
}

fn errno_of<T: std::fmt::Debug>(r: Result<T>) -> (i32, String) {
    match r {
        Err(e) => (e.errno().unwrap_or(0), e.to_string()),
        Ok(v) => panic!("expected an error, got {v:?}"),
    }
}

/// The hand-written ABI version is the one abi.h defines (programs compiled against the header
/// are refused by `inspect` when the two differ).
#[test]
fn abi_version_matches_the_header() {
    let h = std::fs::read_to_string(crate::include_dir().join("p4dp/abi.h")).expect("abi.h");
    let v: u32 = h
        .lines()
        .find_map(|l| l.strip_prefix("#define P4DP_ABI_VERSION "))
        .and_then(|rest| rest.split(|c: char| !c.is_ascii_digit()).next())
        .and_then(|d| d.parse().ok())
        .expect("#define P4DP_ABI_VERSION in abi.h");
    assert_eq!(
        ffi::P4DP_ABI_VERSION,
        v,
        "crates/p4dp-rt/src/ffi.rs is out of date with abi.h"
    );
    assert!(
        h.contains(&format!(
            "#define P4DP_CLONE_REPLICAS_MAX {}u",
            ffi::P4DP_CLONE_REPLICAS_MAX
        )),
        "P4DP_CLONE_REPLICAS_MAX in ffi.rs is out of date with abi.h"
    );
}

#[test]
fn eal_twice_is_an_error() {
    setup();
    assert!(matches!(Eal::init(&["--no-huge"]), Err(Error::EalAlreadyInitialized)));
}

#[test]
fn schema() {
    let rt = load();
    let p = rt.program();
    assert_eq!(p.name, "tiny");
    assert_eq!(p.arch, "v1model");
    assert_eq!(p.tables.len(), 4);
    let acl = p.table("ingress.acl").expect("acl");
    assert_eq!(acl.id, 2002);
    assert!(acl.needs_priority);
    let kinds: Vec<MatchKind> = acl.keys.iter().map(|k| k.match_kind).collect();
    assert_eq!(
        kinds,
        [
            MatchKind::Ternary,
            MatchKind::Lpm,
            MatchKind::Range,
            MatchKind::Optional
        ]
    );
    assert_eq!(acl.keys[1].name, "hdr.addr");
    assert_eq!(acl.keys[1].bitwidth, 32);
    assert_eq!(acl.actions[2].scope, ActionScope::TableOnly);
    assert_eq!(acl.direct_meter, Some(5));
    let c = p.table("ingress.const_tbl").expect("const");
    assert!(c.const_entries && c.const_default_action);
    assert_eq!(p.actions[A_SET_PORT as usize].params[0].bitwidth, 9);
    assert_eq!(p.actions[4].params[0].bitwidth, 130);
    let reg = p.extern_("ingress.reg").expect("reg");
    assert_eq!((reg.kind, reg.bitwidth, reg.n_cells), (ExternKind::Register, 48, 8));
    assert_eq!(rt.table_index("ingress.fwd").unwrap(), T_FWD);
    assert!(matches!(rt.table_index("nope"), Err(Error::UnknownTable(_))));
}

#[test]
fn table_entries_and_errors() {
    let rt = load();
    let e = TableEntry {
        matches: exact(5),
        priority: 0,
        action: A_SET_PORT,
        params: vec![vec![0, 3]],
    };
    assert!(rt.inject(0, &pkt(0, 5)).unwrap().is_empty());
    rt.entry_add(T_FWD, &e).unwrap();
    let out = rt.inject(0, &pkt(0, 5)).unwrap();
    assert_eq!(out, vec![(3, pkt(0, 5))]);
    assert_eq!(rt.entries(T_FWD).unwrap(), vec![e.clone()]);
    let (errno, msg) = errno_of(rt.entry_add(T_FWD, &e));
    assert_eq!(errno, errno::EEXIST);
    assert!(msg.contains("already exists"), "{msg}");

    let m = TableEntry {
        params: vec![vec![4]],
        ..e.clone()
    };
    rt.entry_modify(T_FWD, &m).unwrap();
    let got = rt.entry_get(T_FWD, &exact(5), 0).unwrap();
    assert_eq!(got.params, vec![vec![0, 4]]);
    assert_eq!(
        rt.direct_counter_read(T_FWD, &exact(5), 0).unwrap(),
        CounterValue { packets: 1, bytes: 64 }
    );

    // validation errors carry the runtime's message
    let bad = TableEntry {
        params: vec![vec![2, 0]],
        ..e.clone()
    };
    let (errno, msg) = errno_of(rt.entry_add(
        T_FWD,
        &TableEntry {
            matches: exact(6),
            ..bad
        },
    ));
    assert_eq!(errno, errno::EINVAL);
    assert!(msg.contains("does not fit in 9 bits"), "{msg}");
    let (_, msg) = errno_of(rt.entry_add(
        T_FWD,
        &TableEntry {
            matches: exact(6),
            action: A_DEF_ONLY,
            ..e.clone()
        },
    ));
    assert!(msg.contains("@defaultonly"), "{msg}");
    let (_, msg) = errno_of(rt.entry_add(
        T_FWD,
        &TableEntry {
            matches: vec![MatchField::Lpm(vec![6], 8)],
            ..e.clone()
        },
    ));
    assert!(msg.contains("is exact, given as lpm"), "{msg}");
    let (_, msg) = errno_of(rt.entry_add(
        T_CONST,
        &TableEntry {
            matches: exact(9),
            ..e.clone()
        },
    ));
    assert!(msg.contains("const entries"), "{msg}");
    let (_, msg) = errno_of(rt.default_set(T_CONST, A_DROP, &[]));
    assert!(msg.contains("is const"), "{msg}");
    assert_eq!(rt.entries(T_FWD).unwrap().len(), 1);
    assert_eq!(rt.entries(T_CONST).unwrap().len(), 1);

    rt.default_set(T_FWD, A_DEF_ONLY, &[vec![0, 8]]).unwrap();
    assert_eq!(rt.default_get(T_FWD).unwrap(), (A_DEF_ONLY, vec![vec![0, 8]]));
    assert_eq!(rt.inject(0, &pkt(0, 77)).unwrap()[0].0, 8);
    rt.default_reset(T_FWD).unwrap();
    assert_eq!(rt.default_get(T_FWD).unwrap().0, A_DROP);

    rt.entry_delete(T_FWD, &exact(5), 0).unwrap();
    assert_eq!(errno_of(rt.entry_delete(T_FWD, &exact(5), 0)).0, errno::ENOENT);
    let st = rt.table_stats(T_FWD).unwrap();
    assert_eq!((st.entries, st.hits), (0, 1));
}

/// A run of packed entries is added in order with one result per entry: the runtime's refusals
/// (an existing key, a parameter too wide) do not stop the entries after them, each has its own
/// message (the existing key's is refused while the runtime has already converted the entry
/// after it), and every entry added reads back and forwards as written.
#[test]
fn packed_entries_are_added_in_order_with_one_result_each() {
    let rt = load();
    let mut run = PackedEntries::new();
    let bytes = |run: &mut PackedEntries, v: &[u8]| {
        run.value(|b| {
            b.extend_from_slice(v);
            true
        })
        .unwrap()
    };
    // key, port parameter
    let entries: [(u8, &[u8]); 6] = [
        (10, &[0, 1]),
        (11, &[0, 2]),
        (10, &[0, 3]),
        (13, &[2, 0]),
        (12, &[0, 4]),
        (14, &[0, 5]),
    ];
    for (key, port) in entries {
        run.begin(1);
        let k = bytes(&mut run, &[key]);
        run.set_key(0, PackedKey::Exact(k));
        run.begin_params(1);
        let p = bytes(&mut run, port);
        run.set_param(0, p);
        run.finish(0, A_SET_PORT);
    }
    let out = rt.entries_add(T_FWD, &run);
    let errnos: Vec<i32> = out
        .iter()
        .map(|r| r.as_ref().err().and_then(|e| e.errno()).unwrap_or(0))
        .collect();
    assert_eq!(errnos, vec![0, 0, errno::EEXIST, errno::EINVAL, 0, 0]);
    let msg = |i: usize| out[i].as_ref().unwrap_err().to_string();
    assert!(msg(2).contains("already exists"), "{}", msg(2));
    assert!(msg(3).contains("does not fit in 9 bits"), "{}", msg(3));
    let mut got = rt.entries(T_FWD).unwrap();
    got.sort_by_key(|e| format!("{:?}", e.matches));
    let want: Vec<TableEntry> = [(10, 1), (11, 2), (12, 4), (14, 5)]
        .iter()
        .map(|&(k, port)| TableEntry {
            matches: exact(k),
            priority: 0,
            action: A_SET_PORT,
            params: vec![vec![0, port]],
        })
        .collect();
    assert_eq!(got, want);
    assert_eq!(rt.inject(0, &pkt(0, 12)).unwrap(), vec![(4, pkt(0, 12))]);
    for k in [10, 11, 12, 14] {
        rt.entry_delete(T_FWD, &exact(k), 0).unwrap();
    }
}

/// A packed entry modifies as [`Runtime::entry_modify`] does: the entry reads back and forwards
/// with the new parameters; an absent key and a parameter too wide are refused with the same
/// errors, and the entry is unchanged by them.
#[test]
fn a_packed_modify_is_an_entry_modify() {
    let rt = load();
    let one = |key: u8, port: &[u8]| {
        let mut run = PackedEntries::new();
        run.begin(1);
        let k = run.value(|b| {
            b.push(key);
            true
        });
        run.set_key(0, PackedKey::Exact(k.unwrap()));
        run.begin_params(1);
        let p = run.value(|b| {
            b.extend_from_slice(port);
            true
        });
        run.set_param(0, p.unwrap());
        run.finish(0, A_SET_PORT);
        run
    };
    let entry = |key: u8, port: &[u8]| TableEntry {
        matches: exact(key),
        priority: 0,
        action: A_SET_PORT,
        params: vec![port.to_vec()],
    };
    rt.entry_add(T_FWD, &entry(20, &[0, 1])).unwrap();
    rt.entry_modify_packed(T_FWD, &one(20, &[0, 6]), 0).unwrap();
    assert_eq!(rt.entries(T_FWD).unwrap(), vec![entry(20, &[0, 6])]);
    assert_eq!(rt.inject(0, &pkt(0, 20)).unwrap(), vec![(6, pkt(0, 20))]);
    for (key, port) in [(21, &[0u8, 7][..]), (20, &[2, 0][..])] {
        let packed = rt.entry_modify_packed(T_FWD, &one(key, port), 0).unwrap_err();
        let owned = rt.entry_modify(T_FWD, &entry(key, port)).unwrap_err();
        assert_eq!(packed.errno(), owned.errno(), "{packed} / {owned}");
        assert_eq!(packed.to_string(), owned.to_string());
    }
    assert_eq!(rt.entries(T_FWD).unwrap(), vec![entry(20, &[0, 6])]);
    rt.entry_delete(T_FWD, &exact(20), 0).unwrap();
}

#[test]
fn acl_roundtrip() {
    let rt = load();
    let e = TableEntry {
        matches: vec![
            MatchField::Ternary(vec![0x10], vec![0xf0]),
            MatchField::Lpm(vec![10, 1, 0, 0], 16),
            MatchField::Range(vec![0, 80], vec![1, 0xbb]),
            MatchField::Optional(None),
        ],
        priority: 5,
        action: A_SET_PORT,
        params: vec![vec![0, 2]],
    };
    rt.entry_add(T_ACL, &e).unwrap();
    assert_eq!(rt.entries(T_ACL).unwrap(), vec![e.clone()]);
    // a tuple-space table: its one rule in one hash table; an exact table has none
    assert_eq!(rt.table_stats(T_ACL).unwrap().tuples, 1);
    assert_eq!(rt.table_stats(T_FWD).unwrap().tuples, 0);
    let mut p = pkt(1, 0);
    p[1] = 0x1f;
    p[2..6].copy_from_slice(&[10, 1, 9, 9]);
    p[6..8].copy_from_slice(&[0, 100]);
    assert_eq!(rt.inject(0, &p).unwrap()[0].0, 2);
    let (errno, msg) = errno_of(rt.entry_add(
        T_ACL,
        &TableEntry {
            priority: 0,
            ..e.clone()
        },
    ));
    assert_eq!(errno, errno::EINVAL);
    assert!(msg.contains("priority must be > 0"), "{msg}");
    let mut bad = e.clone();
    bad.matches[1] = MatchField::Lpm(vec![10, 1, 0, 1], 16);
    assert!(errno_of(rt.entry_add(T_ACL, &bad)).1.contains("beyond prefix length"));
    // direct meter (packets): 1 pkt/s burst 1, 2 pkt/s burst 2 -> green, yellow, red (dropped)
    rt.set_time(1_000_000_000);
    rt.direct_meter_set(
        T_ACL,
        &e.matches,
        5,
        Some(MeterConfig {
            cir: 1,
            cburst: 1,
            pir: 2,
            pburst: 2,
            eburst: 0,
        }),
    )
    .unwrap();
    let n: Vec<usize> = (0..3).map(|_| rt.inject(0, &p).unwrap().len()).collect();
    assert_eq!(n, [1, 1, 0]);
}

#[test]
fn externs_and_pre() {
    let rt = load();
    let reg = rt.extern_index("ingress.reg").unwrap();
    rt.inject(0, &pkt(4, 3)).unwrap();
    rt.inject(0, &pkt(4, 3)).unwrap();
    assert_eq!(rt.register_read(reg, 3).unwrap(), vec![0, 0, 0, 0, 0, 2]);
    rt.register_write(reg, 3, &[0xff; 6]).unwrap();
    rt.inject(0, &pkt(4, 3)).unwrap();
    assert_eq!(rt.register_read(reg, 3).unwrap(), vec![0; 6]); /* wrapped at 48 bits */
    assert_eq!(errno_of(rt.register_write(reg, 3, &[1; 7])).0, errno::EINVAL);

    let ctr = rt.extern_index("ingress.pkt_counter").unwrap();
    assert_eq!(rt.counter_read(ctr, 0).unwrap().packets, 3);
    rt.counter_reset(ctr).unwrap();
    assert_eq!(rt.counter_read(ctr, 0).unwrap(), CounterValue::default());

    let meter = rt.extern_index("ingress.meter").unwrap();
    assert_eq!(rt.inject(0, &pkt(3, 0)).unwrap()[0].0, 0); // unconfigured: green
    rt.meter_set(
        meter,
        0,
        Some(MeterConfig {
            cir: 640,
            cburst: 64,
            pir: 1280,
            pburst: 128,
            eburst: 0,
        }),
    )
    .unwrap();
    let colors: Vec<u32> = (0..3).map(|_| rt.inject(0, &pkt(3, 0)).unwrap()[0].0).collect();
    assert_eq!(colors, [0, 1, 2]);
    rt.advance_time(100_000_000); // 100 ms refills 64 B committed
    assert_eq!(rt.inject(0, &pkt(3, 0)).unwrap()[0].0, 0);
    assert_eq!(rt.meter_get(meter, 0).unwrap().map(|c| c.pir), Some(1280));

    let dig = rt.extern_index("ingress.digest").unwrap();
    let mut d = pkt(5, 0xab);
    d[3] = 7;
    for _ in 0..10 {
        assert!(rt.inject(0, &d).unwrap().is_empty());
    }
    let msgs = rt.digest_poll(dig, 0).unwrap();
    assert_eq!(msgs.len(), 8); // queue of 8
    assert_eq!(msgs[0], (0, vec![0xab, 0, 0, 7]));
    assert_eq!(rt.digest_drops(dig).unwrap(), 2);

    rt.mcast_group_create(2).unwrap();
    let h = rt.mcast_node_create(3, &[4, 1]).unwrap();
    rt.mcast_node_associate(2, h).unwrap();
    let out = rt.inject(0, &pkt(6, 2)).unwrap();
    assert_eq!(out.iter().map(|o| (o.0, o.1[11])).collect::<Vec<_>>(), [(1, 3), (4, 3)]);
    assert_eq!(errno_of(rt.mcast_group_create(2)).0, errno::EEXIST);

    rt.entry_add(
        T_FWD,
        &TableEntry {
            matches: exact(9),
            priority: 0,
            action: A_SET_PORT,
            params: vec![vec![1]],
        },
    )
    .unwrap();
    rt.clone_session_set(9, &[(6, 0)], 0).unwrap();
    let out = rt.inject(0, &pkt(7, 9)).unwrap();
    assert_eq!(out.iter().map(|o| o.0).collect::<Vec<_>>(), [6, 1]);
    rt.clone_session_set(9, &[(6, 3), (4, 5)], 16).unwrap();
    let out = rt.inject(0, &pkt(7, 9)).unwrap();
    assert_eq!(
        out.iter().map(|o| (o.0, o.1.len(), o.1[11])).collect::<Vec<_>>(),
        [(6, 16, 3), (4, 16, 5), (1, 64, 0)]
    );
    assert!(rt.clone_session_set(9, &[(600, 0)], 0).is_err());
    // a session to a group clones to the group's replicas as they are when the packet is cloned
    rt.clone_session_set_group(9, 12, 0).unwrap();
    let out = rt.inject(0, &pkt(7, 9)).unwrap();
    assert_eq!(
        out.iter().map(|o| o.0).collect::<Vec<_>>(),
        [1],
        "group 12 does not exist yet"
    );
    rt.mcast_group_set(12, &[(5, 2), (3, 4)]).unwrap();
    let out = rt.inject(0, &pkt(7, 9)).unwrap();
    assert_eq!(
        out.iter().map(|o| (o.0, o.1[11])).collect::<Vec<_>>(),
        [(5, 2), (3, 4), (1, 0)]
    );
    assert!(rt.clone_session_set_group(9, 70000, 0).is_err());
    assert_eq!(
        rt.inject(0, &pkt(7, 9)).unwrap().len(),
        3,
        "a refused update leaves the session as it was"
    );

    let out = rt.inject(0, &pkt(8, 0)).unwrap();
    assert_eq!(&out[0].1[..4], b"HDR!");
    assert_eq!(out[0].1.len(), 66);
    let s = rt.stats().unwrap();
    assert!(s.packets >= 20 && s.copies >= 3);
}

#[test]
fn log_callback() {
    setup();
    let lines = std::sync::Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let l2 = lines.clone();
    let opts = RuntimeOptions {
        log: Some(Box::new(move |_lvl, m| l2.lock().unwrap().push(m.to_string()))),
        ..Default::default()
    };
    let rt = Runtime::load(&setup(), opts).unwrap();
    rt.inject(0, &pkt(10, 42)).unwrap();
    rt.inject(0, &pkt(9, 0)).unwrap();
    let l = lines.lock().unwrap();
    assert_eq!(l[0], "x=42 y=12345678901 z={}");
    assert!(l[1].contains("assertion failed"), "{}", l[1]);
    assert_eq!(rt.stats().unwrap().asserts, 1);
}

#[test]
fn load_errors() {
    setup();
    let r = Runtime::load(std::path::Path::new("/nonexistent.so"), RuntimeOptions::default());
    let (errno, msg) = errno_of(r.map(|_| ()));
    assert_eq!(errno, errno::ENOENT);
    assert!(msg.contains("cannot load"), "{msg}");
}

#[test]
fn pcap_port_run() {
    let so = setup();
    let rt = Runtime::load(
        &so,
        RuntimeOptions {
            max_workers: 2,
            ..Default::default()
        },
    )
    .unwrap();
    let dir = so.parent().unwrap().to_path_buf();
    let inp = dir.join("rs_in.pcap");
    let outp = dir.join("rs_out.pcap");
    let pkts: Vec<Vec<u8>> = (0..20u8)
        .map(|i| {
            let mut p = pkt(0, i % 2);
            p[11] = i;
            p
        })
        .collect();
    write_pcap(&inp, &pkts);
    rt.add_port(
        0,
        &format!("net_pcap_rs0,rx_pcap={},tx_pcap={}", inp.display(), outp.display()),
    )
    .unwrap();
    assert_eq!(errno_of(rt.add_port(0, "net_null_rs")).0, errno::EEXIST);
    rt.entry_add(
        T_FWD,
        &TableEntry {
            matches: exact(0),
            priority: 0,
            action: A_SET_PORT,
            params: vec![vec![0]],
        },
    )
    .unwrap();
    assert_eq!(
        errno_of(rt.run(&RunParams {
            n_workers: 1,
            ..Default::default()
        }))
        .0,
        errno::EINVAL
    );
    rt.run(&RunParams {
        n_workers: 1,
        until_input_done: true,
        duration: Some(std::time::Duration::from_secs(10)),
        ..Default::default()
    })
    .unwrap();
    let st = rt.port_stats(0).unwrap();
    assert_eq!((st.rx_packets, st.tx_packets, st.drops), (20, 10, 10));
    drop(rt);
    let out = read_pcap(&outp);
    assert_eq!(out.len(), 10);
    assert!(out.iter().enumerate().all(|(i, p)| p[11] == 2 * i as u8 && p[0] == 0));
}

#[test]
fn table_mem_predict_model() {
    let m = crate::table_mem_predict(1 << 20, 4, 8, 100).expect("predict");
    assert_eq!((m.slot_bytes, m.dyn_entry_bytes, m.static_storage), (32, 128, true));
    assert!(
        !crate::table_mem_predict(1 << 20, 4, 8, 10)
            .expect("predict")
            .static_storage
    );
    assert!(crate::table_mem_predict(16, 0, 8, 100).is_err());
}

#[path = "tests_actprof.rs"]
mod actprof;
