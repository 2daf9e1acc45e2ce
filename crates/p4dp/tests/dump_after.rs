//! `p4dp check --dump-after PASS`: the program state after each front-end pass, the pass list,
//! and the error for a name that is not a pass.

use std::path::{Path, PathBuf};

use p4dp_testutil::cli;

fn p4dp(args: &[&str]) -> cli::Run {
    cli::run(Path::new(env!("CARGO_BIN_EXE_p4dp")), args)
}

fn corpus(name: &str) -> PathBuf {
    p4dp_testutil::repo_root().join("tests/programs").join(name)
}

const PASSES: [&str; 6] = ["collect", "elaborate", "dp-writes", "rtc", "unreached", "validate"];

#[test]
fn list_prints_every_pass_in_order_with_its_summary() {
    let prog = corpus("entry_lock.p4");
    let r = p4dp(&["check", "--dump-after", "list", prog.to_str().unwrap()]);
    assert!(r.ok(), "{}", r.stderr);
    let names: Vec<&str> = r.stdout.lines().filter_map(|l| l.split_whitespace().next()).collect();
    assert_eq!(names, PASSES, "{}", r.stdout);
    for l in r.stdout.lines() {
        assert!(l.split_whitespace().count() > 2, "a pass without a summary: {l}");
    }
}

#[test]
fn unknown_pass_is_one_error_line_naming_the_passes() {
    let prog = corpus("entry_lock.p4");
    let r = p4dp(&["check", "--dump-after", "parse", prog.to_str().unwrap()]);
    assert_eq!(r.status, Some(2), "{}", r.stderr);
    assert!(r.stdout.is_empty(), "{}", r.stdout);
    let errs: Vec<&str> = r.stderr.lines().filter(|l| l.starts_with("error")).collect();
    assert_eq!(errs.len(), 1, "{}", r.stderr);
    assert!(errs[0].contains("unknown pass `parse`"), "{}", errs[0]);
    assert!(errs[0].contains(&PASSES.join(", ")), "{}", errs[0]);
}

#[test]
fn after_validate_is_the_ir_snapshot() {
    let prog = corpus("entry_lock.p4");
    let r = p4dp(&["check", "--dump-after", "validate", prog.to_str().unwrap()]);
    assert!(r.ok(), "{}", r.stderr);
    let want = std::fs::read_to_string(corpus("entry_lock.ir")).expect("IR snapshot");
    assert_eq!(r.stdout, want);
}

#[test]
fn each_pass_shows_its_own_state() {
    let prog = corpus("entry_lock.p4");
    let dump = |pass: &str| {
        let r = p4dp(&["check", "--dump-after", pass, prog.to_str().unwrap()]);
        assert!(r.ok(), "{pass}: {}", r.stderr);
        r.stdout
    };
    // collect: declarations by name, no IR yet
    let c = dump("collect");
    assert!(
        c.contains("\ncontrol ingress\n") && c.contains("\nstruct standard_metadata_t\n"),
        "{c}"
    );
    assert!(c.contains("errors: NoError, PacketTooShort"), "{c}");
    assert!(!c.contains("control#"), "{c}");
    // elaborate: the IR of what `main` reaches; v1model's CloneType is used by nothing, so only
    // `unreached` resolves it
    let e = dump("elaborate");
    assert!(e.starts_with("package V1Switch (arch v1model)"), "{e}");
    assert!(e.contains("control#1 ingress [ingress]"), "{e}");
    assert!(!e.contains("enum CloneType"), "{e}");
    let u = dump("unreached");
    assert!(u.contains("enum CloneType { I2E, E2E }"), "{u}");
    assert_eq!(u, dump("validate"));
}

#[test]
fn a_dump_is_printed_when_a_later_pass_finds_errors() {
    let text = cli::v1model_program("", "", "        hdr.h.a = undeclared;");
    let p = cli::scratch_file("dump-after-error", "err.p4", &text);
    let r = p4dp(&["check", "--dump-after", "collect", p.to_str().unwrap()]);
    assert_eq!(r.status, Some(2), "{}", r.stderr);
    assert!(r.stdout.contains("\ncontrol Ing\n"), "{}", r.stdout);
    assert!(r.stderr.contains("error[E0201]"), "{}", r.stderr);
    // validate never runs on a program with errors: nothing to print
    let r = p4dp(&["check", "--dump-after", "validate", p.to_str().unwrap()]);
    assert!(r.stdout.is_empty(), "{}", r.stdout);
}
