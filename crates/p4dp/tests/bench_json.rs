//! `p4dp bench --json`: the figures of a run as a JSON document that a standard parser reads, with
//! the same figures as the text report, for a single program and for a suite.

mod bench_common;

use bench_common::{bench, num, read_json, scratch};
use serde_json::Value;

#[test]
fn a_program_run_as_json_matches_its_text_report() {
    let dir = scratch("program");
    let json = dir.join("minimal.json");
    let text = dir.join("minimal.txt");
    let out = bench(&[
        "benches/minimal.p4",
        "--duration",
        "0.2",
        "--warmup",
        "0.1",
        "--repeat",
        "2",
        "--json",
        json.to_str().expect("utf-8 path"),
        "--out",
        text.to_str().expect("utf-8 path"),
    ]);
    // the text report still goes to stdout when the JSON goes to a file
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.starts_with("p4dp bench results"), "{stdout}");
    let doc = read_json(&json);
    assert_eq!(doc["p4dp_bench"], 2);
    assert!(doc["suite"].is_null());
    assert!(num(&doc["tsc_hz"], "tsc_hz") > 1e8);
    assert_eq!(doc["settings"]["repeat"], 2);
    let exps = doc["results"]["experiments"].as_array().expect("experiments");
    assert_eq!(exps.len(), 1);
    let e = &exps[0];
    assert_eq!(e["name"], "minimal");
    assert_eq!(e["baseline"], "l2fwd floor");
    let prog = num(&e["loops"]["program"]["cycles_per_pkt"], "program cycles");
    let base = num(&e["loops"]["l2fwd_floor"]["cycles_per_pkt"], "l2fwd cycles");
    assert!(prog > 0.0 && base > 0.0);
    assert!((num(&e["ratio"], "ratio") - prog / base).abs() < 1e-9 * prog / base);
    assert!(num(&e["loops"]["program"]["mpps"], "mpps") > 0.0);
    // the same figure as the text report's program row (printed with one decimal)
    let report = std::fs::read_to_string(&text).expect("text report");
    let row = report
        .lines()
        .find(|l| l.starts_with("minimal") && l.contains("program vs"))
        .unwrap_or_else(|| panic!("no program row in:\n{report}"));
    assert!(row.contains(&format!("{prog:.1}")), "{prog:.1} not in `{row}`");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_suite_writes_json_to_stdout() {
    let dir = scratch("suite");
    let text = dir.join("writes.txt");
    let out = bench(&[
        "--suite",
        "dataplane-writes",
        "--min-log2",
        "0",
        "--max-log2",
        "1",
        "--repeat",
        "1",
        "--duration",
        "0.1",
        "--warmup",
        "0.1",
        "--json",
        "-",
        "--out",
        text.to_str().expect("utf-8 path"),
    ]);
    // stdout holds the JSON document only (the text report went to --out)
    let doc: Value = serde_json::from_slice(&out.stdout).expect("stdout is one JSON document");
    assert_eq!(doc["suite"], "dataplane-writes");
    assert_eq!(doc["settings"]["min_log2"], 0);
    let sizes = doc["results"]["sizes"].as_array().expect("sizes");
    assert_eq!(sizes.len(), 2, "{doc}");
    for (k, s) in sizes.iter().enumerate() {
        assert_eq!(s["log2"], k as u64);
        for v in ["ro-static", "rw-static", "rw-dynamic", "rw-static-locked"] {
            let x = &s["variants"][v];
            assert!(num(&x["cycles_per_pkt_best"], v) > 0.0, "{s}");
            assert!(x["latency"]["p50"].as_u64().is_some_and(|p| p > 0), "{s}");
        }
        let ro = num(&s["variants"]["ro-static"]["cycles_per_pkt"][0], "ro");
        let rw = num(&s["variants"]["rw-static"]["cycles_per_pkt"][0], "rw");
        assert!((num(&s["write_vs_read"], "ratio") - rw / ro).abs() < 1e-9 * rw / ro);
    }
    assert!(doc["summary"]["write_pass"].is_boolean());
    assert!(std::fs::read_to_string(&text)
        .expect("text report")
        .contains("summary: write"));
    let _ = std::fs::remove_dir_all(&dir);
}
