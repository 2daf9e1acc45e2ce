//! `p4dp bench` (placeholder until the benchmark module lands).
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct BenchArgs {}

pub fn bench(_a: BenchArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("p4dp bench is not available in this build")
}
