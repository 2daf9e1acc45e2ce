//! Running the C preprocessor and mapping its output back to source lines.
//!
//! `cpp -E -C -undef -nostdinc -x c -I<program dir> -I<include dirs> -D<defines> file`
//! is run; its output contains line markers (`# 12 "file.p4" 2`) that are
//! turned into a [`LineMap`], so diagnostics show the original file, line and
//! source text. `-C` keeps comments so that columns in the output match the
//! original lines. A failing `cpp` becomes an `E0001` diagnostic (with cpp's
//! messages as notes); a `cpp` that cannot be started becomes `E0002`.
//!
//! Bounds: before `cpp` runs, the `#include` directives of the program and of the files they
//! include are resolved as `cpp` resolves them (the including file's directory for `"..."`, then
//! the include directories) and an include that names something other than a regular file
//! (`/dev/zero`, a FIFO, a terminal) is refused with `E0003`, naming the directive. Includes whose
//! name comes from a macro cannot be resolved this way; for those, and for everything else, `cpp`'s
//! output is limited to [`MAX_OUTPUT_BYTES`] and its run time to [`PreprocessOptions::timeout`]
//! (default [`DEFAULT_TIMEOUT`]): beyond either it is stopped and `E0004` is reported.

use crate::diag::Diagnostic;
use crate::span::{FileId, LineMap, LineOrigin, SourceMap};
use std::collections::{HashMap, HashSet};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Largest preprocessed output accepted (bytes).
pub const MAX_OUTPUT_BYTES: usize = 64 << 20;
/// Default bound on the preprocessor's run time.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(20);
/// Address-space limit of the preprocessor process (KiB): a macro-named include of a device
/// makes `cpp` allocate until it fails with "out of memory" instead of growing without bound.
const MAX_CPP_MEMORY_KIB: u64 = 2 << 20;
/// Files whose `#include` directives are checked before `cpp` runs, at most.
const MAX_SCANNED_FILES: usize = 1000;
/// Files larger than this are not scanned for `#include` directives (the output bound applies).
const MAX_SCANNED_BYTES: u64 = 16 << 20;

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
    /// Bound on `cpp`'s run time; defaults to [`DEFAULT_TIMEOUT`].
    pub timeout: Option<Duration>,
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
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let mut search: Vec<PathBuf> = vec![base.join(dir)];
    search.extend(opts.include_dirs.iter().map(|d| base.join(d)));
    check_includes(&full, path, &search)?;
    let cpp = opts.cpp.clone().unwrap_or_else(|| PathBuf::from("cpp"));
    // Through `sh` to cap cpp's address space (`ulimit -v`); `exec` keeps one process (and its
    // `cc1` child) in the group that a timeout kills.
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg(format!(
            "ulimit -v {MAX_CPP_MEMORY_KIB} 2>/dev/null; exec \"$0\" \"$@\""
        ))
        .arg(&cpp);
    cmd.args(["-E", "-C", "-undef", "-nostdinc", "-x", "c"]);
    // Stable (untranslated) messages for diagnostics and snapshots.
    cmd.env("LC_ALL", "C");
    // A library preloaded into p4dp (a sanitizer's runtime, as `make test-corpus-asan` preloads
    // libasan) is not for cpp, and could not start under the address-space cap anyway.
    cmd.env_remove("LD_PRELOAD");
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
    let out = run_bounded(cmd, opts.timeout.unwrap_or(DEFAULT_TIMEOUT)).map_err(|e| match e {
        RunError::Spawn(e) => {
            Diagnostic::error_nospan("E0002", format!("cannot run the C preprocessor `{}`", cpp.display()))
                .with_note(e.to_string())
                .with_help("install cpp (Debian package `cpp`) or check PATH")
        }
        RunError::TooLarge => Diagnostic::error_nospan(
            "E0004",
            format!(
                "preprocessing `{}` produced more than {} MiB; stopped",
                path.display(),
                MAX_OUTPUT_BYTES >> 20
            ),
        )
        .with_note("an include or macro expands without bound"),
        RunError::Timeout(t) => Diagnostic::error_nospan(
            "E0004",
            format!(
                "preprocessing `{}` did not finish within {} s; stopped",
                path.display(),
                t.as_secs()
            ),
        )
        .with_note("an include reads without end (a device, a FIFO) or a macro expands without bound"),
    })?;
    if out.code == Some(127) {
        // `sh` could not run the preprocessor.
        return Err(
            Diagnostic::error_nospan("E0002", format!("cannot run the C preprocessor `{}`", cpp.display()))
                .with_note(String::from_utf8_lossy(&out.stderr).trim().to_string())
                .with_help("install cpp (Debian package `cpp`) or check PATH"),
        );
    }
    if !out.success {
        return Err(cpp_failure(path, &String::from_utf8_lossy(&out.stderr)));
    }
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let map = build_line_map(&text);
    sm.set_base_dir(opts.cwd.clone());
    Ok(sm.add_preprocessed(path.display().to_string(), text, map))
}

/// The `#include` target of a line (`#include "x"` / `# include <x>`): (name, quoted).
fn include_target(line: &str) -> Option<(&str, bool)> {
    let rest = line.trim_start().strip_prefix('#')?.trim_start();
    let rest = rest.strip_prefix("include")?.trim_start();
    let (close, quoted) = match rest.chars().next()? {
        '"' => ('"', true),
        '<' => ('>', false),
        _ => return None,
    };
    let body = &rest[1..];
    let end = body.find(close)?;
    Some((&body[..end], quoted))
}

/// Resolves the `#include` directives of `main` (shown as `shown`) and of the files they include
/// the way `cpp` does, and refuses (E0003) an include that names something other than a regular
/// file: `cpp` would read a device such as `/dev/zero` without end.
#[allow(clippy::result_large_err)]
fn check_includes(main: &Path, shown: &Path, search: &[PathBuf]) -> Result<(), Diagnostic> {
    let mut seen: HashSet<PathBuf> = HashSet::new();
    let mut work: Vec<(PathBuf, String)> = vec![(main.to_path_buf(), shown.display().to_string())];
    while let Some((file, name)) = work.pop() {
        if seen.len() >= MAX_SCANNED_FILES || !seen.insert(file.clone()) {
            continue;
        }
        let small = std::fs::metadata(&file).is_ok_and(|m| m.is_file() && m.len() <= MAX_SCANNED_BYTES);
        if !small {
            continue;
        }
        let Ok(bytes) = std::fs::read(&file) else { continue };
        let text = String::from_utf8_lossy(&bytes);
        let here = file.parent().map(Path::to_path_buf).unwrap_or_default();
        for (i, line) in text.lines().enumerate() {
            let Some((target, quoted)) = include_target(line) else {
                continue;
            };
            let mut candidates: Vec<PathBuf> = Vec::new();
            if Path::new(target).is_absolute() {
                candidates.push(PathBuf::from(target));
            } else {
                if quoted {
                    candidates.push(here.join(target));
                }
                candidates.extend(search.iter().map(|d| d.join(target)));
            }
            // cpp opens the first candidate that exists and is not a directory.
            let Some(found) = candidates.into_iter().find(|c| c.exists() && !c.is_dir()) else {
                continue;
            };
            if !found.is_file() {
                let shown_target = if quoted {
                    format!("\"{target}\"")
                } else {
                    format!("<{target}>")
                };
                return Err(Diagnostic::error_nospan(
                    "E0003",
                    format!(
                        "`#include {shown_target}` at {name}:{}: `{}` is not a regular file",
                        i + 1,
                        found.display()
                    ),
                )
                .with_note("only regular files can be included (a device or FIFO would be read without end)"));
            }
            let shown_inc = found.display().to_string();
            work.push((found, shown_inc));
        }
    }
    Ok(())
}

/// Why [`run_bounded`] failed.
enum RunError {
    Spawn(std::io::Error),
    TooLarge,
    Timeout(Duration),
}

/// Output of a bounded run.
struct Bounded {
    success: bool,
    /// Exit code (None when ended by a signal).
    code: Option<i32>,
    stdout: Vec<u8>,
    stderr: Vec<u8>,
}

/// Kills the process group `pid` leads (the preprocessor driver and the `cc1` it started; killing
/// only the driver would leave `cc1` running), then the child itself.
fn kill_group(child: &mut std::process::Child) {
    let _ = Command::new("kill")
        .args(["-KILL", "--", &format!("-{}", child.id())])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
    let _ = child.kill();
    let _ = child.wait();
}

/// Runs `cmd` in its own process group, collecting stdout (at most [`MAX_OUTPUT_BYTES`]) and
/// stderr; the group is killed when the output grows beyond the bound or the run takes longer
/// than `timeout`.
fn run_bounded(mut cmd: Command, timeout: Duration) -> Result<Bounded, RunError> {
    use std::os::unix::process::CommandExt;
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    crate::child::unblock_signals(&mut cmd);
    let mut child = cmd.spawn().map_err(RunError::Spawn)?;
    let too_large = Arc::new(AtomicBool::new(false));
    let out_reader = child.stdout.take().map(|mut out| {
        let flag = Arc::clone(&too_large);
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            let mut chunk = [0u8; 64 * 1024];
            loop {
                match out.read(&mut chunk) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => {
                        if buf.len() + n > MAX_OUTPUT_BYTES {
                            // Relaxed: the flag is only read after this thread is joined or
                            // polled for a stop decision; no other data is published with it.
                            flag.store(true, Ordering::Relaxed);
                            break;
                        }
                        buf.extend_from_slice(&chunk[..n]);
                    }
                }
            }
            buf
        })
    });
    let err_reader = child.stderr.take().map(|mut err| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            let _ = (&mut err).take(1 << 20).read_to_end(&mut buf);
            // Drain the rest so that the child never blocks on a full pipe.
            let _ = std::io::copy(&mut err, &mut std::io::sink());
            buf
        })
    });
    let start = Instant::now();
    let status = loop {
        if too_large.load(Ordering::Relaxed) {
            kill_group(&mut child);
            return Err(RunError::TooLarge);
        }
        match child.try_wait() {
            Ok(Some(st)) => break Some(st),
            Ok(None) => {}
            Err(_) => break None,
        }
        if start.elapsed() > timeout {
            kill_group(&mut child);
            return Err(RunError::Timeout(timeout));
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let stdout = out_reader.and_then(|h| h.join().ok()).unwrap_or_default();
    let stderr = err_reader.and_then(|h| h.join().ok()).unwrap_or_default();
    if too_large.load(Ordering::Relaxed) {
        return Err(RunError::TooLarge);
    }
    Ok(Bounded {
        success: status.is_some_and(|s| s.success()),
        code: status.and_then(|s| s.code()),
        stdout,
        stderr,
    })
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
