//! `--table-entries FILE`: table entries written as STF `add`/`setdefault` lines (plus `#`
//! comments and the STF pass-through commands such as `register_write` or `mc_node_create`),
//! resolved and applied exactly as `p4dp stf` would. A file may not send packets.

use std::path::Path;

use anyhow::{bail, Context, Result};

use crate::target::{schema, RtTarget};

/// What a table-entries file did.
pub struct Applied {
    /// Statements run.
    pub statements: usize,
    /// Entries the file's statements left in the tables (adds minus removes: a file ending in
    /// `remove all` leaves none).
    pub entries: u64,
}

/// Entries in all of the program's tables now.
fn entries_now(rt: &p4dp_rt::Runtime) -> Result<u64> {
    let mut n = 0u64;
    for t in &rt.program().tables {
        n += rt.table_stats(t.index)?.entries;
    }
    Ok(n)
}

/// Applies the file's statements in order. On the first error nothing after it is applied and
/// the error names the line.
pub fn apply_file(rt: &p4dp_rt::Runtime, path: &Path) -> Result<Applied> {
    let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    for (i, line) in text.lines().enumerate() {
        let w = line.split_whitespace().next().unwrap_or("").to_ascii_lowercase();
        if w == "packet" || w == "expect" {
            bail!(
                "{}:{}: a table-entries file cannot contain `{w}` statements",
                path.display(),
                i + 1
            );
        }
    }
    let file = path.display().to_string();
    let plan = match p4dp_stf::load(&file, &text, &schema(rt)) {
        Ok(p) => p,
        Err(d) => {
            eprintln!("{d}");
            bail!("{file}: errors in the table entries");
        }
    };
    let before = entries_now(rt)?;
    let mut t = RtTarget::new(rt);
    let outcome = p4dp_stf::run(&plan, &mut t);
    if !outcome.passed() {
        // the file only has control statements (no packets): a failure is a rejected statement
        let mut first = None;
        for f in &outcome.failures {
            if let p4dp_stf::Failure::Statement { line, text, message } = f {
                eprintln!("{file}:{line}: error: {message}");
                eprintln!("      {text}");
                first = first.or(Some(*line));
            }
        }
        match first {
            Some(line) => bail!("{file}: installing the table entries failed at line {line}"),
            None => bail!("{file}: applying the table entries failed"),
        }
    }
    let after = entries_now(rt)?;
    Ok(Applied {
        statements: outcome.steps_run,
        entries: after.saturating_sub(before),
    })
}
