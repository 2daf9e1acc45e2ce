//! `p4dp bench`'s command line: the suites are listed by the names users give to `--suite`, each
//! with what it measures, and only those names are accepted.

use std::path::Path;
use std::process::Command;

fn p4dp(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_p4dp"))
        .args(args)
        .output()
        .expect("run p4dp")
}

/// Runs the P4Runtime update suite for 0.2 s with `extra` arguments and its report written to
/// `out_file` as well; checks that it succeeded and that the file holds what it printed, removes
/// the file and returns the report.
fn update_suite(out_file: &Path, extra: &[&str]) -> String {
    let out_arg = out_file.display().to_string();
    let mut args = vec![
        "bench",
        "--suite",
        "p4runtime-updates",
        "--duration",
        "0.2",
        "--out",
        &out_arg,
    ];
    args.extend_from_slice(extra);
    let out = p4dp(&args);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let written = std::fs::read_to_string(out_file);
    let _ = std::fs::remove_file(out_file);
    assert!(out.status.success(), "{text}\n{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(written.expect("the report file"), text);
    text
}

#[test]
fn list_names_every_suite_with_what_it_measures() {
    let out = p4dp(&["bench", "--list"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).expect("utf-8");
    let rows: Vec<(&str, &str)> = text
        .lines()
        .map(|l| l.split_once(char::is_whitespace).expect("NAME  ABOUT"))
        .collect();
    let names: Vec<&str> = rows.iter().map(|r| r.0).collect();
    assert_eq!(
        names,
        [
            "overhead",
            "dataplane-writes",
            "add-on-miss",
            "table-kinds",
            "program-shape",
            "p4runtime-updates",
            "lpm",
            "lpm6",
            "rtc-costs",
            "rtc-spacesaving",
            "rtc-flow-monitor",
            "rtc-hot-cache"
        ],
        "{text}"
    );
    for (name, about) in &rows {
        assert!(about.trim().len() > 40, "suite {name} has no description: {text}");
    }
    // every listed name is accepted by --suite (checked without running it: --help after it)
    let help = p4dp(&["bench", "--help"]);
    let help = String::from_utf8_lossy(&help.stdout);
    for n in names {
        assert!(help.contains(n), "--help does not offer {n}:\n{help}");
    }
}

#[test]
fn only_the_listed_suites_are_accepted() {
    for other in ["all", "latency", "Overhead"] {
        let out = p4dp(&["bench", "--suite", other]);
        assert!(!out.status.success());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("possible values: overhead, dataplane-writes, add-on-miss, table-kinds, program-shape, p4runtime-updates, lpm, lpm6, rtc-costs, rtc-spacesaving, rtc-flow-monitor, rtc-hot-cache"),
            "{err}"
        );
    }
}

#[test]
fn a_bench_without_program_or_suite_says_how_to_find_the_suites() {
    let out = p4dp(&["bench"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("p4dp bench --list"), "{err}");
}

#[test]
fn a_program_that_drops_every_packet_is_named_with_the_missing_entries() {
    // l3_exact's table misses without entries and its default action drops: every packet is lost
    // in the warm-up. The error says so, and says how to install entries.
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let out = Command::new(env!("CARGO_BIN_EXE_p4dp"))
        .current_dir(&root)
        .args([
            "bench",
            "benches/l3_exact.p4",
            "--repeat",
            "1",
            "--warmup",
            "0.1",
            "--duration",
            "0.1",
        ])
        .output()
        .expect("run p4dp");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("its tables are empty: --entries N"), "{err}");
    assert!(err.contains("4096 of 4096 packets were lost before it"), "{err}");
}

/// The P4Runtime update suite, shortened, runs end to end (a client process against `p4dp
/// serve`), its DATAPLANE_ATOMIC modifies are never seen half-applied or missing by packets, and
/// it reports d_all and d_control of every modify experiment, in its JSON and in a plot.
/// Checks that the suite works, not its figures.
#[test]
fn the_p4runtime_update_suite_runs_and_its_atomic_modifies_are_never_seen_half_applied() {
    let out_file = std::env::temp_dir().join(format!("p4dp-bench-p4rt-{}.txt", std::process::id()));
    let json_file = out_file.with_extension("json");
    let svg_file = out_file.with_extension("svg");
    let json_arg = json_file.display().to_string();
    let text = update_suite(&out_file, &["--json", &json_arg]);
    let json = std::fs::read_to_string(&json_file).expect("the JSON file");
    let svg = std::fs::read_to_string(&svg_file).expect("the plot");
    for f in [&json_file, &svg_file] {
        let _ = std::fs::remove_file(f);
    }
    assert!(
        text.contains(&format!(
            "percentile distribution of d_all and d_control: {}",
            svg_file.display()
        )),
        "{text}"
    );
    assert!(svg.starts_with("<?xml") && svg.trim_end().ends_with("</svg>"), "{svg}");
    assert!(svg.contains("<polyline") && svg.contains(">99%<"), "{svg}");
    for k in [
        "\"d_all_us\"",
        "\"d_all_from_call_us\"",
        "\"d_control_us\"",
        "\"insert_throughput\"",
        "\"packets_tables_disagree\"",
        "\"grpc_floor_round_trip_us\"",
        "\"worker_runnable_off_cpu_ms\"",
        "\"cache_floor_task_us\"",
    ] {
        assert!(json.contains(k), "no {k} in {json}");
    }
    // the transport's floor, and the cache floor below it, measured in the same run at both paces
    for pace in ["at 100/s", "back to back"] {
        assert!(
            text.lines()
                .any(|l| l.starts_with(&format!("Capabilities {pace}: round trip")) && l.contains("median")),
            "no gRPC floor {pace}:\n{text}"
        );
        for size in [32, 512] {
            assert!(
                text.lines()
                    .any(|l| l.starts_with(&format!("cache task {size} KiB {pace} ")) && l.contains("median")),
                "no cache floor of {size} KiB {pace}:\n{text}"
            );
        }
    }
    for size in [32, 512] {
        assert!(
            text.lines()
                .any(|l| l.starts_with(&format!("cache task {size} KiB: at 100/s "))
                    && l.ends_with("x its time back to back (medians)")),
            "no cache floor ratio of {size} KiB:\n{text}"
        );
    }
    for exp in [
        "DATAPLANE_ATOMIC at 100/s",
        "DATAPLANE_ATOMIC back to back",
        "CONTINUE_ON_ERROR back to back",
    ] {
        for what in ["d_all", "d_control"] {
            let l = text
                .lines()
                .find(|l| l.starts_with(&format!("{exp}: {what} ")))
                .unwrap_or_else(|| panic!("no {what} of {exp}:\n{text}"));
            let field = |name: &str| -> f64 {
                let mut w = l.split_whitespace();
                w.find(|x| *x == name)
                    .and(w.next())
                    .and_then(|v| v.parse().ok())
                    .unwrap_or(f64::NAN)
            };
            assert!(field("n") > 0.0, "{l}");
            assert!(field("median") > 0.0 && field("max") >= field("median"), "{l}");
        }
        // d_all starts when the Write's bytes left the client: every Write timed from its call
        // was timed from its bytes too (the connection's writes are watched), and later
        let n_of = |row: &str| {
            text.lines()
                .find(|l| l.starts_with(row))
                .and_then(|l| l.split_whitespace().skip_while(|w| *w != "n").nth(1))
                .and_then(|v| v.parse::<u64>().ok())
                .unwrap_or_else(|| panic!("no {row}:\n{text}"))
        };
        assert_eq!(
            n_of(&format!("{exp}: d_all ")),
            n_of(&format!("{exp}: d_all from the client's call ")),
            "{text}"
        );
        let client = text
            .lines()
            .find(|l| l.starts_with(&format!("{exp}: client (call -> bytes to the kernel) ")))
            .unwrap_or_else(|| panic!("no client part of {exp}:\n{text}"));
        assert!(!client.contains("median        -"), "{client}");
        // where the kernel keeps schedstat, how long the worker waited for its CPU meanwhile
        if std::path::Path::new("/proc/self/schedstat").exists() {
            let prefix = format!("{exp}: the worker runnable but off its CPU: ");
            let l = text
                .lines()
                .find(|l| l.starts_with(&prefix))
                .unwrap_or_else(|| panic!("no worker line of {exp}:\n{text}"));
            let ms: f64 = l[prefix.len()..]
                .split(' ')
                .next()
                .and_then(|v| v.parse().ok())
                .unwrap_or_else(|| panic!("no time in {l}"));
            assert!(ms >= 0.0 && l.ends_with("times (schedstat)"), "{l}");
        }
    }
    for size in ["1", "10", "100", "1000", "10000"] {
        for mode in ["CONTINUE_ON_ERROR", "DATAPLANE_ATOMIC"] {
            assert!(
                text.lines().any(|l| l.starts_with("batch")
                    && l.split_whitespace().nth(1) == Some(size)
                    && l.contains(mode)
                    && l.contains("median")),
                "no round trips for {size} {mode}:\n{text}"
            );
        }
    }
    let atomic: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("DATAPLANE_ATOMIC") && l.contains("round trip"))
        .collect();
    assert_eq!(atomic.len(), 2, "{text}");
    for l in atomic {
        assert!(
            l.contains("default action (miss) 0, tables disagree 0, consistent "),
            "{l}"
        );
        let consistent: u64 = l
            .rsplit(' ')
            .next()
            .and_then(|v| v.parse().ok())
            .expect("a packet count");
        assert!(consistent > 0, "no packets flowed during the modifies: {l}");
    }
}

/// `--inserts-only` runs the insert-throughput experiment alone, at the batch sizes of
/// `--insert-batches`; a batch size outside 1..=10000 is refused before anything starts.
#[test]
fn the_p4runtime_update_suite_runs_its_inserts_alone() {
    let out_file = std::env::temp_dir().join(format!("p4dp-bench-p4rt-inserts-{}.txt", std::process::id()));
    let text = update_suite(&out_file, &["--inserts-only", "--insert-batches", "10,100"]);
    let rows: Vec<&str> = text.lines().filter(|l| l.starts_with("batch ")).collect();
    assert_eq!(rows.len(), 2, "{text}");
    assert!(
        rows[0].starts_with("batch    10:") && rows[1].starts_with("batch   100:"),
        "{text}"
    );
    assert!(rows.iter().all(|r| r.contains(" entries/s")), "{text}");
    // the client's own CPU time per entry beside the switch's (what the two share)
    assert!(
        rows.iter()
            .all(|r| r.contains("switch control CPU ") && r.contains("client CPU ") && !r.contains("client CPU ?")),
        "{text}"
    );
    assert!(
        !text.contains("DATAPLANE_ATOMIC commit cost") && !text.contains("gRPC floor"),
        "{text}"
    );
    for bad in ["0", "10001"] {
        let out = p4dp(&[
            "bench",
            "--suite",
            "p4runtime-updates",
            "--inserts-only",
            "--insert-batches",
            bad,
        ]);
        assert!(!out.status.success());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("--insert-batches"), "{err}");
    }
}

#[test]
fn the_p4runtime_update_suite_runs_over_a_unix_socket() {
    let out_file = std::env::temp_dir().join(format!("p4dp-bench-p4rt-unix-{}.txt", std::process::id()));
    let text = update_suite(
        &out_file,
        &["--inserts-only", "--insert-batches", "10", "--p4runtime-unix"],
    );
    assert!(text.contains("on a Unix socket (--p4runtime-unix)"), "{text}");
    let rows: Vec<&str> = text.lines().filter(|l| l.starts_with("batch ")).collect();
    assert_eq!(rows.len(), 1, "{text}");
    assert!(rows[0].contains(" entries/s"), "{text}");
}
