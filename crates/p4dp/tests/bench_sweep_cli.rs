//! `p4dp bench --suite table-kinds` and `--suite program-shape`: one lap at tiny sizes and short
//! windows (no timing is asserted), the JSON document's shape, the SVG plots (well-formed, one
//! marker per point), the traffic options, and one-line errors for bad arguments.

mod bench_common;

use std::path::Path;
use std::process::Output;

use bench_common::{bench, bench_once as p4dp, num, read_json, scratch};
use serde_json::Value;

/// A sweep with short windows, tried up to 3 times (bench_common::bench).
fn sweep(args: &[&str]) -> Output {
    bench(&[args, &["--duration", "0.03", "--warmup", "0.02", "--repeat", "1"][..]].concat())
}

/// Well-formed enough for any XML reader: one root, every tag closed in order, attributes quoted.
fn check_svg(path: &Path) -> String {
    let s = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert!(s.starts_with("<?xml"), "{}", path.display());
    let mut stack: Vec<String> = Vec::new();
    let mut rest = &s[s.find("?>").expect("xml declaration") + 2..];
    let mut roots = 0;
    while let Some(i) = rest.find('<') {
        let j = rest[i..].find('>').expect("unclosed tag") + i;
        let tag = &rest[i + 1..j];
        assert!(tag.matches('"').count() % 2 == 0, "unbalanced quotes in <{tag}>");
        if let Some(name) = tag.strip_prefix('/') {
            assert_eq!(stack.pop().as_deref(), Some(name.trim()), "mismatched </{name}>");
        } else if !tag.ends_with('/') {
            if stack.is_empty() {
                roots += 1;
            }
            stack.push(tag.split_whitespace().next().expect("tag name").to_string());
        } else if stack.is_empty() {
            roots += 1;
        }
        rest = &rest[j + 1..];
    }
    assert!(stack.is_empty(), "unclosed {stack:?} in {}", path.display());
    assert_eq!(roots, 1, "{}", path.display());
    assert!(s.contains("<svg xmlns=\"http://www.w3.org/2000/svg\""));
    s
}

fn points(doc: &Value) -> &Vec<Value> {
    doc["results"]["points"].as_array().expect("results.points")
}

#[test]
fn table_kinds_one_lap_writes_report_json_and_plots() {
    let dir = scratch("kinds");
    let (json, out) = (dir.join("k.json"), dir.join("kinds.txt"));
    let o = sweep(&[
        "--suite",
        "table-kinds",
        "--max-log2",
        "2",
        "--log2-step",
        "2",
        "--json",
        json.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    let text = String::from_utf8_lossy(&o.stdout).to_string();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("bench: [10/10]"), "progress line missing:\n{err}");
    let doc = read_json(&json);
    assert_eq!(doc["suite"], "table-kinds");
    let pts = points(&doc);
    let kinds: Vec<&str> = pts.iter().map(|p| p["series"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        ["exact", "exact", "lpm", "lpm", "ternary", "ternary", "range", "range", "optional", "optional"]
    );
    for p in pts {
        let what = p["label"].as_str().unwrap();
        let n = p["entries"].as_u64().unwrap();
        assert_eq!(num(&p["x"], what), n as f64, "{what}");
        assert!(n == 1 || n == 4, "{what}: {n} entries");
        // generated traffic hits what was installed
        assert!(p["hits"].as_u64().unwrap() > 0, "{what}: {p}");
        assert_eq!(p["misses"].as_u64(), Some(0), "{what}: {p}");
        let c = num(&p["cycles_per_pkt"], what);
        assert!(c > 0.0 && num(&p["l2fwd_cycles_per_pkt"], what) > 0.0);
        assert!((num(&p["overhead_cycles_per_pkt"], what) - (c - num(&p["l2fwd_cycles_per_pkt"], what))).abs() < 1e-6);
        let l = &p["latency_cycles"];
        assert!(l["count"].as_u64().unwrap() > 0, "{what}: no latency recorded");
        let q: Vec<u64> = ["p50", "p90", "p99", "p99_9", "p99_99", "max"]
            .iter()
            .map(|k| {
                l[*k]
                    .as_u64()
                    .unwrap_or_else(|| panic!("{what}: latency {k} missing: {l}"))
            })
            .collect();
        assert!(
            q.windows(2).all(|w| w[0] <= w[1]),
            "{what}: percentiles not ordered {q:?}"
        );
        assert!(text.contains(what), "{what} not in the text report");
        // ternary and range points carry the same rules in rte_acl, and the cost of a rule change
        let acl = &p["rte_acl"];
        if what.starts_with("ternary") || what.starts_with("range") {
            let r = num(&acl["cycles_per_pkt"], what);
            assert!(r > 0.0, "{what}: {acl}");
            assert!((num(&acl["ratio"], what) - c / r).abs() < 1e-6, "{what}: {acl}");
            assert!(num(&acl["rebuild_ms"], what) > 0.0, "{what}: {acl}");
            for k in ["insert_us_p50", "insert_us_max", "delete_us_p50", "delete_us_max"] {
                assert!(num(&acl[k], what) > 0.0, "{what}: {k} in {acl}");
            }
            assert!(num(&acl["insert_us_p50"], what) <= num(&acl["insert_us_max"], what));
        } else {
            assert!(acl.is_null(), "{what}: {acl}");
        }
    }
    assert!(
        text.contains("vs rte_acl"),
        "no rte_acl comparison in the report:\n{text}"
    );
    assert_eq!(std::fs::read_to_string(&out).unwrap(), text);
    let plots: Vec<&str> = doc["results"]["plots"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap())
        .collect();
    assert_eq!(plots.len(), 2, "{plots:?}");
    let cyc = check_svg(&dir.join("kinds-cycles.svg"));
    // 10 points and the l2fwd floor of the first kind's 2 points
    assert_eq!(cyc.matches("class=\"point\"").count(), 12);
    for k in ["exact", "lpm", "ternary", "range", "optional", "l2fwd floor"] {
        assert!(cyc.contains(&format!(">{k}</text>")), "legend lacks {k}");
    }
    let lat = check_svg(&dir.join("kinds-latency.svg"));
    // one line per kind: 10 percentiles and the maximum
    assert_eq!(lat.matches("class=\"point\"").count(), 5 * 11);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn program_shape_reports_the_cost_per_extra_table() {
    let dir = scratch("shape");
    let (json, out) = (dir.join("s.json"), dir.join("shape.txt"));
    let o = sweep(&[
        "--suite",
        "program-shape",
        "--traffic",
        "zipf:1.1",
        "--json",
        json.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("cost per extra exact table"), "{text}");
    let doc = read_json(&json);
    assert_eq!(doc["settings"]["traffic"], "zipf:1.1");
    let pts = points(&doc);
    let count = |s: &str| pts.iter().filter(|p| p["series"] == s).count();
    assert_eq!(
        (
            count("tables"),
            count("action-data"),
            count("packet-size"),
            count("key-segments")
        ),
        (8, 5, 6, 2)
    );
    for p in pts {
        assert_eq!(p["misses"].as_u64(), Some(0), "{p}");
    }
    let sixteen = pts
        .iter()
        .find(|p| p["label"] == "16 exact tables")
        .expect("16 tables point");
    assert_eq!(sixteen["entries"].as_u64(), Some(256));
    assert!(num(&doc["summary"]["cycles_per_extra_table"], "slope").is_finite());
    // the quietest bursts' figure: every tables point has its burst latency, and their slope
    assert!(num(&doc["summary"]["cycles_per_extra_table_quiet_bursts"], "quiet slope").is_finite());
    for p in pts.iter().filter(|p| p["series"] == "tables") {
        assert!(p["quiet_burst_cycles"].as_u64().is_some_and(|c| c > 0), "{p}");
    }
    assert!(text.contains("from the quietest bursts"), "{text}");
    for (plot, n) in [
        ("tables", 8),
        ("action-data", 5),
        ("packet-size", 6),
        ("key-segments", 2),
    ] {
        let s = check_svg(&dir.join(format!("shape-{plot}.svg")));
        assert_eq!(s.matches("class=\"point\"").count(), 2 * n, "{plot}");
    }
    check_svg(&dir.join("shape-latency.svg"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A classic pcap file of `n` UDP packets to 10.0.0.x.
fn write_pcap(path: &Path, n: u32) {
    let mut b = Vec::new();
    b.extend_from_slice(&0xa1b2_c3d4u32.to_le_bytes());
    b.extend_from_slice(&2u16.to_le_bytes());
    b.extend_from_slice(&4u16.to_le_bytes());
    for v in [0u32, 0, 65535, 1] {
        b.extend_from_slice(&v.to_le_bytes());
    }
    for i in 0..n {
        let mut p = vec![0u8; 60 + (i as usize % 3) * 100];
        p[12] = 0x08;
        p[14] = 0x45;
        p[23] = 17;
        p[30..34].copy_from_slice(&[10, 0, 0, i as u8]);
        for v in [i, 0, p.len() as u32, p.len() as u32] {
            b.extend_from_slice(&v.to_le_bytes());
        }
        b.extend_from_slice(&p);
    }
    std::fs::write(path, b).expect("write pcap");
}

#[test]
fn a_pcap_is_replayed_as_the_traffic() {
    let dir = scratch("pcap");
    let pcap = dir.join("t.pcap");
    write_pcap(&pcap, 200);
    let json = dir.join("p.json");
    sweep(&[
        "--suite",
        "table-kinds",
        "--kinds",
        "exact",
        "--max-log2",
        "0",
        "--traffic",
        pcap.to_str().unwrap(),
        "--json",
        json.to_str().unwrap(),
        "--out",
        dir.join("p.txt").to_str().unwrap(),
    ]);
    let doc = read_json(&json);
    let p = &points(&doc)[0];
    // one random entry, addresses 10.0.0.x: every lookup misses, and no packet is lost
    assert_eq!(p["hits"].as_u64(), Some(0), "{p}");
    assert!(p["misses"].as_u64().unwrap() > 0, "{p}");
    assert!(p["latency_cycles"]["count"].as_u64().unwrap() > 0);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_arguments_give_one_line_errors() {
    let dir = scratch("bad");
    let junk = dir.join("junk.pcap");
    std::fs::write(&junk, b"this is not a capture file at all").unwrap();
    let missing = dir.join("missing.pcap");
    let cases: Vec<(Vec<String>, &str)> = vec![
        (vec!["--traffic".into(), "zipf:0".into()], "expected uniform, zipf:S"),
        (vec!["--traffic".into(), "poisson".into()], "expected uniform, zipf:S"),
        (vec!["--kinds".into(), "exact,hash".into()], "unknown match kind `hash`"),
        (vec!["--max-log2".into(), "30".into()], "--max-log2 must satisfy"),
        (vec!["--log2-step".into(), "0".into()], "--log2-step must be at least 1"),
        (vec!["--traffic".into(), junk.display().to_string()], "not a pcap file"),
        (vec!["--traffic".into(), missing.display().to_string()], "missing.pcap"),
        (vec!["--entries".into(), "5".into()], "generates its programs"),
    ];
    for (args, want) in cases {
        let mut a = vec!["--suite".to_string(), "table-kinds".to_string()];
        a.extend(args.iter().cloned());
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        let out = p4dp(&a);
        assert!(!out.status.success(), "{args:?} was accepted");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(want), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: not one line:\n{err}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn traffic_is_refused_where_it_would_be_ignored() {
    let out = p4dp(&["--suite", "overhead", "--traffic", "zipf:1"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--traffic and --kinds apply to --suite table-kinds and program-shape"),
        "{err}"
    );
}

/// One lap of `--suite SUITE` (`lpm` or `lpm6`) over 2000 prefixes and 1024 packets. Checks that
/// the JSON document names the suite and holds one size, of 2000 prefixes, in which each of `loops`
/// ran (cycles per packet above 0); returns the run's stderr, that size and the text report.
fn lpm_lap(suite: &str, loops: &[&str]) -> (String, Value, String) {
    let d = scratch(suite);
    let (out, json) = (d.join(format!("{suite}.txt")), d.join(format!("{suite}.json")));
    let prefixes = format!("--{suite}-prefixes");
    let o = sweep(&[
        "--suite",
        suite,
        &prefixes,
        "2000",
        "--packets",
        "1024",
        "--out",
        out.to_str().expect("utf-8"),
        "--json",
        json.to_str().expect("utf-8"),
    ]);
    let doc = read_json(&json);
    assert_eq!(doc["suite"], suite, "{doc}");
    let sizes = doc["results"]["sizes"].as_array().expect("sizes");
    assert_eq!(sizes.len(), 1, "{doc}");
    let s = sizes[0].clone();
    assert_eq!(s["prefixes"], 2000, "{s}");
    for l in loops {
        assert!(num(&s["loops"][l]["cycles_per_pkt"], l) > 0.0, "{l}: {s}");
    }
    let text = std::fs::read_to_string(&out).expect("report");
    let _ = std::fs::remove_dir_all(&d);
    (String::from_utf8_lossy(&o.stderr).into_owned(), s, text)
}

#[test]
fn lpm_suite_judges_against_a_router_on_rte_lpm() {
    let (_, s, text) = lpm_lap(
        "lpm",
        &[
            "floor_rte_lpm",
            "floor_rte_lpm_router",
            "floor_p4dp_lpm_lookup",
            "lpm_program",
        ],
    );
    // the judged ratio is the program against the router loop; the lookup-alone ratio stays
    let router = num(&s["loops"]["floor_rte_lpm_router"]["cycles_per_pkt"], "router");
    let program = num(&s["loops"]["lpm_program"]["cycles_per_pkt"], "program");
    let judged = num(&s["ratio_vs_rte_lpm_router"], "judged");
    assert!((judged - program / router).abs() < 1e-9 * judged.max(1.0), "{s}");
    assert!(num(&s["ratio_vs_rte_lpm"], "lookup alone") > 0.0, "{s}");
    assert_eq!(s["pass"], judged <= 1.2, "{s}");
    assert!(text.contains("l3_lpm / (floor + rte_lpm router) = "), "{text}");
    assert!(text.contains("l3_lpm / (floor + rte_lpm lookup alone) = "), "{text}");
}

#[test]
fn lpm6_suite_compares_rte_lpm6_and_an_exact_table() {
    let (stderr, s, text) = lpm_lap(
        "lpm6",
        &[
            "floor",
            "l2fwd_floor",
            "floor_rte_lpm6",
            "floor_p4dp_lpm_lookup",
            "lpm_program",
            "exact_floor",
            "exact_floor_p4dp_lookup",
            "exact_program",
        ],
    );
    assert!(
        stderr.contains("p4dp and rte_lpm6 agree on 1024 destinations"),
        "{stderr}"
    );
    assert_eq!(s["agreement_checked"], 1024);
    for r in ["ratio_vs_rte_lpm6", "ratio_vs_exact", "lookup_ratio_vs_rte_lpm6"] {
        assert!(num(&s[r], r) > 0.0, "{r}: {s}");
    }
    assert!(text.contains("l3_lpm6 / (floor + rte_lpm6)"), "{text}");
    assert!(text.contains("/48 "), "{text}");
    let bad = p4dp(&["--suite", "lpm6", "--lpm6-prefixes", "0"]);
    assert!(!bad.status.success());
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(err.contains("--lpm6-prefixes: each count must be"), "{err}");
}
