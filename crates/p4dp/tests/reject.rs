//! The reject corpus: every `tests/reject/DIR/NAME.p4`, for every directory `DIR` (`syntax`,
//! `sema`, `backend`, and any added later, with no change here), must be rejected by the compiler
//! (front end, then back end, as `p4dp build` runs them) with exactly the rendered diagnostics
//! in `NAME.expected` (repository paths relative). Bless with
//! `P4DP_BLESS=1 cargo test --release --workspace`; an `.expected` without its `.p4` is stale.

use p4dp_testutil::{compile, p4_files, repo_root, snapshot, subdirs};

#[test]
fn every_reject_program_fails_with_its_expected_diagnostics() {
    let root = repo_root().join("tests/reject");
    let dirs = subdirs(&root);
    let mut failures = Vec::new();
    let mut checked = 0;
    for dir in &dirs {
        let files = p4_files(dir);
        if files.is_empty() {
            failures.push(format!("{}: no .p4 files", dir.display()));
        }
        for f in files {
            checked += 1;
            let r = compile::rejection(&f).and_then(|rendered| {
                if rendered.contains("error[") || rendered.starts_with("error") {
                    Ok(rendered)
                } else {
                    Err(format!("{}: rejected without an error:\n{rendered}", f.display()))
                }
            });
            if let Err(e) = r.and_then(|rendered| snapshot::check(&f.with_extension("expected"), &rendered)) {
                failures.push(e);
            }
        }
        failures.extend(snapshot::stale(dir, "expected", "p4"));
    }
    assert!(checked >= 40, "only {checked} programs under {}", root.display());
    snapshot::assert_none(
        &failures,
        &format!("{checked} reject programs in {} directories", dirs.len()),
    );
}
