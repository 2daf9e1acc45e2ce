//! `--table-entries FILE`: table entries written as STF `add`/`setdefault` lines (plus `#`
//! comments and the STF pass-through commands such as `register_write` or `mc_node_create`),
//! resolved and applied exactly as `p4dp stf` would. A file may not send packets.

use std::path::Path;

use anyhow::{bail, Context, Result};

use crate::target::{schema, RtTarget};

/// Applies the file's statements in order; returns how many statements ran. On the first error
/// nothing after it is applied and the error names the line.
pub fn apply_file(rt: &p4dp_rt::Runtime, path: &Path) -> Result<usize> {
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
    let mut t = RtTarget::new(rt);
    let outcome = p4dp_stf::run(&plan, &mut t);
    if !outcome.passed() {
        eprint!("{outcome}");
        bail!("{file}: applying the table entries failed");
    }
    Ok(outcome.steps_run)
}
