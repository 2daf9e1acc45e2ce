//! Shared helpers for the integration tests.
#![allow(dead_code)]
use std::path::{Path, PathBuf};

/// Repository root (two levels above this crate).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("repo root")
}

/// `*.p4` files directly in `dir`, sorted (empty if the directory is missing).
pub fn p4_files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "p4"))
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}
