//! IR snapshots: for every program of the corpus (`tests/programs/NAME.p4` and
//! `tests/programs/compile_only/NAME.p4`), the printed IR (`p4dp check --show-ir`,
//! `p4dp_ir::print::program`) must equal the checked-in `NAME.ir` next to it. A change of the front
//! end's output shows up as a reviewable diff of these files. Bless with
//! `P4DP_BLESS=1 cargo test --release --workspace`; an `.ir` without its `.p4` is stale (removed
//! when blessing).

use p4dp_testutil::{compile, p4_files, parallel, relative_paths, repo_root, snapshot};

#[test]
fn ir_of_every_corpus_program() {
    let root = repo_root();
    let dirs = [root.join("tests/programs"), root.join("tests/programs/compile_only")];
    let programs: Vec<_> = dirs.iter().flat_map(|d| p4_files(d)).collect();
    assert!(
        programs.len() >= 100,
        "only {} programs under {}",
        programs.len(),
        root.display()
    );
    let results = parallel::map(&programs, parallel::jobs(), |p| {
        let ir = match compile::front(p) {
            Ok(done) => relative_paths(&p4dp_ir::print::program(done.program.program())),
            Err(d) => return Err(format!("{}: rejected:\n{d}", p.display())),
        };
        snapshot::check(&p.with_extension("ir"), &ir)
    });
    let mut failures: Vec<String> = results.into_iter().filter_map(Result::err).collect();
    for d in &dirs {
        failures.extend(snapshot::stale(d, "ir", "p4"));
    }
    snapshot::assert_none(&failures, &format!("{} IR snapshots", programs.len()));
}
