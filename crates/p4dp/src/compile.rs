//! The compile pipeline as the CLI uses it: preprocess + parse + analyze (p4dp-sema), generate C and
//! P4Info (p4dp-cgen), build the shared object with gcc.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context, Result};

use crate::CompileOpts;

/// The project's installed files: `p4include/` (architecture files) and the runtime headers.
/// `P4DP_HOME` overrides the location recorded at build time.
pub fn home() -> PathBuf {
    if let Some(h) = std::env::var_os("P4DP_HOME") {
        return PathBuf::from(h);
    }
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

pub fn p4include_dir() -> PathBuf {
    home().join("p4include")
}

pub(crate) fn include_dirs(c: &CompileOpts) -> Vec<PathBuf> {
    let mut v = c.include.clone();
    v.push(p4include_dir());
    v
}

fn defines(c: &CompileOpts) -> Vec<(String, Option<String>)> {
    c.define
        .iter()
        .map(|d| match d.split_once('=') {
            Some((k, v)) => (k.to_string(), Some(v.to_string())),
            None => (d.clone(), None),
        })
        .collect()
}

/// Front end + validation. Prints the warnings; on errors, prints the rendered diagnostics and
/// fails. Returns the sources too, to render the back end's errors.
pub fn front(c: &CompileOpts) -> Result<(p4dp_ir::ValidProgram, p4dp_syntax::SourceMap)> {
    front_dumping(c, None)
}

/// What `p4dp check --dump-after` asks for.
#[derive(Debug, Clone)]
pub enum DumpAfter {
    /// `list`: print the passes.
    List,
    /// The program state after this pass.
    Pass(String),
}

/// Parses `--dump-after`: `list` or the name of a pass of [`p4dp_sema::PASSES`].
pub fn parse_dump_after(s: &str) -> std::result::Result<DumpAfter, String> {
    if s == "list" {
        return Ok(DumpAfter::List);
    }
    p4dp_sema::passes::find(s).map_err(|e| e.to_string())?;
    Ok(DumpAfter::Pass(s.to_string()))
}

/// The front-end passes, one a line: name and what it does.
fn pass_list() -> String {
    let w = p4dp_sema::PASSES.iter().map(|p| p.name.len()).max().unwrap_or(0);
    p4dp_sema::PASSES
        .iter()
        .map(|p| format!("{:w$}  {}\n", p.name, p.summary))
        .collect()
}

/// [`front`], printing the program state after the pass `dump` names to stdout (also when a
/// later pass finds errors).
fn front_dumping(
    c: &CompileOpts,
    dump: Option<&mut p4dp_sema::Dump>,
) -> Result<(p4dp_ir::ValidProgram, p4dp_syntax::SourceMap)> {
    if !c.program.exists() {
        bail!("{}: no such file", c.program.display());
    }
    let mut dump = dump;
    let r = p4dp_sema::compile_file_dumping(&c.program, &include_dirs(c), &defines(c), dump.as_deref_mut());
    if let Some(text) = dump.as_ref().and_then(|d| d.text()) {
        print!("{text}");
    }
    match r {
        Ok(done) => {
            if !done.warnings.is_empty() {
                eprint!("{}", p4dp_syntax::render_all(&done.sm, &done.warnings));
            }
            Ok((done.program, done.sm))
        }
        Err((sm, diags)) => {
            eprint!("{}", p4dp_syntax::render_all(&sm, &diags));
            let n = diags.iter().filter(|d| d.is_error()).count();
            bail!(
                "{}: {} error{} found",
                c.program.display(),
                n,
                if n == 1 { "" } else { "s" }
            )
        }
    }
}

pub fn check(c: &CompileOpts, show_ir: bool, dump_after: Option<DumpAfter>) -> Result<ExitCode> {
    let mut dump = match dump_after {
        Some(DumpAfter::List) => {
            print!("{}", pass_list());
            return Ok(ExitCode::SUCCESS);
        }
        Some(DumpAfter::Pass(name)) => Some(p4dp_sema::Dump::after(&name)?),
        None => None,
    };
    let (prog, sm) = front_dumping(c, dump.as_mut())?;
    if show_ir {
        print!("{}", p4dp_ir::print::program(prog.program()));
    }
    backend_check(c, &sm, &prog)?;
    eprintln!("{}: ok", c.program.display());
    Ok(ExitCode::SUCCESS)
}

/// What `build` produced.
pub struct Built {
    pub c_path: PathBuf,
    pub so_path: PathBuf,
    pub p4info_path: PathBuf,
    /// The P4Runtime device config (docs/p4runtime.md).
    pub device_path: PathBuf,
    /// rtc.p4: how many background pipelines the program has (0 for other architectures).
    pub background: u32,
}

/// The back end's capability check (`p4dp_cgen::capability_check`), run by `check` and `build`
/// alike so they agree: every construct the back end cannot translate, as an error with its
/// kind's code (E0501-E0507, `p4dp_cgen::UnsupportedKind`).
fn backend_check(c: &CompileOpts, sm: &p4dp_syntax::SourceMap, prog: &p4dp_ir::ValidProgram) -> Result<()> {
    let errs = p4dp_cgen::capability_check(prog);
    if errs.is_empty() {
        return Ok(());
    }
    let diags: Vec<_> = errs.iter().map(p4dp_cgen::Unsupported::diagnostic).collect();
    eprint!("{}", p4dp_syntax::render_all(sm, &diags));
    let n = diags.len();
    bail!(
        "{}: {n} error{} found",
        c.program.display(),
        if n == 1 { "" } else { "s" }
    )
}

/// Renders a back-end error: `Unsupported` like a front-end diagnostic (its kind's code, with the
/// source location and line), the others as plain text.
fn cgen_error(c: &CompileOpts, sm: &p4dp_syntax::SourceMap, e: p4dp_cgen::CgenError) -> anyhow::Error {
    match e {
        p4dp_cgen::CgenError::Unsupported { kind, message, span } => {
            let d = p4dp_cgen::Unsupported { kind, message, span }.diagnostic();
            eprint!("{}", p4dp_syntax::render_all(sm, &[d]));
            anyhow::anyhow!("{}: 1 error found", c.program.display())
        }
        other => anyhow::anyhow!("{}: {other}", c.program.display()),
    }
}

pub fn build(c: &CompileOpts, out: &Path, show_ir: bool) -> Result<Built> {
    let (prog, sm) = front(c)?;
    if show_ir {
        print!("{}", p4dp_ir::print::program(prog.program()));
    }
    backend_check(c, &sm, &prog)?;
    if out.exists() && !out.is_dir() {
        bail!(
            "{}: exists and is not a directory (the output directory, -o)",
            out.display()
        );
    }
    std::fs::create_dir_all(out).with_context(|| format!("creating the output directory {}", out.display()))?;
    let stem = c
        .program
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("prog")
        .to_string();
    let c_path = out.join(format!("{stem}.c"));
    let so_path = out.join(format!("{stem}.so"));
    let p4info_path = out.join(format!("{stem}.p4info.txtpb"));
    let opts = p4dp_cgen::CgenOptions {
        program_name: stem.clone(),
        ..Default::default()
    };
    let csrc = p4dp_cgen::generate_c(&prog, &opts).map_err(|e| cgen_error(c, &sm, e))?;
    std::fs::write(&c_path, csrc).with_context(|| format!("writing {}", c_path.display()))?;
    std::fs::write(&p4info_path, p4dp_cgen::generate_p4info(&prog))
        .with_context(|| format!("writing {}", p4info_path.display()))?;
    let compiled = p4dp_cgen::compile_so(&c_path, &so_path, &p4dp_rt::include_dir(), 2);
    // a stop request ends gcc (see stop.rs): report the stop, not gcc's failure
    crate::stop::check()?;
    compiled.map_err(|e| anyhow::anyhow!("compiling {}: {e}", c_path.display()))?;
    let device_path = out.join(format!("{stem}.device.bin"));
    std::fs::write(&device_path, crate::serve::device_config(c, &stem)?)
        .with_context(|| format!("writing {}", device_path.display()))?;
    let background = prog
        .program()
        .package
        .as_ref()
        .filter(|k| k.arch == "rtc")
        .map_or(0, |k| k.blocks.len().saturating_sub(3) / 2);
    Ok(Built {
        c_path,
        so_path,
        p4info_path,
        device_path,
        background: u32::try_from(background).unwrap_or(u32::MAX),
    })
}

/// A per-process scratch directory for commands that compile on the fly (`bench`); the caller
/// removes it. A second SIGINT/SIGTERM removes it too. `run` and `stf` use [`crate::stop::TempDir`],
/// removed on every return path.
pub fn scratch_dir(tag: &str) -> Result<PathBuf> {
    let d = std::env::temp_dir().join(format!("p4dp-{}-{}", tag, std::process::id()));
    std::fs::create_dir_all(&d).with_context(|| format!("creating {}", d.display()))?;
    crate::stop::register_temp_dir(&d);
    Ok(d)
}

/// A scratch directory removed when dropped, on every return path and on a second signal.
pub fn temp_dir(tag: &str) -> Result<crate::stop::TempDir> {
    crate::stop::TempDir::new(tag)
        .with_context(|| format!("creating a temporary directory in {}", std::env::temp_dir().display()))
}

fn human(bytes: u64) -> String {
    if bytes >= 10 << 20 {
        format!("{} MiB", bytes >> 20)
    } else if bytes >= 10 << 10 {
        format!("{} KiB", bytes >> 10)
    } else {
        format!("{bytes} B")
    }
}

/// `p4dp build`'s table report: per table, the entry storage (static or dynamic, chosen by the
/// memory model of ARCHITECTURE.md, "Entry storage and memory model", unless `@storage` says
/// otherwise) and the predicted memory at full fill.
pub fn table_report(so: &Path) -> Result<String> {
    use std::fmt::Write as _;
    let tables = p4dp_rt::inspect::table_layouts(so)?;
    let mut out = String::new();
    if tables.is_empty() {
        return Ok(out);
    }
    let _ = writeln!(
        out,
        "{:<36} {:>8} {:>5} {:>5}  {:<8} {}",
        "table", "size", "key B", "data B", "storage", "predicted memory (full)"
    );
    for t in &tables {
        let size = if t.size == 0 { 1024 } else { t.size };
        if t.key_len == 0 {
            let _ = writeln!(
                out,
                "{:<36} {:>8} {:>5} {:>5}  {:<8} (keyless: no entries, the default action only)",
                t.name, "-", 0, t.data_len, "-"
            );
            continue;
        }
        if !t.exact {
            let _ = writeln!(
                out,
                "{:<36} {:>8} {:>5} {:>5}  {:<8} (tuple-space search: grows with entries and masks)",
                t.name, size, t.key_len, t.data_len, "tss"
            );
            continue;
        }
        let size32 = u32::try_from(size).unwrap_or(u32::MAX);
        let m = p4dp_rt::table_mem_predict(size32, t.key_len, t.data_len, 100)?;
        // without rtc.p4's @linear flag (the key is the row; the storage is the same)
        let (storage, entries) = match t.storage & !p4dp_rt::P4DP_STORAGE_F_LINEAR {
            1 => ("static*", m.static_bytes),
            2 => ("dynamic*", m.dynamic_bytes),
            _ if m.static_storage => ("static", m.static_bytes),
            _ => ("dynamic", m.dynamic_bytes),
        };
        let _ = writeln!(
            out,
            "{:<36} {:>8} {:>5} {:>5}  {:<8} {} (hash {} + entries {}; all static {} / all dynamic {})",
            t.name,
            size,
            t.key_len,
            t.data_len,
            storage,
            human(entries),
            human(m.hash_bytes),
            human(entries.saturating_sub(m.hash_bytes)),
            human(m.static_bytes),
            human(m.dynamic_bytes)
        );
    }
    if tables.iter().any(|t| t.exact && t.storage != 0) {
        let _ = writeln!(out, "(* = chosen by a @storage annotation)");
    }
    Ok(out)
}
