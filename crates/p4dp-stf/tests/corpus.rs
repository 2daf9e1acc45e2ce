//! Every `.stf` file of the project's own corpus (`tests/programs/`) must
//! parse. (Name resolution needs the compiled program, so that part is
//! exercised by `p4dp stf`, not here.)

use std::path::{Path, PathBuf};

fn stf_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            stf_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "stf") {
            out.push(p);
        }
    }
}

#[test]
fn project_corpus_parses() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/programs");
    let mut files = Vec::new();
    stf_files(&root, &mut files);
    files.sort();
    let mut bad = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap_or_default();
        if let Err(d) = p4dp_stf::parse(&f.display().to_string(), &text) {
            bad.push(d.to_string());
        }
    }
    assert!(
        bad.is_empty(),
        "{} of {} files fail to parse:\n{}",
        bad.len(),
        files.len(),
        bad.join("\n")
    );
}
