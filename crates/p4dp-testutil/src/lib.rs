//! Helpers shared by the workspace's tests. A dev-dependency only: nothing here is part of p4dp.
//!
//! - [`repo_root`], [`p4include_dir`], [`files_with_ext`]: where the corpora are.
//! - [`scratch_dir`]: a fresh per-process temporary directory.
//! - [`pcap`]: writing and reading the classic pcap files the `net_pcap` ports use.
//! - [`snapshot`]: comparing output with a checked-in file, with the one bless rule of the
//!   workspace (`P4DP_BLESS=1 cargo test --release --workspace` rewrites every kind of snapshot).
//! - [`compile`]: the front end and back end on a program file or on source text.
//! - [`parallel`]: running independent jobs on a bounded number of threads.
//! - [`process`]: running a command with a time limit and a log file.
//! - [`cli`]: running a built binary on a small program written for one test.
//! - [`rng`]: the fuzz tests' seeded random generator.

pub mod cli;
pub mod compile;
pub mod parallel;
pub mod pcap;
pub mod process;
pub mod rng;
pub mod snapshot;

use std::path::{Path, PathBuf};

/// The repository's root (two levels above this crate), canonical, so that prefix stripping of
/// rendered paths works whatever the working directory.
pub fn repo_root() -> PathBuf {
    let r = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    r.canonicalize().unwrap_or(r)
}

/// The architecture files (`p4include/`).
pub fn p4include_dir() -> PathBuf {
    repo_root().join("p4include")
}

/// Files directly in `dir` whose name ends in `.ext`, sorted (empty if `dir` does not exist).
pub fn files_with_ext(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == ext))
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

/// `*.p4` files directly in `dir`, sorted.
pub fn p4_files(dir: &Path) -> Vec<PathBuf> {
    files_with_ext(dir, "p4")
}

/// Subdirectories of `dir`, sorted.
pub fn subdirs(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.is_dir())
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

/// `text` with the repository's path removed (`/…/repo/tests/x.p4` → `tests/x.p4`), so that
/// snapshots of rendered diagnostics do not depend on where the repository is checked out.
pub fn relative_paths(text: &str) -> String {
    text.replace(&format!("{}/", repo_root().display()), "")
}

/// An empty directory `<tmp>/p4dp-test-<tag>-<pid>` (removed first if it exists), for one test's
/// files. Tests running in parallel in one process need distinct tags.
pub fn scratch_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("p4dp-test-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap_or_else(|e| panic!("creating {}: {e}", d.display()));
    d
}
