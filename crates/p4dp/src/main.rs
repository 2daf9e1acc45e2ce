//! `p4dp`: the command-line tool. The only crate with user-facing argument parsing.

mod bench;
mod bench_dp;
mod bench_lpm;
mod bench_lpm6;
mod compile;
mod cpu_latency;
mod entries;
mod model;
mod port;
mod portfiles;
mod run;
mod serve;
mod stf;
mod stop;
mod target;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "p4dp",
    version,
    about = "p4dp: a P4_16 software target on DPDK",
    propagate_version = true
)]
struct Cli {
    #[command(subcommand)]
    cmd: Command,
}

/// Options shared by every command that compiles a P4 program.
#[derive(Args, Clone, Debug)]
pub struct CompileOpts {
    /// The P4_16 program.
    pub program: PathBuf,
    /// Add a directory to the preprocessor's include path.
    #[arg(short = 'I', value_name = "DIR")]
    pub include: Vec<PathBuf>,
    /// Define a preprocessor macro (NAME or NAME=VALUE).
    #[arg(short = 'D', value_name = "NAME[=VALUE]")]
    pub define: Vec<String>,
}

#[derive(Subcommand)]
enum Command {
    /// Check a program: print diagnostics only.
    Check {
        #[command(flatten)]
        c: CompileOpts,
        /// Print the IR after semantic analysis.
        #[arg(long)]
        show_ir: bool,
        /// Print the program state after the named front-end pass (`list`: the passes, each with
        /// what it does).
        #[arg(long, value_name = "PASS", value_parser = compile::parse_dump_after)]
        dump_after: Option<compile::DumpAfter>,
    },
    /// Compile a program: write the generated C, the shared object and the P4Info.
    Build {
        #[command(flatten)]
        c: CompileOpts,
        /// Output directory.
        #[arg(short, long, default_value = "build/p4dp-out")]
        out: PathBuf,
        /// Print the IR after semantic analysis.
        #[arg(long)]
        show_ir: bool,
    },
    /// Run a program on DPDK ports (pcap files by default).
    Run(run::RunArgs),
    /// Run an STF test (p4c's Simple Test Framework format) against a program.
    Stf {
        #[command(flatten)]
        c: CompileOpts,
        /// The .stf file.
        stf: PathBuf,
        /// Print every statement as it runs and every packet received.
        #[arg(short, long)]
        verbose: bool,
        /// Run packets through the entry point worker cores take (process_mbufs on an mbuf, with
        /// the first exact table's lookup staged where the program allows it), one packet per burst.
        #[arg(long)]
        burst: bool,
    },
    /// Measure packet-processing performance with an in-process traffic source.
    Bench(bench::BenchArgs),
    /// Measure this machine once and write the profile `p4dp model` uses (docs/model.md).
    Calibrate(model::CalibrateArgs),
    /// Predict a program's cycles/packet, packet rate, latency and table memory (docs/model.md).
    Model(model::ModelArgs),
    /// Run a switch with no program: a P4Runtime server waits for SetForwardingPipelineConfig.
    Serve(serve::ServeArgs),
    /// List a running switch's ports with their liveness, or take a port down or up
    /// (backup replicas and selector watch ports follow; docs/p4runtime.md "Port liveness").
    Port(port::PortArgs),
}

fn main() -> ExitCode {
    // before any other thread exists (see stop.rs)
    stop::install();
    let cli = Cli::parse();
    let r = match cli.cmd {
        Command::Check { c, show_ir, dump_after } => compile::check(&c, show_ir, dump_after),
        Command::Build { c, out, show_ir } => compile::build(&c, &out, show_ir).and_then(|b| {
            eprintln!(
                "wrote {}, {}, {}, {}",
                b.c_path.display(),
                b.so_path.display(),
                b.p4info_path.display(),
                b.device_path.display()
            );
            // the report is informational: the build itself succeeded
            match compile::table_report(&b.so_path) {
                Ok(r) => eprint!("{r}"),
                Err(e) => eprintln!("warning: no table memory report: {e:#}"),
            }
            Ok(ExitCode::SUCCESS)
        }),
        Command::Run(a) => run::run(a),
        Command::Stf { c, stf, verbose, burst } => stf::run_stf(&c, &stf, verbose, burst),
        Command::Bench(a) => bench::bench(a),
        Command::Serve(a) => serve::serve(a),
        Command::Port(a) => port::port(a).map(|()| ExitCode::SUCCESS),
        Command::Calibrate(a) => model::calibrate::calibrate(a),
        Command::Model(a) => model::predict::model(a),
    };
    // A stop request decides the exit status (128 + the signal number) whatever the command
    // made of it: its output so far was printed; an error it caused (gcc ended, say) is not news.
    match (r, stop::requested()) {
        (Ok(_), Some(sig)) => stop::exit_code(sig),
        (Err(_), Some(sig)) => {
            eprintln!("p4dp: {}", stop::Stopped(sig));
            stop::exit_code(sig)
        }
        (Ok(code), None) => code,
        (Err(e), None) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}
