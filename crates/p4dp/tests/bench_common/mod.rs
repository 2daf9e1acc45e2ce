//! Helpers of the `p4dp bench` command-line tests (bench_json.rs, bench_sweep_cli.rs,
//! bench_rtc_cli.rs): the built binary run from the repository's root, a run with short windows
//! tried again when it failed (on a shared machine a window can see no packet), the JSON document.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A scratch directory of this test process (`tag`: distinct per test of one file).
pub fn scratch(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("p4dp-bench-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&d).expect("scratch dir");
    d
}

/// `p4dp bench ARGS`, once.
pub fn bench_once(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_p4dp"))
        .current_dir(root())
        .arg("bench")
        .args(args)
        .output()
        .expect("run p4dp")
}

/// `run()` until it succeeds, at most 3 times; then the test fails with the last run's output
/// (`what` names the run).
pub fn retried(what: &str, mut run: impl FnMut() -> Output) -> Output {
    let mut last = None;
    for _ in 0..3 {
        let out = run();
        if out.status.success() {
            return out;
        }
        last = Some(out);
    }
    let out = last.expect("ran");
    panic!(
        "{what} failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `p4dp bench ARGS` that must succeed, tried up to 3 times.
pub fn bench(args: &[&str]) -> Output {
    retried(&format!("p4dp bench {args:?}"), || bench_once(args))
}

pub fn read_json(p: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(p).expect("json file")).expect("valid JSON")
}

pub fn num(v: &Value, what: &str) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("{what} is not a number: {v}"))
}
