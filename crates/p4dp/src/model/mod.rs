//! `p4dp calibrate` and `p4dp model` (docs/model.md): measure this machine once into a profile,
//! then predict a program's cycles/packet, packet rate, latency and table memory from the paths
//! its packets take, and check the predictions against measurements (`p4dp model --check`).

pub mod calibrate;
pub mod check;
pub mod cost;
pub mod measure;
pub mod predict;
pub mod profile;
pub mod tlb;
pub mod tuples;

use std::path::{Path, PathBuf};

use clap::{Args, Parser};
use thiserror::Error;

use crate::bench::BenchArgs;

/// Where `p4dp calibrate` writes and `p4dp model` reads the profile by default.
pub const DEFAULT_PROFILE: &str = "build/p4dp-profile.json";

#[derive(Debug, Error)]
pub enum ModelError {
    #[error("profile: {0}")]
    Profile(String),
    #[error("no profile at {0}: run `p4dp calibrate` first (or pass --profile FILE)")]
    NoProfile(PathBuf),
    #[error("--entries {0}: expected TABLE=N with N a number of entries")]
    EntriesSyntax(String),
    #[error("--entries {0}: the program has no table `{1}` (its tables: {2})")]
    UnknownTable(String, String, String),
    #[error("the profile has no figures for {0} tables (table {1}); run `p4dp calibrate` without --quick")]
    NoKind(String, String),
    #[error("--workers must be 1..=16")]
    Workers,
}

#[derive(Args, Debug)]
pub struct CalibrateArgs {
    /// Where to write the profile.
    #[arg(long, default_value = DEFAULT_PROFILE)]
    pub out: PathBuf,
    /// Fewer sizes and short windows (under a minute): a rough profile, for tests.
    #[arg(long)]
    pub quick: bool,
    /// Extra EAL arguments (space-separated).
    #[arg(long)]
    pub eal: Option<String>,
    /// Where to keep the generated programs (default: a temporary directory).
    #[arg(long)]
    pub build_dir: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub struct ModelArgs {
    /// The P4 program (not with --check).
    #[arg(required_unless_present = "check")]
    pub program: Option<PathBuf>,
    /// Add a directory to the preprocessor's include path.
    #[arg(short = 'I', value_name = "DIR")]
    pub include: Vec<PathBuf>,
    /// Define a preprocessor macro (NAME or NAME=VALUE).
    #[arg(short = 'D', value_name = "NAME[=VALUE]")]
    pub define: Vec<String>,
    /// The machine profile `p4dp calibrate` wrote.
    #[arg(long, default_value = DEFAULT_PROFILE)]
    pub profile: PathBuf,
    /// Entries to install in a table (generated keys; repeatable). Tables not named keep no
    /// entries: every lookup takes the default action.
    #[arg(long = "entries", value_name = "TABLE=N")]
    pub entries: Vec<String>,
    /// Key popularity (uniform, zipf:S) or a pcap file replayed as the traffic.
    #[arg(long, default_value = "uniform", value_name = "uniform|zipf:S|FILE.pcap")]
    pub traffic: String,
    /// Worker cores.
    #[arg(long, default_value_t = 1)]
    pub workers: u32,
    /// Also write the prediction (or, with --check, the results) as JSON to this file.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Run the validation suite: predict and measure each configuration, print the errors.
    #[arg(long, conflicts_with = "program")]
    pub check: bool,
    /// --check: where the results go (default build/model-check.txt).
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// --check: fewer, smaller configurations and short windows (a smoke test of the suite).
    #[arg(long, requires = "check")]
    pub quick: bool,
    /// --check: only the configurations whose label contains this text (repeatable: any of
    /// them), e.g. `--only 2w` or `--only "exact 2^10"`; an error when none matches.
    #[arg(long, requires = "check", value_name = "TEXT")]
    pub only: Vec<String>,
    /// Seed of the generated entries and traffic.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Extra EAL arguments (space-separated).
    #[arg(long)]
    pub eal: Option<String>,
}

/// Bench settings for the measurements behind calibration and checks: the bench's own parser
/// fills in its defaults, then `args` (bench options, e.g. `--workers 2`).
pub(crate) fn bench_args(args: &[String]) -> anyhow::Result<BenchArgs> {
    #[derive(Parser)]
    struct Wrap {
        #[command(flatten)]
        a: BenchArgs,
    }
    let mut v = vec!["p4dp-bench".to_string()];
    v.extend(args.iter().cloned());
    Ok(Wrap::try_parse_from(v)?.a)
}

/// Reads a profile file: a missing file says to calibrate first.
pub fn load_profile(path: &Path) -> Result<profile::Profile, ModelError> {
    let text = std::fs::read_to_string(path).map_err(|_| ModelError::NoProfile(path.to_path_buf()))?;
    profile::Profile::parse(&text).map_err(|e| match e {
        ModelError::Profile(m) => ModelError::Profile(format!("{}: {m}", path.display())),
        e => e,
    })
}
