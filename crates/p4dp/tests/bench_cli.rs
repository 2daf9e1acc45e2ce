//! `p4dp bench`'s command line: the suites are listed by the names users give to `--suite`, each
//! with what it measures, and only those names are accepted.

use std::process::Command;

fn p4dp(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_p4dp"))
        .args(args)
        .output()
        .expect("run p4dp")
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
            "p4runtime-updates"
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
            err.contains("possible values: overhead, dataplane-writes, add-on-miss, table-kinds, program-shape, p4runtime-updates"),
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
