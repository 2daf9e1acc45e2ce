//! Running the C preprocessor and mapping its output back to source lines.
//!
//! `cpp -E -C -undef -nostdinc -x c -I<program dir> -I<include dirs> -D<defines> file`
//! is run; its output contains line markers (`# 12 "file.p4" 2`) that are
//! turned into a [`LineMap`], so diagnostics show the original file, line and
//! source text. `-C` keeps comments so that columns in the output match the
//! original lines. A failing `cpp` becomes an `E0001` diagnostic (with cpp's
//! messages as notes); a `cpp` that cannot be started becomes `E0002`.

use crate::diag::Diagnostic;
use crate::span::{FileId, LineMap, LineOrigin, SourceMap};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Options for [`preprocess_with`].
#[derive(Clone, Debug, Default)]
pub struct PreprocessOptions {
    /// Extra include directories (e.g. the project's `p4include`), searched
    /// after the program's own directory.
    pub include_dirs: Vec<PathBuf>,
    /// Macro definitions, `NAME` or `NAME=VALUE` (passed as `-D`).
    pub defines: Vec<String>,
    /// Working directory for `cpp` (relative paths are resolved against it).
    /// Defaults to the current directory.
    pub cwd: Option<PathBuf>,
    /// Preprocessor binary; defaults to `cpp`.
    pub cpp: Option<PathBuf>,
}

/// Preprocess `path` with `cpp` and load the result into a new [`SourceMap`].
#[allow(clippy::result_large_err)]
pub fn preprocess(
    path: &Path,
    include_dirs: &[PathBuf],
    defines: &[String],
) -> Result<(SourceMap, FileId), Diagnostic> {
    let opts = PreprocessOptions {
        include_dirs: include_dirs.to_vec(),
        defines: defines.to_vec(),
        ..Default::default()
    };
    preprocess_with(path, &opts)
}

/// Like [`preprocess`], with all options.
#[allow(clippy::result_large_err)]
pub fn preprocess_with(path: &Path, opts: &PreprocessOptions) -> Result<(SourceMap, FileId), Diagnostic> {
    let mut sm = SourceMap::new();
    let id = preprocess_into(&mut sm, path, opts)?;
    Ok((sm, id))
}

/// Like [`preprocess_with`], adding the result to an existing [`SourceMap`].
#[allow(clippy::result_large_err)]
pub fn preprocess_into(sm: &mut SourceMap, path: &Path, opts: &PreprocessOptions) -> Result<FileId, Diagnostic> {
    let base = opts.cwd.clone().unwrap_or_else(|| PathBuf::from("."));
    let full = if path.is_absolute() {
        path.to_path_buf()
    } else {
        base.join(path)
    };
    if !full.is_file() {
        return Err(
            Diagnostic::error_nospan("E0001", format!("cannot read source file `{}`", path.display()))
                .with_note("the file does not exist or is not a regular file"),
        );
    }
    let cpp = opts.cpp.clone().unwrap_or_else(|| PathBuf::from("cpp"));
    let mut cmd = Command::new(&cpp);
    cmd.args(["-E", "-C", "-undef", "-nostdinc", "-x", "c"]);
    // Stable (untranslated) messages for diagnostics and snapshots.
    cmd.env("LC_ALL", "C");
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    cmd.arg("-I").arg(dir);
    for d in &opts.include_dirs {
        cmd.arg("-I").arg(d);
    }
    for d in &opts.defines {
        cmd.arg(format!("-D{d}"));
    }
    cmd.arg(path);
    if let Some(c) = &opts.cwd {
        cmd.current_dir(c);
    }
    let out = cmd.output().map_err(|e| {
        Diagnostic::error_nospan("E0002", format!("cannot run the C preprocessor `{}`", cpp.display()))
            .with_note(e.to_string())
            .with_help("install cpp (Debian package `cpp`) or check PATH")
    })?;
    if !out.status.success() {
        return Err(cpp_failure(path, &String::from_utf8_lossy(&out.stderr)));
    }
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let map = build_line_map(&text);
    sm.set_base_dir(opts.cwd.clone());
    Ok(sm.add_preprocessed(path.display().to_string(), text, map))
}

/// Turn cpp's stderr into one E0001 diagnostic: the first error becomes the
/// message, its location and any further messages become notes; gcc's
/// source excerpts (`  12 | ...`, `     | ^~~`) are dropped.
fn cpp_failure(path: &Path, stderr: &str) -> Diagnostic {
    let is_excerpt = |l: &str| {
        let t = l.trim_start();
        let t = t.trim_start_matches(|c: char| c.is_ascii_digit()).trim_start();
        t.starts_with('|')
    };
    let lines: Vec<&str> = stderr
        .lines()
        .filter(|l| !l.trim().is_empty() && !is_excerpt(l))
        .collect();
    let first = lines.iter().position(|l| l.contains("error:")).unwrap_or(0);
    let Some(line) = lines.get(first) else {
        return Diagnostic::error_nospan("E0001", format!("preprocessing `{}` failed", path.display()));
    };
    // `file:line:col: [fatal ]error: message`
    let (loc, msg) = match line.find(" error: ").or_else(|| line.find(" fatal error: ")) {
        Some(_) => {
            let idx = line.find("error: ").unwrap_or(0);
            let loc = line[..idx]
                .trim_end()
                .trim_end_matches("fatal")
                .trim_end()
                .trim_end_matches(':');
            (Some(loc.to_string()), line[idx + "error: ".len()..].to_string())
        }
        None => (None, line.trim().to_string()),
    };
    let mut d = Diagnostic::error_nospan("E0001", format!("preprocessor error: {msg}"));
    if let Some(loc) = loc.filter(|l| !l.is_empty()) {
        d = d.with_note(format!("reported by cpp at {loc}"));
    }
    for (i, l) in lines.iter().enumerate().take(20) {
        if i != first && !l.starts_with("compilation terminated") {
            d = d.with_note(l.trim_end().to_string());
        }
    }
    d
}

/// Parse a cpp line marker `# N "file" flags...`; returns (line, file).
fn parse_marker(line: &str) -> Option<(u32, String)> {
    let rest = line.strip_prefix('#')?.trim_start();
    let rest = rest.strip_prefix("line").map(str::trim_start).unwrap_or(rest);
    let digits: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
    if digits.is_empty() {
        return None;
    }
    let n: u32 = digits.parse().ok()?;
    let rest = rest[digits.len()..].trim_start();
    let rest = rest.strip_prefix('"')?;
    let mut name = String::new();
    let mut chars = rest.chars();
    loop {
        match chars.next()? {
            '"' => break,
            '\\' => name.push(chars.next()?),
            c => name.push(c),
        }
    }
    Some((n, name))
}

/// Build the preprocessed-line → original (file, line) map.
pub fn build_line_map(text: &str) -> LineMap {
    let mut map = LineMap::default();
    let mut index: HashMap<String, u32> = HashMap::new();
    let mut cur: Option<(u32, u32)> = None; // (file idx, next line)
    for line in text.split('\n') {
        if line.starts_with('#') {
            if let Some((n, name)) = parse_marker(line) {
                cur = if name.starts_with('<') {
                    None
                } else {
                    let next = map.files.len() as u32;
                    let idx = *index.entry(name.clone()).or_insert_with(|| {
                        map.files.push(name);
                        next
                    });
                    Some((idx, n))
                };
                map.origins.push(None);
                continue;
            }
        }
        match &mut cur {
            Some((f, l)) => {
                map.origins.push(Some(LineOrigin { file: *f, line: *l }));
                *l += 1;
            }
            None => map.origins.push(None),
        }
    }
    map
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_markers() {
        let text =
            "# 1 \"a.p4\"\n# 1 \"<built-in>\"\nx\n# 1 \"a.p4\"\nfoo\n\n# 7 \"inc/b.p4\" 1\nbar\n# 3 \"a.p4\" 2\nbaz\n";
        let m = build_line_map(text);
        assert_eq!(m.files, vec!["a.p4".to_string(), "inc/b.p4".to_string()]);
        let o = |i: usize| {
            m.origins[i]
                .as_ref()
                .map(|o| (m.files[o.file as usize].as_str(), o.line))
        };
        assert_eq!(o(2), None);
        assert_eq!(o(4), Some(("a.p4", 1)));
        assert_eq!(o(5), Some(("a.p4", 2)));
        assert_eq!(o(7), Some(("inc/b.p4", 7)));
        assert_eq!(o(9), Some(("a.p4", 3)));
    }

    #[test]
    fn marker_with_escapes() {
        assert_eq!(parse_marker("# 5 \"a\\\"b.p4\" 1"), Some((5, "a\"b.p4".to_string())));
        assert_eq!(parse_marker("#pragma x"), None);
        assert_eq!(parse_marker("# 5"), None);
    }
}
