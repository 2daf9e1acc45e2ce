//! `p4dp bench --suite rtc-costs`: one quick run (small table, short windows; no timing is
//! asserted) that must print every figure with its baseline, in the text report and the JSON
//! document, and the P4 background pipeline must have swept while the foreground was measured.

mod bench_common;

use std::process::{Command, Output};

use bench_common::{read_json, retried, root, scratch};
use serde_json::Value;

fn num(v: &Value, path: &str) -> f64 {
    let mut x = v;
    for k in path.split('.') {
        x = &x[k];
    }
    x.as_f64().unwrap_or_else(|| panic!("{path} is not a number: {x}"))
}

#[test]
fn the_rtc_cost_suite_runs_quickly_and_prints_each_figure_with_its_baseline() {
    // a target missed on this loaded machine is exit 0 all the same; only errors fail the run
    let (so, v) = tiny_run("rtc-costs", "0.05", &["--max-log2", "10"]);
    report_has(
        &so,
        &[
            "== Queue<T> push + pop per message",
            "one thread, bursts of 32",
            "producer + consumer threads",
            "== Lock acquire (blocking) + release",
            "uncontended",
            "two threads, one lock",
            "== TableOperation.entryAdd in the foreground",
            "entryAdd / hit cycles per packet",
            "== The foreground beside a P4 background pipeline sweeping its 2^10-entry table",
            "with sweep / without",
            "summary: queue ",
        ],
    );
    assert_eq!(v["suite"], "rtc-costs");
    assert_eq!(v["settings"]["table_log2"], 10);
    let r = &v["results"];
    finite_positive(
        r,
        &[
            "queue.one_thread.p4dp_cycles",
            "queue.one_thread.rte_ring_cycles",
            "queue.two_threads.p4dp_window_cycles",
            "queue.two_threads.rte_ring_window_cycles",
            "lock.uncontended.p4dp_cycles",
            "lock.uncontended.rte_spinlock_cycles",
            "lock.two_threads.p4dp_window_cycles",
            "lock.two_threads.rte_spinlock_window_cycles",
            "entry_add.entry_add_cycles_per_pkt",
            "entry_add.hit_cycles_per_pkt",
            "sweep.no_sweep_cycles_per_pkt",
            "sweep.with_sweep_cycles_per_pkt",
            "sweep.no_sweep_window_cycles_per_pkt",
            "sweep.with_sweep_window_cycles_per_pkt",
            "entry_add.ratio",
            "sweep.ratio",
            "queue.one_thread.ratio",
            "lock.uncontended.ratio",
        ],
    );
    // every packet of the insert phase added its key: the table missed once per new key
    assert_eq!(num(r, "entry_add.last_run_table_misses"), 1024.0);
    // the background pipeline swept the whole table while the foreground ran
    let (sweeps, visited) = (num(r, "sweep.sweeps"), num(r, "sweep.entries_visited"));
    assert!(sweeps >= 1.0, "no sweep completed");
    assert!(
        visited >= sweeps * 1024.0,
        "{visited} entries over {sweeps} sweeps of 1024"
    );
    assert_eq!(r["sweep"]["sweep_source"], "P4 background pipeline");
    for k in ["queue", "entry_add", "sweep"] {
        assert!(v["summary"][k].is_boolean(), "summary.{k}");
    }
}

#[test]
fn the_spacesaving_suite_reports_recall_against_the_reference_and_packet_rates() {
    let (so, v) = tiny_run("rtc-spacesaving", "0.1", &[]);
    report_has(
        &so,
        &[
            "== 1 worker(s): recall of the top 10 flows",
            "== 2 worker(s): recall of the top 10 flows",
            "summary: recall_1_worker ",
        ],
    );
    assert_eq!(v["suite"], "rtc-spacesaving");
    assert_eq!(v["settings"]["slots"], 64);
    for w in ["one_worker", "two_workers"] {
        let r = &v["results"][w];
        for f in ["recall", "reference_recall"] {
            let x = num(r, f);
            // top-10 of a Zipf trace with 64 slots: SpaceSaving finds most of them
            assert!((0.5..=1.0).contains(&x), "{w}.{f} = {x}");
        }
        finite_positive(
            r,
            &[
                "mpps_per_worker",
                "cycles_per_pkt",
                "floor_mpps_per_worker",
                "packets_last_run",
            ],
        );
    }
}

/// Run `p4dp bench ARGS`, killed and failed after `secs` seconds (a wait that never ends is a
/// failure, not a hung test run).
fn p4dp_bounded(args: &[&str], secs: u64) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_p4dp"))
        .current_dir(root())
        .arg("bench")
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run p4dp");
    let t0 = std::time::Instant::now();
    while child.try_wait().expect("wait for p4dp").is_none() {
        if t0.elapsed().as_secs() > secs {
            let _ = child.kill();
            let out = child.wait_with_output().expect("p4dp output");
            panic!(
                "p4dp bench {args:?} did not finish in {secs} s\n{}\n{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    child.wait_with_output().expect("p4dp output")
}

/// Run a suite with tiny sizes and windows of `duration` seconds (up to 3 attempts: a window can
/// see no packet on a shared machine) and return its text report and JSON document.
fn tiny_run(suite: &str, duration: &str, extra: &[&str]) -> (String, Value) {
    let d = scratch(suite);
    let (json, txt) = (d.join("r.json"), d.join("r.txt"));
    let mut args = vec![
        "--suite",
        suite,
        "--duration",
        duration,
        "--warmup",
        "0.02",
        "--repeat",
        "1",
    ];
    args.extend_from_slice(extra);
    args.extend_from_slice(&[
        "--json",
        json.to_str().expect("utf-8"),
        "--out",
        txt.to_str().expect("utf-8"),
    ]);
    let out = retried(&format!("p4dp bench {args:?}"), || p4dp_bounded(&args, 240));
    let v = read_json(&json);
    let _ = std::fs::remove_dir_all(&d);
    (String::from_utf8_lossy(&out.stdout).into_owned(), v)
}

/// Every line of `lines` is in the report `so`.
fn report_has(so: &str, lines: &[&str]) {
    for line in lines {
        assert!(so.contains(line), "no '{line}' in the report:\n{so}");
    }
}

/// Every figure of `fields` (dotted paths under `r`) is a positive finite number.
fn finite_positive(r: &Value, fields: &[&str]) {
    for f in fields {
        let x = num(r, f);
        assert!(x > 0.0 && x.is_finite(), "{f} = {x}");
    }
}

#[test]
fn the_flow_monitor_suite_holds_every_flow_and_reports_rates_and_failed_inserts() {
    let (so, v) = tiny_run("rtc-flow-monitor", "0.05", &["--max-log2", "12"]);
    report_has(
        &so,
        &[
            "== 1 worker(s) ==",
            "inserts and hits:",
            "table: 2457 entries (capacity 4096)",
            "plain forwarding",
            "reports/s",
            "summary: all_flows_held_1_worker PASS",
        ],
    );
    assert_eq!(v["suite"], "rtc-flow-monitor");
    let r = &v["results"]["one_worker"];
    // 0.6 of the 2^12-entry table, every one added by the data plane and still held
    assert_eq!(num(r, "flows"), 2457.0);
    assert_eq!(num(r, "flows_held"), 2457.0);
    assert_eq!(r["schedule_completed"], true);
    finite_positive(
        r,
        &[
            "insert_cycles_per_pkt",
            "hit_cycles_per_pkt",
            "program_mpps_per_worker",
            "forwarding_mpps_per_worker",
            "reports_per_s",
            "fin_packets",
        ],
    );
    // failed inserts are a share of the traffic, never more than it
    let share = num(r, "inserts_given_up_share");
    assert!((0.0..=1.0).contains(&share), "inserts_given_up_share = {share}");
    assert!(num(r, "report_phase_inserts_given_up") <= num(r, "fin_packets"));
}

#[test]
fn the_hot_cache_suite_compares_with_and_without_the_cache_with_the_promoter_live() {
    let (so, v) = tiny_run("rtc-hot-cache", "0.05", &["--max-log2", "12"]);
    report_has(
        &so,
        &[
            "a 1024-entry cache in front of a 2^12-entry exact table",
            "== all 4096 routes installed",
            "calibration without the cache:",
            "pair 1: without ",
            "with / without the cache (median bursts), median of the pairs:",
            "summary: cache_in_use PASS",
        ],
    );
    assert_eq!(v["suite"], "rtc-hot-cache");
    assert_eq!(v["settings"]["routes_log2"], 12);
    let r = &v["results"];
    assert_eq!(num(r, "routes"), 4096.0);
    finite_positive(
        r,
        &[
            "without_cycles_per_pkt",
            "with_cycles_per_pkt",
            "ratio",
            "without_window_cycles_per_pkt",
            "with_window_cycles_per_pkt",
        ],
    );
    // the Promoter ran: it promoted keys (in the warm-up, or later) and packets hit them
    assert!(
        num(r, "warm_up_promoted") + num(r, "promoted") > 0.0,
        "nothing promoted"
    );
    // the thresholds have a floor and a gap between them (no thrashing cache)
    assert!(num(r, "threshold_hot") >= 8.0);
    assert!(num(r, "threshold_cold") < num(r, "threshold_hot"));
    assert!(num(r, "cache_hits") > 0.0);
    let h = num(r, "cache_hit_ratio");
    assert!(h > 0.0 && h <= 1.0, "cache_hit_ratio = {h}");
}
