//! `p4dp check` and `p4dp build` agree on every program: the same verdict, and for a rejected
//! program the same diagnostics. Over the whole corpus (tests/programs, its compile_only/,
//! examples/, benches/), which both must accept, and over the back end's reject corpus
//! (tests/reject/backend/NAME.p4: one construct the back end cannot translate each), which both
//! must reject with exactly the rendered diagnostics in NAME.expected (crates/p4dp/tests/reject.rs
//! checks and blesses those files; here both commands' output must match them).

use std::path::{Path, PathBuf};
use std::process::Command;

fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn p4_files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "p4"))
        .collect();
    v.sort();
    v
}

/// Runs `p4dp ARGS` in the repository root: (success, stderr).
fn p4dp(args: &[&str]) -> (bool, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_p4dp"))
        .current_dir(repo_root())
        .args(args)
        .output()
        .expect("run p4dp");
    (out.status.success(), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// `check` and `build` of `rel` (a path relative to the repository root): (check, build), each
/// (success, stderr).
fn check_and_build(rel: &str, out: &Path) -> ((bool, String), (bool, String)) {
    let check = p4dp(&["check", rel]);
    let build = p4dp(&["build", rel, "-o", out.to_str().expect("utf-8 path")]);
    let _ = std::fs::remove_dir_all(out);
    (check, build)
}

/// The diagnostics of a run: its stderr without the lines only one command prints (`X: ok`).
fn diagnostics(stderr: &str) -> String {
    stderr
        .lines()
        .filter(|l| !l.ends_with(": ok"))
        .map(|l| format!("{l}\n"))
        .collect()
}

fn rel(p: &Path) -> String {
    let root = repo_root().canonicalize().expect("repo root");
    let p = p.canonicalize().expect("program path");
    p.strip_prefix(&root)
        .expect("inside the repository")
        .display()
        .to_string()
}

#[test]
fn check_and_build_agree_on_the_corpus() {
    let root = repo_root();
    let mut files = Vec::new();
    for d in ["tests/programs", "tests/programs/compile_only", "examples", "benches"] {
        files.extend(p4_files(&root.join(d)));
    }
    assert!(files.len() > 100, "corpus not found ({} programs)", files.len());
    let scratch = std::env::temp_dir().join(format!("p4dp-check-build-{}", std::process::id()));
    // two at a time: gcc dominates, and the machine is shared
    let chunks: Vec<Vec<PathBuf>> = files.chunks(files.len().div_ceil(2)).map(|c| c.to_vec()).collect();
    let failures: Vec<String> = std::thread::scope(|s| {
        let hs: Vec<_> = chunks
            .iter()
            .enumerate()
            .map(|(k, chunk)| {
                let scratch = scratch.join(k.to_string());
                s.spawn(move || {
                    let mut bad = Vec::new();
                    for f in chunk {
                        let r = rel(f);
                        let ((c_ok, c_err), (b_ok, b_err)) = check_and_build(&r, &scratch);
                        if !c_ok || !b_ok {
                            bad.push(format!(
                                "{r}: check {}, build {}\n--- check ---\n{c_err}--- build ---\n{b_err}",
                                if c_ok { "ok" } else { "failed" },
                                if b_ok { "ok" } else { "failed" }
                            ));
                        }
                    }
                    bad
                })
            })
            .collect();
        hs.into_iter().flat_map(|h| h.join().expect("worker thread")).collect()
    });
    let _ = std::fs::remove_dir_all(&scratch);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn check_and_build_reject_the_backend_reject_corpus_alike() {
    let root = repo_root();
    let files = p4_files(&root.join("tests/reject/backend"));
    assert!(!files.is_empty(), "no programs in tests/reject/backend");
    let scratch = std::env::temp_dir().join(format!("p4dp-check-build-reject-{}", std::process::id()));
    let mut mismatches = Vec::new();
    for f in &files {
        let r = rel(f);
        let ((c_ok, c_err), (b_ok, b_err)) = check_and_build(&r, &scratch);
        assert!(!c_ok, "{r}: accepted by check:\n{c_err}");
        assert!(!b_ok, "{r}: accepted by build:\n{b_err}");
        let (c_diag, b_diag) = (diagnostics(&c_err), diagnostics(&b_err));
        assert_eq!(c_diag, b_diag, "{r}: check and build report differently");
        // the capability check's codes are E0501-E0507 (p4dp_cgen::UnsupportedKind)
        assert!(c_diag.contains("error[E050"), "{r}: not a back-end error:\n{c_diag}");
        // the rendered diagnostics (without the CLI's closing `error: FILE: N errors found` line)
        // are the reject corpus's snapshot, checked and blessed by crates/p4dp/tests/reject.rs
        let summary = format!("error: {r}: ");
        let shown: String = c_diag
            .lines()
            .filter(|l| !l.starts_with(&summary))
            .map(|l| format!("{l}\n"))
            .collect();
        let expected = std::fs::read_to_string(f.with_extension("expected")).unwrap_or_default();
        if expected != shown {
            mismatches.push(format!("=== {r} ===\n--- expected ---\n{expected}--- got ---\n{shown}"));
        }
    }
    assert!(
        mismatches.is_empty(),
        "{}\n(if the new output is right: P4DP_BLESS=1 cargo test --release --workspace)",
        mismatches.join("\n")
    );
}
