//! `p4dp run`: compile a program, start DPDK with the requested ports, preload table entries, run
//! the workers, and print what happened. A run ends at `--duration`, at SIGINT/SIGTERM (see
//! stop.rs), and, when every port reads a pcap file, once the input is drained (or stalls); a run
//! with a live port (interface, tap, ring, ...) and no `--duration` runs until it is stopped.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use clap::Args;

use crate::compile;
use crate::entries;
use crate::portfiles::{self, PortFile};
use crate::stop;
use crate::CompileOpts;

/// Worker cores at most: DPDK's lcore limit (RTE_MAX_LCORE, 128) less the control lcore.
pub(crate) const MAX_WORKERS: u32 = 127;
/// The longest `--duration`: a year, in seconds (longer runs: stop them with a signal).
const MAX_DURATION_S: f64 = 365.0 * 24.0 * 3600.0;

/// `--duration`: seconds, a finite number in (0, one year].
pub fn parse_duration(s: &str) -> Result<f64, String> {
    let v: f64 = s
        .trim()
        .parse()
        .map_err(|_| format!("`{s}` is not a number of seconds"))?;
    if !v.is_finite() || v <= 0.0 || v > MAX_DURATION_S {
        return Err(format!(
            "`{s}` seconds: give a number greater than 0 and at most {MAX_DURATION_S} (a year)"
        ));
    }
    Ok(v)
}

/// The ports, cores, memory and duration of a switch: the options `p4dp run` and `p4dp serve`
/// share.
#[derive(Args, Debug)]
pub struct SwitchOpts {
    /// A pcap port: `N=IN.pcap:OUT.pcap` (either side may be empty: `N=:out.pcap` only sends,
    /// `N=in.pcap:` only receives). N is the P4 port number. Under `serve` (or `--p4runtime`) the
    /// input is replayed from its start each time a pipeline is committed.
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
    /// Number of worker cores (1 to 127).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=MAX_WORKERS as i64))]
    pub workers: u32,
    /// Stop after this many seconds (at most a year). Default: `run` on pcap ports stops when the
    /// input is drained; otherwise the switch runs until SIGINT/SIGTERM.
    #[arg(long, value_name = "SECONDS", value_parser = parse_duration)]
    pub duration: Option<f64>,
    /// DPDK memory in MiB (no hugepages are used; 64 to 1048576).
    #[arg(long, default_value_t = 1024, value_parser = clap::value_parser!(u32).range(64..=1_048_576))]
    pub mem: u32,
    /// While the switch runs, hold the kernel's CPU latency limit (PM QoS, /dev/cpu_dma_latency)
    /// at this many microseconds (0 to 1000000): idle CPUs use only idle states that wake up
    /// that fast, and at 0 they poll instead of halting, so a control-plane request does not wait
    /// for its CPU to wake up (in a virtual machine a halted CPU wakes through the hypervisor).
    /// Idle CPUs then use more power. Needs root (docs/p4runtime.md "CPU latency limit").
    #[arg(long, value_name = "US", value_parser = clap::value_parser!(u32).range(0..=1_000_000))]
    pub cpu_latency_limit: Option<u32>,
}

impl SwitchOpts {
    /// Whether no port was given.
    pub fn no_ports(&self) -> bool {
        self.ports.is_empty() && self.ifaces.is_empty() && self.vdevs.is_empty()
    }

    /// The ports as devargs, checked before any file is opened (see [`port_devargs`]).
    pub(crate) fn devargs(&self, scratch: &std::path::Path) -> Result<Ports> {
        port_devargs(&self.ports, &self.ifaces, &self.vdevs, scratch)
    }

    /// Starts DPDK's EAL for these workers, the background threads `background` (see
    /// [`background_threads`]) and this much memory.
    /// With a `split` (`--control-cpus`), the main lcore runs on its control CPUs and the
    /// workers on its worker CPUs.
    pub(crate) fn init_eal_with(&self, background: &[Option<usize>], split: Option<&CpuSplit>) -> Result<()> {
        if let Some(us) = self.cpu_latency_limit {
            crate::cpu_latency::hold_for_process(us)?;
        }
        note_control_cpus(split);
        p4dp_rt::Eal::init(&eal_args_workers(
            self.mem,
            self.workers,
            background,
            split,
            self.eal.as_deref(),
        ))
        .context("starting DPDK's EAL (see the EAL's message above; `--eal` adds EAL arguments)")
    }
}

/// The CPUs of the P4Runtime server's threads: the control CPUs of a [`CpuSplit`], else the CPUs
/// this process's main thread could run on before the EAL pinned it to lcore 0's CPU.
static CONTROL_CPUS: std::sync::OnceLock<libc::cpu_set_t> = std::sync::OnceLock::new();

/// Records the CPUs for [`move_to_control_cpus`] (call before the EAL starts): the split's
/// control CPUs, or without one the calling thread's CPUs.
fn note_control_cpus(split: Option<&CpuSplit>) {
    // SAFETY: an all-zero cpu_set_t is a valid (empty) set.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    match split {
        Some(s) => {
            for &c in &s.control {
                // SAFETY: c <= MAX_CPU, inside the set (CPU_SETSIZE is 1024).
                unsafe { libc::CPU_SET(c, &mut set) };
            }
            let _ = CONTROL_CPUS.set(set);
        }
        // SAFETY: set is a cpu_set_t of the size passed; pid 0 is the calling thread.
        None if unsafe { libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) } == 0 => {
            let _ = CONTROL_CPUS.set(set);
        }
        None => {}
    }
}

/// Moves the calling thread to the control CPUs (see [`note_control_cpus`]). Threads that the main
/// thread creates after `rte_eal_init` inherit its pinning to lcore 0's CPU(s): without this the
/// P4Runtime server's threads would all share that with the EAL's interrupt thread, whatever the
/// other CPUs are doing. A no-op when the CPUs were not recorded or cannot be set (the thread
/// keeps its CPUs).
pub(crate) fn move_to_control_cpus() {
    if let Some(set) = CONTROL_CPUS.get() {
        // SAFETY: set is a valid cpu_set_t of the size passed; pid 0 is the calling thread.
        let _ = unsafe { libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), set) };
    }
}

/// `--control-cpus`: a CPU list, or `all` (no split).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ControlCpus {
    All,
    List(CpuList),
}

impl std::fmt::Display for ControlCpus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ControlCpus::All => f.write_str("all"),
            ControlCpus::List(CpuList(l)) => {
                f.write_str(&l.iter().map(|c| c.to_string()).collect::<Vec<_>>().join(","))
            }
        }
    }
}

pub fn parse_control_cpus(s: &str) -> Result<ControlCpus, String> {
    if s.trim() == "all" {
        return Ok(ControlCpus::All);
    }
    parse_cpu_list(s).map(ControlCpus::List)
}

/// A switch's CPUs divided between its control threads (the P4Runtime server's gRPC thread, the
/// threads that apply Writes, the stream and notification threads, the main lcore) and its
/// workers, which float over `workers` (docs/p4runtime.md "Threads").
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CpuSplit {
    pub control: Vec<usize>,
    pub workers: Vec<usize>,
}

/// The split of `--control-cpus` on a machine with CPUs 0..`cpus`: the CPUs given (the workers get
/// the others, at least one must be left); none for `all` and by default: the workers float over
/// every CPU, so no CPU is free of them (docs/p4runtime.md says why that is the default).
pub(crate) fn control_split(given: Option<&ControlCpus>, cpus: usize) -> Result<Option<CpuSplit>> {
    let control: Vec<usize> = match given {
        Some(ControlCpus::All) => return Ok(None),
        Some(ControlCpus::List(CpuList(list))) => {
            if let Some(c) = list.iter().find(|c| **c >= cpus) {
                bail!(
                    "--control-cpus: CPU {c} does not exist (this machine has CPUs 0-{})",
                    cpus - 1
                );
            }
            if list.len() >= cpus {
                bail!("--control-cpus names every CPU: at least one must be left for the workers (or give `all`: no split)");
            }
            list.clone()
        }
        None => return Ok(None),
    };
    let workers = (0..cpus).filter(|c| !control.contains(c)).collect();
    Ok(Some(CpuSplit { control, workers }))
}

/// An EAL CPU set: `3` or `(0-2)` or `(1,3)`.
fn eal_cpu_set(cpus: &[usize]) -> String {
    match cpus {
        [c] => c.to_string(),
        _ => format!("({})", cpus.iter().map(|c| c.to_string()).collect::<Vec<_>>().join(",")),
    }
}

#[derive(Args, Debug)]
pub struct RunArgs {
    #[command(flatten)]
    pub c: CompileOpts,
    #[command(flatten)]
    pub sw: SwitchOpts,
    /// Table entries to install before traffic: STF `add`/`setdefault` lines (see docs/stf.md).
    #[arg(long = "table-entries", value_name = "FILE")]
    pub table_entries: Option<PathBuf>,
    /// Print the digest messages the program sent (hex, native layout), after the run.
    #[arg(long)]
    pub digests: bool,
    /// Where to keep the compiled program (default: a temporary directory).
    #[arg(long)]
    pub build_dir: Option<PathBuf>,
    /// rtc.p4 background pipelines: the CPUs their threads are pinned to, one thread per CPU
    /// (`1`, `2,3`, `2-3`), at most one per pipeline; a thread with several pipelines runs them
    /// in turn. Default: one thread per pipeline as far as the CPUs the workers leave allow (at
    /// least one thread), not pinned (like the workers). See docs/rtc.md.
    #[arg(long = "background-cores", value_name = "LIST", value_parser = parse_cpu_list)]
    pub background_cores: Option<CpuList>,
    #[command(flatten)]
    pub p4rt: crate::serve::P4RuntimeOpts,
}

/// CPUs given as a list (`--background-cores`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CpuList(pub Vec<usize>);

/// The largest CPU number a list may name (DPDK's CPU sets end there).
const MAX_CPU: usize = 1023;

/// `--background-cores`: CPU numbers and ranges separated by commas (`0,2-3`), each CPU once.
pub fn parse_cpu_list(s: &str) -> Result<CpuList, String> {
    let mut v = Vec::new();
    for part in s.split(',') {
        let part = part.trim();
        let num = |x: &str| -> Result<usize, String> {
            let n: usize = x
                .trim()
                .parse()
                .map_err(|_| format!("`{x}` in `{s}` is not a CPU number"))?;
            if n > MAX_CPU {
                return Err(format!("CPU {n} in `{s}`: CPU numbers go up to {MAX_CPU}"));
            }
            Ok(n)
        };
        let (a, b) = match part.split_once('-') {
            Some((a, b)) => (num(a)?, num(b)?),
            None => {
                let n = num(part)?;
                (n, n)
            }
        };
        if a > b {
            return Err(format!("`{part}` in `{s}`: a range goes from low to high"));
        }
        for c in a..=b {
            if v.contains(&c) {
                return Err(format!("CPU {c} is named twice in `{s}`"));
            }
            v.push(c);
        }
    }
    Ok(CpuList(v))
}

/// The background threads of a run of a program with `pipelines` background pipelines on a
/// machine with `cpus` CPUs, `workers` of them taken by workers: the CPU each thread is pinned to
/// (`--background-cores`), or `None` for a thread that floats over every CPU (the default: one
/// thread per pipeline as far as the CPUs left allow, at least one).
pub(crate) fn background_threads(
    pipelines: u32,
    workers: u32,
    cpus: usize,
    cores: Option<&CpuList>,
) -> Result<Vec<Option<usize>>> {
    let pipelines = pipelines as usize;
    match cores {
        _ if pipelines == 0 => {
            if cores.is_some() {
                bail!("--background-cores: the program has no background pipelines");
            }
            Ok(Vec::new())
        }
        Some(CpuList(list)) => {
            if list.len() > pipelines {
                bail!(
                    "--background-cores names {} CPUs for {pipelines} background pipeline{}: one thread per pipeline at most",
                    list.len(),
                    if pipelines == 1 { "" } else { "s" }
                );
            }
            if let Some(c) = list.iter().find(|c| **c >= cpus) {
                bail!(
                    "--background-cores: CPU {c} does not exist (this machine has CPUs 0-{})",
                    cpus - 1
                );
            }
            Ok(list.iter().map(|c| Some(*c)).collect())
        }
        None => {
            let spare = cpus.saturating_sub(workers as usize).max(1);
            Ok(vec![None; pipelines.min(spare)])
        }
    }
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

/// The ports to create, checked before any file is opened.
pub(crate) struct Ports {
    /// (port number, devargs)
    pub(crate) devargs: Vec<(u32, String)>,
    /// (port number, packets its input file holds) for ports whose input is a counted pcap file
    expected: Vec<(u32, u64)>,
    /// A port receives from something live (an interface, a tap, a ring...), not only from files.
    live: bool,
}

/// The pcap files a net_pcap devargs string names (`rx_pcap=`, `tx_pcap=`), and whether its input
/// is anything else (`iface=`, `rx_iface=`, `rx_iface_in=`, `infinite_rx=1`: live).
fn net_pcap_files(devargs: &str) -> (Vec<(&str, bool)>, bool) {
    let mut files = Vec::new();
    let mut live = false;
    for kv in devargs.split(',').skip(1) {
        let (k, v) = kv.split_once('=').unwrap_or((kv, ""));
        match k.trim() {
            "rx_pcap" => files.push((v, false)),
            "tx_pcap" => files.push((v, true)),
            "iface" | "rx_iface" | "rx_iface_in" => live = true,
            "infinite_rx" => live |= v.trim() != "0",
            _ => {}
        }
    }
    (files, live)
}

/// Turns the port options into devargs, and refuses what would lose data or cannot work: an
/// output that is an input or another port's output, an input that is not an Ethernet pcap, an
/// interface that does not exist.
pub(crate) fn port_devargs(
    ports: &[String],
    ifaces: &[String],
    vdevs: &[String],
    scratch: &std::path::Path,
) -> Result<Ports> {
    let mut out: Vec<(u32, String)> = Vec::new();
    let mut files: Vec<PortFile> = Vec::new();
    let mut live = false;
    let mut empty_rx = Vec::new();
    for (i, spec) in ports.iter().enumerate() {
        let (n, rest) = split_port(spec)?;
        let (rx, tx) = rest.split_once(':').unwrap_or((rest, ""));
        if rx.is_empty() && tx.is_empty() {
            bail!("`{spec}`: give an input pcap, an output pcap or both");
        }
        let spec = format!("--port {spec}");
        let rx = if rx.is_empty() {
            // net_pcap needs an rx source: an empty capture file (written below, once checked)
            let empty = scratch.join(format!("empty{n}.pcap")).display().to_string();
            empty_rx.push(empty.clone());
            empty
        } else {
            if !std::path::Path::new(rx).exists() {
                bail!("{spec}: input file {rx} does not exist");
            }
            files.push(PortFile {
                spec: spec.clone(),
                port: n,
                path: rx.to_string(),
                output: false,
            });
            rx.to_string()
        };
        let mut d = format!("net_pcap{i},rx_pcap={rx}");
        if !tx.is_empty() {
            d.push_str(&format!(",tx_pcap={tx}"));
            files.push(PortFile {
                spec,
                port: n,
                path: tx.to_string(),
                output: true,
            });
        }
        out.push((n, d));
    }
    for (i, spec) in ifaces.iter().enumerate() {
        let (n, ifname) = split_port(spec)?;
        if ifname.is_empty() || ifname.contains('/') || !std::path::Path::new("/sys/class/net").join(ifname).exists() {
            bail!("--iface {spec}: no network interface named `{ifname}` (see `ip link`)");
        }
        out.push((n, format!("net_af_packet{i},iface={ifname}")));
        live = true;
    }
    for spec in vdevs {
        let (n, d) = split_port(spec)?;
        if d.starts_with("net_pcap") {
            let (names, live_rx) = net_pcap_files(d);
            live |= live_rx || !names.iter().any(|(_, output)| !output);
            for (path, output) in names {
                files.push(PortFile {
                    spec: format!("--vdev {spec}"),
                    port: n,
                    path: path.to_string(),
                    output,
                });
            }
        } else {
            // rings, taps, null devices, NICs: nothing tells when their input ends
            live = true;
        }
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
    portfiles::check_overlaps(&files)?;
    let mut expected = Vec::new();
    for f in files.iter().filter(|f| !f.output) {
        let cap = portfiles::check_input(&f.spec, &f.path)?;
        if let Some(why) = &cap.cut {
            let k = cap.packets.unwrap_or(0);
            eprintln!(
                "warning: {}: {why}: the input ends there, after {k} complete packet{}",
                f.path,
                if k == 1 { "" } else { "s" }
            );
        }
        if let Some(k) = cap.packets {
            expected.push((f.port, k));
        }
    }
    for e in &empty_rx {
        std::fs::write(e, PCAP_EMPTY).with_context(|| format!("writing {e}"))?;
    }
    Ok(Ports {
        devargs: out,
        expected,
        live,
    })
}

/// A pcap file header with no packets (Ethernet link type).
const PCAP_EMPTY: &[u8] = &[
    0xd4, 0xc3, 0xb2, 0xa1, 2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0, 1, 0, 0, 0,
];

/// EAL arguments: lcore 0 (the control thread) on CPU 0, the workers' lcores 1..=workers
/// floating over every CPU, then one lcore per background thread, pinned where it says so.
pub fn eal_args_workers(
    mem: u32,
    workers: u32,
    background: &[Option<usize>],
    split: Option<&CpuSplit>,
    extra: Option<&str>,
) -> Vec<String> {
    let all = format!(
        "(0-{})",
        std::thread::available_parallelism().map(|n| n.get() - 1).unwrap_or(0)
    );
    let (main, on) = match split {
        Some(s) => (eal_cpu_set(&s.control), eal_cpu_set(&s.workers)),
        None => ("0".to_string(), all.clone()),
    };
    let mut lc = format!("--lcores=0@{main}");
    for w in 1..=workers {
        lc.push_str(&format!(",{w}@{on}"));
    }
    for (i, cpu) in background.iter().enumerate() {
        let l = workers as usize + 1 + i;
        match cpu {
            Some(c) => lc.push_str(&format!(",{l}@{c}")),
            None => lc.push_str(&format!(",{l}@{all}")),
        }
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
    let scratch = compile::temp_dir("run")?;
    // everything about the ports is checked before the (slow) compile and before any file is opened
    let ports = a.sw.devargs(scratch.path())?;
    if a.p4rt.p4runtime.is_none() && a.p4rt.tls.p4runtime_tls_cert.is_some() {
        bail!("--p4runtime-tls-cert: TLS is for the P4Runtime server (add --p4runtime)");
    }
    if a.p4rt.p4runtime.is_none() && a.p4rt.p4runtime_busy_poll {
        bail!("--p4runtime-busy-poll: the busy-polling thread is the P4Runtime server's (add --p4runtime)");
    }
    if a.p4rt.p4runtime.is_none() && a.p4rt.p4runtime_rt_priority.is_some() {
        bail!("--p4runtime-rt-priority: the real-time thread is the P4Runtime server's (add --p4runtime)");
    }
    if a.p4rt.p4runtime.is_none() && a.p4rt.control_cpus.is_some() {
        bail!("--control-cpus: the control threads are the P4Runtime server's (add --p4runtime)");
    }
    if let Some(addr) = &a.p4rt.p4runtime {
        // a bad address or TLS on a Unix socket is refused before the program is compiled
        crate::serve::check_tls(&crate::serve::parse_addr(addr)?, &a.p4rt.tls)?;
    }
    let tls = a.p4rt.tls.load()?;
    let out = a.build_dir.clone().unwrap_or_else(|| scratch.path().to_path_buf());
    let built = compile::build(&a.c, &out, false)?;
    stop::check()?;
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let bg_threads = background_threads(built.background, a.sw.workers, cpus, a.background_cores.as_ref())?;
    let n_bg = u32::try_from(bg_threads.len()).unwrap_or(u32::MAX);
    if a.sw.workers.saturating_add(n_bg) > MAX_WORKERS {
        bail!(
            "{} workers and {n_bg} background threads: at most {MAX_WORKERS} lcores in all",
            a.sw.workers
        );
    }
    if a.p4rt.p4runtime.is_some() {
        return crate::serve::run_with_p4runtime(&a, &built, ports.devargs, tls, &bg_threads);
    }
    a.sw.init_eal_with(&bg_threads, None)?;
    let opts = p4dp_rt::RuntimeOptions {
        max_workers: a.sw.workers + n_bg,
        ..Default::default()
    };
    let rt =
        p4dp_rt::Runtime::load(&built.so_path, opts).with_context(|| format!("loading {}", built.so_path.display()))?;
    if n_bg > 0 {
        let pinned: Vec<String> = bg_threads.iter().flatten().map(|c| c.to_string()).collect();
        eprintln!(
            "background pipelines {} on {n_bg} thread{}{}",
            rt.program().background.join(", "),
            if n_bg == 1 { "" } else { "s" },
            if pinned.is_empty() {
                String::new()
            } else {
                format!(" (CPU {})", pinned.join(", "))
            }
        );
    }
    if let Some(f) = &a.table_entries {
        let done = entries::apply_file(&rt, f)?;
        eprintln!(
            "installed {} table entr{} from {} ({} statement{})",
            done.entries,
            if done.entries == 1 { "y" } else { "ies" },
            f.display(),
            done.statements,
            if done.statements == 1 { "" } else { "s" }
        );
    }
    for (n, d) in &ports.devargs {
        rt.add_port(*n, d).with_context(|| {
            if d.starts_with("net_af_packet") {
                // the interface exists (checked above): what fails is opening a raw socket on it
                format!("adding port {n} ({d}; DPDK's af_packet driver needs root or CAP_NET_RAW)")
            } else {
                format!("adding port {n} ({d})")
            }
        })?;
    }
    let until_input_done = a.sw.duration.is_none() && !ports.live;
    if a.sw.duration.is_none() && ports.live {
        eprintln!("running until stopped (SIGINT, Ctrl-C, or SIGTERM): a port receives from a live source");
    }
    let t0 = Instant::now();
    let params = p4dp_rt::RunParams {
        n_workers: a.sw.workers,
        // a signal that came during the setup stops the run at once: the ports still start and
        // stop, so every output file is a valid pcap
        stop: Some(stop::flag()),
        duration: a.sw.duration.map(Duration::from_secs_f64),
        until_input_done,
        n_background: n_bg,
        ..Default::default()
    };
    rt.run(&params).context("running the workers")?;
    let took = t0.elapsed();
    report(&rt, &ports.devargs, took)?;
    digests(&rt, a.digests)?;
    if until_input_done && stop::requested().is_none() {
        input_shortfall(&rt, &ports.expected)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// After a run that ended by itself: ports that did not receive all their input file could
/// read (the runtime gives up on an input that makes no progress, see p4dp_runtime_run).
fn input_shortfall(rt: &p4dp_rt::Runtime, expected: &[(u32, u64)]) -> Result<()> {
    let mut per_port: std::collections::BTreeMap<u32, u64> = std::collections::BTreeMap::new();
    for (n, k) in expected {
        *per_port.entry(*n).or_default() += k;
    }
    for (n, k) in per_port {
        let got = rt.port_stats(n)?.rx_packets;
        if got < k {
            eprintln!("warning: port {n} received {got} of the {k} packets of its input: reading the input stalled");
        }
    }
    Ok(())
}

/// rtc.p4 externs at the end of a run: a Counter's nonzero cells (the first 64), a Queue's depth,
/// messages left and pushes refused, the Locks left held.
fn report_rtc(rt: &p4dp_rt::Runtime, e: &p4dp_rt::ExternInfo) -> Result<()> {
    use p4dp_rt::ExternKind;
    match e.kind {
        ExternKind::RtcCounter => {
            let mut cells = Vec::new();
            for i in 0..e.n_cells.min(64) {
                let v = rt.rtc_counter_get(e.index, i)?;
                if v > 0 {
                    cells.push(format!("[{i}] {v}"));
                }
            }
            if !cells.is_empty() {
                println!("rtc Counter {}: {}", e.name, cells.join(", "));
            }
        }
        ExternKind::RtcQueue => {
            let q = rt.rtc_queue_stats(e.index)?;
            println!(
                "rtc Queue {}: depth {}, {} messages left, {} pushes refused (full)",
                e.name, q.depth, q.queued, q.full_drops
            );
        }
        ExternKind::RtcLock => {
            let mut held = Vec::new();
            for i in 0..e.n_cells {
                if rt.rtc_lock_held(e.index, i)? {
                    held.push(i.to_string());
                }
            }
            if !held.is_empty() {
                println!("rtc Lock {}: held at the end: {}", e.name, held.join(", "));
            }
        }
        _ => {}
    }
    Ok(())
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
        report_rtc(rt, e)?;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_are_finite_positive_and_bounded() {
        assert_eq!(parse_duration("1.5"), Ok(1.5));
        assert_eq!(parse_duration("31536000"), Ok(31_536_000.0));
        for bad in ["nan", "inf", "-inf", "-1", "0", "1e30", "31536001", "x", ""] {
            assert!(parse_duration(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn cpu_lists_and_background_threads() {
        assert_eq!(parse_cpu_list("1"), Ok(CpuList(vec![1])));
        assert_eq!(parse_cpu_list("0, 2-4"), Ok(CpuList(vec![0, 2, 3, 4])));
        for bad in ["", "x", "1,1", "3-2", "1-", "2000", "-1"] {
            assert!(parse_cpu_list(bad).is_err(), "{bad}");
        }
        // the default: a thread per pipeline while CPUs are left, at least one
        assert_eq!(background_threads(3, 1, 2, None).unwrap(), vec![None]);
        assert_eq!(background_threads(3, 1, 8, None).unwrap(), vec![None; 3]);
        assert_eq!(background_threads(2, 4, 4, None).unwrap(), vec![None]);
        assert!(background_threads(0, 1, 2, None).unwrap().is_empty());
        let l = CpuList(vec![1, 0]);
        assert_eq!(background_threads(2, 1, 2, Some(&l)).unwrap(), vec![Some(1), Some(0)]);
        assert!(background_threads(1, 1, 2, Some(&l)).is_err()); // more threads than pipelines
        assert!(background_threads(2, 1, 1, Some(&l)).is_err()); // CPU 1 does not exist
        assert!(background_threads(0, 1, 2, Some(&l)).is_err()); // no background pipelines
        let a = eal_args_workers(64, 1, &[Some(1), None], None, None);
        let lc = a.iter().find(|s| s.starts_with("--lcores=")).unwrap();
        assert!(
            lc.starts_with("--lcores=0@0,1@(0-") && lc.contains(",2@1,3@(0-"),
            "{lc}"
        );
    }

    #[test]
    fn control_cpus_split_the_machine_with_the_workers() {
        let split = |control: &[usize], workers: &[usize]| {
            Some(CpuSplit {
                control: control.to_vec(),
                workers: workers.to_vec(),
            })
        };
        // default: no split (the workers float over every CPU)
        assert_eq!(control_split(None, 2).unwrap(), None);
        let l = |s: &str| parse_control_cpus(s).unwrap();
        assert_eq!(l("all"), ControlCpus::All);
        assert_eq!(control_split(Some(&l("all")), 8).unwrap(), None);
        assert_eq!(control_split(Some(&l("1,3")), 4).unwrap(), split(&[1, 3], &[0, 2]));
        assert_eq!(l("1,3").to_string(), "1,3");
        assert!(control_split(Some(&l("0-1")), 2).is_err()); // no CPU left for the workers
        assert!(control_split(Some(&l("2")), 2).is_err()); // CPU 2 does not exist
        assert!(parse_control_cpus("x").is_err());
        let s = control_split(Some(&l("1,3")), 4).unwrap();
        let a = eal_args_workers(64, 2, &[None], s.as_ref(), None);
        let lc = a.iter().find(|s| s.starts_with("--lcores=")).unwrap();
        assert!(lc.starts_with("--lcores=0@(1,3),1@(0,2),2@(0,2),3@(0-"), "{lc}");
        let s = control_split(Some(&l("0")), 2).unwrap();
        let a = eal_args_workers(64, 1, &[], s.as_ref(), None);
        assert!(a.contains(&"--lcores=0@0,1@1".to_string()), "{a:?}");
    }

    #[test]
    fn net_pcap_devargs_name_their_files_and_live_inputs() {
        let (f, live) = net_pcap_files("net_pcap3,rx_pcap=a.pcap,tx_pcap=b.pcap");
        assert_eq!(f, vec![("a.pcap", false), ("b.pcap", true)]);
        assert!(!live);
        assert!(net_pcap_files("net_pcap3,iface=eth0").1);
        assert!(net_pcap_files("net_pcap3,rx_pcap=a.pcap,infinite_rx=1").1);
        assert!(!net_pcap_files("net_pcap3,rx_pcap=a.pcap,infinite_rx=0").1);
    }
}
