//! `p4dp bench`: measure a program with the in-process traffic source of the runtime
//! (`runtime/include/p4dp/bench.h`) against the raw DPDK floor, the "l2fwd floor" (the floor plus
//! a read and write of each packet's first cache line) and, for table programs, a table-lookup
//! baseline, all in the same run. `--suite overhead` runs the two target experiments
//! (benches/minimal.p4 and benches/l3_exact.p4 with 2^20 entries); the data-plane write suites
//! are in crate::bench_dp. `p4dp bench --list` names every suite. See docs/PERFORMANCE.md.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use clap::{Args, ValueEnum};
use p4dp_rt::bench::{Bench, BenchParams, BenchTarget, Kind, Measurement};
use p4dp_rt::{Dispatch, MatchKind, Program, TableInfo};

use crate::compile;
use crate::CompileOpts;

mod acl;
mod add_on_miss;
pub(crate) mod gen;
pub mod json;
mod p4runtime_updates;
mod rtc;
mod rtc_flow_monitor;
mod rtc_hot_cache;
mod rtc_spacesaving;
mod svg;
pub(crate) mod sweep;
pub(crate) mod traffic;
mod wire;
use json::Json;

/// The predefined suites (`p4dp bench --list`). Each is named after what it measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Suite {
    /// What a program costs over the DPDK floor: benches/minimal.p4 against the l2fwd floor
    /// (target <= 1.25x) and benches/l3_exact.p4 with 2^20 entries against the floor plus one
    /// bulk lookup of the same table (target <= 1.3x).
    Overhead,
    /// Writing table entries from the data plane: every packet reads, or reads and rewrites, one
    /// random entry of a full exact table of 2^min-log2 .. 2^max-log2 entries (static, dynamic
    /// and locked entries), and 1 against 2 workers.
    // crate::bench_dp
    DataplaneWrites,
    /// Inserting entries from the data plane: an add-on-miss table's inserts against its hits,
    /// and hits with one insert every 10 .. 100000 packets, with latency.
    // bench/add_on_miss.rs
    AddOnMiss,
    /// Cycles/packet against installed entries (2^min-log2 .. 2^max-log2) for exact, lpm,
    /// ternary, range and optional tables, against the l2fwd floor, with latency percentiles.
    // bench/sweep.rs
    TableKinds,
    /// Program shape: 1..16 exact tables per packet, key segmentation, action data size,
    /// packet size.
    // bench/sweep.rs
    ProgramShape,
    /// The P4Runtime Write path from a gRPC client in another process while packets flow
    /// through the tables written.
    // bench/p4runtime_updates.rs
    P4runtimeUpdates,
    /// Longest-prefix match: IPv4 routing tables of up to 1M prefixes with a realistic length mix
    /// and random destinations, against DPDK rte_lpm and an exact table of the same size.
    // crate::bench_lpm
    Lpm,
    /// Longest-prefix match: IPv6 routing tables of 10k and 100k prefixes with a realistic
    /// length mix and random destinations, against DPDK rte_lpm6 and an exact table of the same size.
    // crate::bench_lpm6
    Lpm6,
    /// What the run-to-completion architecture's primitives cost: Queue push + pop, Lock,
    /// TableOperation entryAdd against hits, and the foreground beside a table sweep.
    // bench/rtc.rs
    RtcCosts,
    /// SpaceSaving top-k without locks (examples/rtc_spacesaving.p4): recall of the true top-k on
    /// a Zipf trace against an exact single-threaded SpaceSaving, 1 and 2 workers, packets/s.
    // bench/rtc_spacesaving.rs
    RtcSpacesaving,
    /// Per-flow monitoring with aging (examples/rtc_flow_monitor.p4), one worker: flows held (up
    /// to 10M), inserts given up, packets/s against plain forwarding, reports/s.
    // bench/rtc_flow_monitor.rs
    RtcFlowMonitor,
    /// A small cache table in front of a 2^24-entry table (examples/rtc_hot_cache.p4): cycles per
    /// packet with Zipf traffic without and with the cache, which a background pipeline fills.
    // bench/rtc_hot_cache.rs
    RtcHotCache,
}

impl Suite {
    /// Every suite, in the order `--list` shows them.
    pub const ALL: [Suite; 12] = [
        Suite::Overhead,
        Suite::DataplaneWrites,
        Suite::AddOnMiss,
        Suite::TableKinds,
        Suite::ProgramShape,
        Suite::P4runtimeUpdates,
        Suite::Lpm,
        Suite::Lpm6,
        Suite::RtcCosts,
        Suite::RtcSpacesaving,
        Suite::RtcFlowMonitor,
        Suite::RtcHotCache,
    ];

    /// The suite's name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Suite::Overhead => "overhead",
            Suite::DataplaneWrites => "dataplane-writes",
            Suite::AddOnMiss => "add-on-miss",
            Suite::TableKinds => "table-kinds",
            Suite::ProgramShape => "program-shape",
            Suite::P4runtimeUpdates => "p4runtime-updates",
            Suite::Lpm => "lpm",
            Suite::Lpm6 => "lpm6",
            Suite::RtcCosts => "rtc-costs",
            Suite::RtcSpacesaving => "rtc-spacesaving",
            Suite::RtcFlowMonitor => "rtc-flow-monitor",
            Suite::RtcHotCache => "rtc-hot-cache",
        }
    }

    /// One line on what the suite measures (for `--list`).
    pub fn about(self) -> &'static str {
        match self {
            Suite::Overhead => {
                "cycles/packet of benches/minimal.p4 against the l2fwd floor (target <= 1.25x) and of \
                 benches/l3_exact.p4 with 2^20 entries against the floor plus a bulk lookup (target <= 1.3x)"
            }
            Suite::DataplaneWrites => {
                "every packet reads or rewrites one random entry of an exact table of 2^0..2^22 entries: \
                 write vs read (target <= 1.15x), @entry_lock vs unlocked (<= 1.15x), static vs dynamic \
                 storage, 1 vs 2 workers"
            }
            Suite::AddOnMiss => {
                "an add-on-miss table: 2^20 inserts from the data plane vs hits (target <= 2x), hits with one \
                 insert every 10..100000 packets, latency percentiles at burst 32 and 1"
            }
            Suite::TableKinds => {
                "cycles/packet and latency percentiles of generated exact, lpm, ternary, range and optional \
                 tables of 2^0..2^12 entries (--max-log2 up to 24; ACL-like ternary/range/optional rule sets up \
                 to 2^17) against the l2fwd floor, with SVG plots"
            }
            Suite::ProgramShape => {
                "cycles/packet per extra exact table (1..16 tables, target <= 15), key 1x16B vs 4x4B, action \
                 data 0..64 B, frames 64..1500 B, against the l2fwd floor, with SVG plots"
            }
            Suite::P4runtimeUpdates => {
                "P4Runtime Writes over loopback gRPC from another process while packets flow: inserts/s with \
                 batches of 1..1000, DATAPLANE_ATOMIC commit cost for 1..10000 updates, modify round trips and \
                 packets that saw a default action or half a batch"
            }
            Suite::Lpm => {
                "IPv4 lpm tables of 100k and 1M prefixes (realistic length mix), random destinations: \
                 benches/l3_lpm.p4 vs floor + DPDK rte_lpm bulk lookups (target <= 1.2x) and vs an exact table"
            }
            Suite::Lpm6 => {
                "IPv6 lpm tables of 10k and 100k prefixes (realistic length mix, most /48), random destinations: \
                 benches/l3_lpm6.p4 vs floor + DPDK rte_lpm6 bulk lookups (target <= 1.2x) and vs an exact table \
                 of 128-bit keys"
            }
            Suite::RtcCosts => {
                "rtc.p4 primitives: Queue push + pop vs rte_ring (target <= 50 cycles), Lock vs rte_spinlock, \
                 TableOperation entryAdd vs hits (target <= 2x), the foreground beside a sweep of its 2^20-entry \
                 table (target <= 1.1x)"
            }
            Suite::RtcSpacesaving => {
                "examples/rtc_spacesaving.p4 on a Zipf trace: top-10 recall of 64 lock-free slots against an exact \
                 single-threaded SpaceSaving (target: no loss), 1 and 2 workers, packets/s against the floor"
            }
            Suite::RtcFlowMonitor => {
                "examples/rtc_flow_monitor.p4 with a 2^24-entry flow table, one worker: 10M flows added from the data \
                 plane (held, inserts given up), packets/s against plain forwarding, reports/s"
            }
            Suite::RtcHotCache => {
                "examples/rtc_hot_cache.p4: cycles/packet with Zipf traffic over a 2^24-entry exact table, without \
                 and with a 1024-entry cache that its background pipeline, running beside the worker, fills"
            }
        }
    }

    /// The default report file of the suite.
    pub fn default_out(self) -> PathBuf {
        PathBuf::from(format!("build/bench-{}.txt", self.name()))
    }
}

/// `p4dp bench --list`: the suites, one line each.
fn list() -> String {
    let w = Suite::ALL.iter().map(|s| s.name().len()).max().unwrap_or(0);
    let mut s = String::new();
    for suite in Suite::ALL {
        let _ = writeln!(s, "{:<w$}  {}", suite.name(), suite.about());
    }
    s
}

#[derive(Args, Debug)]
pub struct BenchArgs {
    /// The P4 program to measure (not with --suite).
    pub program: Option<PathBuf>,
    /// Run a predefined suite of experiments instead of one program (--list shows them).
    #[arg(long, value_enum, conflicts_with = "program")]
    pub suite: Option<Suite>,
    /// List the suites with what each measures, and exit.
    #[arg(long, conflicts_with_all = ["program", "suite"])]
    pub list: bool,
    /// Also write the results to this file (--suite default: build/bench-SUITE.txt).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Also write the figures as JSON to this file; `-` writes the JSON to stdout instead of the
    /// text report (which still goes to --out).
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Add a directory to the preprocessor's include path.
    #[arg(short = 'I', value_name = "DIR")]
    pub include: Vec<PathBuf>,
    /// Define a preprocessor macro (NAME or NAME=VALUE).
    #[arg(short = 'D', value_name = "NAME[=VALUE]")]
    pub define: Vec<String>,
    /// Install this many entries (keys key-base .. key-base+N-1) in the table and measure the
    /// table baseline too. 0: no table.
    #[arg(long, default_value_t = 0)]
    pub entries: u64,
    /// The table to fill and use for the baseline (default: the program's only table with one
    /// exact key field).
    #[arg(long)]
    pub table: Option<String>,
    /// Action of the installed entries (default: the table's first action with parameters).
    #[arg(long)]
    pub action: Option<String>,
    /// Action parameter values in order (decimal or 0x hex; default 0 each: port 0).
    #[arg(long = "param", value_name = "VALUE")]
    pub params: Vec<String>,
    /// Byte offset of the key field in the packet (default 30: the IPv4 destination).
    #[arg(long, default_value_t = 30)]
    pub key_offset: u32,
    /// First key value (default 0x0a000000 = 10.0.0.0, or 0 if the key is narrower than 32 bits).
    #[arg(long)]
    pub key_base: Option<String>,
    /// Pre-built packets in circulation (default: --entries if > 0, else 4096; --suite
    /// dataplane-writes and add-on-miss: per worker, default 4096).
    #[arg(long)]
    pub packets: Option<u32>,
    /// Packet length in bytes without FCS (Ethernet/IPv4/UDP; 60 = a 64-byte frame).
    #[arg(long, default_value_t = 60)]
    pub pkt_len: u32,
    /// Worker cores (one bench port each).
    #[arg(long, default_value_t = 1)]
    pub workers: u32,
    /// Bench ports (default: one per worker). The program must send every packet to one of the
    /// ports 0..ports-1.
    #[arg(long, default_value_t = 0)]
    pub ports: u32,
    /// Measurement window in seconds (after the warm-up; default 2, sweeps 0.5).
    #[arg(long)]
    pub duration: Option<f64>,
    /// Warm-up in seconds before each window (default 0.5, sweeps 0.2).
    #[arg(long)]
    pub warmup: Option<f64>,
    /// Repetitions (loops interleaved: floor, baseline, program, floor, ...); medians are reported.
    #[arg(long, default_value_t = 3)]
    pub repeat: u32,
    /// Seed of the key permutation.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// DPDK memory in MiB (default: sized from packets and entries).
    #[arg(long)]
    pub mem: Option<u32>,
    /// Extra EAL arguments (space-separated).
    #[arg(long)]
    pub eal: Option<String>,
    /// Where to keep compiled programs (default: a temporary directory).
    #[arg(long)]
    pub build_dir: Option<PathBuf>,
    /// --suite dataplane-writes and table-kinds: smallest table, log2 of the entries.
    #[arg(long, default_value_t = 0)]
    pub min_log2: u32,
    /// --suite dataplane-writes: largest table, log2 of the entries (at most 22, default 22);
    /// table-kinds: largest table (default 12, at most 24); rtc-costs: the swept table and the
    /// entryAdd inserts (default 20, 4..22); rtc-flow-monitor: the flow table (default 24, 10..25); rtc-hot-cache: the large table
    /// (default 24, 12..24).
    #[arg(long)]
    pub max_log2: Option<u32>,
    /// --suite rtc-flow-monitor: background threads of the reports' run (1: Reporter and Ager
    /// share one thread, taking turns at the sweep's yield points; default 2: one each).
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..=2))]
    pub background_threads: u32,
    /// --suite add-on-miss: the longest measurement window of each run in seconds (default 30;
    /// 75 at burst 1). A window ends as soon as the source has handed out its schedule.
    #[arg(long, value_name = "SECS")]
    pub add_on_miss_window: Option<f64>,
    /// --suite add-on-miss: runs at burst 32, each on a fresh table; the judged insert-only /
    /// hits ratio is their median (the first run has the whole schedule, the others only the
    /// insert-only and hit phases).
    #[arg(long, default_value_t = 5, value_name = "N")]
    pub add_on_miss_runs: u32,
    /// --suite table-kinds: sizes 2^min-log2, 2^(min-log2 + step), ... (default 2).
    #[arg(long, default_value_t = 2, value_name = "N")]
    pub log2_step: u32,
    /// --suite table-kinds: the match kinds to sweep, comma-separated (default: exact, lpm,
    /// ternary, range, optional).
    #[arg(long, value_name = "KIND,...")]
    pub kinds: Option<String>,
    /// --suite table-kinds and program-shape: which entries the packets hit (uniform, zipf:S with
    /// S > 0), or a pcap file replayed as the traffic; rtc-hot-cache: uniform or zipf:S (default
    /// zipf:1.1).
    #[arg(long, value_name = "uniform|zipf:S|FILE.pcap")]
    pub traffic: Option<String>,
    /// --suite lpm: the prefix counts to measure (each at most 1048576).
    #[arg(long, value_delimiter = ',', default_value = "100000,1000000", value_name = "N,...")]
    pub lpm_prefixes: Vec<u64>,
    /// --suite p4runtime-updates: the switch's `--control-cpus` (docs/p4runtime.md); with a CPU
    /// list the client runs on those CPUs too. Default: the switch's default (no split).
    #[arg(long, value_name = "LIST", value_parser = crate::run::parse_control_cpus)]
    pub control_cpus: Option<crate::run::ControlCpus>,
    /// --suite p4runtime-updates: the switch serves P4Runtime from one busy-polling thread
    /// (`p4dp serve --p4runtime-busy-poll`, docs/p4runtime.md).
    #[arg(long)]
    pub p4runtime_busy_poll: bool,
    /// --suite p4runtime-updates: the switch runs its gRPC thread at this real-time priority
    /// (`p4dp serve --p4runtime-rt-priority`, docs/p4runtime.md); needs --control-cpus with a
    /// CPU list.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u8).range(1..=99), conflicts_with = "p4runtime_busy_poll")]
    pub p4runtime_rt_priority: Option<u8>,
    /// --suite p4runtime-updates: the switch holds the kernel's CPU latency limit at this many
    /// microseconds (`p4dp serve --cpu-latency-limit`, docs/p4runtime.md); the limit is the
    /// machine's, so the client and the floors run under it too. Needs root.
    #[arg(long, value_name = "US", value_parser = clap::value_parser!(u32).range(0..=1_000_000))]
    pub cpu_latency_limit: Option<u32>,
    /// --suite p4runtime-updates: the switch serves P4Runtime on a Unix socket
    /// (`p4dp serve --p4runtime unix:PATH`, docs/p4runtime.md) and the client connects there
    /// instead of over loopback TCP; the floors add the same echo over a Unix socket.
    #[arg(long)]
    pub p4runtime_unix: bool,
    /// --suite p4runtime-updates: the client busy-polls during the modifies and the gRPC floor
    /// (waits for each response and for the next send time without sleeping). Needs a CPU of
    /// its own: beside a busy-polling switch on a shared CPU each waits for the other's time
    /// slice (docs/bench.md).
    #[arg(long)]
    pub client_busy_poll: bool,
    /// --suite p4runtime-updates: run only the insert-throughput experiment (skip the
    /// DATAPLANE_ATOMIC commits, the modifies and the gRPC floor).
    #[arg(long)]
    pub inserts_only: bool,
    /// --suite p4runtime-updates: the batch sizes of the insert-throughput experiment
    /// (each 1..=10000; default 1,10,100,1000,10000).
    #[arg(long, value_delimiter = ',', value_name = "N,...", value_parser = clap::value_parser!(u64).range(1..=10000))]
    pub insert_batches: Option<Vec<u64>>,
    /// --suite lpm6: the IPv6 prefix counts to measure (each at most 1048576).
    #[arg(long, value_delimiter = ',', default_value = "10000,100000", value_name = "N,...")]
    pub lpm6_prefixes: Vec<u64>,
}

impl BenchArgs {
    /// The measurement window in seconds (--duration; default 2).
    pub fn duration(&self) -> f64 {
        self.duration.unwrap_or(2.0)
    }

    /// The warm-up in seconds (--warmup; default 0.5).
    pub fn warmup(&self) -> f64 {
        self.warmup.unwrap_or(0.5)
    }
}

/// One experiment: a program, its table setup, and the target ratio.
struct Experiment {
    name: String,
    program: PathBuf,
    entries: u64,
    packets: u32,
    /// Target: program cycles/pkt <= target * baseline cycles/pkt.
    target: Option<f64>,
}

/// Medians over the repetitions of one loop.
pub(crate) struct Figures {
    pub(crate) mpps: f64,
    pub(crate) cycles: f64,
    pub(crate) cycles_min: f64,
    pub(crate) cycles_max: f64,
    workers: Vec<f64>,
}

struct ExperimentResult {
    name: String,
    program: PathBuf,
    table: Option<String>,
    entries: u64,
    packets: u32,
    floor: Figures,
    l2fwd: Figures,
    baseline: Option<Figures>,
    single: Option<Figures>,
    program_fig: Figures,
    target: Option<f64>,
    tsc_hz: f64,
}

pub(crate) fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    if n == 0 {
        0.0
    } else if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

pub(crate) fn figures(ms: &[Measurement]) -> Figures {
    let mut c: Vec<f64> = ms.iter().map(|m| m.cycles_per_pkt).collect();
    let mut p: Vec<f64> = ms.iter().map(|m| m.mpps).collect();
    let nw = ms.first().map_or(0, |m| m.workers.len());
    let workers = (0..nw)
        .map(|w| median(&mut ms.iter().map(|m| m.workers[w].cycles_per_pkt).collect::<Vec<_>>()))
        .collect();
    let cycles = median(&mut c);
    Figures {
        mpps: median(&mut p),
        cycles,
        cycles_min: c.first().copied().unwrap_or(0.0),
        cycles_max: c.last().copied().unwrap_or(0.0),
        workers,
    }
}

fn parse_u64(s: &str) -> Result<u64> {
    let t = s.trim();
    let r = if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        u64::from_str_radix(&h.replace('_', ""), 16)
    } else {
        t.replace('_', "").parse()
    };
    r.with_context(|| format!("`{s}` is not a number"))
}

/// `v` as ceil(bits/8) big-endian bytes; error if it does not fit.
fn be_bytes(v: u64, bits: u32, what: &str) -> Result<Vec<u8>> {
    if bits < 64 && v >> bits != 0 {
        bail!("{what}: {v:#x} does not fit {bits} bits");
    }
    let n = bits.div_ceil(8).clamp(1, 8) as usize;
    Ok(v.to_be_bytes()[8 - n..].to_vec())
}

/// An Ethernet/IPv4/UDP frame of `len` bytes; the IPv4 destination (bytes 30..34) is where the
/// bench writes the keys by default. The IPv4 checksum covers the template (destination 0).
pub(crate) fn template(len: u32) -> Result<Vec<u8>> {
    if !(42..=1500).contains(&len) {
        bail!("--pkt-len must be 42..1500 (Ethernet + IPv4 + UDP headers need 42 bytes)");
    }
    let mut p = vec![0u8; len as usize];
    p[0..6].copy_from_slice(&[0x02, 0, 0, 0, 0, 0x02]);
    p[6..12].copy_from_slice(&[0x02, 0, 0, 0, 0, 0x01]);
    p[12..14].copy_from_slice(&[0x08, 0x00]);
    let ip_len = (len - 14) as u16;
    let ip = &mut p[14..34];
    ip[0] = 0x45;
    ip[2..4].copy_from_slice(&ip_len.to_be_bytes());
    ip[8] = 64;
    ip[9] = 17;
    ip[12..16].copy_from_slice(&[10, 1, 0, 1]);
    let mut sum: u32 = 0;
    for i in (0..20).step_by(2) {
        sum += u32::from(u16::from_be_bytes([ip[i], ip[i + 1]]));
    }
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    ip[10..12].copy_from_slice(&(!(sum as u16)).to_be_bytes());
    let udp_len = ip_len - 20;
    p[34..36].copy_from_slice(&1234u16.to_be_bytes());
    p[36..38].copy_from_slice(&5678u16.to_be_bytes());
    p[38..40].copy_from_slice(&udp_len.to_be_bytes());
    Ok(p)
}

/// CPUs available to the process (read before the EAL pins the main thread to CPU 0).
pub(crate) fn cpus() -> u32 {
    static N: std::sync::OnceLock<u32> = std::sync::OnceLock::new();
    *N.get_or_init(|| std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1) as u32)
}

pub(crate) fn eal_args(mem: u32, workers: u32, extra: Option<&str>) -> Vec<String> {
    // Main lcore on CPU 0; worker i on CPU i mod ncpu (pinned, so every loop runs on the same core).
    let ncpu = cpus();
    let mut lc = String::from("--lcores=0@0");
    for w in 1..=workers {
        let _ = write!(lc, ",{w}@{}", w % ncpu);
    }
    let mut v: Vec<String> = [
        "--no-huge",
        "--no-pci",
        "-m",
        &mem.to_string(),
        "--no-shconf",
        "--no-telemetry",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    v.push("--log-level=error".into());
    v.push(lc);
    if let Some(e) = extra {
        v.extend(e.split_whitespace().map(String::from));
    }
    v
}

/// The table to use: named, or the only table with one exact key of at most 64 bits.
fn pick_table<'p>(prog: &'p Program, name: Option<&str>) -> Result<&'p TableInfo> {
    let ok = |t: &TableInfo| t.keys.len() == 1 && t.keys[0].match_kind == MatchKind::Exact && t.keys[0].bitwidth <= 64;
    if let Some(n) = name {
        let t = prog.table(n).with_context(|| {
            let names: Vec<&str> = prog.tables.iter().map(|t| t.name.as_str()).collect();
            format!("no table named `{n}` (tables: {})", names.join(", "))
        })?;
        if !ok(t) {
            bail!("table `{n}`: the bench needs one exact key field of at most 64 bits");
        }
        return Ok(t);
    }
    let c: Vec<&TableInfo> = prog.tables.iter().filter(|t| ok(t)).collect();
    match c.as_slice() {
        [t] => Ok(t),
        [] => bail!("the program has no table with one exact key field of at most 64 bits"),
        _ => bail!(
            "several tables qualify ({}): choose one with --table",
            c.iter().map(|t| t.name.as_str()).collect::<Vec<_>>().join(", ")
        ),
    }
}

pub(crate) fn build_so(a: &BenchArgs, program: &Path, out: &Path) -> Result<PathBuf> {
    let c = CompileOpts {
        program: program.to_path_buf(),
        include: a.include.clone(),
        define: a.define.clone(),
    };
    let dir = out.join(program.file_stem().and_then(|s| s.to_str()).unwrap_or("prog"));
    Ok(compile::build(&c, &dir, false)?.so_path)
}

fn run_experiment(a: &BenchArgs, e: &Experiment, out: &Path) -> Result<ExperimentResult> {
    let so = build_so(a, &e.program, out)?;
    let mut target = BenchTarget::load(&so, a.workers).with_context(|| format!("loading {}", so.display()))?;
    let tmpl = template(a.pkt_len)?;
    let mut table: Option<(u32, String, u32)> = None; // index, name, key bits
    let mut key_base = 0u64;
    if e.entries > 0 {
        let t = pick_table(target.program(), a.table.as_deref())?.clone();
        let bits = t.keys[0].bitwidth;
        key_base = match &a.key_base {
            Some(s) => parse_u64(s)?,
            None if bits >= 32 => 0x0a00_0000,
            None => 0,
        };
        let prog = target.program();
        let act = match &a.action {
            Some(n) => {
                let ai = prog.action(n).with_context(|| format!("no action named `{n}`"))?;
                if !t.actions.iter().any(|x| x.action == ai.index) {
                    bail!("action `{n}` is not an action of table {}", t.name);
                }
                ai.clone()
            }
            None => t
                .actions
                .iter()
                .map(|x| &prog.actions[x.action as usize])
                .find(|ai| !ai.params.is_empty())
                .or_else(|| t.actions.first().map(|x| &prog.actions[x.action as usize]))
                .with_context(|| format!("table {} has no action", t.name))?
                .clone(),
        };
        if a.params.len() > act.params.len() {
            bail!(
                "action {} has {} parameters, {} given",
                act.name,
                act.params.len(),
                a.params.len()
            );
        }
        let mut params = Vec::new();
        for (i, p) in act.params.iter().enumerate() {
            let v = match a.params.get(i) {
                Some(s) => parse_u64(s)?,
                None => 0,
            };
            params.push(be_bytes(v, p.bitwidth, &format!("parameter {}", p.name))?);
        }
        let n = target
            .table_fill(t.index, key_base, e.entries, act.index, &params)
            .with_context(|| format!("installing {} entries in {}", e.entries, t.name))?;
        eprintln!(
            "bench: {}: installed {n} entries in {} (action {})",
            e.name, t.name, act.name
        );
        table = Some((t.index, t.name.clone(), bits));
    }
    let key_bytes = table.as_ref().map_or(0, |t| t.2.div_ceil(8));
    let has_tables = !target.program().tables.is_empty();
    let params = BenchParams {
        workers: a.workers,
        ports: a.ports,
        packets: e.packets,
        template: tmpl,
        key_offset: a.key_offset,
        key_bytes,
        key_base,
        n_keys: if key_bytes > 0 { e.entries } else { 0 },
        seed: a.seed,
        warmup: Duration::from_secs_f64(a.warmup()),
        duration: Duration::from_secs_f64(a.duration()),
        dispatch: Dispatch::Auto,
    };
    let (mut fl, mut l2, mut bl, mut sl, mut pr) = (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    {
        let mut bench = Bench::new(&mut target, &params).context("creating the bench ports and packets")?;
        for rep in 0..a.repeat {
            eprintln!("bench: {}: repetition {}/{}", e.name, rep + 1, a.repeat);
            fl.push(bench.measure(Kind::Floor).context("floor loop")?);
            l2.push(bench.measure(Kind::L2fwd).context("l2fwd floor loop")?);
            if let Some((ti, tn, _)) = &table {
                let m = bench.measure(Kind::Table(*ti)).context("table baseline loop")?;
                if m.misses > 0 {
                    bail!(
                        "the table baseline missed {} of {} lookups in {tn}: the packets' key field (--key-offset {}) \
                         does not hold the installed keys",
                        m.misses,
                        m.hits + m.misses,
                        a.key_offset
                    );
                }
                bl.push(m);
                sl.push(
                    bench
                        .measure(Kind::TableSingle(*ti))
                        .context("single-lookup diagnostic loop")?,
                );
            }
            pr.push(bench.measure(Kind::Program).with_context(|| {
                let hint = match &table {
                    None if e.entries == 0 && has_tables => {
                        " (its tables are empty: --entries N installs N entries in --table, so that packets hit)"
                    }
                    _ => "",
                };
                format!("running {}{hint}", e.program.display())
            })?);
            // this repetition's figures (the report has medians): shows drift and outliers
            let c = |v: &[Measurement]| v.last().map_or(0.0, |m| m.cycles_per_pkt);
            let mut line = format!("floor {:.1}, l2fwd {:.1}", c(&fl), c(&l2));
            if table.is_some() {
                line += &format!(", bulk lookup {:.1}, 1 lookup/pkt {:.1}", c(&bl), c(&sl));
            }
            eprintln!("bench: {}:   cycles/pkt {line}, program {:.1}", e.name, c(&pr));
        }
    }
    if let Some((ti, tn, _)) = &table {
        let (_, misses) = target.table_hits_misses(*ti)?;
        if misses > 0 {
            eprintln!("bench: warning: the program missed {misses} lookups in {tn}");
        }
    }
    Ok(ExperimentResult {
        name: e.name.clone(),
        program: e.program.clone(),
        table: table.map(|t| t.1),
        entries: e.entries,
        packets: e.packets,
        floor: figures(&fl),
        l2fwd: figures(&l2),
        baseline: if bl.is_empty() { None } else { Some(figures(&bl)) },
        single: if sl.is_empty() { None } else { Some(figures(&sl)) },
        program_fig: figures(&pr),
        target: e.target,
        tsc_hz: fl.first().map_or(0.0, |m| m.tsc_hz as f64),
    })
}

fn report(a: &BenchArgs, results: &[ExperimentResult], tsc_hz: f64, cmdline: &str) -> (String, bool) {
    let mut s = String::new();
    let mut all_pass = true;
    let _ = writeln!(s, "p4dp bench results");
    let _ = writeln!(s, "command: {cmdline}");
    let _ = writeln!(
        s,
        "TSC {:.1} MHz (rte_get_tsc_hz; cycles are TSC cycles), {} CPUs, {} worker(s), {:.1} s window after {:.1} s \
         warm-up, {} repetition(s), medians (min..max); seed {}",
        tsc_hz / 1e6,
        cpus(),
        a.workers,
        a.duration(),
        a.warmup(),
        a.repeat,
        a.seed
    );
    let _ = writeln!(s);
    let _ = writeln!(
        s,
        "{:<10} {:<26} {:>8} {:>22} {:>9} {:>7} {:>8} {:>7} {:>6}",
        "experiment", "loop", "Mpps", "cycles/pkt", "base c/p", "ratio", "overhead", "target", "result"
    );
    for r in results {
        // The target is judged against the table baseline if there is one, else the l2fwd floor
        // (see the note printed below the table for why not the raw ring floor).
        let base = r.baseline.as_ref().unwrap_or(&r.l2fwd);
        let base_name = if r.baseline.is_some() {
            "floor + bulk lookup"
        } else {
            "l2fwd floor"
        };
        let row = |s: &mut String, lp: &str, f: &Figures| {
            let _ = writeln!(
                s,
                "{:<10} {:<26} {:>8.2} {:>8.1} ({:>5.1}..{:>5.1})",
                r.name, lp, f.mpps, f.cycles, f.cycles_min, f.cycles_max
            );
        };
        row(&mut s, "floor (rx->tx)", &r.floor);
        row(&mut s, "l2fwd floor (swap MACs)", &r.l2fwd);
        if let Some(b) = &r.baseline {
            row(&mut s, "floor + bulk lookup", b);
        }
        if let Some(b) = &r.single {
            row(&mut s, "(floor + 1 lookup/pkt)", b);
        }
        let p = &r.program_fig;
        let ratio = if base.cycles > 0.0 {
            p.cycles / base.cycles
        } else {
            f64::INFINITY
        };
        let (tgt, verdict) = match r.target {
            Some(t) => {
                let ok = ratio <= t;
                all_pass &= ok;
                (format!("<={t:.2}x"), if ok { "PASS" } else { "MISS" })
            }
            None => ("-".to_string(), "-"),
        };
        let _ = writeln!(
            s,
            "{:<10} {:<26} {:>8.2} {:>8.1} ({:>5.1}..{:>5.1}) {:>9.1} {:>6.2}x {:>8.1} {:>7} {:>6}",
            r.name,
            format!("program vs {base_name}").chars().take(26).collect::<String>(),
            p.mpps,
            p.cycles,
            p.cycles_min,
            p.cycles_max,
            base.cycles,
            ratio,
            p.cycles - base.cycles,
            tgt,
            verdict
        );
        let mut extra: Vec<(&str, &Figures)> = Vec::new();
        if r.baseline.is_some() {
            extra.push(("(program vs l2fwd floor)", &r.l2fwd));
        }
        extra.push(("(program vs raw floor)", &r.floor));
        for (what, f) in extra {
            let _ = writeln!(
                s,
                "{:<10} {:<26} {:>8} {:>22} {:>9.1} {:>6.2}x {:>8.1}",
                r.name,
                what,
                "",
                "",
                f.cycles,
                p.cycles / f.cycles.max(f64::MIN_POSITIVE),
                p.cycles - f.cycles
            );
        }
        if a.workers > 1 {
            let w: Vec<String> = p.workers.iter().map(|c| format!("{c:.1}")).collect();
            let _ = writeln!(s, "{:<10} program cycles/pkt per worker: {}", r.name, w.join(", "));
        }
    }
    let _ = writeln!(s);
    for r in results {
        let _ = writeln!(
            s,
            "{}: {} — {} packets in circulation{}",
            r.name,
            r.program.display(),
            r.packets,
            match &r.table {
                Some(t) => format!(
                    ", {} entries in {t}, keys 0x{:x}.. in random order (one lap = every key once)",
                    r.entries,
                    a.key_base.as_deref().map_or(0x0a00_0000, |k| parse_u64(k).unwrap_or(0))
                ),
                None => String::new(),
            }
        );
    }
    let _ = writeln!(
        s,
        "l2fwd floor = the raw floor plus, per burst, a prefetch of each packet's data and, per packet, a read and \
         write of its first cache line (Ethernet addresses swapped).\nA program without a table is judged against \
         the l2fwd floor: ring ports never touch packet data, so the raw ring floor (a few cycles/pkt) is not \
         comparable to the NIC floor that Scholz et al. measured for t4p4s in Key Properties of Programmable Data Plane Targets (84 cycles/pkt, descriptors, mbuf refill and DMA'd packet data); the \
         raw-floor ratio is printed for reference.\n\
         (floor + 1 lookup/pkt) is a diagnostic: the table baseline with one p4dp_table_lookup per packet \
         instead of the bulk lookup\nratio = program cycles/pkt / baseline cycles/pkt; overhead = their difference (t4p4s in that paper: 146 vs 84 \
         = 1.74x, +62 cycles/pkt over a NIC floor)"
    );
    (s, all_pass)
}

fn fig_json(f: &Figures) -> Json {
    Json::obj([
        ("mpps", Json::Num(f.mpps)),
        ("cycles_per_pkt", Json::Num(f.cycles)),
        ("cycles_min", Json::Num(f.cycles_min)),
        ("cycles_max", Json::Num(f.cycles_max)),
        ("workers_cycles_per_pkt", json::nums(&f.workers)),
    ])
}

/// The figures of `report` as JSON: one object per experiment, with each loop's medians and the
/// judged ratio.
fn report_json(a: &BenchArgs, results: &[ExperimentResult], tsc_hz: f64, all_pass: bool) -> Json {
    let exps = results
        .iter()
        .map(|r| {
            let (base, base_name) = match &r.baseline {
                Some(b) => (b, "floor + bulk lookup"),
                None => (&r.l2fwd, "l2fwd floor"),
            };
            let ratio = r.program_fig.cycles / base.cycles;
            let mut loops = vec![("floor", fig_json(&r.floor)), ("l2fwd_floor", fig_json(&r.l2fwd))];
            if let Some(b) = &r.baseline {
                loops.push(("floor_bulk_lookup", fig_json(b)));
            }
            if let Some(b) = &r.single {
                loops.push(("floor_single_lookup", fig_json(b)));
            }
            loops.push(("program", fig_json(&r.program_fig)));
            Json::obj([
                ("name", Json::str(&r.name)),
                ("program", Json::str(r.program.display().to_string())),
                ("table", r.table.as_ref().map_or(Json::Null, Json::str)),
                ("entries", Json::uint(r.entries)),
                ("packets", Json::uint(r.packets.into())),
                ("loops", Json::obj(loops)),
                ("baseline", Json::str(base_name)),
                ("ratio", Json::Num(ratio)),
                ("overhead_cycles_per_pkt", Json::Num(r.program_fig.cycles - base.cycles)),
                ("target", Json::opt(r.target)),
                ("pass", r.target.map_or(Json::Null, |t| Json::Bool(ratio <= t))),
            ])
        })
        .collect();
    json::document(
        a.suite.map(Suite::name),
        tsc_hz,
        common_settings(a),
        Json::obj([("experiments", Json::Arr(exps))]),
        Json::obj([("pass", Json::Bool(all_pass))]),
    )
}

/// The settings every suite reports.
pub fn common_settings(a: &BenchArgs) -> Json {
    Json::obj([
        ("workers", Json::Int(a.workers.into())),
        ("duration_s", Json::Num(a.duration())),
        ("warmup_s", Json::Num(a.warmup())),
        ("repeat", Json::Int(a.repeat.into())),
        ("seed", Json::uint(a.seed)),
        ("pkt_len", Json::Int(a.pkt_len.into())),
        ("cpus", Json::Int(cpus().into())),
    ])
}

pub(crate) fn default_mem(packets: u32, entries: u64, workers: u32) -> u32 {
    // packets: ~600 B each (mbuf + headroom + data); entries: ~160 B (hash key slot, bucket share,
    // entry); runtime pool and tables: ~160 MiB per worker; rounded up generously.
    let mib = 256 + (packets as u64 * 600 + entries * 160) / (1 << 20) + 160 * workers as u64;
    mib.next_power_of_two().clamp(512, 16384) as u32
}

pub fn bench(a: BenchArgs) -> Result<ExitCode> {
    if a.list {
        print!("{}", list());
        return Ok(ExitCode::SUCCESS);
    }
    if a.workers == 0 || a.workers > p4dp_rt::bench::MAX_WORKERS {
        bail!("--workers must be 1..{}", p4dp_rt::bench::MAX_WORKERS);
    }
    if a.repeat == 0 {
        bail!("--repeat must be at least 1");
    }
    if !(a.duration() > 0.0 && a.duration() <= 3600.0 && a.warmup() >= 0.0 && a.warmup() <= 3600.0) {
        bail!("--duration must be in (0, 3600] and --warmup in [0, 3600] seconds");
    }
    let sweep = matches!(a.suite, Some(Suite::TableKinds | Suite::ProgramShape));
    let traffic = sweep || a.suite == Some(Suite::RtcHotCache);
    if (!sweep && a.kinds.is_some()) || (!traffic && a.traffic.is_some()) {
        bail!("--traffic and --kinds apply to --suite table-kinds and program-shape (--traffic also to rtc-hot-cache)");
    }
    match a.suite {
        Some(Suite::DataplaneWrites) => return crate::bench_dp::suite_dataplane_writes(&a),
        Some(Suite::AddOnMiss) => return add_on_miss::suite_add_on_miss(&a),
        Some(s @ (Suite::TableKinds | Suite::ProgramShape)) => return sweep::suite_sweep(&a, s),
        Some(Suite::P4runtimeUpdates) => return p4runtime_updates::suite_p4runtime_updates(&a),
        Some(Suite::Lpm) => return crate::bench_lpm::suite_lpm(&a),
        Some(Suite::Lpm6) => return crate::bench_lpm6::suite_lpm6(&a),
        Some(Suite::RtcCosts) => return rtc::suite_rtc_costs(&a),
        Some(Suite::RtcSpacesaving) => return rtc_spacesaving::suite_rtc_spacesaving(&a),
        Some(Suite::RtcFlowMonitor) => return rtc_flow_monitor::suite_rtc_flow_monitor(&a),
        Some(Suite::RtcHotCache) => return rtc_hot_cache::suite_rtc_hot_cache(&a),
        Some(Suite::Overhead) | None => {}
    }
    let experiments: Vec<Experiment> = match (&a.suite, &a.program) {
        (
            Some(
                Suite::DataplaneWrites
                | Suite::AddOnMiss
                | Suite::TableKinds
                | Suite::ProgramShape
                | Suite::P4runtimeUpdates
                | Suite::Lpm
                | Suite::Lpm6
                | Suite::RtcCosts
                | Suite::RtcSpacesaving
                | Suite::RtcFlowMonitor
                | Suite::RtcHotCache,
            ),
            _,
        ) => {
            bail!(
                "internal error: --suite {} is dispatched above",
                a.suite.map_or("", Suite::name)
            )
        }
        (Some(Suite::Overhead), _) => {
            let dir = compile::home().join("benches");
            vec![
                Experiment {
                    name: "minimal".into(),
                    program: dir.join("minimal.p4"),
                    entries: 0,
                    packets: a.packets.unwrap_or(4096),
                    target: Some(1.25),
                },
                Experiment {
                    name: "l3_exact".into(),
                    program: dir.join("l3_exact.p4"),
                    entries: 1 << 20,
                    packets: a.packets.unwrap_or(1 << 20),
                    target: Some(1.3),
                },
            ]
        }
        (None, Some(p)) => {
            let stem = p.file_stem().and_then(|s| s.to_str()).unwrap_or("program").to_string();
            let packets = a.packets.unwrap_or(if a.entries > 0 {
                a.entries.min(1 << 24) as u32
            } else {
                4096
            });
            vec![Experiment {
                name: stem,
                program: p.clone(),
                entries: a.entries,
                packets,
                target: None,
            }]
        }
        (None, None) => bail!("give a PROGRAM.p4 or --suite NAME (`p4dp bench --list` shows the suites)"),
    };
    if a.suite.is_some() && (a.entries > 0 || a.table.is_some()) {
        bail!("--entries/--table apply to a single program, not to --suite");
    }
    let max_pk = experiments.iter().map(|e| e.packets).max().unwrap_or(0);
    let max_en = experiments.iter().map(|e| e.entries).max().unwrap_or(0);
    let mem = a.mem.unwrap_or_else(|| default_mem(max_pk, max_en, a.workers));
    p4dp_rt::Eal::init(&eal_args(mem, a.workers, a.eal.as_deref())).context("starting DPDK's EAL")?;
    let scratch = compile::scratch_dir("bench")?;
    let out_dir = a.build_dir.clone().unwrap_or_else(|| scratch.clone());
    let mut results = Vec::new();
    for e in &experiments {
        eprintln!("bench: {}: {}", e.name, e.program.display());
        let r = run_experiment(&a, e, &out_dir).with_context(|| format!("experiment {}", e.name))?;
        results.push(r);
    }
    let tsc_hz = results.first().map_or(0.0, |r| r.tsc_hz);
    let cmdline = std::env::args().collect::<Vec<_>>().join(" ");
    let (text, pass) = report(&a, &results, tsc_hz, &cmdline);
    let to_stdout = a.json.as_deref().is_some_and(|p| p.as_os_str() == "-");
    if !to_stdout {
        print!("{text}");
    }
    if let Some(j) = &a.json {
        json::emit(j, &report_json(&a, &results, tsc_hz, pass))?;
    }
    let out = a.out.clone().or_else(|| a.suite.map(Suite::default_out));
    if let Some(o) = out {
        if let Some(d) = o.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(d).with_context(|| format!("creating {}", d.display()))?;
        }
        std::fs::write(&o, &text).with_context(|| format!("writing {}", o.display()))?;
        eprintln!("bench: results written to {}", o.display());
    }
    if a.build_dir.is_none() {
        let _ = std::fs::remove_dir_all(&scratch);
    }
    // Targets are reported, not enforced: a MISS is a finding, not a failed command.
    let _ = pass;
    Ok(ExitCode::SUCCESS)
}
