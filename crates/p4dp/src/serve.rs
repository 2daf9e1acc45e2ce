//! P4Runtime glue of the CLI: `p4dp serve` (a switch with no program that waits for
//! SetForwardingPipelineConfig), `p4dp run ... --p4runtime` (the given program, controllable),
//! the device config `p4dp build` writes, and the compiler the server uses for pushed configs.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::{bail, Context, Result};
use clap::Args;
use p4dp_p4runtime::{CompiledProgram, Compiler, DeviceConfig, DeviceOptions, PortSpec, Service, TlsConfig};

use crate::compile::{self, Built};
use crate::run::{RunArgs, SwitchOpts};
use crate::CompileOpts;

/// P4Runtime options of `p4dp run` and `p4dp serve`.
#[derive(Args, Debug, Clone)]
pub struct P4RuntimeOpts {
    /// Serve P4Runtime (gRPC) on ADDR (default 127.0.0.1:9559), or on a Unix socket with
    /// `unix:PATH` (mode 0600: this user only); `run` then runs until stopped (Ctrl-C, SIGTERM
    /// or --duration).
    #[arg(long, value_name = "ADDR", num_args = 0..=1, default_missing_value = DEFAULT_ADDR)]
    pub p4runtime: Option<String>,
    /// The P4Runtime device id of this switch.
    #[arg(long, default_value_t = 1)]
    pub device_id: u64,
    /// The controller (CPU) port: packets the program sends to it go to the controller as
    /// PacketIns; PacketOuts enter the program as received on it (0 to 510).
    #[arg(long, default_value_t = DEFAULT_CPU_PORT, value_parser = clap::value_parser!(u32).range(0..511))]
    pub cpu_port: u32,
    /// CPUs for the switch's control threads (P4Runtime's gRPC thread, the threads that apply
    /// Writes, the stream and notification threads, the main lcore): `0`, `0-1`, `0,2`; the
    /// workers float over the other CPUs. Default `all`: every thread may run on every CPU.
    #[arg(long, value_name = "LIST", value_parser = crate::run::parse_control_cpus)]
    pub control_cpus: Option<crate::run::ControlCpus>,
    /// Serve P4Runtime from one thread that never sleeps: the connections' I/O, the requests and
    /// the Writes' application all run on it, and it polls the sockets without waiting instead of
    /// sleeping until one has data, so a Write pays no thread wake-up on its way. Costs that
    /// thread's CPU all the time (docs/p4runtime.md "Busy polling"); pair it with
    /// --control-cpus so that it does not share a CPU with a worker.
    #[arg(long)]
    pub p4runtime_busy_poll: bool,
    /// Run P4Runtime's gRPC thread (the connections' I/O, the requests and the short Writes'
    /// application) at this real-time priority (SCHED_FIFO, 1 to 99), so that a Write is taken
    /// the moment it arrives, ahead of the other processes on the control CPUs; the threads it
    /// starts (long Writes, Reads, pipeline changes) run at normal priority. Needs --control-cpus
    /// with a CPU list (at real-time priority it would preempt a worker on a shared CPU) and
    /// root, CAP_SYS_NICE or an RLIMIT_RTPRIO of at least N (docs/p4runtime.md "Threads").
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u8).range(1..=99), conflicts_with = "p4runtime_busy_poll")]
    pub p4runtime_rt_priority: Option<u8>,
    #[command(flatten)]
    pub tls: TlsOpts,
}

/// TLS options of the P4Runtime server (`p4dp run --p4runtime` and `p4dp serve`).
#[derive(Args, Debug, Clone, Default)]
pub struct TlsOpts {
    /// Serve P4Runtime over TLS with this certificate chain (PEM file); needs --p4runtime-tls-key.
    #[arg(long, value_name = "FILE", requires = "p4runtime_tls_key")]
    pub p4runtime_tls_cert: Option<PathBuf>,
    /// The private key (PEM file) of --p4runtime-tls-cert.
    #[arg(long, value_name = "FILE", requires = "p4runtime_tls_cert")]
    pub p4runtime_tls_key: Option<PathBuf>,
    /// Mutual TLS: clients must present a certificate signed by this CA (PEM file); a client
    /// without one is refused. Needs --p4runtime-tls-cert.
    #[arg(long, value_name = "FILE", requires = "p4runtime_tls_cert")]
    pub p4runtime_tls_client_ca: Option<PathBuf>,
}

impl TlsOpts {
    /// The TLS configuration these options name (None: plain TCP), read and checked: an
    /// unreadable file or one without valid PEM of its kind is an error naming the option.
    pub fn load(&self) -> Result<Option<TlsConfig>> {
        let (Some(cert), Some(key)) = (&self.p4runtime_tls_cert, &self.p4runtime_tls_key) else {
            return Ok(None);
        };
        let read =
            |opt: &str, f: &Path| std::fs::read(f).with_context(|| format!("{opt}: cannot read {}", f.display()));
        let cfg = TlsConfig {
            cert_pem: read("--p4runtime-tls-cert", cert)?,
            key_pem: read("--p4runtime-tls-key", key)?,
            client_ca_pem: match &self.p4runtime_tls_client_ca {
                Some(f) => Some(read("--p4runtime-tls-client-ca", f)?),
                None => None,
            },
        };
        cfg.server_config().map_err(|e| anyhow::anyhow!("P4Runtime TLS: {e}"))?;
        Ok(Some(cfg))
    }
}

/// The default controller port (the number v1model programs commonly define as CPU_PORT).
pub const DEFAULT_CPU_PORT: u32 = 255;

const DEFAULT_ADDR: &str = "127.0.0.1:9559";

#[derive(Args, Debug)]
pub struct ServeArgs {
    #[command(flatten)]
    pub sw: SwitchOpts,
    /// The gRPC address to serve P4Runtime on: HOST:PORT, or `unix:PATH` for a Unix socket
    /// (see `p4dp run --p4runtime`).
    #[arg(long = "p4runtime", value_name = "ADDR", default_value = DEFAULT_ADDR)]
    pub addr: String,
    /// The P4Runtime device id of this switch.
    #[arg(long, default_value_t = 1)]
    pub device_id: u64,
    /// The controller (CPU) port (see `p4dp run --cpu-port`).
    #[arg(long, default_value_t = DEFAULT_CPU_PORT, value_parser = clap::value_parser!(u32).range(0..511))]
    pub cpu_port: u32,
    /// CPUs for the control threads (see `p4dp run --control-cpus`).
    #[arg(long, value_name = "LIST", value_parser = crate::run::parse_control_cpus)]
    pub control_cpus: Option<crate::run::ControlCpus>,
    /// One P4Runtime thread that busy-polls (see `p4dp run --p4runtime-busy-poll`).
    #[arg(long)]
    pub p4runtime_busy_poll: bool,
    /// The real-time priority of P4Runtime's gRPC thread (see `p4dp run --p4runtime-rt-priority`).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u8).range(1..=99), conflicts_with = "p4runtime_busy_poll")]
    pub p4runtime_rt_priority: Option<u8>,
    #[command(flatten)]
    pub tls: TlsOpts,
    /// Threads for the background pipelines of pushed rtc.p4 programs (EAL lcores after the
    /// workers', not pinned); a thread runs several pipelines in turn. 0: such programs are refused.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(0..=16))]
    pub background_threads: u32,
}

/// The device config of a program: its preprocessed source (docs/p4runtime.md).
pub fn device_config(c: &CompileOpts, name: &str) -> Result<Vec<u8>> {
    let defines: Vec<String> = c.define.clone();
    let (sm, id) = p4dp_syntax::preprocess::preprocess(&c.program, &compile::include_dirs(c), &defines)
        .map_err(|d| anyhow::anyhow!("preprocessing {}: {}", c.program.display(), d.message))?;
    Ok(DeviceConfig {
        name: name.to_string(),
        source: sm.text(id).to_string(),
    }
    .encode())
}

/// Compiles pushed device configs in a scratch directory, one subdirectory per config hash (a
/// config pushed again, e.g. VERIFY then VERIFY_AND_COMMIT, is not compiled twice).
struct CliCompiler {
    dir: PathBuf,
    done: Mutex<HashMap<String, (PathBuf, String)>>,
}

impl Compiler for CliCompiler {
    fn compile(&self, cfg: &DeviceConfig) -> std::result::Result<CompiledProgram, String> {
        let key = cfg.key();
        if let Some((so, info)) = self.done.lock().unwrap_or_else(|p| p.into_inner()).get(&key) {
            return Ok(CompiledProgram {
                so_path: so.clone(),
                p4info_text: info.clone(),
            });
        }
        let out = self.dir.join(&key[..16]);
        std::fs::create_dir_all(&out).map_err(|e| format!("creating {}: {e}", out.display()))?;
        let src = out.join(format!("{}.p4", cfg.name));
        std::fs::write(&src, &cfg.source).map_err(|e| format!("writing {}: {e}", src.display()))?;
        let c = CompileOpts {
            program: src,
            include: vec![],
            define: vec![],
        };
        let b = compile::build(&c, &out, false).map_err(|e| {
            format!("the device config's program does not compile: {e:#} (diagnostics in the switch's log)")
        })?;
        let info = std::fs::read_to_string(&b.p4info_path).map_err(|e| format!("reading the P4Info: {e}"))?;
        self.done
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(key, (b.so_path.clone(), info.clone()));
        Ok(CompiledProgram {
            so_path: b.so_path,
            p4info_text: info,
        })
    }
}

/// Where the P4Runtime server listens: `HOST:PORT`, or `unix:PATH` (also `unix:///abs/path`, as
/// gRPC clients write it) for a Unix stream socket.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServeAddr {
    Tcp(SocketAddr),
    Unix(PathBuf),
}

impl std::fmt::Display for ServeAddr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ServeAddr::Tcp(a) => write!(f, "{a}"),
            ServeAddr::Unix(p) => write!(f, "unix:{}", p.display()),
        }
    }
}

pub fn parse_addr(a: &str) -> Result<ServeAddr> {
    if let Some(rest) = a.strip_prefix("unix:") {
        // gRPC's `unix:///abs/path` is `unix:` + the URI's empty authority + the path
        let path = rest.strip_prefix("//").unwrap_or(rest);
        if path.is_empty() {
            bail!("`{a}`: a Unix socket address needs a path (e.g. unix:/run/p4dp/p4runtime.sock)");
        }
        // the kernel's limit of sun_path, less its terminating NUL
        if path.len() > 107 {
            bail!(
                "`{a}`: a Unix socket path is at most 107 bytes, this one has {}",
                path.len()
            );
        }
        return Ok(ServeAddr::Unix(PathBuf::from(path)));
    }
    a.parse::<SocketAddr>()
        .map(ServeAddr::Tcp)
        .with_context(|| format!("`{a}` is not an address (e.g. 127.0.0.1:9559 or unix:/run/p4dp/p4runtime.sock)"))
}

/// Refuses TLS on a Unix socket before the switch starts or reads a file (see
/// [`p4dp_p4runtime::serve`]).
pub fn check_tls(addr: &ServeAddr, tls: &TlsOpts) -> Result<()> {
    if let (ServeAddr::Unix(_), Some(_)) = (addr, &tls.p4runtime_tls_cert) {
        bail!("--p4runtime-tls-cert: TLS is for TCP addresses; who may connect to a Unix socket is said by its file permissions (docs/p4runtime.md \"Unix socket\")");
    }
    Ok(())
}

/// A Unix socket bound at `path`, readable and writable by this process's user only (mode 0600:
/// connecting needs write permission on the socket, so other users cannot control the switch).
/// A socket file left by a switch that is gone is replaced; a path where a server still answers,
/// or that is not a socket, is an error that leaves the file alone.
fn bind_unix(path: &Path) -> Result<std::os::unix::net::UnixListener> {
    use std::os::unix::fs::FileTypeExt;
    if let Ok(m) = std::fs::symlink_metadata(path) {
        if !m.file_type().is_socket() {
            bail!(
                "P4Runtime: cannot listen on unix:{}: the file exists and is not a socket",
                path.display()
            );
        }
        // only a refused connection says that nobody listens: a socket we may not connect to
        // (another user's) is left alone
        match std::os::unix::net::UnixStream::connect(path) {
            Ok(_) => bail!(
                "P4Runtime: cannot listen on unix:{}: a server is listening on it",
                path.display()
            ),
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionRefused => {}
            Err(e) => bail!(
                "P4Runtime: cannot listen on unix:{}: the socket exists and cannot be checked: {e}",
                path.display()
            ),
        }
        std::fs::remove_file(path)
            .with_context(|| format!("P4Runtime: removing the stale socket unix:{}", path.display()))?;
    }
    // the mode is set by the umask at bind: a chmod after it would leave a moment in which
    // others could connect (a connection queued then is accepted later). The umask is the
    // process's: the other threads now are the workers and DPDK's, which create no files.
    // SAFETY: umask only swaps the process's file creation mask.
    let old = unsafe { libc::umask(0o177) };
    let l = std::os::unix::net::UnixListener::bind(path);
    // SAFETY: as above, restoring the previous mask.
    unsafe { libc::umask(old) };
    let l = l.with_context(|| format!("P4Runtime: cannot listen on unix:{}", path.display()))?;
    l.set_nonblocking(true).context("P4Runtime: the Unix socket")?;
    Ok(l)
}

/// Makes malloc keep memory it got for large Write requests instead of returning it to the
/// kernel after each one: a WriteRequest of 1000 updates decodes into about 0.5 MB, and glibc's
/// defaults (trim the heap above 128 KiB free, mmap blocks above 128 KiB) turned every such
/// request into fresh pages and page faults (a sixth of the handler's time in a profile of
/// batched inserts). The cost: up to the largest request's size stays allocated.
fn keep_freed_memory() {
    // SAFETY: mallopt only changes malloc's tunables; called before the server's threads start.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 32 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 256 << 20);
    }
}

/// The CPU split of `--control-cpus` on this machine (see [`crate::run::control_split`]), logged.
fn control_split(given: Option<&crate::run::ControlCpus>) -> Result<Option<crate::run::CpuSplit>> {
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let split = crate::run::control_split(given, cpus)?;
    let list = |v: &[usize]| v.iter().map(|c| c.to_string()).collect::<Vec<_>>().join(",");
    match &split {
        Some(s) => eprintln!(
            "p4runtime: control threads on CPU {}, workers on CPU {}",
            list(&s.control),
            list(&s.workers)
        ),
        None => eprintln!("p4runtime: control threads and workers on every CPU"),
    }
    Ok(split)
}

/// How the P4Runtime server's gRPC thread waits for work.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Serving {
    /// It sleeps in the kernel until a socket has data (the default), at normal priority or,
    /// given one, at that real-time priority (`--p4runtime-rt-priority`).
    Sleeping { rt_priority: Option<u8> },
    /// It polls the sockets without ever sleeping (`--p4runtime-busy-poll`).
    BusyPoll,
}

/// Puts the calling thread under SCHED_FIFO at `priority`, with SCHED_RESET_ON_FORK: the threads
/// it starts (tokio's blocking threads, which run long Writes, Reads and pipeline changes) run
/// at normal priority.
fn run_at_realtime_priority(priority: u8) -> Result<()> {
    let param = libc::sched_param {
        sched_priority: i32::from(priority),
    };
    // SAFETY: pid 0 is the calling thread; `param` outlives the call.
    let rc = unsafe { libc::sched_setscheduler(0, libc::SCHED_FIFO | libc::SCHED_RESET_ON_FORK, &param) };
    if rc != 0 {
        let e = std::io::Error::last_os_error();
        bail!(
            "--p4runtime-rt-priority {priority}: cannot run the P4Runtime thread under SCHED_FIFO: {e} (needs root, CAP_SYS_NICE or an RLIMIT_RTPRIO of at least {priority})"
        );
    }
    Ok(())
}

/// Runs the P4Runtime server until Ctrl-C, SIGTERM or the duration; then stops the data plane.
///
/// perf: one thread runs the gRPC server (every connection's HTTP/2, the requests' decoding and
/// the short Writes); long Writes, Reads and pipeline changes go to blocking threads. With two
/// threads sharing the work, every request spawned a task that could wake the other thread
/// (a futex call, and a second thread to schedule on a CPU shared with the client and the
/// control plane), and a request's way in crossed between them.
fn serve_until_stopped(
    svc: Service,
    addr: ServeAddr,
    tls: Option<TlsConfig>,
    duration: Option<f64>,
    serving: Serving,
) -> Result<()> {
    keep_freed_memory();
    // the runtime runs on a thread of its own (named as its blocking threads, so that per-thread
    // CPU accounting finds them all), moved to the control CPUs as they are
    let svc2 = svc.clone();
    let t = std::thread::Builder::new()
        .name("p4dp-p4runtime".into())
        .spawn(move || {
            crate::run::move_to_control_cpus();
            if let Serving::Sleeping { rt_priority: Some(p) } = serving {
                run_at_realtime_priority(p)?;
                eprintln!("p4runtime: the gRPC thread runs at real-time priority {p} (SCHED_FIFO)");
            }
            let rt = tokio::runtime::Builder::new_current_thread()
                .thread_name("p4dp-p4runtime")
                .on_thread_start(crate::run::move_to_control_cpus)
                .enable_all()
                .build()
                .context("starting the P4Runtime server's thread")?;
            let r = rt.block_on(async move {
                // perf: the busy poll. A task that only yields keeps the scheduler from
                // parking: with a yielded task pending it polls the sockets with a zero
                // timeout (epoll_wait returns at once) and runs what became ready, so a
                // request is taken when it arrives, without the wake-up of a sleeping thread
                let spin = (serving == Serving::BusyPoll).then(|| {
                    tokio::spawn(async {
                        loop {
                            tokio::task::yield_now().await;
                        }
                    })
                });
                let r = serve_on(svc2, addr, tls, duration).await;
                if let Some(spin) = spin {
                    spin.abort();
                }
                r
            });
            rt.shutdown_timeout(Duration::from_secs(1));
            r
        })
        .context("starting the P4Runtime server's thread")?;
    let res = t
        .join()
        .unwrap_or_else(|_| Err(anyhow::anyhow!("the P4Runtime server's thread panicked")));
    let stopped = svc.shutdown().map_err(anyhow::Error::msg);
    res?;
    stopped?;
    eprintln!("p4runtime: stopped after {} pipeline switch-over(s)", svc.switchovers());
    Ok(())
}

/// Listens on `addr` and serves `svc` until Ctrl-C, SIGTERM or the duration; a Unix socket's
/// file is removed when the server stops.
async fn serve_on(svc: Service, addr: ServeAddr, tls: Option<TlsConfig>, duration: Option<f64>) -> Result<()> {
    let (listener, socket_file) = match &addr {
        ServeAddr::Tcp(a) => (
            p4dp_p4runtime::Listener::Tcp(
                tokio::net::TcpListener::bind(a)
                    .await
                    .with_context(|| format!("P4Runtime: cannot listen on {a}"))?,
            ),
            None,
        ),
        ServeAddr::Unix(p) => {
            let l = tokio::net::UnixListener::from_std(bind_unix(p)?).context("P4Runtime: the Unix socket")?;
            (p4dp_p4runtime::Listener::Unix(l), Some(p.clone()))
        }
    };
    eprintln!(
        "p4runtime: serving on {addr}{}",
        match &tls {
            Some(TlsConfig {
                client_ca_pem: Some(_), ..
            }) => " (mutual TLS)",
            Some(_) => " (TLS)",
            None => "",
        }
    );
    // SIGINT/SIGTERM set the process's stop flag (stop.rs), which this polls
    let stop = async move {
        let t0 = std::time::Instant::now();
        while crate::stop::requested().is_none() && duration.is_none_or(|d| t0.elapsed().as_secs_f64() < d) {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    };
    let r = p4dp_p4runtime::serve(svc, listener, tls.as_ref(), stop)
        .await
        .map_err(anyhow::Error::msg);
    if let Some(p) = socket_file {
        let _ = std::fs::remove_file(p);
    }
    r
}

fn device(
    ports: Vec<(u32, String)>,
    workers: u32,
    background_threads: u32,
    device_id: u64,
    cpu_port: u32,
    scratch: &Path,
) -> Result<(DeviceOptions, Arc<CliCompiler>)> {
    if ports.iter().any(|(p, _)| *p == cpu_port) {
        bail!("port {cpu_port} is the controller port (--cpu-port): give the data port another number or choose another --cpu-port");
    }
    let opts = DeviceOptions {
        device_id,
        cpu_port: Some(cpu_port),
        ports: ports
            .into_iter()
            .map(|(port, devargs)| PortSpec { port, devargs })
            .collect(),
        workers,
        background_threads,
    };
    let compiler = Arc::new(CliCompiler {
        dir: scratch.join("pipelines"),
        done: Mutex::new(HashMap::new()),
    });
    Ok((opts, compiler))
}

/// The serving of `--p4runtime-busy-poll` and `--p4runtime-rt-priority` (which clap keeps
/// apart) on the CPU split of `--control-cpus`: a real-time thread needs CPUs of its own.
fn serving(busy_poll: bool, rt_priority: Option<u8>, split: Option<&crate::run::CpuSplit>) -> Result<Serving> {
    if busy_poll {
        eprintln!("p4runtime: one busy-polling thread (--p4runtime-busy-poll)");
        return Ok(Serving::BusyPoll);
    }
    if let (Some(p), None) = (rt_priority, split) {
        bail!(
            "--p4runtime-rt-priority {p} needs --control-cpus with a CPU list: at real-time priority the P4Runtime thread would preempt a worker on a CPU they share"
        );
    }
    Ok(Serving::Sleeping { rt_priority })
}

/// `p4dp serve`.
pub fn serve(a: ServeArgs) -> Result<ExitCode> {
    let addr = parse_addr(&a.addr)?;
    check_tls(&addr, &a.tls)?;
    let tls = a.tls.load()?;
    let scratch = compile::temp_dir("serve")?;
    // a switch without ports is allowed: a control-plane-only device (tests, dry runs)
    let ports = if a.sw.no_ports() {
        vec![]
    } else {
        a.sw.devargs(scratch.path())?.devargs
    };
    if a.sw.workers.saturating_add(a.background_threads) > crate::run::MAX_WORKERS {
        bail!(
            "{} workers and {} background threads: at most {} lcores in all",
            a.sw.workers,
            a.background_threads,
            crate::run::MAX_WORKERS
        );
    }
    let (opts, compiler) = device(
        ports,
        a.sw.workers,
        a.background_threads,
        a.device_id,
        a.cpu_port,
        scratch.path(),
    )?;
    let split = control_split(a.control_cpus.as_ref())?;
    let serving = serving(a.p4runtime_busy_poll, a.p4runtime_rt_priority, split.as_ref())?;
    a.sw.init_eal_with(&vec![None; a.background_threads as usize], split.as_ref())?;
    let svc = Service::new(opts, compiler);
    serve_until_stopped(svc, addr, tls, a.sw.duration, serving)?;
    Ok(ExitCode::SUCCESS)
}

/// `p4dp run prog.p4 ... --p4runtime [ADDR]`: the program is the initial pipeline.
pub fn run_with_p4runtime(
    a: &RunArgs,
    built: &Built,
    ports: Vec<(u32, String)>,
    tls: Option<TlsConfig>,
    background: &[Option<usize>],
) -> Result<ExitCode> {
    // checked with TLS before the program was built (run.rs)
    let addr = parse_addr(a.p4rt.p4runtime.as_deref().unwrap_or(DEFAULT_ADDR))?;
    let split = control_split(a.p4rt.control_cpus.as_ref())?;
    let serving = serving(a.p4rt.p4runtime_busy_poll, a.p4rt.p4runtime_rt_priority, split.as_ref())?;
    a.sw.init_eal_with(background, split.as_ref())?;
    let scratch = compile::temp_dir("p4runtime")?;
    let n_bg = u32::try_from(background.len()).unwrap_or(u32::MAX);
    let (opts, compiler) = device(
        ports,
        a.sw.workers,
        n_bg,
        a.p4rt.device_id,
        a.p4rt.cpu_port,
        scratch.path(),
    )?;
    let svc = Service::new(opts, compiler);
    let stem = built
        .so_path
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("prog")
        .to_string();
    let cfg = DeviceConfig::decode(&std::fs::read(&built.device_path).context("reading the device config")?)
        .map_err(anyhow::Error::msg)?;
    let p4info_text = std::fs::read_to_string(&built.p4info_path).context("reading the P4Info")?;
    svc.install(
        &CompiledProgram {
            so_path: built.so_path.clone(),
            p4info_text,
        },
        &cfg,
    )
    .map_err(anyhow::Error::msg)
    .with_context(|| format!("starting pipeline {stem}"))?;
    if let Some(f) = &a.table_entries {
        let done = svc
            .with_active(|rt| crate::entries::apply_file(rt, f))
            .context("no pipeline")??;
        eprintln!("installed {} table entries from {}", done.entries, f.display());
    }
    serve_until_stopped(svc, addr, tls, a.sw.duration, serving)?;
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_are_tcp_or_a_unix_socket_path() {
        assert_eq!(
            parse_addr("127.0.0.1:9559").unwrap(),
            ServeAddr::Tcp("127.0.0.1:9559".parse().unwrap())
        );
        assert_eq!(
            parse_addr("unix:/run/p4dp.sock").unwrap(),
            ServeAddr::Unix(PathBuf::from("/run/p4dp.sock"))
        );
        // gRPC's URI form: an empty authority, then the absolute path
        assert_eq!(
            parse_addr("unix:///run/p4dp.sock").unwrap(),
            ServeAddr::Unix(PathBuf::from("/run/p4dp.sock"))
        );
        assert_eq!(
            parse_addr("unix:p4dp.sock").unwrap(),
            ServeAddr::Unix(PathBuf::from("p4dp.sock"))
        );
        assert_eq!(
            parse_addr("unix:/run/p4dp.sock").unwrap().to_string(),
            "unix:/run/p4dp.sock"
        );
        for bad in ["unix:", "unix://", "localhost", "9559", ""] {
            assert!(parse_addr(bad).is_err(), "{bad:?} parsed");
        }
        assert!(parse_addr(&format!("unix:/{}", "a".repeat(106))).is_ok());
        assert!(parse_addr(&format!("unix:/{}", "a".repeat(107))).is_err());
    }
}
