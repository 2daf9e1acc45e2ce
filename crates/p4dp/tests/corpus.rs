//! The corpus on the real runtime, through the `p4dp` binary as a user runs it:
//!
//! - every `tests/programs/NAME.p4` with a `NAME.stf` runs `p4dp stf` twice: through the
//!   program's `process()` (one packet per call) and with `--burst` through the entry point the
//!   worker cores take (`process_mbufs` / `process_burst`, with staged lookups, every later
//!   staged table staged whatever its size: `P4DP_STAGE_AHEAD_MIN=0`), which guards the staging
//!   invariant;
//! - every other program (`tests/programs/*.p4` without an STF, `tests/programs/compile_only/`,
//!   `examples/`) must build with `p4dp build` (front end, back end, gcc `-Wall -Werror`).
//!
//! The `process` run builds the program with UndefinedBehaviorSanitizer (`P4DP_CFLAGS`, which
//! `compile_so` appends to gcc's flags): undefined behaviour in generated code aborts the run. The
//! `--burst` run builds it exactly as users get it.
//!
//! Two runs at a time (`P4DP_TEST_JOBS` to change), each killed after 120 s. `P4DP_CORPUS_FILTER=s`
//! runs only the programs whose name contains `s`. Logs: `build/corpus-logs/`. The failure report
//! names every failing run with the end of its log.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use p4dp_testutil::process::{run_logged, tail, Ended};
use p4dp_testutil::{files_with_ext, p4_files, parallel, repo_root};

/// gcc flags of the `process` runs: any undefined behaviour UBSan detects ends the run with an error.
const UBSAN: &str = "-fsanitize=undefined -fno-sanitize-recover=all";

/// One `p4dp` invocation of the corpus.
struct Run {
    program: PathBuf,
    /// `None`: `p4dp build`; `Some((stf, burst))`: `p4dp stf [--burst]`.
    stf: Option<(PathBuf, bool)>,
}

impl Run {
    fn label(&self, root: &Path) -> String {
        let p = self
            .program
            .strip_prefix(root)
            .unwrap_or(&self.program)
            .display()
            .to_string();
        match &self.stf {
            None => format!("{p} (build)"),
            Some((_, false)) => format!("{p} (stf, UBSan)"),
            Some((_, true)) => format!("{p} (stf --burst)"),
        }
    }

    fn log_name(&self) -> String {
        let stem = self
            .program
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let dir = self
            .program
            .parent()
            .and_then(|d| d.file_name())
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        match &self.stf {
            None => format!("{dir}-{stem}.build.log"),
            Some((_, false)) => format!("{dir}-{stem}.stf.log"),
            Some((_, true)) => format!("{dir}-{stem}.burst.log"),
        }
    }
}

fn runs(root: &Path) -> Vec<Run> {
    let filter = std::env::var("P4DP_CORPUS_FILTER").unwrap_or_default();
    let mut v = Vec::new();
    let programs = p4_files(&root.join("tests/programs"))
        .into_iter()
        .chain(p4_files(&root.join("tests/programs/compile_only")))
        .chain(p4_files(&root.join("examples")));
    for p in programs {
        if !p.file_stem().is_some_and(|s| s.to_string_lossy().contains(&filter)) {
            continue;
        }
        let stf = p.with_extension("stf");
        if stf.exists() {
            v.push(Run {
                program: p.clone(),
                stf: Some((stf.clone(), false)),
            });
            v.push(Run {
                program: p,
                stf: Some((stf, true)),
            });
        } else {
            v.push(Run { program: p, stf: None });
        }
    }
    v
}

#[test]
fn corpus_on_the_real_runtime() {
    let root = repo_root();
    let all = runs(&root);
    if std::env::var_os("P4DP_CORPUS_FILTER").is_none() {
        // the corpus is where it should be: a wrong path must not pass with nothing run
        let with_stf = all.iter().filter(|r| r.stf.is_some()).count();
        assert!(
            with_stf >= 200,
            "only {with_stf} STF runs found under {}",
            root.display()
        );
        assert!(!files_with_ext(&root.join("examples"), "p4").is_empty(), "no examples");
    }
    let logs = root.join("build/corpus-logs");
    let _ = std::fs::remove_dir_all(&logs);
    std::fs::create_dir_all(&logs).expect("log directory");
    let out = p4dp_testutil::scratch_dir("corpus-build");
    let results = parallel::map(&all, parallel::jobs(), |r| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_p4dp"));
        cmd.current_dir(&root);
        match &r.stf {
            Some((stf, burst)) => {
                cmd.arg("stf");
                if *burst {
                    // every later staged table staged in every chunk, whatever its size
                    // (p4dp_table_stage_ahead): the staging invariant for all of them
                    cmd.arg("--burst").env("P4DP_STAGE_AHEAD_MIN", "0");
                } else {
                    cmd.env("P4DP_CFLAGS", UBSAN);
                }
                cmd.arg(&r.program).arg(stf);
            }
            None => {
                let stem = r.program.file_stem().unwrap_or_default();
                cmd.arg("build").arg(&r.program).arg("-o").arg(out.join(stem));
            }
        }
        let log = logs.join(r.log_name());
        let ended = run_logged(cmd, &log, Duration::from_secs(120));
        (ended, log)
    });
    let mut failures = Vec::new();
    for (r, (ended, log)) in all.iter().zip(&results) {
        let why = match ended {
            Ended::Passed => continue,
            Ended::Failed(Some(c)) => format!("exit status {c}"),
            Ended::Failed(None) => "killed by a signal".into(),
            Ended::TimedOut => "timed out after 120 s".into(),
            Ended::NotStarted(e) => format!("not started: {e}"),
        };
        failures.push(format!(
            "FAIL {}: {why} (log: {})\n{}",
            r.label(&root),
            log.display(),
            tail(log, 25).lines().map(|l| format!("    {l}\n")).collect::<String>()
        ));
    }
    let _ = std::fs::remove_dir_all(&out);
    eprintln!(
        "corpus: {} passed, {} failed",
        all.len() - failures.len(),
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} of {} corpus runs failed:\n{}",
        failures.len(),
        all.len(),
        failures.join("\n")
    );
}
