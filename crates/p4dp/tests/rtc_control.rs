//! The control API on rtc.p4's shared externs and on the entries TableOperation adds
//! (tests/programs/rtc_externs.p4, each packet one operation): an rtc Counter read and set, a
//! Queue's depth, messages and refused pushes, whether a Lock is held, and entries added by
//! `entryAdd` in the data plane read, looked up and deleted like any entry (the data plane then
//! misses them).

use std::path::{Path, PathBuf};
use std::process::Command;

use p4dp_rt::{Eal, MatchField, Runtime, RuntimeOptions};
use p4dp_testutil::scratch_dir;

fn build() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let dir = scratch_dir("rtc-control");
    let out = Command::new(env!("CARGO_BIN_EXE_p4dp"))
        .arg("build")
        .arg(root.join("tests/programs/rtc_externs.p4"))
        .arg("-o")
        .arg(&dir)
        .output()
        .expect("run p4dp build");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    dir.join("rtc_externs.so")
}

/// One operation: Ethernet (0x88b5), then op, ok, key, val, res (64 bits), row.
fn op(code: u8, key: u32, val: u32) -> Vec<u8> {
    let mut p = vec![0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 2, 0x88, 0xb5, code, 0];
    p.extend(key.to_be_bytes());
    p.extend(val.to_be_bytes());
    p.extend([0u8; 12]);
    p
}

/// The `ok` byte of the single packet an operation sends back.
fn ok(rt: &Runtime, pkt: &[u8]) -> u8 {
    let out = rt.inject(0, pkt).expect("inject");
    assert_eq!(out.len(), 1, "one packet back");
    out[0].1[15]
}

#[test]
fn rtc_externs_and_entries_added_by_the_data_plane_are_read_and_changed_through_the_control_api() {
    let so = build();
    Eal::init(&[
        "--no-huge",
        "--no-pci",
        "-m",
        "512",
        "--no-shconf",
        "--no-telemetry",
        "--log-level=error",
    ])
    .expect("EAL");
    let rt = Runtime::load(
        &so,
        RuntimeOptions {
            max_workers: 1,
            ..Default::default()
        },
    )
    .expect("load");
    let (cnt, q, lk) = (
        rt.extern_index("cnt").expect("cnt"),
        rt.extern_index("q").expect("q"),
        rt.extern_index("lk").expect("lk"),
    );
    let t = rt.table_index("I.t").expect("table t");

    // Counter: the data plane counts, the control API reads and sets
    rt.inject(0, &op(1, 2, 5)).expect("count");
    rt.inject(0, &op(1, 2, 7)).expect("count");
    assert_eq!(rt.rtc_counter_get(cnt, 2).expect("get"), 12);
    assert_eq!(rt.rtc_counter_get(cnt, 3).expect("get"), 0);
    rt.rtc_counter_set(cnt, 2, 100).expect("set");
    let out = rt.inject(0, &op(1, 2, 1)).expect("count");
    assert_eq!(u64::from_be_bytes(out[0].1[24..32].try_into().expect("8")), 101);
    assert!(rt.rtc_counter_get(cnt, 8).is_err(), "Counter(8) has no cell 8");
    assert!(rt.rtc_counter_get(q, 0).is_err(), "a Queue is not a Counter");

    // Queue(2): two pushes fit, the third is refused and counted
    let s = rt.rtc_queue_stats(q).expect("queue stats");
    assert_eq!((s.depth, s.queued, s.full_drops), (2, 0, 0));
    assert_eq!(s.elem_size, 8);
    for (i, want) in [1u8, 1, 0].iter().enumerate() {
        assert_eq!(ok(&rt, &op(6, i as u32, 0)), *want, "push {i}");
    }
    let s = rt.rtc_queue_stats(q).expect("queue stats");
    assert_eq!((s.queued, s.full_drops), (2, 1));
    assert_eq!(ok(&rt, &op(7, 0, 0)), 1, "pop");
    assert_eq!(rt.rtc_queue_stats(q).expect("queue stats").queued, 1);

    // Lock: held after the data plane's acquire, free after its release
    assert!(!rt.rtc_lock_held(lk, 1).expect("lock"));
    assert_eq!(ok(&rt, &op(3, 1, 0)), 1, "acquire");
    assert!(rt.rtc_lock_held(lk, 1).expect("lock"));
    assert!(!rt.rtc_lock_held(lk, 0).expect("lock"));
    assert_eq!(ok(&rt, &op(4, 1, 0)), 1, "release");
    assert!(!rt.rtc_lock_held(lk, 1).expect("lock"));
    assert!(rt.rtc_lock_held(lk, 4).is_err(), "Lock(4) has no lock 4");

    // TableOperation.entryAdd(key 0x77, action 0 = set_res, data 0x1200): an ordinary entry
    assert_eq!(ok(&rt, &op(8, 0x77, 0x1200)), 1, "entryAdd");
    let entries = rt.entries(t).expect("read the table");
    assert_eq!(entries.len(), 1, "{entries:?}");
    assert_eq!(entries[0].matches, vec![MatchField::Exact(vec![0, 0, 0, 0x77])]);
    let set_res = rt.action_index("I.set_res").expect("set_res");
    assert_eq!(entries[0].action, set_res);
    assert_eq!(entries[0].params, vec![vec![0, 0, 0x12, 0]]);
    let key = [MatchField::Exact(vec![0, 0, 0, 0x77])];
    assert_eq!(
        rt.entry_get(t, &key, 0).expect("entry get").params,
        vec![vec![0, 0, 0x12, 0]]
    );
    assert_eq!(rt.table_stats(t).expect("stats").entries, 1);
    assert_eq!(ok(&rt, &op(10, 0x77, 0)), 1, "the data plane hits it");
    rt.entry_delete(t, &key, 0).expect("delete through the control API");
    assert_eq!(
        ok(&rt, &op(10, 0x77, 0)),
        0,
        "the data plane misses it after the delete"
    );
    assert!(rt.entries(t).expect("read").is_empty());
    // and the data plane can add it again
    assert_eq!(ok(&rt, &op(8, 0x77, 0x1300)), 1, "entryAdd after the delete");
}
