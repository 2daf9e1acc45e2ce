//! Running a command with a time limit, its output in a log file.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How a command ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ended {
    /// It exited with status 0.
    Passed,
    /// It exited with another status, or was killed by a signal (`None`).
    Failed(Option<i32>),
    /// It ran longer than the limit and was killed.
    TimedOut,
    /// It could not be started.
    NotStarted(String),
}

/// Runs `cmd` with stdout and stderr written to `log`, killing it after `limit`.
pub fn run_logged(mut cmd: Command, log: &Path, limit: Duration) -> Ended {
    let (out, err) = match std::fs::File::create(log).and_then(|f| Ok((f.try_clone()?, f))) {
        Ok(x) => x,
        Err(e) => return Ended::NotStarted(format!("creating {}: {e}", log.display())),
    };
    let mut child = match cmd.stdin(Stdio::null()).stdout(out).stderr(err).spawn() {
        Ok(c) => c,
        Err(e) => return Ended::NotStarted(e.to_string()),
    };
    let start = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(st)) if st.success() => return Ended::Passed,
            Ok(Some(st)) => return Ended::Failed(st.code()),
            Ok(None) if start.elapsed() > limit => {
                let _ = child.kill();
                let _ = child.wait();
                return Ended::TimedOut;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(e) => return Ended::NotStarted(e.to_string()),
        }
    }
}

/// The last `n` lines of the file at `path` (empty if it cannot be read).
pub fn tail(path: &Path, n: usize) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}
