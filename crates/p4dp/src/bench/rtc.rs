//! `p4dp bench --suite rtc-costs`: what the run-to-completion architecture's primitives cost
//! (rtc.p4, docs/rtc.md), each against a baseline measured in the same run:
//! - Queue push + pop per message against DPDK's rte_ring, on one thread and producer/consumer on
//!   two (target <= 50 cycles amortized on one thread);
//! - Lock acquire + release against rte_spinlock, uncontended (and two threads on one lock);
//! - TableOperation `entryAdd` in the foreground (benches/rtc_flows.p4: every packet a new key)
//!   against hits of the same table (target <= 2x);
//! - the foreground's cycles/packet on a 2^20-entry table while a P4 background pipeline
//!   (benches/rtc_flows.p4 -D SWEEP: a Foreach over the table without Sleep) sweeps it on a
//!   background thread of the run, against the same program with no background thread
//!   (target <= 1.1x).
//!
//! The primitives are C loops (runtime/bench/bench_rtc.c); the table figures run generated code.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use p4dp_rt::bench::{Bench, BenchTarget, Kind};
use p4dp_rt::bench_dp::{Keys, Phase, Tap};
use p4dp_rt::bench_rtc::{lock_cost, queue_cost, CostPair};
use p4dp_rt::bench_trace::{Trace, TraceTap};
use p4dp_rt::Dispatch;

use super::json::{self, Json};
use super::{common_settings, median, BenchArgs, Suite};
use crate::bench_dp::{bench_params, build, retry_empty, save, start, tap_params, verdict};
use crate::{compile, CompileOpts};

/// Target: Queue push + pop per message, one thread, TSC cycles.
const QUEUE_TARGET: f64 = 50.0;
/// Target: entryAdd cycles/packet <= ENTRY_ADD_TARGET * hit cycles/packet.
const ENTRY_ADD_TARGET: f64 = 2.0;
/// Target: foreground cycles/packet with a sweep <= SWEEP_TARGET * without.
const SWEEP_TARGET: f64 = 1.1;
/// How long the entryAdd schedule may take (s): a loaded machine stretches it several times.
const SCHEDULE_LIMIT_S: f64 = 120.0;
/// Queue message size (bytes): a flow key and a few counters, as a flow monitor's report.
const QUEUE_MSG: u32 = 16;
/// Key of the table in benches/rtc_flows.p4 (the IPv4 destination) and the first key.
const KEY_OFFSET: u32 = 30;
const KEY_BASE: u64 = 0x0a00_0000;

/// A primitive and its baseline over the runs: window figures and median-chunk figures.
#[derive(Default)]
struct Pair {
    runs: Vec<CostPair>,
}

fn med(v: impl Iterator<Item = f64>) -> f64 {
    median(&mut v.collect::<Vec<f64>>())
}

impl Pair {
    /// Median over runs of the window figures (primitive, baseline).
    fn window(&self) -> (f64, f64) {
        (
            med(self.runs.iter().map(|c| c.p4dp_cycles)),
            med(self.runs.iter().map(|c| c.baseline_cycles)),
        )
    }
    /// Median over runs of the median-chunk figures (primitive, baseline).
    fn chunk(&self) -> (f64, f64) {
        (
            med(self.runs.iter().map(|c| c.p4dp_median)),
            med(self.runs.iter().map(|c| c.baseline_median)),
        )
    }
    fn json(&self, base: &str) -> Json {
        let (w, wb) = self.window();
        let (c, cb) = self.chunk();
        let per = |f: fn(&CostPair) -> f64| json::nums(&self.runs.iter().map(f).collect::<Vec<f64>>());
        Json::obj([
            ("p4dp_cycles", Json::Num(c)),
            (&format!("{base}_cycles") as &str, Json::Num(cb)),
            ("ratio", Json::Num(c / cb)),
            ("p4dp_window_cycles", Json::Num(w)),
            (&format!("{base}_window_cycles"), Json::Num(wb)),
            ("ops_per_run", Json::uint(self.runs.last().map_or(0, |c| c.ops))),
            ("p4dp_runs", per(|c| c.p4dp_median)),
            ("baseline_runs", per(|c| c.baseline_median)),
            ("p4dp_window_runs", per(|c| c.p4dp_cycles)),
            ("baseline_window_runs", per(|c| c.baseline_cycles)),
        ])
    }
    /// One report line: median chunk (judged where a target exists) and window.
    fn line(&self, name: &str, what: &str, base: &str, note: &str) -> String {
        let (w, wb) = self.window();
        let (c, cb) = self.chunk();
        if c > 0.0 {
            format!(
                "{name:<28} {what} {c:>7.1}  {base} {cb:>7.1}  {:.2}x{note}   (windows: {w:.1} vs {wb:.1})",
                c / cb
            )
        } else {
            format!(
                "{name:<28} {what} {w:>7.1}  {base} {wb:>7.1}  {:.2}x{note}   (windows)",
                w / wb
            )
        }
    }
}

fn pairs(runs: u32, mut f: impl FnMut() -> p4dp_rt::Result<CostPair>) -> Result<Pair> {
    let mut p = Pair::default();
    for _ in 0..runs {
        p.runs.push(f()?);
    }
    Ok(p)
}

/// The sizes of the run: log2 of the sweep table and of the entryAdd inserts (--max-log2,
/// default 20), and the operations per primitive run (from --duration).
fn sizes(a: &BenchArgs) -> Result<(u32, u64)> {
    let k = a.max_log2.unwrap_or(20);
    if !(4..=22).contains(&k) {
        bail!("--suite rtc-costs: --max-log2 (the table, 2^N entries) must be 4..22");
    }
    let ops = ((a.duration() * 4e6) as u64).max(1024);
    Ok((k, ops))
}

/// Compile examples/`file` with `defines` into `out`/<file stem> and return the shared object.
pub(super) fn build_example(a: &BenchArgs, file: &str, defines: &[String], out: &Path) -> Result<PathBuf> {
    let c = CompileOpts {
        program: compile::home().join("examples").join(file),
        include: a.include.clone(),
        define: defines.to_vec(),
    };
    let tag = file.strip_suffix(".p4").unwrap_or(file);
    Ok(compile::build(&c, &out.join(tag), false)
        .with_context(|| format!("compiling examples/{file}"))?
        .so_path)
}

/// What a run-to-completion suite's body fills in: the text report, the JSON results, the
/// verdicts and the TSC frequency.
#[derive(Default)]
pub(super) struct Report {
    pub text: String,
    pub results: Vec<(&'static str, Json)>,
    pub pass: Vec<(&'static str, bool)>,
    pub hz: f64,
}

/// Run a run-to-completion suite: start the EAL, write the report's head (`intro` after the
/// command line), run `body` (given the build directory and the report file, which it may save
/// as it goes), then the summary of its verdicts, the text report and the JSON document
/// (`settings` beside the common ones, `targets` in the summary).
pub(super) fn run_suite(
    a: &BenchArgs,
    suite: Suite,
    mem: u32,
    intro: &str,
    settings: Vec<(&'static str, Json)>,
    targets: Vec<(&'static str, Json)>,
    body: impl FnOnce(&Path, &Path, &mut Report) -> Result<()>,
) -> Result<ExitCode> {
    let (out, out_dir, scratch) = start(a, suite, mem)?;
    let mut rep = Report::default();
    let cmdline = std::env::args().collect::<Vec<_>>().join(" ");
    let _ = writeln!(
        rep.text,
        "p4dp bench --suite {} results\ncommand: {cmdline}\n{intro}",
        suite.name()
    );
    let r = body(&out_dir, &out, &mut rep);
    if let Err(e) = &r {
        eprintln!("bench: {} failed: {e:#}", suite.name());
        let _ = writeln!(rep.text, "ERROR: {e:#}");
    }
    let all = r.is_ok() && rep.pass.iter().all(|(_, p)| *p);
    let _ = writeln!(
        rep.text,
        "\nsummary: {}",
        rep.pass
            .iter()
            .map(|(n, p)| format!("{n} {}", verdict(*p)))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let to_stdout = a.json.as_deref().is_some_and(|p| p.as_os_str() == "-");
    if !to_stdout {
        print!("{}", rep.text);
    }
    save(&out, &rep.text)?;
    eprintln!("bench: results written to {}", out.display());
    if let Some(j) = &a.json {
        let settings = Json::obj([("common", common_settings(a))].into_iter().chain(settings));
        let summary = Json::obj(
            targets
                .into_iter()
                .chain([
                    ("pass", if r.is_ok() { Json::Bool(all) } else { Json::Null }),
                    (
                        "error",
                        r.as_ref().err().map_or(Json::Null, |e| Json::str(format!("{e:#}"))),
                    ),
                ])
                .chain(rep.pass.iter().map(|(n, p)| (*n, Json::Bool(*p)))),
        );
        json::emit(
            j,
            &json::document(Some(suite.name()), rep.hz, settings, Json::obj(rep.results), summary),
        )?;
    }
    if a.build_dir.is_none() {
        let _ = std::fs::remove_dir_all(&scratch);
    }
    r.map(|_| ExitCode::SUCCESS)
}

/// `p4dp bench --suite rtc-costs`.
pub fn suite_rtc_costs(a: &BenchArgs) -> Result<ExitCode> {
    let (k, ops) = sizes(a)?;
    let intro = format!(
        "(the run-to-completion architecture of Zheng et al., When P4 Meets Run-to-completion Architecture; \
         TSC cycles, medians of {} runs, each figure's baseline measured right after it)",
        a.repeat
    );
    run_suite(
        a,
        Suite::RtcCosts,
        a.mem.unwrap_or(2048),
        &intro,
        vec![
            ("table_log2", Json::Int(k.into())),
            ("primitive_ops", Json::uint(ops)),
            ("queue_msg_bytes", Json::Int(QUEUE_MSG.into())),
        ],
        vec![
            ("queue_target_cycles", Json::Num(QUEUE_TARGET)),
            ("entry_add_target", Json::Num(ENTRY_ADD_TARGET)),
            ("sweep_target", Json::Num(SWEEP_TARGET)),
        ],
        |out_dir, report, rep| {
            run_all(
                a,
                k,
                ops,
                out_dir,
                report,
                &mut rep.text,
                &mut rep.results,
                &mut rep.pass,
                &mut rep.hz,
            )
        },
    )
}

#[allow(clippy::too_many_arguments)]
fn run_all(
    a: &BenchArgs,
    k: u32,
    ops: u64,
    out_dir: &Path,
    report: &Path,
    text: &mut String,
    results: &mut Vec<(&'static str, Json)>,
    pass: &mut Vec<(&'static str, bool)>,
    hz: &mut f64,
) -> Result<()> {
    // ---- Queue and Lock
    let _ = writeln!(
        text,
        "\n== Queue<T> push + pop per message ({QUEUE_MSG}-byte messages, {ops} per run) vs DPDK rte_ring \
         (MP/MC, same size) =="
    );
    eprintln!("bench: rtc-costs: queue");
    let q1 = pairs(a.repeat, || queue_cost(QUEUE_MSG, ops, false))?;
    let q2 = pairs(a.repeat, || queue_cost(QUEUE_MSG, ops, true))?;
    let _ = writeln!(
        text,
        "(TSC cycles per message: the median of chunks of 32 operations timed each on its own, which leaves \
         out the chunks in which the thread was descheduled; the windows' averages in parentheses)"
    );
    let _ = writeln!(
        text,
        "{}",
        q1.line(
            "one thread, bursts of 32",
            "p4dp queue",
            "rte_ring",
            &format!(" (target <= {QUEUE_TARGET})")
        )
    );
    let _ = writeln!(
        text,
        "{}",
        q2.line(
            "producer + consumer threads",
            "p4dp queue",
            "rte_ring",
            " (informational)"
        )
    );
    let qpass = q1.chunk().0 <= QUEUE_TARGET;
    let _ = writeln!(text, "queue push + pop <= {QUEUE_TARGET} cycles: {}", verdict(qpass));
    pass.push(("queue", qpass));
    results.push((
        "queue",
        Json::obj([
            ("one_thread", q1.json("rte_ring")),
            ("two_threads", q2.json("rte_ring")),
        ]),
    ));
    eprintln!("bench: rtc-costs: lock");
    let l1 = pairs(a.repeat, || lock_cost(ops, false))?;
    let l2 = pairs(a.repeat, || lock_cost(ops / 4, true))?;
    let _ = writeln!(
        text,
        "\n== Lock acquire (blocking) + release, one lock, vs rte_spinlock lock + unlock (cycles per pair) =="
    );
    let _ = writeln!(
        text,
        "{}",
        l1.line("uncontended", "p4dp lock", "rte_spinlock", " (informational)")
    );
    let _ = writeln!(
        text,
        "{}",
        l2.line("two threads, one lock", "p4dp lock", "rte_spinlock", " (informational)")
    );
    results.push((
        "lock",
        Json::obj([
            ("uncontended", l1.json("rte_spinlock")),
            ("two_threads", l2.json("rte_spinlock")),
        ]),
    ));
    save(report, text)?;
    // ---- entryAdd against hits
    let (ea, ok) = entry_add(a, k, out_dir, text, hz)?;
    results.push(("entry_add", ea));
    pass.push(("entry_add", ok));
    save(report, text)?;
    // ---- a sweep beside the foreground
    let (sw, ok) = sweep(a, k, out_dir, text, hz)?;
    results.push(("sweep", sw));
    pass.push(("sweep", ok));
    save(report, text)?;
    Ok(())
}

/// TSC cycles per packet of a tap phase; NaN if the window did not finish it.
fn phase_cpp(p: &p4dp_rt::bench_dp::PhaseResult) -> f64 {
    if p.tsc_end > p.tsc_first && p.packets > 0 {
        (p.tsc_end - p.tsc_first) as f64 / p.packets as f64
    } else {
        f64::NAN
    }
}

/// benches/rtc_flows.p4 on a fresh table: 2^k packets with new keys (each an entryAdd), then
/// 4 * 2^k hits on them, --repeat runs; judged: the median of the runs' ratios.
fn entry_add(a: &BenchArgs, k: u32, out_dir: &Path, text: &mut String, hz: &mut f64) -> Result<(Json, bool)> {
    let so = build(
        a,
        "rtc_flows.p4",
        &[format!("TABLE_SIZE={}", 2u64 << k)],
        out_dir,
        &format!("rtc_flows-add-{k}"),
    )?;
    let phases = vec![
        Phase {
            packets: 1 << k,
            keys: Keys::New,
        },
        Phase {
            packets: 4 << k,
            keys: Keys::Random,
        },
    ];
    let _ = writeln!(
        text,
        "\n== TableOperation.entryAdd in the foreground (benches/rtc_flows.p4, one worker, burst 32): 2^{k} packets \
         with new keys vs 2^{} hits on them ==",
        k + 2
    );
    let (mut adds, mut hits, mut ratios, mut lat_ratios) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut added = 0;
    for run in 0..a.repeat {
        eprintln!("bench: rtc-costs: entryAdd run {} of {}", run + 1, a.repeat);
        let (c, l, st) = retry_empty("entryAdd", || {
            let mut t = BenchTarget::load(&so, 2).with_context(|| format!("loading {}", so.display()))?;
            let ti = t
                .program()
                .table("FlowsIngress.flows")
                .context("rtc_flows.p4: no table flows")?
                .index;
            let bp = bench_params(a, 1, 0.0, SCHEDULE_LIMIT_S, Dispatch::Auto);
            let mut bench = Bench::new(&mut t, &bp).context("creating the bench")?;
            let tp = tap_params(a, 0, 32, 0, phases.clone());
            let mut tap = Tap::attach(&mut bench, 1, 0, &tp)?;
            let (m, r) = tap.measure(None, Kind::Program)?;
            *hz = m.tsc_hz as f64;
            if !r.done {
                bail!("the schedule did not finish in {SCHEDULE_LIMIT_S} s");
            }
            drop(tap);
            drop(bench);
            let c: Vec<f64> = r.phases.iter().map(phase_cpp).collect();
            // median rx -> tx latency of the new-key packets (class 1) and of the hits (class 0)
            let l = (r.phases[0].lat[1].p50 as f64, r.phases[1].lat[0].p50 as f64);
            Ok((c, l, t.table_hits_misses(ti)?))
        })?;
        let _ = writeln!(
            text,
            "run {}: entryAdd {:.1}, hits {:.1} cycles/pkt: {:.2}x; median latency {:.0} against {:.0}: {:.2}x \
             (table hits {}, misses {})",
            run + 1,
            c[0],
            c[1],
            c[0] / c[1],
            l.0,
            l.1,
            l.0 / l.1,
            st.0,
            st.1
        );
        lat_ratios.push(l.0 / l.1);
        added = st.1;
        adds.push(c[0]);
        hits.push(c[1]);
        ratios.push(c[0] / c[1]);
    }
    let ratio = median(&mut ratios.clone());
    let ok = ratio <= ENTRY_ADD_TARGET;
    let _ = writeln!(
        text,
        "entryAdd / hit cycles per packet, median of runs: {ratio:.2}x (target <= {ENTRY_ADD_TARGET}x): {} \
         (median packet latencies, which leave out the bursts in which the worker was descheduled: {:.2}x)",
        verdict(ok),
        median(&mut lat_ratios.clone())
    );
    Ok((
        Json::obj([
            ("new_keys", Json::uint(1 << k)),
            ("entry_add_cycles_per_pkt", Json::Num(median(&mut adds.clone()))),
            ("hit_cycles_per_pkt", Json::Num(median(&mut hits.clone()))),
            ("ratio", Json::Num(ratio)),
            ("ratio_runs", json::nums(&ratios)),
            ("latency_ratio_runs", json::nums(&lat_ratios)),
            ("last_run_table_misses", Json::uint(added)),
        ]),
        ok,
    ))
}

/// benches/rtc_flows.p4 -D SWEEP with 2^k entries installed, every packet a hit on a random one:
/// the program without and with a background thread running its Sweeper pipeline (a Foreach over
/// the table without pause), alternated --repeat times; judged: the median of the paired ratios.
fn sweep(a: &BenchArgs, k: u32, out_dir: &Path, text: &mut String, hz: &mut f64) -> Result<(Json, bool)> {
    let so = build(
        a,
        "rtc_flows.p4",
        &[format!("TABLE_SIZE={}", 1u64 << k), "SWEEP".into()],
        out_dir,
        &format!("rtc_flows-sweep-{k}"),
    )?;
    // one worker and one background thread: two worker contexts
    let mut t = BenchTarget::load(&so, 2).with_context(|| format!("loading {}", so.display()))?;
    let (ti, ai, stats) = {
        let p = t.program();
        let tab = p.table("FlowsIngress.flows").context("rtc_flows.p4: no table flows")?;
        let act = tab
            .actions
            .iter()
            .map(|x| &p.actions[x.action as usize])
            .find(|ai| ai.params.len() == 1)
            .context("rtc_flows.p4: no action known")?;
        let stats = p
            .externs
            .iter()
            .find(|e| e.name.ends_with("sweep_stats"))
            .context("rtc_flows.p4 -D SWEEP: no Counter sweep_stats")?;
        (tab.index, act.index, stats.index)
    };
    let n = t.table_fill(ti, KEY_BASE, 1 << k, ai, &[vec![0, 0, 0, 7]])?;
    if n != 1 << k {
        bail!("installed {n} of {} entries", 1u64 << k);
    }
    // the trace tap writes a random installed key into each packet it hands out
    let mut rng = super::gen::Rng::new(a.seed ^ 0x5eed);
    let n_recs = (4u64 << k).min(1 << 22);
    let mut recs = Vec::with_capacity(n_recs as usize * 4);
    for _ in 0..n_recs {
        let key = KEY_BASE + rng.next_u64() % (1u64 << k);
        recs.extend_from_slice(&(key as u32).to_be_bytes());
    }
    let trace = Trace {
        records: recs,
        rec_size: 4,
        lens: None,
        offset: KEY_OFFSET,
        record_after_ms: (a.warmup() * 1000.0) as u64,
    };
    let mut bp = bench_params(a, 1, a.warmup(), a.duration(), Dispatch::Auto);
    bp.key_offset = KEY_OFFSET;
    bp.key_bytes = 4;
    bp.key_base = KEY_BASE;
    bp.n_keys = 1;
    let pkts = bp.packets;
    let mut bench = Bench::new(&mut t, &bp).context("creating the bench")?;
    // configures the ports, which the tap needs
    retry_empty("floor loop", || Ok(bench.measure(Kind::Floor)?))?;
    let mut tap = TraceTap::attach(&mut bench, 1, 0, &trace)?;
    let _ = writeln!(
        text,
        "\n== The foreground beside a P4 background pipeline sweeping its 2^{k}-entry table (benches/rtc_flows.p4 \
         -D SWEEP, one worker, every packet a hit on a random entry) ==\n(the sweep: the program's Sweeper \
         pipeline, a Foreach over the table with no Sleep, run by a background thread of the run (another \
         EAL lcore, on the other CPU when there is one) from the run's start; against the same program run \
         without a background thread. cycles/pkt of the window, and the median burst's rx -> tx latency / 32, \
         which leaves out the bursts in which the worker was descheduled; judged: the median burst)"
    );
    let (mut without, mut with, mut ratios, mut wratios) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let (mut without_w, mut with_w) = (Vec::new(), Vec::new());
    let (mut sweeps, mut visited) = (0u64, 0u64);
    for run in 0..a.repeat {
        eprintln!("bench: rtc-costs: sweep run {} of {}", run + 1, a.repeat);
        let (m0, _, h0) = retry_empty("no sweep", || Ok(tap.measure(Kind::Program)?))?;
        // the pipeline's sweeps and entries visited during the run (warm-up included)
        let (mut ds, mut de) = (0, 0);
        let (m1, _, h1) = retry_empty("with sweep", || {
            Ok(tap.measure_with(|b| {
                let (s0, e0) = (b.rtc_counter_get(stats, 0)?, b.rtc_counter_get(stats, 1)?);
                let m = b.measure_with_background(Kind::Program, 1)?;
                ds = b.rtc_counter_get(stats, 0)? - s0;
                de = b.rtc_counter_get(stats, 1)? - e0;
                Ok(m)
            })?)
        })?;
        *hz = m0.tsc_hz as f64;
        let (b0, b1) = (h0.quantile(0.5) as f64 / 32.0, h1.quantile(0.5) as f64 / 32.0);
        let _ = writeln!(
            text,
            "run {}: no background {:.1} (median burst {:.1}), with the sweeping pipeline {:.1} (median burst {:.1}) \
             cycles/pkt: {:.3}x (window {:.3}x; the pipeline: {ds} sweeps, {de} entries visited)",
            run + 1,
            m0.cycles_per_pkt,
            b0,
            m1.cycles_per_pkt,
            b1,
            b1 / b0,
            m1.cycles_per_pkt / m0.cycles_per_pkt,
        );
        without.push(b0);
        with.push(b1);
        without_w.push(m0.cycles_per_pkt);
        with_w.push(m1.cycles_per_pkt);
        ratios.push(b1 / b0);
        wratios.push(m1.cycles_per_pkt / m0.cycles_per_pkt);
        sweeps += ds;
        visited += de;
    }
    let ratio = median(&mut ratios.clone());
    let ok = ratio <= SWEEP_TARGET && sweeps > 0;
    let _ = writeln!(
        text,
        "with sweep / without (median bursts), median of paired runs: {ratio:.3}x (target <= {SWEEP_TARGET}x{}): {}",
        if sweeps == 0 {
            "; the pipeline completed no sweep"
        } else {
            ""
        },
        verdict(ok)
    );
    Ok((
        Json::obj([
            ("entries", Json::uint(1 << k)),
            ("packets", Json::Int(pkts.into())),
            ("sweep_source", Json::str("P4 background pipeline")),
            ("no_sweep_cycles_per_pkt", Json::Num(median(&mut without.clone()))),
            ("with_sweep_cycles_per_pkt", Json::Num(median(&mut with.clone()))),
            ("ratio", Json::Num(ratio)),
            ("ratio_runs", json::nums(&ratios)),
            (
                "no_sweep_window_cycles_per_pkt",
                Json::Num(median(&mut without_w.clone())),
            ),
            (
                "with_sweep_window_cycles_per_pkt",
                Json::Num(median(&mut with_w.clone())),
            ),
            ("window_ratio", Json::Num(median(&mut wratios.clone()))),
            ("sweeps", Json::uint(sweeps)),
            ("entries_visited", Json::uint(visited)),
        ]),
        ok,
    ))
}
