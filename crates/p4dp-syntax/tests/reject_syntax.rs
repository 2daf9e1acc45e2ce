//! Snapshot tests: `tests/reject/syntax/NAME.p4` (repository root) must be
//! rejected with exactly the rendered diagnostics in `NAME.expected`.
//! Set `P4DP_BLESS=1` to (re)write the `.expected` files.
mod common;

use common::{p4_files, repo_root};
use p4dp_syntax::preprocess::{preprocess_with, PreprocessOptions};
use p4dp_syntax::{parse_program, render_all, SourceMap};

#[test]
fn reject_syntax_snapshots() {
    let root = repo_root();
    let dir = root.join("tests/reject/syntax");
    let files = p4_files(&dir);
    assert!(!files.is_empty(), "no programs in {}", dir.display());
    let bless = std::env::var_os("P4DP_BLESS").is_some();
    let opts = PreprocessOptions {
        include_dirs: vec![root.join("p4include")],
        cwd: Some(root.clone()),
        ..Default::default()
    };
    let mut mismatches = Vec::new();
    for f in &files {
        let rel = f.strip_prefix(&root).unwrap_or(f);
        let rendered = match preprocess_with(rel, &opts) {
            Err(d) => render_all(&SourceMap::new(), &[d]),
            Ok((mut sm, id)) => {
                let (_, diags) = parse_program(&mut sm, id);
                assert!(diags.iter().any(|d| d.is_error()), "{} was accepted", rel.display());
                render_all(&sm, &diags)
            }
        };
        let exp_path = f.with_extension("expected");
        if bless {
            std::fs::write(&exp_path, &rendered).expect("write .expected");
            continue;
        }
        let expected = std::fs::read_to_string(&exp_path).unwrap_or_default();
        if expected != rendered {
            mismatches.push(format!(
                "=== {} ===\n--- expected ---\n{expected}--- got ---\n{rendered}",
                rel.display()
            ));
        }
    }
    assert!(
        mismatches.is_empty(),
        "{}\n(run with P4DP_BLESS=1 to update)",
        mismatches.join("\n")
    );
}
