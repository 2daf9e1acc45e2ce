//! The sweeps of `p4dp bench` (docs/bench.md): `--suite table-kinds` (cycles/packet against
//! installed entries for every match kind) and `--suite program-shape` (tables per packet, key
//! segmentation, action data size, packet size). Every point compiles a generated program
//! (crate::bench::gen), installs its entries, and measures the l2fwd floor and the program on the
//! same bench ports with the same trace tap (traffic source and latency probe,
//! p4dp_rt::bench_trace), so each point has its own floor from the same run. Results: a text
//! table, `--json`, and SVG plots next to the report.

use std::fmt::Write as _;
use std::io::IsTerminal as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use p4dp_rt::bench::{Bench, BenchParams, BenchTarget, Kind};
use p4dp_rt::bench_acl::RteAcl;
use p4dp_rt::bench_trace::{Histogram, Trace, TraceTap};
use p4dp_rt::{Dispatch, TableEntry};

use super::acl::{self, AclFigures};
use super::gen::{self, ProgSpec, Rng, Rule, TableKind, L4, REC_OFFSET, REC_SIZE};
use super::json::{self, Json};
use super::svg::{Plot, Scale, Series};
use super::traffic::{self, Popularity, Traffic};
use super::{cpus, default_mem, eal_args, median, template, BenchArgs, Suite};
use crate::bench_dp::retry_empty;
use crate::{compile, CompileOpts};

/// Largest table the sweeps install (log2 of the entries).
pub const MAX_LOG2: u32 = 24;
/// ACL-like rule sets (ternary, range, optional) stop at 2^17 (about 10^5 rules).
const ACL_MAX_LOG2: u32 = 17;
/// Most trace records: a trace longer than the table touches every entry; a shorter one (at
/// most 2^22 records for the largest tables) still spreads over more entries than any cache holds.
const TRACE_MAX: u64 = 1 << 22;
/// Latency percentiles reported and plotted.
const QUANTILES: [f64; 10] = [0.5, 0.75, 0.9, 0.95, 0.99, 0.995, 0.999, 0.9995, 0.9999, 0.99999];

/// The figures of one point of a sweep (also `p4dp calibrate`'s and `p4dp model --check`'s).
pub(crate) struct Point {
    /// The line of the plot it belongs to (a match kind, or an experiment of program-shape).
    pub series: String,
    /// Its x value (entries, tables, bytes, ...).
    pub x: f64,
    pub label: String,
    installed: u64,
    pub hits: u64,
    pub misses: u64,
    /// Per table (index order): (hits, misses) counted by the program over every window.
    pub table_counts: Vec<(u64, u64)>,
    /// Packets the program processed over every window (the runtime's count).
    pub packets: u64,
    /// Medians over the repetitions, cycles/packet.
    pub l2fwd: f64,
    pub program: f64,
    /// The quietest repetitions: the lowest l2fwd floor and program cycles/packet (what load on
    /// the machine inflates least; `p4dp calibrate` and `p4dp model --check` use these).
    pub l2fwd_min: f64,
    pub program_min: f64,
    /// The median over the repetitions of the program's median burst rx → tx latency (TSC
    /// cycles): the worker is rarely descheduled inside a burst, so this stays usable on a
    /// loaded machine (`p4dp calibrate` and `p4dp model --check` cost programs by it).
    pub program_p50: f64,
    /// Each repetition's program median burst latency less the l2fwd floor's of the same
    /// repetition (TSC cycles per burst; with several workers under software dispatch a worker's
    /// loop iteration per 32 packets sent, not a handed packet's wait in another worker's ring:
    /// `TraceTap::iteration_cost`), in the order measured: the floor and the program
    /// measured back to back share the load of that moment, so the pair's difference moves less
    /// than the difference of the two medians (model/measure.rs takes their median).
    pub overhead_pairs: Vec<f64>,
    program_max: f64,
    pub mpps: f64,
    /// Program latency (TSC cycles) at QUANTILES, then the maximum; from the last repetition.
    pub lat: Vec<u64>,
    lat_count: u64,
    /// The l2fwd floor's median latency with the same tap.
    pub l2fwd_p50: u64,
    /// The program's quietest bursts: the lowest, over the repetitions, 5th percentile of its
    /// cost per burst (`TraceTap::iteration_cost`; with one worker its rx → tx latency).
    quiet_burst: u64,
    skipped: u64,
    /// Ternary and range points: the same rules in rte_acl, and the cost of a rule change.
    acl: Option<AclFigures>,
}

impl Point {
    pub fn overhead(&self) -> f64 {
        self.program - self.l2fwd
    }
}

/// What one point runs.
pub(crate) struct Spec {
    pub series: String,
    pub x: f64,
    pub label: String,
    pub prog: ProgSpec,
    pub pkt_len: u32,
}

/// The run's settings and state shared by all points.
pub(crate) struct Ctx<'a> {
    a: &'a BenchArgs,
    out_dir: PathBuf,
    warmup: f64,
    duration: f64,
    traffic: Traffic,
    /// The pcap trace (--traffic FILE.pcap), read once.
    pcap: Option<Trace>,
    pub tsc_hz: f64,
    progress: Progress,
    /// How the program's runs spread packets over several workers: the sweeps' software
    /// dispatch (the ring ports have no RSS), or none for the model's points (each worker
    /// processes what its own port receives, as with a NIC's RSS: `Ctx::new`).
    dispatch: Dispatch,
}

impl<'a> Ctx<'a> {
    /// The popularity of the traces made from now on (`rule_trace`).
    pub fn set_traffic(&mut self, t: Traffic) {
        self.traffic = t;
    }

    /// Announces `n` more points than `new` was told (points measured again).
    pub fn add_points(&mut self, n: usize) {
        self.progress.total += n;
    }

    /// Settings for measuring points outside a sweep (`p4dp calibrate`, `p4dp model --check`):
    /// `a`'s workers, packets, repetitions and seed, the given windows and popularity, compiled
    /// programs kept in `out_dir`; `total` points announced on the progress line. Several
    /// workers each process their own port's packets (no software dispatch: the model predicts
    /// ports that spread flows over the workers, docs/model.md).
    pub fn new(
        a: &'a BenchArgs,
        out_dir: PathBuf,
        traffic: Traffic,
        warmup: f64,
        duration: f64,
        total: usize,
    ) -> Ctx<'a> {
        Ctx {
            a,
            out_dir,
            warmup,
            duration,
            traffic,
            pcap: None,
            tsc_hz: 0.0,
            progress: Progress {
                total,
                done: 0,
                start: Instant::now(),
                tty: std::io::stderr().is_terminal(),
            },
            dispatch: Dispatch::None,
        }
    }

    /// One more point is done (the progress line's count).
    pub fn point_done(&mut self) {
        self.progress.done += 1;
    }

    /// Ends the progress line.
    pub fn finish(&self) {
        self.progress.finish();
    }
}

/// A progress line on stderr: rewritten in place on a terminal, one line per step otherwise.
struct Progress {
    total: usize,
    done: usize,
    start: Instant,
    tty: bool,
}

impl Progress {
    fn step(&self, what: &str) {
        let el = self.start.elapsed().as_secs();
        let eta = if self.done > 0 {
            let per = self.start.elapsed().as_secs_f64() / self.done as f64;
            format!(", ~{}s left", (per * (self.total - self.done) as f64).round())
        } else {
            String::new()
        };
        let line = format!(
            "bench: [{}/{}] {what} ({}m{:02}s{eta})",
            self.done + 1,
            self.total,
            el / 60,
            el % 60
        );
        if self.tty {
            eprint!("\r{line:<100}");
        } else {
            eprintln!("{line}");
        }
    }

    fn finish(&self) {
        if self.tty {
            eprintln!();
        }
    }
}

/// Where the run's files go: the report (--out, default build/bench-SUITE.txt) and the plots next
/// to it (`<report stem>-<what>.svg`).
fn out_path(a: &BenchArgs, suite: Suite) -> PathBuf {
    a.out.clone().unwrap_or_else(|| suite.default_out())
}

fn svg_path(report: &Path, what: &str) -> PathBuf {
    let stem = report.file_stem().and_then(|s| s.to_str()).unwrap_or("bench");
    report.with_file_name(format!("{stem}-{what}.svg"))
}

/// The template's IPv4 checksum bytes (kept in every record).
fn csum(tmpl: &[u8]) -> [u8; 2] {
    [tmpl[24], tmpl[25]]
}

/// The keys (one value per field of `kind`) of the trace `rule_trace` sends for `rules` with
/// `traffic`'s popularity, in the order it sends them: a rule by the popularity, then a key
/// inside it. The model replays the same keys through its tuple-space classifier.
pub(crate) fn rule_trace_keys<'a>(
    traffic: &Traffic,
    kind: TableKind,
    rules: &'a [Rule],
    seed: u64,
) -> impl ExactSizeIterator<Item = Vec<u64>> + 'a {
    let w = gen::widths(kind);
    let mut rng = Rng::new(seed ^ 0x7eaf);
    let pop = Popularity::new(traffic, rules.len() as u64, &mut rng);
    let n = (rules.len() as u64 * 4).clamp(4096, TRACE_MAX);
    (0..n as usize).map(move |_| rules[pop.draw(&mut rng)].sample(&w, &mut rng))
}

/// A trace of records hitting `rules` of a `kind` table with the run's popularity.
pub(crate) fn rule_trace(ctx: &Ctx, kind: TableKind, rules: &[Rule], tmpl: &[u8], seed: u64) -> Trace {
    let c = csum(tmpl);
    let keys = rule_trace_keys(&ctx.traffic, kind, rules, seed);
    let mut records = Vec::with_capacity(keys.len() * REC_SIZE as usize);
    for v in keys {
        records.extend_from_slice(&gen::key_record(kind, &v, c));
    }
    overlay(ctx, records)
}

pub(crate) fn overlay(ctx: &Ctx, records: Vec<u8>) -> Trace {
    Trace {
        records,
        rec_size: REC_SIZE,
        lens: None,
        offset: REC_OFFSET,
        record_after_ms: (ctx.warmup * 1000.0) as u64,
    }
}

/// The run's pcap trace, if the traffic is a capture.
fn pcap_or(ctx: &Ctx, t: Trace) -> Trace {
    match &ctx.pcap {
        Some(p) => Trace {
            record_after_ms: (ctx.warmup * 1000.0) as u64,
            ..p.clone()
        },
        None => t,
    }
}

/// Compile `spec`'s program, install entries with `install`, and measure the l2fwd floor and the
/// program `--repeat` times with `trace` as the traffic (and floor + `rte_acl` when given).
pub(crate) fn run_point(
    ctx: &mut Ctx,
    spec: &Spec,
    install: &mut dyn FnMut(&mut BenchTarget, u32) -> Result<u64>,
    trace: &Trace,
    rte_acl: Option<&RteAcl>,
) -> Result<Point> {
    let name = spec.label.replace([' ', '^', '/'], "_");
    ctx.progress.step(&format!("{}: compiling", spec.label));
    let src = ctx.out_dir.join(format!("{name}.p4"));
    std::fs::write(&src, spec.prog.source()).with_context(|| format!("writing {}", src.display()))?;
    let c = CompileOpts {
        program: src.clone(),
        include: Vec::new(),
        define: Vec::new(),
    };
    let so = compile::build(&c, &ctx.out_dir.join(&name), false)
        .with_context(|| format!("compiling the generated {}", src.display()))?
        .so_path;
    measure_so(ctx, spec, &so, spec.prog.tables.len() as u32, install, trace, rte_acl)
}

/// Load the compiled `so` (with `n_tables` tables), install entries with `install`, and measure
/// the l2fwd floor and the program `--repeat` times with `trace` as the traffic; `spec` gives the
/// point's name, series and packet length (its program is not used).
pub(crate) fn measure_so(
    ctx: &mut Ctx,
    spec: &Spec,
    so: &Path,
    n_tables: u32,
    install: &mut dyn FnMut(&mut BenchTarget, u32) -> Result<u64>,
    trace: &Trace,
    rte_acl: Option<&RteAcl>,
) -> Result<Point> {
    let a = ctx.a;
    let mut target = BenchTarget::load(&so, a.workers).with_context(|| format!("loading {}", so.display()))?;
    ctx.progress.step(&format!("{}: installing entries", spec.label));
    let mut installed = 0;
    for t in 0..n_tables {
        installed = install(&mut target, t)?;
    }
    let tmpl = template(spec.pkt_len)?;
    let bp = BenchParams {
        workers: a.workers,
        ports: a.ports,
        packets: a.packets.unwrap_or(4096).max(32 * a.workers),
        template: tmpl,
        key_offset: 0,
        key_bytes: 0,
        key_base: 0,
        n_keys: 0,
        seed: a.seed,
        warmup: Duration::from_secs_f64(ctx.warmup),
        duration: Duration::from_secs_f64(ctx.duration),
        dispatch: ctx.dispatch,
    };
    let (mut l2, mut pr, mut mpps) = (Vec::new(), Vec::new(), Vec::new());
    let mut last: Option<(Histogram, u64)> = None;
    let mut l2_p50 = Vec::new();
    let mut pr_p50 = Vec::new();
    // the cost statistic: a worker's time per burst (with software dispatch, per loop iteration
    // and 32 packets sent: bench_trace.h p4dp_btr_iteration_cost); the latency figures keep every
    // packet's
    let (mut l2_cost, mut pr_cost) = (Vec::new(), Vec::new());
    let mut quiet_burst = u64::MAX;
    let mut skipped = 0;
    let mut acl_cp = Vec::new();
    let mut packets = 0;
    {
        let mut bench = Bench::new(&mut target, &bp).context("creating the bench ports and packets")?;
        // configures the ports, which the tap needs
        let f = retry_empty("floor loop", || Ok(bench.measure(Kind::Floor)?)).context("floor loop")?;
        ctx.tsc_hz = f.tsc_hz as f64;
        let mut tap = TraceTap::attach(&mut bench, a.workers, a.ports, trace)?;
        for rep in 0..a.repeat {
            ctx.progress
                .step(&format!("{}: measuring {}/{}", spec.label, rep + 1, a.repeat));
            let (m, _, h) =
                retry_empty("l2fwd floor loop", || Ok(tap.measure(Kind::L2fwd)?)).context("l2fwd floor loop")?;
            l2.push(m.cycles_per_pkt);
            l2_p50.push(h.quantile(0.5) as f64);
            l2_cost.push(tap.iteration_cost()?.quantile(0.5) as f64);
            let before = tap.runtime_packets()?;
            let (m, cnt, h) =
                retry_empty("program", || Ok(tap.measure(Kind::Program)?)).context("running the program")?;
            packets += tap.runtime_packets()?.saturating_sub(before);
            pr.push(m.cycles_per_pkt);
            let own = tap.iteration_cost()?;
            quiet_burst = quiet_burst.min(own.quantile(QUIET_QUANTILE));
            pr_cost.push(own.quantile(0.5) as f64);
            pr_p50.push(h.quantile(0.5) as f64);
            mpps.push(m.mpps);
            skipped += cnt.skipped;
            last = Some((h, cnt.recorded));
            if let Some(x) = rte_acl {
                let (m, _, _) = retry_empty("rte_acl", || Ok(tap.measure_with(|b| b.measure_rte_acl(x))?))
                    .context("floor + rte_acl")?;
                // generated traffic matches a rule of every packet: a miss means the baseline
                // holds other rules than the table (a pcap trace need not match)
                if ctx.pcap.is_none() && m.misses > 0 {
                    bail!(
                        "{}: rte_acl matched no rule for {} of {} packets",
                        spec.label,
                        m.misses,
                        m.hits + m.misses
                    );
                }
                acl_cp.push(m.cycles_per_pkt);
            }
        }
    }
    let (mut hits, mut misses) = (0, 0);
    let mut table_counts = Vec::new();
    for t in 0..n_tables {
        let (h, m) = target.table_hits_misses(t)?;
        hits += h;
        misses += m;
        table_counts.push((h, m));
    }
    let (lat, lat_count) = match &last {
        Some((h, n)) => {
            let mut v: Vec<u64> = QUANTILES.iter().map(|&q| h.quantile(q)).collect();
            v.push(h.max());
            (v, (*n).min(h.count()))
        }
        None => (Vec::new(), 0),
    };
    let program = median(&mut pr);
    Ok(Point {
        series: spec.series.clone(),
        x: spec.x,
        label: spec.label.clone(),
        installed,
        hits,
        misses,
        table_counts,
        packets,
        l2fwd: median(&mut l2),
        l2fwd_min: l2.first().copied().unwrap_or(0.0),
        program,
        program_min: pr.first().copied().unwrap_or(0.0),
        program_p50: median(&mut pr_p50.clone()),
        overhead_pairs: pr_cost.iter().zip(&l2_cost).map(|(p, l)| p - l).collect(),
        program_max: pr.last().copied().unwrap_or(0.0),
        mpps: median(&mut mpps),
        lat,
        lat_count,
        l2fwd_p50: median(&mut l2_p50) as u64,
        quiet_burst: if quiet_burst == u64::MAX { 0 } else { quiet_burst },
        skipped,
        acl: rte_acl.map(|x| AclFigures {
            rte_acl: median(&mut acl_cp),
            rebuild: x.build_time(),
            ..AclFigures::default()
        }),
    })
}

/// Install `rules` in table `t` of a `kind` program; returns how many were installed.
pub(crate) fn install_rules(target: &mut BenchTarget, t: u32, kind: TableKind, rules: &[Rule]) -> Result<u64> {
    let n = rules.len();
    let (action, params) = (fwd_action(target)?, fwd_params(target)?);
    for (i, r) in rules.iter().enumerate() {
        let e = TableEntry {
            matches: r.matches(kind),
            priority: if kind.prioritized() { (n - i) as i32 } else { 0 },
            action,
            params: params.clone(),
        };
        target
            .entry_add(t, &e)
            .with_context(|| format!("installing {} entry {} of {n}", kind.name(), i + 1))?;
    }
    Ok(n as u64)
}

/// The generated programs' action `fwd` (its name qualified by its control).
fn fwd(target: &BenchTarget) -> Result<&p4dp_rt::ActionInfo> {
    let p = target.program();
    p.action("fwd")
        .or_else(|| p.actions.iter().find(|a| a.name.rsplit('.').next() == Some("fwd")))
        .context("the generated program has no action fwd")
}

fn fwd_action(target: &BenchTarget) -> Result<u32> {
    Ok(fwd(target)?.index)
}

/// Parameters of `fwd`: port 0 and every data parameter a distinct pattern.
fn fwd_params(target: &BenchTarget) -> Result<Vec<Vec<u8>>> {
    Ok(fwd(target)?
        .params
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let n = p.bitwidth.div_ceil(8) as usize;
            if i == 0 {
                vec![0; n]
            } else {
                (0..n).map(|k| (0x11 * (i + k)) as u8).collect()
            }
        })
        .collect())
}

/// The sizes of the table-kinds sweep: 2^min .. 2^max in steps of --log2-step.
fn sizes(a: &BenchArgs, kind: TableKind) -> Vec<u32> {
    let max = a.max_log2.unwrap_or(12);
    let max = if kind.prioritized() { max.min(ACL_MAX_LOG2) } else { max };
    (a.min_log2..=max).step_by(a.log2_step.max(1) as usize).collect()
}

fn kinds(a: &BenchArgs) -> Result<Vec<TableKind>> {
    match &a.kinds {
        None => Ok(TableKind::ALL.to_vec()),
        Some(s) => s
            .split(',')
            .map(|k| {
                TableKind::parse(k.trim()).with_context(|| {
                    format!("--kinds: unknown match kind `{k}` (exact, lpm, ternary, range, optional)")
                })
            })
            .collect(),
    }
}

fn suite_table_kinds(ctx: &mut Ctx) -> Result<Vec<Point>> {
    let a = ctx.a;
    let ks = kinds(a)?;
    ctx.progress.total = ks.iter().map(|&k| sizes(a, k).len()).sum();
    let mut points = Vec::new();
    for kind in ks {
        for l in sizes(a, kind) {
            let n = 1u64 << l;
            let seed = a.seed.wrapping_mul(31).wrapping_add(u64::from(l));
            let rules = gen::rules(kind, n, seed);
            let tmpl = template(a.pkt_len)?;
            let trace = pcap_or(ctx, rule_trace(ctx, kind, &rules, &tmpl, seed));
            let spec = Spec {
                series: kind.name().into(),
                x: n as f64,
                label: format!("{} 2^{l}", kind.name()),
                prog: ProgSpec::kind(kind, n),
                pkt_len: a.pkt_len,
            };
            let rte_acl = if acl::compared(kind) {
                ctx.progress.step(&format!("{}: building rte_acl", spec.label));
                let nr = rules.len() as i32;
                let ar: Vec<_> = rules
                    .iter()
                    .enumerate()
                    .map(|(i, r)| acl::acl_rule(r, nr - i as i32))
                    .collect();
                Some(RteAcl::new(&ar).context("building the rte_acl baseline")?)
            } else {
                None
            };
            let mut updates = None;
            let mut install = |t: &mut BenchTarget, i: u32| -> Result<u64> {
                let k = install_rules(t, i, kind, &rules)?;
                if rte_acl.is_some() {
                    let (action, params) = (fwd_action(t)?, fwd_params(t)?);
                    updates = Some(acl::time_updates(t, i, kind, &rules, action, &params)?);
                }
                Ok(k)
            };
            let mut p = run_point(ctx, &spec, &mut install, &trace, rte_acl.as_ref())?;
            if let (Some(f), Some((ins, del))) = (p.acl.as_mut(), updates) {
                f.insert = ins;
                f.delete = del;
            }
            points.push(p);
            ctx.progress.done += 1;
        }
    }
    Ok(points)
}

/// Entries of the program-shape experiments (their tables are cache-resident).
const SHAPE_ENTRIES: u64 = 256;
/// Entries of the key segmentation experiment.
const SEG_ENTRIES: u64 = 4096;

fn suite_program_shape(ctx: &mut Ctx) -> Result<Vec<Point>> {
    let a = ctx.a;
    let tables = [1u32, 2, 3, 4, 6, 8, 12, 16];
    let data = [0u32, 8, 16, 32, 64];
    let lens = [60u32, 124, 252, 508, 1020, 1496];
    ctx.progress.total = tables.len() + 2 + data.len() + lens.len();
    let mut points = Vec::new();
    let rules = gen::rules(TableKind::Exact, SHAPE_ENTRIES, a.seed);
    let tmpl = template(a.pkt_len)?;
    let trace = pcap_or(ctx, rule_trace(ctx, TableKind::Exact, &rules, &tmpl, a.seed));
    let mut exact = |ctx: &mut Ctx, spec: Spec, trace: &Trace| -> Result<()> {
        let p = run_point(
            ctx,
            &spec,
            &mut |t, i| install_rules(t, i, TableKind::Exact, &rules),
            trace,
            None,
        )?;
        points.push(p);
        ctx.progress.done += 1;
        Ok(())
    };
    for n in tables {
        let spec = Spec {
            series: "tables".into(),
            x: f64::from(n),
            label: format!("{n} exact tables"),
            prog: ProgSpec::exact_chain(n, SHAPE_ENTRIES, 0),
            pkt_len: a.pkt_len,
        };
        exact(ctx, spec, &trace)?;
    }
    for d in data {
        let spec = Spec {
            series: "action-data".into(),
            x: f64::from(d),
            label: format!("action data +{d}B"),
            prog: ProgSpec::exact_chain(1, SHAPE_ENTRIES, d),
            pkt_len: a.pkt_len,
        };
        exact(ctx, spec, &trace)?;
    }
    for len in lens {
        let t = template(len)?;
        let tr = pcap_or(ctx, rule_trace(ctx, TableKind::Exact, &rules, &t, a.seed));
        let spec = Spec {
            series: "packet-size".into(),
            x: f64::from(len + 4),
            label: format!("{}B frames", len + 4),
            prog: ProgSpec::exact_chain(1, SHAPE_ENTRIES, 0),
            pkt_len: len,
        };
        exact(ctx, spec, &tr)?;
    }
    // key segmentation: the same 16-byte keys as one field or four
    let mut rng = Rng::new(a.seed ^ 0x5e6);
    let keys: Vec<u128> = (0..SEG_ENTRIES)
        .map(|_| (u128::from(rng.next_u64()) << 64) | u128::from(rng.next_u64()))
        .collect();
    let pop = Popularity::new(&ctx.traffic, SEG_ENTRIES, &mut rng);
    let c = csum(&tmpl);
    let recs: Vec<u8> = (0..(SEG_ENTRIES * 4))
        .flat_map(|_| gen::seg_record(c, keys[pop.draw(&mut rng)]))
        .collect();
    let seg_trace = pcap_or(ctx, overlay(ctx, recs));
    for (l4, fields) in [(L4::Seg1x16, 1u32), (L4::Seg4x4, 4)] {
        let spec = Spec {
            series: "key-segments".into(),
            x: f64::from(fields),
            label: if fields == 1 {
                "key 1x16B".into()
            } else {
                "key 4x4B".into()
            },
            prog: ProgSpec::segmented(l4, SEG_ENTRIES),
            pkt_len: a.pkt_len,
        };
        let mut install = |t: &mut BenchTarget, i: u32| -> Result<u64> {
            let (action, params) = (fwd_action(t)?, fwd_params(t)?);
            for k in &keys {
                let b = k.to_be_bytes();
                let matches = if fields == 1 {
                    vec![p4dp_rt::MatchField::Exact(b.to_vec())]
                } else {
                    b.chunks(4).map(|c| p4dp_rt::MatchField::Exact(c.to_vec())).collect()
                };
                t.entry_add(
                    i,
                    &TableEntry {
                        matches,
                        priority: 0,
                        action,
                        params: params.clone(),
                    },
                )?;
            }
            Ok(keys.len() as u64)
        };
        let p = run_point(ctx, &spec, &mut install, &seg_trace, None)?;
        points.push(p);
        ctx.progress.done += 1;
    }
    Ok(points)
}

/// Least-squares slope and intercept of the program's cycles/packet over x, for one series.
fn fit(points: &[&Point]) -> Option<(f64, f64)> {
    fit_by(points, |p| p.program)
}

/// Least-squares slope and intercept of `y` over x.
fn fit_by(points: &[&Point], y: impl Fn(&Point) -> f64) -> Option<(f64, f64)> {
    let n = points.len() as f64;
    if points.len() < 2 {
        return None;
    }
    let mx = points.iter().map(|p| p.x).sum::<f64>() / n;
    let my = points.iter().map(|p| y(p)).sum::<f64>() / n;
    let sxx: f64 = points.iter().map(|p| (p.x - mx) * (p.x - mx)).sum();
    let sxy: f64 = points.iter().map(|p| (p.x - mx) * (y(p) - my)).sum();
    if sxx == 0.0 {
        return None;
    }
    let slope = sxy / sxx;
    Some((slope, my - slope * mx))
}

/// Per-table cost (cycles/packet per extra exact table) and the target it is judged against.
const TABLE_TARGET: f64 = 15.0;

/// The latency quantile of a point's quietest bursts (`Point::quiet_burst`).
const QUIET_QUANTILE: f64 = 0.05;
/// Packets per burst in the sweeps: the worker's receive burst, always full with the 4,096
/// packets in circulation (`--packets`).
pub(crate) const SWEEP_BURST: f64 = 32.0;

/// The cost per extra table from the quietest bursts: the slope of `quiet_burst` over the tables
/// series, per packet. Unlike the windows' cycles/packet it leaves out the bursts in which the
/// worker was descheduled or found its caches cold after another process ran, so it stays
/// usable on a loaded machine; it also leaves out the per-burst work outside the program (rx,
/// tx), which is the same for every table count.
fn quiet_table_cost(points: &[Point]) -> Option<f64> {
    let t: Vec<&Point> = points.iter().filter(|p| p.series == "tables").collect();
    if t.iter().any(|p| p.quiet_burst == 0) {
        return None;
    }
    fit_by(&t, |p| p.quiet_burst as f64 / SWEEP_BURST).map(|f| f.0)
}

fn series_names(points: &[Point]) -> Vec<String> {
    let mut v: Vec<String> = Vec::new();
    for p in points {
        if !v.contains(&p.series) {
            v.push(p.series.clone());
        }
    }
    v
}

fn report(ctx: &Ctx, suite: Suite, points: &[Point], cmdline: &str) -> String {
    let a = ctx.a;
    let mut s = String::new();
    let _ = writeln!(s, "p4dp bench --suite {} results", suite.name());
    let _ = writeln!(s, "command: {cmdline}");
    let _ = writeln!(
        s,
        "TSC {:.1} MHz (cycles are TSC cycles), {} CPUs, {} worker(s), {:.2} s window after {:.2} s warm-up, {} \
         repetition(s), medians; traffic {}; seed {}",
        ctx.tsc_hz / 1e6,
        cpus(),
        a.workers,
        ctx.duration,
        ctx.warmup,
        a.repeat,
        ctx.traffic.name(),
        a.seed
    );
    let _ = writeln!(s);
    let _ = writeln!(
        s,
        "{:<22} {:>9} {:>7} {:>9} {:>9} {:>21} {:>8} {:>7} {:>7} {:>7} {:>8}",
        "point",
        "entries",
        "hit %",
        "l2fwd c/p",
        "+overhead",
        "program c/p (min..max)",
        "Mpps",
        "p50",
        "p99",
        "p99.99",
        "max"
    );
    for p in points {
        let q = |i: usize| p.lat.get(i).copied().unwrap_or(0);
        let total = p.hits + p.misses;
        let hit = if total > 0 {
            format!("{:.1}", 100.0 * p.hits as f64 / total as f64)
        } else {
            "-".into()
        };
        let _ = writeln!(
            s,
            "{:<22} {:>9} {:>7} {:>9.1} {:>9.1} {:>7.1} ({:>5.1}..{:>5.1}) {:>8.2} {:>7} {:>7} {:>7} {:>8}",
            p.label,
            p.installed,
            hit,
            p.l2fwd,
            p.overhead(),
            p.program,
            p.program_min,
            p.program_max,
            p.mpps,
            q(0),
            q(4),
            q(8),
            q(QUANTILES.len())
        );
    }
    let _ = writeln!(s);
    if suite == Suite::ProgramShape {
        let t: Vec<&Point> = points.iter().filter(|p| p.series == "tables").collect();
        if let Some((slope, icpt)) = fit(&t) {
            let _ = writeln!(
                s,
                "cost per extra exact table ({SHAPE_ENTRIES} entries each, least squares over 1..16 tables): {slope:.1} \
                 cycles/packet (intercept {icpt:.1}); target <= {TABLE_TARGET:.0}: {} (t4p4s: 57, Scholz et al.)",
                if slope <= TABLE_TARGET { "PASS" } else { "MISS" }
            );
        }
        if let Some(q) = quiet_table_cost(points) {
            let _ = writeln!(
                s,
                "cost per extra exact table from the quietest bursts (slope of the {:.0}th percentile of rx -> tx \
                 burst latency / {SWEEP_BURST:.0} packets): {q:.1} cycles/packet",
                QUIET_QUANTILE * 100.0
            );
        }
        let d: Vec<&Point> = points.iter().filter(|p| p.series == "action-data").collect();
        if let Some((slope, _)) = fit(&d) {
            let _ = writeln!(s, "cost per byte of action data: {slope:.2} cycles/packet");
        }
    } else {
        for name in series_names(points) {
            let v: Vec<&Point> = points.iter().filter(|p| p.series == name).collect();
            if let (Some(f), Some(l)) = (v.first(), v.last()) {
                let _ = writeln!(
                    s,
                    "{name}: {:.1} cycles/packet over the l2fwd floor at {} entries, {:.1} at {}",
                    f.overhead(),
                    f.installed,
                    l.overhead(),
                    l.installed
                );
            }
        }
    }
    acl_report(&mut s, points);
    let skipped: u64 = points.iter().map(|p| p.skipped).sum();
    if skipped > 0 {
        let _ = writeln!(
            s,
            "warning: {skipped} packets did not fit their trace record and were not rewritten"
        );
    }
    let _ = writeln!(
        s,
        "entries: installed in each table; hit %: lookups that hit, over all the program's tables (the traffic is \
         generated to hit; a pcap trace need not)\nl2fwd c/p: the l2fwd floor with the same trace tap (source + latency \
         probe) as the program; +overhead: program - l2fwd floor\np50 .. max: the program's per-packet latency in TSC \
         cycles (rx burst to tx burst, last repetition, log-linear histogram, < 1% error)"
    );
    s
}

/// The rte_acl comparison of the ternary and range points, if any.
fn acl_report(s: &mut String, points: &[Point]) {
    let rows: Vec<(&Point, &AclFigures)> = points.iter().filter_map(|p| p.acl.as_ref().map(|f| (p, f))).collect();
    if rows.is_empty() {
        return;
    }
    let _ = writeln!(
        s,
        "\n{:<22} {:>9} {:>11} {:>13} {:>7} {:>19} {:>19} {:>12}",
        "vs rte_acl",
        "rules",
        "program c/p",
        "rte_acl c/p",
        "ratio",
        "insert us p50/max",
        "delete us p50/max",
        "rebuild ms"
    );
    for (p, f) in &rows {
        let _ = writeln!(
            s,
            "{:<22} {:>9} {:>11.1} {:>13.1} {:>6.2}x {:>9.1}/{:<9.1} {:>9.1}/{:<9.1} {:>12.2}",
            p.label,
            p.installed,
            p.program,
            f.rte_acl,
            p.program / f.rte_acl,
            f.insert.median_us,
            f.insert.max_us,
            f.delete.median_us,
            f.delete.max_us,
            f.rebuild.as_secs_f64() * 1e3
        );
    }
    let _ = writeln!(
        s,
        "rte_acl c/p: the floor with the same trace tap plus one rte_acl_classify per burst of the same rules; ratio: \
         program / rte_acl (target <= {:.0}x for ternary tables of 10k rules); insert/delete: one rule through the \
         control API, deleted from the full table and inserted again, up to {} of each, no traffic running (target < \
         {:.0} us); rebuild: rte_acl adding \
         every rule and building its context, what it needs to change one rule",
        acl::RATIO_TARGET,
        acl::UPDATES,
        acl::UPDATE_TARGET_US
    );
}

fn point_json(p: &Point, tsc_hz: f64) -> Json {
    let mut lat: Vec<(String, Json)> = QUANTILES
        .iter()
        .zip(&p.lat)
        .map(|(q, v)| (format!("p{}", q * 100.0).replace('.', "_"), Json::uint(*v)))
        .collect();
    lat.push(("max".into(), Json::uint(p.lat.last().copied().unwrap_or(0))));
    lat.push(("count".into(), Json::uint(p.lat_count)));
    Json::obj([
        ("series", Json::str(&p.series)),
        ("x", Json::Num(p.x)),
        ("label", Json::str(&p.label)),
        ("entries", Json::uint(p.installed)),
        ("hits", Json::uint(p.hits)),
        ("misses", Json::uint(p.misses)),
        ("l2fwd_cycles_per_pkt", Json::Num(p.l2fwd)),
        ("cycles_per_pkt", Json::Num(p.program)),
        ("cycles_min", Json::Num(p.program_min)),
        ("cycles_max", Json::Num(p.program_max)),
        ("overhead_cycles_per_pkt", Json::Num(p.overhead())),
        ("mpps", Json::Num(p.mpps)),
        ("latency_cycles", Json::Obj(lat)),
        (
            "latency_p50_ns",
            Json::Num(p.lat.first().map_or(f64::NAN, |&c| c as f64 * 1e9 / tsc_hz)),
        ),
        ("l2fwd_latency_p50_cycles", Json::uint(p.l2fwd_p50)),
        ("quiet_burst_cycles", Json::uint(p.quiet_burst)),
        (
            "rte_acl",
            match &p.acl {
                None => Json::Null,
                Some(f) => Json::obj([
                    ("cycles_per_pkt", Json::Num(f.rte_acl)),
                    ("ratio", Json::Num(p.program / f.rte_acl)),
                    ("rebuild_ms", Json::Num(f.rebuild.as_secs_f64() * 1e3)),
                    ("insert_us_p50", Json::Num(f.insert.median_us)),
                    ("insert_us_max", Json::Num(f.insert.max_us)),
                    ("delete_us_p50", Json::Num(f.delete.median_us)),
                    ("delete_us_max", Json::Num(f.delete.max_us)),
                ]),
            },
        ),
    ])
}

/// The plots of a run: (file suffix, plot).
fn plots(suite: Suite, points: &[Point]) -> Vec<(String, Plot)> {
    let series = |name: &str, f: &dyn Fn(&Point) -> f64| Series {
        name: name.into(),
        points: points
            .iter()
            .filter(|p| p.series == name)
            .map(|p| (p.x, f(p)))
            .collect(),
    };
    let mut out = Vec::new();
    match suite {
        Suite::TableKinds => {
            let mut lines: Vec<Series> = series_names(points).iter().map(|n| series(n, &|p| p.program)).collect();
            lines.push(Series {
                name: "l2fwd floor".into(),
                points: points
                    .iter()
                    .filter(|p| Some(&p.series) == points.first().map(|f| &f.series))
                    .map(|p| (p.x, p.l2fwd))
                    .collect(),
            });
            out.push((
                "cycles".into(),
                Plot {
                    title: "cycles/packet against installed entries, per match kind".into(),
                    x_label: "entries".into(),
                    y_label: "cycles/packet".into(),
                    x_scale: Scale::Log2,
                    y_scale: Scale::Log10,
                    series: lines,
                },
            ));
        }
        _ => {
            for (name, x_label) in [
                ("tables", "exact tables applied per packet"),
                ("action-data", "action data bytes (besides the port)"),
                ("packet-size", "frame bytes"),
                ("key-segments", "key fields (16 bytes in all)"),
            ] {
                let prog = series(name, &|p| p.program);
                if prog.points.is_empty() {
                    continue;
                }
                let mut floor = series(name, &|p| p.l2fwd);
                floor.name = "l2fwd floor".into();
                let mut prog = prog;
                prog.name = "program".into();
                out.push((
                    name.into(),
                    Plot {
                        title: format!("cycles/packet: {name}"),
                        x_label: x_label.into(),
                        y_label: "cycles/packet".into(),
                        x_scale: Scale::Linear,
                        y_scale: Scale::Linear,
                        series: vec![prog, floor],
                    },
                ));
            }
        }
    }
    // Latency percentiles: per series, its last point (the largest table / the last shape).
    let mut lat = Vec::new();
    for name in series_names(points) {
        if let Some(p) = points.iter().rev().find(|p| p.series == name) {
            let mut pts: Vec<(f64, f64)> = QUANTILES
                .iter()
                .zip(&p.lat)
                .map(|(q, &v)| (1.0 / (1.0 - q), v as f64))
                .collect();
            if let Some(&m) = p.lat.get(QUANTILES.len()) {
                // the maximum, one decade beyond the last percentile
                pts.push((1e6, m as f64));
            }
            lat.push(Series {
                name: p.label.clone(),
                points: pts,
            });
        }
    }
    out.push((
        "latency".into(),
        Plot {
            title: "per-packet latency percentiles (1/(1-q): 2 = p50, 100 = p99, 10^4 = p99.99, 10^6 = max)".into(),
            x_label: "1/(1 - percentile)".into(),
            y_label: "latency, TSC cycles".into(),
            x_scale: Scale::Log10,
            y_scale: Scale::Log10,
            series: lat,
        },
    ));
    out
}

/// `p4dp bench --suite table-kinds` and `--suite program-shape`.
pub fn suite_sweep(a: &BenchArgs, suite: Suite) -> Result<ExitCode> {
    if a.program.is_some() || a.entries > 0 || a.table.is_some() {
        bail!(
            "--suite {} generates its programs and entries: no PROGRAM, --entries or --table",
            suite.name()
        );
    }
    let max = a.max_log2.unwrap_or(12);
    if max > MAX_LOG2 || a.min_log2 > max {
        bail!("--min-log2/--max-log2 must satisfy min <= max <= {MAX_LOG2}");
    }
    if a.log2_step == 0 {
        bail!("--log2-step must be at least 1");
    }
    kinds(a)?;
    let traffic = Traffic::parse(a.traffic.as_deref().unwrap_or("uniform"))?;
    let pcap = match &traffic {
        Traffic::Pcap(p) => {
            let (t, cut) = traffic::pcap_trace(p, TRACE_MAX as usize)?;
            if cut > 0 {
                eprintln!(
                    "bench: {cut} packets of {} were cut to {} bytes",
                    p.display(),
                    traffic::PCAP_SNAP
                );
            }
            Some(t)
        }
        _ => None,
    };
    let top = if suite == Suite::TableKinds {
        1u64 << max
    } else {
        SEG_ENTRIES
    };
    let packets = a.packets.unwrap_or(4096);
    // TSS nodes of ACL rules take more room than the exact-table estimate: twice the estimate.
    let mem = a
        .mem
        .unwrap_or_else(|| (default_mem(packets, top, a.workers) * 2).min(16384));
    p4dp_rt::Eal::init(&eal_args(mem, a.workers, a.eal.as_deref())).context("starting DPDK's EAL")?;
    let scratch = compile::scratch_dir("bench")?;
    let out_dir = a.build_dir.clone().unwrap_or_else(|| scratch.clone());
    std::fs::create_dir_all(&out_dir).with_context(|| format!("creating {}", out_dir.display()))?;
    let mut ctx = Ctx {
        a,
        out_dir,
        warmup: a.warmup.unwrap_or(0.2),
        duration: a.duration.unwrap_or(0.5),
        traffic,
        pcap,
        tsc_hz: 0.0,
        progress: Progress {
            total: 0,
            done: 0,
            start: Instant::now(),
            tty: std::io::stderr().is_terminal(),
        },
        dispatch: Dispatch::Auto,
    };
    let points = match suite {
        Suite::TableKinds => suite_table_kinds(&mut ctx),
        _ => suite_program_shape(&mut ctx),
    };
    ctx.progress.finish();
    let points = points?;
    let cmdline = std::env::args().collect::<Vec<_>>().join(" ");
    let text = report(&ctx, suite, &points, &cmdline);
    let out = out_path(a, suite);
    if let Some(d) = out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(d).with_context(|| format!("creating {}", d.display()))?;
    }
    let mut files = Vec::new();
    for (what, plot) in plots(suite, &points) {
        let p = svg_path(&out, &what);
        std::fs::write(&p, plot.render()).with_context(|| format!("writing {}", p.display()))?;
        files.push(p);
    }
    let to_stdout = a.json.as_deref().is_some_and(|p| p.as_os_str() == "-");
    if !to_stdout {
        print!("{text}");
    }
    if let Some(j) = &a.json {
        let slope = fit(&points.iter().filter(|p| p.series == "tables").collect::<Vec<_>>());
        let mut settings = super::common_settings(a);
        if let Json::Obj(v) = &mut settings {
            // the sweeps' own defaults of the window and warm-up
            for (k, val) in v.iter_mut() {
                match k.as_str() {
                    "duration_s" => *val = Json::Num(ctx.duration),
                    "warmup_s" => *val = Json::Num(ctx.warmup),
                    _ => {}
                }
            }
            v.push(("traffic".into(), Json::str(ctx.traffic.name())));
        }
        let doc = json::document(
            Some(suite.name()),
            ctx.tsc_hz,
            settings,
            Json::obj([
                (
                    "points",
                    Json::Arr(points.iter().map(|p| point_json(p, ctx.tsc_hz)).collect()),
                ),
                (
                    "plots",
                    Json::Arr(files.iter().map(|f| Json::str(f.display().to_string())).collect()),
                ),
            ]),
            Json::obj([
                ("points", Json::uint(points.len() as u64)),
                ("cycles_per_extra_table", Json::opt(slope.map(|s| s.0))),
                ("cycles_per_extra_table_target", Json::Num(TABLE_TARGET)),
                (
                    "cycles_per_extra_table_quiet_bursts",
                    Json::opt(if suite == Suite::ProgramShape {
                        quiet_table_cost(&points)
                    } else {
                        None
                    }),
                ),
            ]),
        );
        json::emit(j, &doc)?;
    }
    std::fs::write(&out, &text).with_context(|| format!("writing {}", out.display()))?;
    eprintln!(
        "bench: results written to {}; plots: {}",
        out.display(),
        files
            .iter()
            .map(|f| f.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    );
    if a.build_dir.is_none() {
        let _ = std::fs::remove_dir_all(&scratch);
    }
    Ok(ExitCode::SUCCESS)
}
