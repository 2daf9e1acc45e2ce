//! `p4dp calibrate --quick`, `p4dp model` and `p4dp model --check --quick` on the command line:
//! the profile's and the prediction's structure and sanity (never their timing), and one-line
//! errors for bad input.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn scratch() -> PathBuf {
    let d = std::env::temp_dir().join(format!("p4dp-model-cli-{}", std::process::id()));
    std::fs::create_dir_all(&d).expect("scratch dir");
    d
}

fn p4dp(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_p4dp"))
        .current_dir(root())
        .args(args)
        .output()
        .expect("run p4dp")
}

fn ok(out: &Output) -> String {
    assert!(
        out.status.success(),
        "failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// One error line on stderr, exit status 2.
fn one_line_error(out: &Output, needle: &str) {
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
    let err = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<&str> = err.lines().filter(|l| l.starts_with("error")).collect();
    assert_eq!(lines.len(), 1, "{err}");
    assert!(lines[0].contains(needle), "{err}");
}

fn num(v: &Value, k: &str) -> f64 {
    v[k].as_f64().unwrap_or_else(|| panic!("{k} is not a number in {v}"))
}

#[test]
fn calibrate_then_model_a_corpus_program() {
    let d = scratch();
    let prof = d.join("profile.json");
    let prof_s = prof.to_str().expect("utf-8 path");
    let text = ok(&p4dp(&["calibrate", "--quick", "--out", prof_s]));
    assert!(text.contains("caches: L1d"), "{text}");
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&prof).expect("profile written")).expect("JSON");
    assert_eq!(v["p4dp_profile"], 6);
    let scale = num(&v, "unstaged_miss_scale");
    assert!((1.0..=32.0).contains(&scale), "{scale}");
    // the pointer chase's TLB and the four miss penalties (L1, L2, LLC, TLB)
    assert_eq!(num(&v["tlb"], "page_bytes"), 4096.0);
    assert!(num(&v["tlb"], "reach_pages") > 0.0);
    assert_eq!(v["miss_penalty_cycles"].as_array().map(Vec::len), Some(4));
    assert!(num(&v["machine"], "tsc_hz") > 1e6);
    assert!(v["machine"]["cpu_model"].as_str().is_some_and(|s| !s.is_empty()));
    let c = &v["caches"];
    assert!(
        num(c, "l1d_bytes") > 0.0
            && num(c, "l2_bytes") >= num(c, "l1d_bytes")
            && num(c, "llc_bytes") >= num(c, "l2_bytes")
    );
    assert!(num(&v, "floor_cycles") > 0.0);
    for k in ["exact", "lpm", "ternary"] {
        let pts = v["kinds"][k].as_array().unwrap_or_else(|| panic!("no {k} points: {v}"));
        assert!(!pts.is_empty());
        for p in pts {
            assert!(num(p, "entries") >= 1.0 && num(p, "footprint_bytes") > 0.0 && num(p, "cycles") >= 0.0);
            assert!(num(p, "tlb_bytes") > 0.0);
        }
    }
    // the tuple-space rule sets: what the model's replay of the classifier says their lookups do
    let sets = v["tuple_sets"]["ternary"]
        .as_array()
        .unwrap_or_else(|| panic!("no ternary sets: {v}"));
    assert!(!sets.is_empty());
    for q in sets {
        assert!(num(q, "tabs") >= 1.0 && num(q, "probes") >= 1.0 && num(q, "probes") <= num(q, "tabs"));
        assert!(num(q, "checks") >= 0.0 && num(q, "zipf") == 0.0);
    }

    // a corpus program with a table on the IPv4 destination: generated entries are hit
    let json = d.join("pred.json");
    let text = ok(&p4dp(&[
        "model",
        "benches/l3_exact.p4",
        "--profile",
        prof_s,
        "--entries",
        "ipv4_exact=5000",
        "--traffic",
        "zipf:1.1",
        "--workers",
        "2",
        "--json",
        json.to_str().expect("utf-8"),
    ]));
    for want in [
        "cycles/packet:",
        "Mpps per worker:",
        "Mpps total:",
        "median latency:",
        "table BenchIngress.ipv4_exact",
        "table memory:",
        "dominant:",
    ] {
        assert!(text.contains(want), "no `{want}` in:\n{text}");
    }
    let p: Value = serde_json::from_str(&std::fs::read_to_string(&json).expect("prediction JSON")).expect("JSON");
    let cycles = num(&p, "cycles_per_pkt");
    assert!(cycles >= num(&v, "floor_cycles"), "{p}");
    let per = num(&p, "mpps_per_worker");
    assert!(
        (per - num(&v["machine"], "tsc_hz") / cycles / 1e6).abs() < 1e-6 * per.max(1.0),
        "{p}"
    );
    assert!((num(&p, "mpps_total") - 2.0 * per).abs() < 1e-9 * per.max(1.0), "{p}");
    assert!(num(&p, "latency_p50_cycles") >= 0.0);
    let t = &p["tables"][0];
    assert_eq!(t["entries"], 5000);
    assert_eq!(t["kind"], "exact");
    // the functional run found the path: one application per packet, all hits
    assert!((num(t, "applies_per_pkt") - 1.0).abs() < 1e-9, "{t}");
    assert!((num(t, "hit_ratio") - 1.0).abs() < 1e-9, "{t}");
    assert!(
        ["static", "dynamic"].contains(&t["storage"].as_str().unwrap_or("")),
        "{t}"
    );
    assert!(num(t, "memory_bytes") > 5000.0 * 16.0, "{t}");
    // the first table applied: staged
    assert_eq!(t["staged"], true, "{t}");

    // the same table applied after another: staged from the runtime's threshold (32,768) on
    for (n, staged) in [(5000, false), (40000, true)] {
        let json = d.join(format!("after{n}.json"));
        ok(&p4dp(&[
            "model",
            "benches/l3_exact.p4",
            "-D",
            "EXACT_AFTER_ANOTHER",
            "--profile",
            prof_s,
            "--entries",
            &format!("ipv4_exact={n}"),
            "--json",
            json.to_str().expect("utf-8"),
        ]));
        let p: Value = serde_json::from_str(&std::fs::read_to_string(&json).expect("JSON")).expect("JSON");
        let tables = p["tables"].as_array().expect("tables");
        let t = tables
            .iter()
            .find(|t| t["name"] == "BenchIngress.ipv4_exact")
            .unwrap_or_else(|| panic!("{p}"));
        assert_eq!(t["staged"], staged, "{n} entries: {t}");
        let pre = tables
            .iter()
            .find(|t| t["name"] == "BenchIngress.pre")
            .unwrap_or_else(|| panic!("{p}"));
        assert_eq!(pre["staged"], true, "{pre}");
    }

    // no entries: every lookup misses
    let json2 = d.join("pred2.json");
    ok(&p4dp(&[
        "model",
        "benches/l3_exact.p4",
        "--profile",
        prof_s,
        "--json",
        json2.to_str().expect("utf-8"),
    ]));
    let p2: Value = serde_json::from_str(&std::fs::read_to_string(&json2).expect("JSON")).expect("JSON");
    assert_eq!(num(&p2["tables"][0], "hit_ratio"), 0.0, "{p2}");

    // bad input: one line each
    one_line_error(
        &p4dp(&[
            "model",
            "benches/l3_exact.p4",
            "--profile",
            prof_s,
            "--entries",
            "nat=10",
        ]),
        "no table `nat`",
    );
    one_line_error(
        &p4dp(&[
            "model",
            "benches/l3_exact.p4",
            "--profile",
            prof_s,
            "--entries",
            "ipv4_exact",
        ]),
        "TABLE=N",
    );
    let missing = d.join("missing.json");
    one_line_error(
        &p4dp(&[
            "model",
            "benches/l3_exact.p4",
            "--profile",
            missing.to_str().expect("utf-8"),
        ]),
        "run `p4dp calibrate` first",
    );
    let broken = d.join("broken.json");
    std::fs::write(&broken, "{\"p4dp_profile\": 3}").expect("write");
    one_line_error(
        &p4dp(&[
            "model",
            "benches/l3_exact.p4",
            "--profile",
            broken.to_str().expect("utf-8"),
        ]),
        "profile:",
    );

    // the validation suite, in its quick form: one row per configuration and the summary line
    let out = d.join("check.txt");
    let out_s = out.to_str().expect("utf-8");
    // `p4dp model --check --quick` with the profile, the results to `out`, and `more`
    let quick_check = |more: &[&str]| {
        let mut args = vec!["model", "--check", "--quick", "--profile", prof_s, "--out", out_s];
        args.extend_from_slice(more);
        p4dp(&args)
    };
    let text = ok(&quick_check(&[]));
    let last = text.lines().last().unwrap_or_default();
    assert!(
        last.starts_with("model error: median ") && last.ends_with(" over 6 configurations"),
        "{text}"
    );
    assert_eq!(std::fs::read_to_string(&out).expect("check file"), text);

    // one configuration by its label: the 2-worker one (each worker on its own port; the suite
    // has it on machines of 2 CPUs and more)
    let two = std::thread::available_parallelism().map_or(1, |n| n.get()) >= 2;
    let only = if two { "2w" } else { "exact 2^4" };
    let text = ok(&quick_check(&["--only", only]));
    assert!(text.ends_with(" over 1 configurations\n"), "{text}");
    let rows: Vec<&str> = text.lines().filter(|l| l.contains(only)).collect();
    assert_eq!(rows.len(), 1, "{text}");
    one_line_error(
        &quick_check(&["--only", "no such label"]),
        "--only no such label: no configuration's label contains it",
    );
    let _ = std::fs::remove_dir_all(&d);
}
