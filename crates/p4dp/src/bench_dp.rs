//! `p4dp bench --suite dataplane-writes`, and what the suites of data-plane table writes share:
//! the in-process traffic source with per-packet latency from the bench tap
//! (`runtime/include/p4dp/bench_dp.h`), EAL setup and report helpers (the add-on-miss suite,
//! crate::bench::add_on_miss, uses them too).
//!
//! Every packet reads (and rewrites) one random entry of a full exact table of 2^k entries
//! (benches/dataplane_writes.p4), for read-only, read-write static, read-write dynamic and
//! read-write static with `@entry_lock`; then 1 vs 2 workers on the same workload. The workload is
//! the benchmark of Simon et al., "High-Performance Match-Action Table Updates from within
//! Programmable Software Data Planes" (ANCS '21). See docs/PERFORMANCE.md.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use anyhow::{bail, Context, Result};
use p4dp_rt::bench::{Bench, BenchParams, BenchTarget, Kind};
use p4dp_rt::bench_dp::{Keys, Latency, Phase, Tap, TapParams};
use p4dp_rt::Dispatch;

use crate::bench::json::{self, Json};
use crate::bench::{common_settings, BenchArgs, Suite};
use crate::compile;
use crate::CompileOpts;

const KEY_BASE: u64 = 0x0a00_0000;
const KEY_OFFSET: u32 = 30;
const PKTS_PER_WORKER: u32 = 4096;
const WRITE_TARGET: f64 = 1.15;
const LOCK_TARGET: f64 = 1.15;
/// Attempts of one read/write measurement whose window saw no packet (the machine did not run the
/// loops in it: -EAGAIN from the runtime; the packets are intact).
const EMPTY_TRIES: u32 = 3;
/// Measurements repeated after an empty window (reported with the results).
static EMPTY_RETRIES: AtomicU32 = AtomicU32::new(0);

/// (name, -D macros) of the read/write variants; the first is the reference.
const VARIANTS: [(&str, &[&str]); 4] = [
    ("ro-static", &["READ_ONLY"]),
    ("rw-static", &[]),
    ("rw-dynamic", &["DYNAMIC"]),
    ("rw-static-locked", &["LOCKED"]),
];

#[derive(Clone, Default)]
struct Fig {
    cycles: Vec<f64>,
    mpps: Vec<f64>,
    lat: Vec<Latency>,
}

impl Fig {
    /// The fastest repetition: interference on this shared machine only adds time (its memory
    /// latency beyond L2 moves by 2x from second to second while the core's own speed stays
    /// within 2%), so the minimum over repetitions is the least disturbed figure.
    fn best(&self) -> f64 {
        self.cycles.iter().copied().reduce(f64::min).unwrap_or(f64::NAN)
    }
    fn mpps(&self) -> f64 {
        median(&self.mpps)
    }
    /// The latency summary of the median repetition (by p50).
    fn lat(&self) -> Latency {
        let mut l = self.lat.clone();
        l.sort_by_key(|x| x.p50);
        l.get(l.len() / 2).copied().unwrap_or_default()
    }
}

/// Median over repetitions of `a`'s cycles/pkt over `b`'s in the same repetition. The variants of
/// a repetition are measured back to back, so the ratio cancels slow drifts of this shared machine
/// (its memory latency beyond L2 varies by 2x over seconds), which a ratio of medians does not.
fn paired(a: &Fig, b: &Fig) -> f64 {
    let r: Vec<f64> = a.cycles.iter().zip(&b.cycles).map(|(x, y)| x / y).collect();
    median(&r)
}

fn median(v: &[f64]) -> f64 {
    let mut v = v.to_vec();
    v.sort_by(|a, b| a.total_cmp(b));
    match v.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

fn template() -> Vec<u8> {
    // Ethernet / IPv4 (UDP, 46 bytes) / UDP (payload 18 bytes): 60 bytes, a 64-byte frame.
    let mut p = vec![0u8; 60];
    p[0..6].copy_from_slice(&[0x02, 0, 0, 0, 0, 0x02]);
    p[6..12].copy_from_slice(&[0x02, 0, 0, 0, 0, 0x01]);
    p[12..14].copy_from_slice(&[0x08, 0x00]);
    p[14] = 0x45;
    p[16..18].copy_from_slice(&46u16.to_be_bytes());
    p[22] = 64;
    p[23] = 17;
    p[26..30].copy_from_slice(&[10, 1, 0, 1]);
    p[34..36].copy_from_slice(&1234u16.to_be_bytes());
    p[36..38].copy_from_slice(&5678u16.to_be_bytes());
    p[38..40].copy_from_slice(&26u16.to_be_bytes());
    p
}

fn eal_args(mem: u32, extra: Option<&str>) -> Vec<String> {
    // Main lcore on CPU 0, worker 1 on CPU 1 (1-worker runs), worker 2 on CPU 0 (2-worker runs),
    // worker 3 on CPU 0 (a second background thread beside one worker and a first background
    // thread: rtc-flow-monitor; the worker keeps CPU 1 to itself).
    let ncpu = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    let mut v: Vec<String> = [
        "--no-huge",
        "--no-pci",
        "-m",
        &mem.to_string(),
        "--no-shconf",
        "--no-telemetry",
        "--log-level=error",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    v.push(format!("--lcores=0@0,1@{},2@{},3@{}", 1 % ncpu, 2 % ncpu, 2 % ncpu));
    if let Some(e) = extra {
        v.extend(e.split_whitespace().map(String::from));
    }
    v
}

pub(crate) fn build(a: &BenchArgs, file: &str, defines: &[String], out: &Path, tag: &str) -> Result<PathBuf> {
    let c = CompileOpts {
        program: compile::home().join("benches").join(file),
        include: a.include.clone(),
        define: defines.to_vec(),
    };
    Ok(compile::build(&c, &out.join(tag), false)
        .with_context(|| format!("compiling {file} ({tag})"))?
        .so_path)
}

/// Load a read/write variant with 2^k entries installed; returns the target and its table index.
fn load_rw(a: &BenchArgs, v: &(&str, &[&str]), k: u32, out: &Path) -> Result<(BenchTarget, u32)> {
    let mut defs: Vec<String> = v.1.iter().map(|s| s.to_string()).collect();
    defs.push(format!("TABLE_SIZE={}", 1u64 << k));
    let so = build(a, "dataplane_writes.p4", &defs, out, &format!("{}-{k}", v.0))?;
    let mut t = BenchTarget::load(&so, 2).with_context(|| format!("loading {}", so.display()))?;
    let prog = t.program();
    let tab = prog
        .table("BenchIngress.entries")
        .context("dataplane_writes.p4 has no table BenchIngress.entries")?;
    let act = tab
        .actions
        .iter()
        .map(|x| &prog.actions[x.action as usize])
        .find(|ai| ai.params.len() == 2)
        .context("dataplane_writes.p4: no action `access`")?;
    let (ti, ai) = (tab.index, act.index);
    let n = t.table_fill(ti, KEY_BASE, 1 << k, ai, &[vec![0, 0, 0, 0], vec![0, 0]])?;
    if n != 1 << k {
        bail!("{}: installed {n} of {} entries", v.0, 1u64 << k);
    }
    Ok((t, ti))
}

/// Packets in circulation per worker (`--packets`, default PKTS_PER_WORKER).
pub(crate) fn pkts_per_worker(a: &BenchArgs) -> u32 {
    a.packets.unwrap_or(PKTS_PER_WORKER)
}

pub(crate) fn bench_params(a: &BenchArgs, workers: u32, warmup: f64, duration: f64, dispatch: Dispatch) -> BenchParams {
    BenchParams {
        workers,
        ports: 0,
        packets: pkts_per_worker(a) * workers,
        template: template(),
        key_offset: 0,
        key_bytes: 0,
        key_base: 0,
        n_keys: 0,
        seed: a.seed,
        warmup: Duration::from_secs_f64(warmup),
        duration: Duration::from_secs_f64(duration),
        dispatch,
    }
}

pub(crate) fn tap_params(
    a: &BenchArgs,
    n_keys: u64,
    batch: u32,
    record_after_ms: u64,
    phases: Vec<Phase>,
) -> TapParams {
    TapParams {
        key_offset: KEY_OFFSET,
        key_bytes: 4,
        key_base: KEY_BASE,
        n_keys,
        seed: a.seed,
        batch,
        record_after_ms,
        partition: false,
        phases,
    }
}

/// Did a measurement fail only because its window saw no packet (runtime -EAGAIN)?
pub(crate) fn empty_window(e: &anyhow::Error) -> bool {
    e.chain()
        .any(|c| c.downcast_ref::<p4dp_rt::Error>().and_then(|x| x.errno()) == Some(p4dp_rt::errno::EAGAIN))
}

/// Run a whole measurement `f` again (fresh bench) when its window was empty, up to EMPTY_TRIES
/// attempts; any other error, or the last attempt's, is returned.
pub(crate) fn retry_empty<T>(what: &str, mut f: impl FnMut() -> Result<T>) -> Result<T> {
    let mut n = 1;
    loop {
        match f() {
            Err(e) if n < EMPTY_TRIES && empty_window(&e) => {
                EMPTY_RETRIES.fetch_add(1, Ordering::Relaxed);
                eprintln!("bench: {what}: empty measurement window, measuring again ({e:#})");
                n += 1;
            }
            r => return r,
        }
    }
}

/// The read/write workload on 2 workers (fresh bench on `t`, 2^k entries installed): with
/// software dispatch, or with emulated RSS (`rss`: each port's source hands out only its
/// worker's keys, the runtime dispatches nothing). Returns (Mpps, per-worker cycles/pkt and any
/// losses as text).
fn rw_two_workers(a: &BenchArgs, t: &mut BenchTarget, k: u32, rss: bool) -> Result<(f64, String)> {
    let dispatch = if rss { Dispatch::None } else { Dispatch::Auto };
    let bp = bench_params(a, 2, a.warmup(), a.duration(), dispatch);
    let rv0 = t.lock_revocations()?;
    let mut bench = Bench::new(t, &bp).context("creating the 2-worker bench")?;
    bench.measure(Kind::Floor).context("2-worker floor")?;
    let mut tp = tap_params(
        a,
        1 << k,
        0,
        (a.warmup() * 1000.0) as u64,
        vec![Phase {
            packets: 0,
            keys: Keys::Random,
        }],
    );
    tp.partition = rss;
    let mut tap = Tap::attach(&mut bench, 2, 0, &tp)?;
    let (m2, _) = tap.measure(None, Kind::Program).context("2-worker program run")?;
    let mut pw: Vec<String> = m2.workers.iter().map(|w| format!("{:.0}", w.cycles_per_pkt)).collect();
    if m2.lost_outside_window > 0 {
        pw.push(format!(
            "(lost outside the window, counted by the runtime: {} in the warm-up, {} at shutdown)",
            m2.lost_warmup,
            m2.lost_outside_window.saturating_sub(m2.lost_warmup)
        ));
    }
    drop(tap);
    drop(bench);
    // entries that changed workers (warm-up included): each paid one bias revocation
    let rv = t.lock_revocations()? - rv0;
    if rv > 0 {
        pw.push(format!("{rv} lock revocations"));
    }
    Ok((m2.mpps, pw.join(", ")))
}

/// One read/write measurement: a fresh bench on `t`, the program with random keys over 2^k entries.
/// Returns (cycles/pkt, Mpps, latency, floor + tap cycles/pkt if `floor`, TSC Hz).
#[allow(clippy::type_complexity)]
fn rw_measure(
    a: &BenchArgs,
    t: &mut BenchTarget,
    k: u32,
    workers: u32,
    floor: bool,
) -> Result<(f64, f64, Latency, Option<f64>, f64)> {
    let bp = bench_params(a, workers, a.warmup(), a.duration(), Dispatch::Auto);
    let mut bench = Bench::new(t, &bp).context("creating the bench")?;
    bench.measure(Kind::Floor).context("floor loop")?; // configures the ports
    let tp = tap_params(
        a,
        1 << k,
        0,
        (a.warmup() * 1000.0) as u64,
        vec![Phase {
            packets: 0,
            keys: Keys::Random,
        }],
    );
    let mut tap = Tap::attach(&mut bench, workers, 0, &tp)?;
    let fl = if floor {
        Some(tap.measure(None, Kind::Floor)?.0.cycles_per_pkt)
    } else {
        None
    };
    let (m, r) = tap.measure(None, Kind::Program)?;
    Ok((m.cycles_per_pkt, m.mpps, r.lat_all, fl, m.tsc_hz as f64))
}

fn ns(c: u64, hz: f64) -> f64 {
    c as f64 * 1e9 / hz
}

pub(crate) fn lat_row(l: &Latency, hz: f64) -> String {
    format!(
        "{:>7} {:>7} {:>7} {:>7} {:>8} {:>8}  ({:.0}/{:.0}/{:.0}/{:.0}/{:.0}/{:.0} ns)",
        l.p50,
        l.p90,
        l.p99,
        l.p999,
        l.p9999,
        l.max,
        ns(l.p50, hz),
        ns(l.p90, hz),
        ns(l.p99, hz),
        ns(l.p999, hz),
        ns(l.p9999, hz),
        ns(l.max, hz)
    )
}

pub(crate) fn verdict(ok: bool) -> &'static str {
    if ok {
        "PASS"
    } else {
        "MISS"
    }
}

/// This machine's data caches beyond L1 as (name, bytes), smallest first, from sysfs (cpu0's
/// view: its L2 and the L3 it shares); empty where sysfs does not say.
fn caches() -> Vec<(String, u64)> {
    let mut v = Vec::new();
    for i in 0..8 {
        let d = format!("/sys/devices/system/cpu/cpu0/cache/index{i}");
        let rd = |f: &str| std::fs::read_to_string(format!("{d}/{f}")).map(|s| s.trim().to_string());
        let (Ok(level), Ok(kind), Ok(size)) = (rd("level"), rd("type"), rd("size")) else {
            continue;
        };
        if level == "1" || kind == "Instruction" {
            continue;
        }
        if let Some(b) = parse_cache_size(&size) {
            v.push((format!("L{level}"), b));
        }
    }
    v.sort_by_key(|c| c.1);
    v
}

/// A sysfs cache size ("1024K", "32M", "512") in bytes.
fn parse_cache_size(s: &str) -> Option<u64> {
    let (num, mul) = match s.as_bytes().last()? {
        b'K' => (&s[..s.len() - 1], 1u64 << 10),
        b'M' => (&s[..s.len() - 1], 1 << 20),
        b'G' => (&s[..s.len() - 1], 1 << 30),
        _ => (s, 1),
    };
    num.parse::<u64>().ok().map(|n| n * mul)
}

/// Does the model put the static table in a cache level (of `caches`) that the dynamic one does
/// not fit?
fn model_static_should_win(k: u32, caches: &[(String, u64)]) -> Option<String> {
    let m = p4dp_rt::table_mem_predict(1u32 << k, 4, 8, 100).ok()?;
    caches
        .iter()
        .find(|(_, c)| m.static_bytes <= *c && m.dynamic_bytes > *c)
        .map(|(n, _)| n.clone())
}

fn svg(sizes: &[u32], series: &[(&str, Vec<f64>)]) -> String {
    let (w, h, l, r, t, b) = (720.0, 420.0, 70.0, 170.0, 20.0, 50.0);
    let ymax = series
        .iter()
        .flat_map(|s| s.1.iter())
        .copied()
        .filter(|v| v.is_finite())
        .fold(1.0, f64::max)
        * 1.1;
    let (kmin, kmax) = (*sizes.first().unwrap_or(&0) as f64, *sizes.last().unwrap_or(&1) as f64);
    let x = |k: f64| l + (k - kmin) / (kmax - kmin).max(1.0) * (w - l - r);
    let y = |v: f64| h - b - v / ymax * (h - t - b);
    let colors = ["#000000", "#d62728", "#1f77b4", "#2ca02c", "#9467bd"];
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" font-family=\"sans-serif\" font-size=\"12\">\n\
         <rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
    );
    let _ = writeln!(
        s,
        "<line x1=\"{l}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"black\"/>",
        h - b,
        w - r,
        h - b
    );
    let _ = writeln!(
        s,
        "<line x1=\"{l}\" y1=\"{t}\" x2=\"{l}\" y2=\"{}\" stroke=\"black\"/>",
        h - b
    );
    for k in sizes {
        let xx = x(*k as f64);
        let _ = writeln!(
            s,
            "<text x=\"{xx:.1}\" y=\"{}\" text-anchor=\"middle\">{k}</text>",
            h - b + 16.0
        );
    }
    for i in 0..=5 {
        let v = ymax * i as f64 / 5.0;
        let _ = writeln!(
            s,
            "<text x=\"{}\" y=\"{:.1}\" text-anchor=\"end\">{v:.0}</text>",
            l - 6.0,
            y(v) + 4.0
        );
        let _ = writeln!(
            s,
            "<line x1=\"{l}\" y1=\"{0:.1}\" x2=\"{1}\" y2=\"{0:.1}\" stroke=\"#dddddd\"/>",
            y(v),
            w - r
        );
    }
    let _ = writeln!(
        s,
        "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">log2(table entries)</text>",
        (l + w - r) / 2.0,
        h - 12.0
    );
    let _ = writeln!(
        s,
        "<text x=\"16\" y=\"{}\" transform=\"rotate(-90 16 {0})\" text-anchor=\"middle\">cycles/packet</text>",
        (t + h - b) / 2.0
    );
    for (i, (name, vals)) in series.iter().enumerate() {
        let c = colors[i % colors.len()];
        let pts: Vec<String> = sizes
            .iter()
            .zip(vals)
            .filter(|(_, v)| v.is_finite())
            .map(|(k, v)| format!("{:.1},{:.1}", x(*k as f64), y(*v)))
            .collect();
        let _ = writeln!(
            s,
            "<polyline fill=\"none\" stroke=\"{c}\" stroke-width=\"2\" points=\"{}\"/>",
            pts.join(" ")
        );
        let ly = t + 16.0 + 18.0 * i as f64;
        let _ = writeln!(
            s,
            "<line x1=\"{}\" y1=\"{ly}\" x2=\"{}\" y2=\"{ly}\" stroke=\"{c}\" stroke-width=\"2\"/>",
            w - r + 10.0,
            w - r + 30.0
        );
        let _ = writeln!(s, "<text x=\"{}\" y=\"{}\">{name}</text>", w - r + 36.0, ly + 4.0);
    }
    s.push_str("</svg>\n");
    s
}

/// Write the report so far to `out` (called after every measured row, so a late failure or a
/// crash keeps the figures measured before it).
pub(crate) fn save(out: &Path, text: &str) -> Result<()> {
    std::fs::write(out, text).with_context(|| format!("writing {}", out.display()))
}

/// The read/write workload at one table size: the four variants (1 worker, `a.repeat` repetitions) and, at the
/// multi-core sizes, 1 vs 2 workers. Fills `fig[v][si]`; returns the floor + tap figure (if asked)
/// and the TSC frequency. Multi-core rows go to `mc` (failures of the 2-worker run to `mc_err`).
#[allow(clippy::too_many_arguments)]
fn rw_size(
    a: &BenchArgs,
    k: u32,
    si: usize,
    want_floor: bool,
    multi_core: bool,
    out_dir: &Path,
    fig: &mut [Vec<Fig>],
    mc: &mut Vec<(String, Json)>,
) -> Result<(Option<f64>, f64)> {
    let mut hz = 0.0;
    let mut floor = None;
    let mut targets = Vec::new();
    for v in VARIANTS.iter() {
        targets.push(load_rw(a, v, k, out_dir)?);
    }
    // measured into a local copy first: a failure leaves no partial figures for this size
    let mut local: Vec<Fig> = vec![Fig::default(); VARIANTS.len()];
    let nv = targets.len();
    for rep in 0..a.repeat {
        // odd repetitions run the variants in reverse order (ABCD DCBA ...): a drift of the
        // machine within a repetition then biases a judged pair one way as often as the other
        for j in 0..nv {
            let vi = if rep % 2 == 0 { j } else { nv - 1 - j };
            let t = &mut targets[vi].0;
            let what = format!("{} at 2^{k}", VARIANTS[vi].0);
            let (c, m, l, fl, f) =
                retry_empty(&what, || rw_measure(a, t, k, 1, want_floor && vi == 0 && rep == 0)).context(what)?;
            hz = f;
            local[vi].cycles.push(c);
            local[vi].mpps.push(m);
            local[vi].lat.push(l);
            if fl.is_some() {
                floor = fl;
            }
        }
    }
    for (vi, (t, ti)) in targets.iter().enumerate() {
        let (_, miss) = t.table_hits_misses(*ti)?;
        if miss > 0 {
            bail!(
                "{} at 2^{k}: the program missed {miss} lookups (keys outside the table?)",
                VARIANTS[vi].0
            );
        }
    }
    drop(targets);
    for (vi, l) in local.into_iter().enumerate() {
        fig[vi][si] = l;
    }
    if multi_core {
        for vi in [1usize, 3] {
            // a fresh target: the runtime sizes its mbuf pool for the ports of its first run,
            // so the 2-worker (2-port) run goes first, then 1 worker on the same table
            let row = (|| -> Result<(String, Json)> {
                let (mut t, _) = load_rw(a, &VARIANTS[vi], k, out_dir)?;
                // software dispatch (what the ring ports get: no RSS), then emulated RSS (the
                // source keeps each key on its worker's port, no dispatch)
                let (m2s, pws) = retry_empty("2 workers, software dispatch", || rw_two_workers(a, &mut t, k, false))
                    .context("2 workers, software dispatch")?;
                let (m2r, pwr) = retry_empty("2 workers, emulated RSS", || rw_two_workers(a, &mut t, k, true))
                    .context("2 workers, emulated RSS")?;
                let (_, m1, _, _, _) =
                    retry_empty("1-worker run", || rw_measure(a, &mut t, k, 1, false)).context("1-worker run")?;
                let text = format!(
                    "{k:>4} {:<18} {m1:>8.2} {m2s:>8.2} {:>7.2}x {m2r:>8.2} {:>7.2}x  sw: {}; rss: {}",
                    VARIANTS[vi].0,
                    m2s / m1,
                    m2r / m1,
                    pws,
                    pwr
                );
                let j = Json::obj([
                    ("log2", Json::Int(k.into())),
                    ("variant", Json::str(VARIANTS[vi].0)),
                    ("mpps_1_worker", Json::Num(m1)),
                    ("mpps_2_workers_software_dispatch", Json::Num(m2s)),
                    ("mpps_2_workers_emulated_rss", Json::Num(m2r)),
                    ("software_dispatch_per_worker", Json::str(pws)),
                    ("emulated_rss_per_worker", Json::str(pwr)),
                ]);
                Ok((text, j))
            })();
            match row {
                Ok(r) => mc.push(r),
                Err(e) => {
                    eprintln!("bench: multi-core run at 2^{k} ({}) failed: {e:#}", VARIANTS[vi].0);
                    let j = Json::obj([
                        ("log2", Json::Int(k.into())),
                        ("variant", Json::str(VARIANTS[vi].0)),
                        ("error", Json::str(format!("{e:#}"))),
                    ]);
                    mc.push((format!("{k:>4} {:<18} ERROR: {e:#}", VARIANTS[vi].0), j));
                }
            }
        }
    }
    Ok((floor, hz))
}

/// What every suite of this file does first: create the report's directory, start DPDK's EAL
/// with `mem` MiB and pick the directory for compiled programs. Returns (report path, build
/// directory, scratch directory to remove at the end if the user gave no --build-dir).
pub(crate) fn start(a: &BenchArgs, suite: Suite, mem: u32) -> Result<(PathBuf, PathBuf, PathBuf)> {
    let out = a.out.clone().unwrap_or_else(|| suite.default_out());
    if let Some(d) = out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(d).with_context(|| format!("creating {}", d.display()))?;
    }
    p4dp_rt::Eal::init(&eal_args(mem, a.eal.as_deref())).context("starting DPDK's EAL")?;
    let scratch = compile::scratch_dir(&format!("bench-{}", suite.name()))?;
    let out_dir = a.build_dir.clone().unwrap_or_else(|| scratch.clone());
    Ok((out, out_dir, scratch))
}

/// `p4dp bench --suite dataplane-writes`.
pub fn suite_dataplane_writes(a: &BenchArgs) -> Result<ExitCode> {
    let (kmin, kmax) = (a.min_log2, a.max_log2.unwrap_or(22));
    if kmax > 22 || kmin > kmax {
        bail!("--min-log2/--max-log2 must satisfy 0 <= min <= max <= 22");
    }
    let mem = a.mem.unwrap_or(if kmax >= 20 { 8192 } else { 2048 });
    let (out, out_dir, scratch) = start(a, Suite::DataplaneWrites, mem)?;
    let caches = caches();
    let mut hz = 0.0;
    let mut text = String::new();
    let cmdline = std::env::args().collect::<Vec<_>>().join(" ");
    let _ = writeln!(text, "p4dp bench --suite dataplane-writes results\ncommand: {cmdline}");
    let _ = writeln!(
        text,
        "{} repetition(s) of {:.2} s after {:.2} s warm-up; one worker unless stated; {} packets per \
         worker, keys uniformly random per packet (seed {})\n",
        a.repeat,
        a.duration(),
        a.warmup(),
        pkts_per_worker(a),
        a.seed
    );
    let _ = writeln!(
        text,
        "== Every packet reads (rw: and increments) one random entry ==\n\
         (the workload of Simon et al., High-Performance Match-Action Table Updates from within Programmable \
         Software Data Planes)"
    );
    let _ = writeln!(
        text,
        "cycles/pkt of the fastest repetition (interference on this shared machine only adds time). Judged ratios:\n\
         the median over repetitions of the ratio within one repetition (the variants of a repetition run back to\n\
         back, in reverse order every other repetition, so slow drifts of the machine cancel); `best`: the ratio\n\
         of the fastest repetitions, for comparison.\n\
         Rows are written as each size completes (a failed size is an ERROR row)\n\
         {:>4} {:>10} {:>10} {:>10} {:>10} | {:>6} {:>4} {:>6} | {:>6} {:>4} {:>6} | {:>7} {:>6} static wins?",
        "log2",
        "ro-static",
        "rw-static",
        "rw-dyn",
        "rw-locked",
        "rw/ro",
        "<=1.15",
        "best",
        "lock/rw",
        "<=1.15",
        "best",
        "dyn/st",
        "model",
    );
    save(&out, &text)?;

    // ---------------------------------------------------------------- read/write + multi-core
    let sizes: Vec<u32> = (kmin..=kmax).collect();
    let mut fig: Vec<Vec<Fig>> = vec![vec![Fig::default(); sizes.len()]; VARIANTS.len()];
    let mut floor_tap: Option<f64> = None;
    let mc_sizes: Vec<u32> = [10u32, 16, 20]
        .iter()
        .copied()
        .filter(|k| *k >= kmin && *k <= kmax)
        .collect();
    let mut mc: Vec<(String, Json)> = Vec::new();
    let mut sizes_json: Vec<Json> = Vec::new();
    let mc_head = format!(
        "\n== Multi-core: 1 vs 2 workers, the same workload ==\n\
         sw: software dispatch (the bench's ring ports have no RSS: the polling worker hashes each packet's flow\n\
         and hands half of them to the other worker); rss: emulated RSS (each port's source hands out only keys\n\
         of its worker, as a NIC's RSS would; no dispatch)\n{:>4} {:<18} {:>8} {:>8} {:>8} {:>8} {:>8}  {}\n",
        "log2", "variant", "1w Mpps", "2w sw", "scaling", "2w rss", "scaling", "2w cycles/pkt per worker"
    );
    let (mut pass_w, mut pass_l, mut pass_s) = (true, true, true);
    let mut failed: Vec<u32> = Vec::new();
    for (si, &k) in sizes.iter().enumerate() {
        eprintln!("bench: read/write: 2^{k} entries");
        let r = rw_size(
            a,
            k,
            si,
            floor_tap.is_none(),
            mc_sizes.contains(&k),
            &out_dir,
            &mut fig,
            &mut mc,
        );
        match r {
            Err(e) => {
                eprintln!("bench: read/write at 2^{k} failed: {e:#}");
                failed.push(k);
                let _ = writeln!(text, "{k:>4} ERROR: {e:#}");
                sizes_json.push(Json::obj([
                    ("log2", Json::Int(k.into())),
                    ("error", Json::str(format!("{e:#}"))),
                ]));
            }
            Ok((fl, f)) => {
                hz = f;
                if let (None, Some(f)) = (floor_tap, fl) {
                    floor_tap = Some(f);
                    let _ = writeln!(
                        text,
                        "     (floor + tap, rx->tx with the source and probe callbacks: {f:.1} cycles/pkt)"
                    );
                }
                let c: Vec<f64> = (0..VARIANTS.len()).map(|v| fig[v][si].best()).collect();
                let f = |v: usize| &fig[v][si];
                // judged: paired medians; ratios of the fastest repetitions for comparison
                let (rw, lk, ds) = (paired(f(1), f(0)), paired(f(3), f(1)), paired(f(2), f(1)));
                let (prw, plk) = (c[1] / c[0], c[3] / c[1]);
                pass_w &= rw <= WRITE_TARGET;
                pass_l &= lk <= LOCK_TARGET;
                let model = model_static_should_win(k, &caches);
                let sv = match model {
                    Some(_) => {
                        pass_s &= ds > 1.0;
                        verdict(ds > 1.0)
                    }
                    None => "-",
                };
                let _ = writeln!(
                    text,
                    "{k:>4} {:>10.1} {:>10.1} {:>10.1} {:>10.1} | {rw:>6.3} {:>4} {prw:>6.3} | {lk:>7.3} {:>4} {plk:>6.3} | {ds:>7.3} {:>6} {sv}",
                    c[0],
                    c[1],
                    c[2],
                    c[3],
                    verdict(rw <= WRITE_TARGET),
                    verdict(lk <= LOCK_TARGET),
                    model.as_deref().unwrap_or("-")
                );
                let variants = VARIANTS.iter().enumerate().map(|(vi, v)| {
                    let x = f(vi);
                    let j = Json::obj([
                        ("cycles_per_pkt_best", Json::Num(x.best())),
                        ("cycles_per_pkt", json::nums(&x.cycles)),
                        ("mpps_median", Json::Num(x.mpps())),
                        ("latency", json::latency(&x.lat())),
                    ]);
                    (v.0, j)
                });
                sizes_json.push(Json::obj([
                    ("log2", Json::Int(k.into())),
                    ("variants", Json::obj(variants)),
                    ("write_vs_read", Json::Num(rw)),
                    ("write_pass", Json::Bool(rw <= WRITE_TARGET)),
                    ("locked_vs_unlocked", Json::Num(lk)),
                    ("lock_pass", Json::Bool(lk <= LOCK_TARGET)),
                    ("dynamic_vs_static", Json::Num(ds)),
                    ("static_should_win_in", model.as_deref().map_or(Json::Null, Json::str)),
                ]));
            }
        }
        // the multi-core rows so far go after the read/write rows until the section is complete
        save(
            &out,
            &format!(
                "{text}{mc_head}{}",
                mc.iter().map(|r| format!("{}\n", r.0)).collect::<String>()
            ),
        )?;
    }
    let measured = sizes.len() - failed.len();
    let failed_note = if failed.is_empty() {
        String::new()
    } else {
        format!(" ({} size(s) FAILED and are not judged: {:?})", failed.len(), failed)
    };
    let _ = writeln!(
        text,
        "TSC {:.1} MHz. targets over the {measured} measured size(s){failed_note}: write <= {WRITE_TARGET}x read-only: {}; \
         lock <= {LOCK_TARGET}x unlocked: {}; static < dynamic where the model puts only the static table in a cache \
         level (model column): {}",
        hz / 1e6,
        verdict(pass_w && measured > 0),
        verdict(pass_l && measured > 0),
        verdict(pass_s && measured > 0)
    );
    let _ = writeln!(
        text,
        "\nlatency rx->tx in TSC cycles (ns), burst up to 32, saturated closed loop:"
    );
    let _ = writeln!(
        text,
        "{:<18} {:>4} {:>7} {:>7} {:>7} {:>7} {:>8} {:>8}",
        "variant", "log2", "p50", "p90", "p99", "p99.9", "p99.99", "max"
    );
    for (vi, v) in VARIANTS.iter().enumerate() {
        for (si, &k) in sizes.iter().enumerate() {
            if (k % 4 != 0 && k != kmax && k != kmin) || fig[vi][si].lat.is_empty() {
                continue;
            }
            let _ = writeln!(text, "{:<18} {k:>4} {}", v.0, lat_row(&fig[vi][si].lat(), hz));
        }
    }
    if let Some(si) = (0..sizes.len()).rev().find(|&si| !fig[0][si].cycles.is_empty()) {
        let _ = writeln!(
            text,
            "Mpps (median): {}",
            VARIANTS
                .iter()
                .enumerate()
                .map(|(vi, v)| format!("{} {:.2}@2^{}", v.0, fig[vi][si].mpps(), sizes[si]))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    text.push_str(&mc_head);
    for r in &mc {
        let _ = writeln!(text, "{}", r.0);
    }
    save(&out, &text)?;
    let series: Vec<(&str, Vec<f64>)> = VARIANTS
        .iter()
        .enumerate()
        .map(|(vi, v)| (v.0, fig[vi].iter().map(Fig::best).collect()))
        .collect();
    let svg_path = out.with_extension("svg");
    std::fs::write(&svg_path, svg(&sizes, &series)).with_context(|| format!("writing {}", svg_path.display()))?;

    let retried = EMPTY_RETRIES.load(Ordering::Relaxed);
    if retried > 0 {
        let _ = writeln!(
            text,
            "\n{retried} measurement(s) were taken again because their window saw no packet (the machine \
             did not run the loop then; at most {EMPTY_TRIES} attempts each)"
        );
    }
    let cache_note: Vec<String> = caches.iter().map(|(n, b)| format!("{n} {} KiB", b >> 10)).collect();
    let _ = writeln!(
        text,
        "\nsummary: write {}; lock {}; static vs dynamic {}{failed_note} (caches for the model column: {})",
        verdict(pass_w && measured > 0),
        verdict(pass_l && measured > 0),
        verdict(pass_s && measured > 0),
        if cache_note.is_empty() {
            "unknown".to_string()
        } else {
            cache_note.join(", ")
        }
    );

    let to_stdout = a.json.as_deref().is_some_and(|p| p.as_os_str() == "-");
    if !to_stdout {
        print!("{text}");
    }
    save(&out, &text)?;
    eprintln!("bench: results written to {} and {}", out.display(), svg_path.display());
    if let Some(j) = &a.json {
        let settings = Json::obj([
            ("common", common_settings(a)),
            ("min_log2", Json::Int(kmin.into())),
            ("max_log2", Json::Int(kmax.into())),
            ("packets_per_worker", Json::Int(pkts_per_worker(a).into())),
            (
                "caches",
                Json::obj(caches.iter().map(|(n, b)| (n.clone(), Json::uint(*b)))),
            ),
        ]);
        let results = Json::obj([
            ("floor_tap_cycles_per_pkt", Json::opt(floor_tap)),
            ("sizes", Json::Arr(sizes_json)),
            ("multi_core", Json::Arr(mc.into_iter().map(|r| r.1).collect())),
            ("measurements_taken_again", Json::Int(retried.into())),
        ]);
        let summary = Json::obj([
            ("write_pass", Json::Bool(pass_w && measured > 0)),
            ("lock_pass", Json::Bool(pass_l && measured > 0)),
            ("static_vs_dynamic_pass", Json::Bool(pass_s && measured > 0)),
            (
                "failed_sizes",
                Json::Arr(failed.iter().map(|k| Json::Int((*k).into())).collect()),
            ),
        ]);
        json::emit(
            j,
            &json::document(Some(Suite::DataplaneWrites.name()), hz, settings, results, summary),
        )?;
    }
    if a.build_dir.is_none() {
        let _ = std::fs::remove_dir_all(&scratch);
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rt_err(errno: i32) -> anyhow::Error {
        anyhow::Error::new(p4dp_rt::Error::Runtime {
            op: "bench measure",
            errno,
            msg: "x".into(),
        })
    }

    #[test]
    fn cache_sizes_as_sysfs_writes_them() {
        assert_eq!(parse_cache_size("512K"), Some(512 << 10));
        assert_eq!(parse_cache_size("32768K"), Some(32 << 20));
        assert_eq!(parse_cache_size("32M"), Some(32 << 20));
        assert_eq!(parse_cache_size("4096"), Some(4096));
        assert_eq!(parse_cache_size("big"), None);
        assert_eq!(parse_cache_size(""), None);
    }

    #[test]
    fn only_an_empty_window_is_measured_again() {
        // found through contexts, as rw_measure wraps it
        assert!(empty_window(
            &rt_err(p4dp_rt::errno::EAGAIN)
                .context("floor loop")
                .context("rw-static at 2^0")
        ));
        assert!(!empty_window(&rt_err(5).context("floor loop"))); // EIO: packets lost
        let mut calls = 0;
        let r: Result<()> = retry_empty("t", || {
            calls += 1;
            Err(rt_err(p4dp_rt::errno::EAGAIN).context("floor loop"))
        });
        assert!(r.is_err());
        assert_eq!(calls, EMPTY_TRIES);
        calls = 0;
        let r: Result<u32> = retry_empty("t", || {
            calls += 1;
            if calls < 2 {
                Err(rt_err(p4dp_rt::errno::EAGAIN))
            } else {
                Ok(7)
            }
        });
        assert_eq!(r.unwrap(), 7);
        calls = 0;
        let r: Result<()> = retry_empty("t", || {
            calls += 1;
            Err(rt_err(5))
        });
        assert!(r.is_err());
        assert_eq!(calls, 1);
    }
}
