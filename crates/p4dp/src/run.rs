//! `p4dp run`: compile a program, start DPDK with the requested ports, preload table entries, run
//! the workers until the pcap input is drained (or for `--duration`), and print what happened.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use clap::Args;

use crate::compile;
use crate::entries;
use crate::CompileOpts;

#[derive(Args, Debug)]
pub struct RunArgs {
    #[command(flatten)]
    pub c: CompileOpts,
    /// A pcap port: `N=IN.pcap:OUT.pcap` (either side may be empty: `N=:out.pcap` only sends,
    /// `N=in.pcap:` only receives). N is the P4 port number.
    #[arg(long = "port", value_name = "N=IN:OUT")]
    pub ports: Vec<String>,
    /// A Linux interface through DPDK's af_packet driver: `N=IFNAME`.
    #[arg(long = "iface", value_name = "N=IFNAME")]
    pub ifaces: Vec<String>,
    /// Any DPDK virtual device as a port: `N=DEVARGS` (e.g. `2=net_ring0`, `3=net_tap0,iface=p4dp3`).
    #[arg(long = "vdev", value_name = "N=DEVARGS")]
    pub vdevs: Vec<String>,
    /// Extra EAL arguments (space-separated), added after p4dp's defaults.
    #[arg(long)]
    pub eal: Option<String>,
    /// Table entries to install before traffic: STF `add`/`setdefault` lines (see docs/stf.md).
    #[arg(long = "table-entries", value_name = "FILE")]
    pub table_entries: Option<PathBuf>,
    /// Number of worker cores.
    #[arg(long, default_value_t = 1)]
    pub workers: u32,
    /// Run for this many seconds instead of until the pcap input is drained.
    #[arg(long)]
    pub duration: Option<f64>,
    /// DPDK memory in MiB (no hugepages are used).
    #[arg(long, default_value_t = 1024)]
    pub mem: u32,
    /// Print the digest messages the program sent (hex, native layout), after the run.
    #[arg(long)]
    pub digests: bool,
    /// Where to keep the compiled program (default: a temporary directory).
    #[arg(long)]
    pub build_dir: Option<PathBuf>,
}

fn split_port(spec: &str) -> Result<(u32, &str)> {
    let (n, rest) = spec
        .split_once('=')
        .with_context(|| format!("`{spec}`: expected N=..."))?;
    let n: u32 = n
        .trim()
        .parse()
        .with_context(|| format!("`{spec}`: `{n}` is not a port number"))?;
    if n >= p4dp_rt::PORT_DROP {
        bail!("`{spec}`: port {n} is reserved (511 is the drop port)");
    }
    Ok((n, rest))
}

/// Turns the port options into (port number, devargs) pairs.
fn port_devargs(a: &RunArgs, scratch: &std::path::Path) -> Result<Vec<(u32, String)>> {
    let mut out: Vec<(u32, String)> = Vec::new();
    for (i, spec) in a.ports.iter().enumerate() {
        let (n, rest) = split_port(spec)?;
        let (rx, tx) = rest.split_once(':').unwrap_or((rest, ""));
        if rx.is_empty() && tx.is_empty() {
            bail!("`{spec}`: give an input pcap, an output pcap or both");
        }
        let rx = if rx.is_empty() {
            // net_pcap needs an rx source: an empty capture file
            let empty = scratch.join(format!("empty{n}.pcap"));
            std::fs::write(&empty, PCAP_EMPTY).context("writing an empty pcap")?;
            empty.display().to_string()
        } else {
            if !std::path::Path::new(rx).exists() {
                bail!("`{spec}`: input file {rx} does not exist");
            }
            rx.to_string()
        };
        let mut d = format!("net_pcap{i},rx_pcap={rx}");
        if !tx.is_empty() {
            d.push_str(&format!(",tx_pcap={tx}"));
        }
        out.push((n, d));
    }
    for (i, spec) in a.ifaces.iter().enumerate() {
        let (n, ifname) = split_port(spec)?;
        out.push((n, format!("net_af_packet{i},iface={ifname}")));
    }
    for spec in &a.vdevs {
        let (n, d) = split_port(spec)?;
        out.push((n, d.to_string()));
    }
    let mut seen = std::collections::HashSet::new();
    for (n, _) in &out {
        if !seen.insert(*n) {
            bail!("port {n} is given twice");
        }
    }
    if out.is_empty() {
        bail!("no ports: give at least one --port, --iface or --vdev");
    }
    Ok(out)
}

/// A pcap file header with no packets (Ethernet link type).
const PCAP_EMPTY: &[u8] = &[
    0xd4, 0xc3, 0xb2, 0xa1, 2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0, 1, 0, 0, 0,
];

pub fn eal_args_workers(mem: u32, workers: u32, extra: Option<&str>) -> Vec<String> {
    let mut lc = String::from("--lcores=0@0");
    for w in 1..=workers {
        lc.push_str(&format!(
            ",{w}@(0-{})",
            std::thread::available_parallelism().map(|n| n.get() - 1).unwrap_or(0)
        ));
    }
    let mut v: Vec<String> = vec![
        "--no-huge".into(),
        "--no-pci".into(),
        "-m".into(),
        mem.to_string(),
        "--no-shconf".into(),
        "--no-telemetry".into(),
        "--log-level=error".into(),
        lc,
    ];
    if let Some(e) = extra {
        v.extend(e.split_whitespace().map(String::from));
    }
    v
}

pub fn run(a: RunArgs) -> Result<ExitCode> {
    if a.workers == 0 {
        bail!("--workers must be at least 1");
    }
    let scratch = compile::scratch_dir("run")?;
    let out = a.build_dir.clone().unwrap_or_else(|| scratch.clone());
    let built = compile::build(&a.c, &out, false)?;
    let ports = port_devargs(&a, &scratch)?;
    p4dp_rt::Eal::init(&eal_args_workers(a.mem, a.workers, a.eal.as_deref())).context("starting DPDK's EAL")?;
    let opts = p4dp_rt::RuntimeOptions {
        max_workers: a.workers,
        ..Default::default()
    };
    let rt =
        p4dp_rt::Runtime::load(&built.so_path, opts).with_context(|| format!("loading {}", built.so_path.display()))?;
    if let Some(f) = &a.table_entries {
        let n = entries::apply_file(&rt, f)?;
        eprintln!("installed {n} table entries from {}", f.display());
    }
    for (n, d) in &ports {
        rt.add_port(*n, d).with_context(|| format!("adding port {n} ({d})"))?;
    }
    let t0 = Instant::now();
    let params = p4dp_rt::RunParams {
        n_workers: a.workers,
        duration: a.duration.map(Duration::from_secs_f64),
        until_input_done: a.duration.is_none(),
        ..Default::default()
    };
    rt.run(&params).context("running the workers")?;
    let took = t0.elapsed();
    report(&rt, &ports, took)?;
    digests(&rt, a.digests)?;
    if a.build_dir.is_none() {
        let _ = std::fs::remove_dir_all(&scratch);
    }
    Ok(ExitCode::SUCCESS)
}

fn report(rt: &p4dp_rt::Runtime, ports: &[(u32, String)], took: Duration) -> Result<()> {
    let st = rt.stats()?;
    println!(
        "ran {:.3} s: {} packets processed, {} dropped by the program",
        took.as_secs_f64(),
        st.packets,
        st.drops
    );
    println!(
        "{:>6} {:>10} {:>12} {:>10} {:>12} {:>8}",
        "port", "rx pkts", "rx bytes", "tx pkts", "tx bytes", "drops"
    );
    let mut sorted: Vec<&(u32, String)> = ports.iter().collect();
    sorted.sort_by_key(|p| p.0);
    for (n, _) in sorted {
        let ps = rt.port_stats(*n)?;
        println!(
            "{:>6} {:>10} {:>12} {:>10} {:>12} {:>8}",
            n,
            ps.rx_packets,
            ps.rx_bytes,
            ps.tx_packets,
            ps.tx_bytes,
            ps.drops + ps.tx_errors
        );
    }
    let prog = rt.program();
    if !prog.tables.is_empty() {
        println!(
            "{:<40} {:>8} {:>10} {:>10} {:>6}",
            "table", "entries", "hits", "misses", "full"
        );
        for t in &prog.tables {
            let ts = rt.table_stats(t.index)?;
            println!(
                "{:<40} {:>8} {:>10} {:>10} {:>6}",
                t.name, ts.entries, ts.hits, ts.misses, ts.table_full
            );
        }
    }
    for e in &prog.externs {
        if e.kind == p4dp_rt::ExternKind::Counter {
            let mut cells = Vec::new();
            for i in 0..e.n_cells.min(64) {
                let v = rt.counter_read(e.index, i)?;
                if v.packets > 0 || v.bytes > 0 {
                    cells.push(format!("[{i}] {} pkts {} B", v.packets, v.bytes));
                }
            }
            if !cells.is_empty() {
                println!("counter {}: {}", e.name, cells.join(", "));
            }
        }
    }
    let other = [
        ("packets that did not fit their buffer", st.finish_errors),
        ("copies (clone/multicast)", st.copies),
        ("assert failures", st.asserts),
        ("unsupported operations", st.unsupported),
        ("packets to ports that do not exist", st.no_port),
        (
            "packets larger than one mbuf (multi-segment, over 4096 bytes), dropped unprocessed",
            st.multiseg,
        ),
        (
            "@entry_lock entries shared by workers (bias revoked)",
            st.lock_revocations,
        ),
    ];
    for (what, n) in other {
        if n > 0 {
            println!("{what}: {n}");
        }
    }
    Ok(())
}

/// Digest messages: counted always, printed with `--digests`.
fn digests(rt: &p4dp_rt::Runtime, print: bool) -> Result<()> {
    for e in &rt.program().externs {
        if e.kind != p4dp_rt::ExternKind::Digest {
            continue;
        }
        let msgs = rt.digest_poll(e.index, 0)?;
        let drops = rt.digest_drops(e.index)?;
        println!(
            "digest {}: {} messages queued, {} dropped (queue full)",
            e.name,
            msgs.len(),
            drops
        );
        if print {
            for (w, m) in &msgs {
                let hex: String = m.iter().map(|b| format!("{b:02x}")).collect();
                println!("  worker {w}: {hex}");
            }
        }
    }
    Ok(())
}
