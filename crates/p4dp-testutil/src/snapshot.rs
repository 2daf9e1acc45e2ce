//! Checked-in expected output ("snapshots"): IR dumps (`tests/programs/*.ir`), generated C and
//! P4Info (`crates/p4dp-cgen/tests/cgen/`), rendered diagnostics (`tests/reject/*/*.expected`).
//!
//! One rule for every kind: `P4DP_BLESS=1 cargo test --release --workspace` rewrites the
//! snapshots that differ (and creates missing ones) instead of failing; review the diff with
//! `git diff` before committing.

use std::path::Path;

/// The command that rewrites every snapshot, for failure messages.
pub const BLESS_COMMAND: &str = "P4DP_BLESS=1 cargo test --release --workspace";

/// Whether this run rewrites snapshots: `P4DP_BLESS` set to anything but empty or `0`.
pub fn blessing() -> bool {
    std::env::var("P4DP_BLESS").is_ok_and(|v| !v.is_empty() && v != "0")
}

/// Compares `got` with the file at `path`. When blessing, writes `got` there if it differs (or the
/// file is missing) and succeeds. Otherwise returns a description of the first difference.
pub fn check(path: &Path, got: &str) -> Result<(), String> {
    let want = std::fs::read_to_string(path).ok();
    if want.as_deref() == Some(got) {
        return Ok(());
    }
    if blessing() {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
        }
        return std::fs::write(path, got).map_err(|e| format!("writing {}: {e}", path.display()));
    }
    let Some(want) = want else {
        return Err(format!(
            "{}: missing snapshot; it would be:\n{}",
            path.display(),
            head(got, 20)
        ));
    };
    Err(format!("{}: differs\n{}", path.display(), first_difference(&want, got)))
}

/// Fails the test with every message of `failures` (from [`check`] or the test's own checks) and
/// the bless command; `what` says what was checked ("12 IR snapshots").
#[track_caller]
pub fn assert_none(failures: &[String], what: &str) {
    assert!(
        failures.is_empty(),
        "{} of {what} failed:\n\n{}\n\n(if the new output is right: {BLESS_COMMAND}, then review `git diff`)",
        failures.len(),
        failures.join("\n\n")
    );
}

/// Snapshots in `dir` with extension `ext` whose source file (same stem, extension `source_ext`)
/// is gone: deleted when blessing, else reported as failures.
pub fn stale(dir: &Path, ext: &str, source_ext: &str) -> Vec<String> {
    let mut out = Vec::new();
    for f in crate::files_with_ext(dir, ext) {
        if f.with_extension(source_ext).exists() {
            continue;
        }
        if blessing() {
            if let Err(e) = std::fs::remove_file(&f) {
                out.push(format!("{}: cannot remove stale snapshot: {e}", f.display()));
            }
        } else {
            out.push(format!("{}: stale snapshot (no .{source_ext} next to it)", f.display()));
        }
    }
    out
}

fn head(text: &str, n: usize) -> String {
    let mut s: String = text.lines().take(n).map(|l| format!("  {l}\n")).collect();
    if text.lines().count() > n {
        s.push_str("  ...\n");
    }
    s
}

/// The first differing line of two texts with three lines of context either side.
fn first_difference(want: &str, got: &str) -> String {
    let (w, g): (Vec<&str>, Vec<&str>) = (want.lines().collect(), got.lines().collect());
    let i = w
        .iter()
        .zip(&g)
        .position(|(a, b)| a != b)
        .unwrap_or(w.len().min(g.len()));
    let lo = i.saturating_sub(3);
    let show = |v: &[&str], mark: char| -> String {
        v[lo.min(v.len())..(i + 4).min(v.len())]
            .iter()
            .enumerate()
            .map(|(k, l)| format!("{mark}{:5} {l}\n", lo + k + 1))
            .collect()
    };
    format!(
        "first difference at line {} (expected {} lines, got {}):\n--- expected\n{}+++ got\n{}",
        i + 1,
        w.len(),
        g.len(),
        show(&w, '-'),
        show(&g, '+')
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn first_difference_points_at_the_line() {
        let d = super::first_difference("a\nb\nc\n", "a\nx\nc\n");
        assert!(d.starts_with("first difference at line 2"), "{d}");
        assert!(d.contains("-    2 b") && d.contains("+    2 x"), "{d}");
        let d = super::first_difference("a\n", "a\nb\n");
        assert!(d.contains("line 2 (expected 1 lines, got 2)"), "{d}");
    }
}
