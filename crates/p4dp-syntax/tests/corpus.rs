//! Every P4 program of the project (architecture files, the test corpus and
//! this crate's own construct tests) must preprocess and parse without a
//! single diagnostic.

use p4dp_syntax::preprocess::{preprocess_with, PreprocessOptions};
use p4dp_syntax::{parse_program, render_all};
use p4dp_testutil::{p4_files, repo_root};
use std::path::PathBuf;

#[test]
fn corpus_parses_without_errors() {
    let root = repo_root();
    let mut files: Vec<PathBuf> = Vec::new();
    for dir in ["p4include", "tests/programs", "crates/p4dp-syntax/tests/p4"] {
        files.extend(p4_files(&root.join(dir)));
    }
    assert!(files.len() >= 2, "no corpus found under {}", root.display());
    let opts = PreprocessOptions {
        include_dirs: vec![root.join("p4include")],
        cwd: Some(root.clone()),
        ..Default::default()
    };
    let mut failures = String::new();
    for f in &files {
        let rel = f.strip_prefix(&root).unwrap_or(f);
        match preprocess_with(rel, &opts) {
            Err(d) => failures.push_str(&render_all(&Default::default(), &[d])),
            Ok((mut sm, id)) => {
                let (prog, diags) = parse_program(&mut sm, id);
                // Warnings (p4c-compatibility W01xx) are expected in a few programs.
                if diags.iter().any(|d| d.is_error()) {
                    failures.push_str(&render_all(&sm, &diags));
                }
                assert!(!prog.decls.is_empty(), "{}: empty AST", rel.display());
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} files checked; diagnostics:\n{failures}",
        files.len()
    );
}
