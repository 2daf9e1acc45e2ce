//! `p4dp calibrate`: measures this machine with the bench sweeps' machinery (generated programs,
//! the trace tap, per-point l2fwd floors; crate::bench::sweep) and writes the profile `p4dp
//! model` costs programs with (docs/model.md).

use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context, Result};
use p4dp_rt::bench::BenchTarget;

use super::cost::{predict, ProgramUse, TableUse};
use super::measure::{median, median_line, settle, Settled};
use super::predict::footprint;
use super::profile::{
    fit_line, fit_penalties, lookup_cost, miss_scale, past_l2_cycles, Caches, KindCost, Machine, Popularity, Profile,
    SizePoint, Tlb, TupleSet, TupleSets, WorkerCost, TLB, UNSTAGED_SCALE_MAX,
};
use super::tlb;
use super::tuples::{rule_set_stats, TupleStats};
use super::{bench_args, CalibrateArgs};
use crate::bench::gen::{self, Externs, ProgSpec, TableKind};
use crate::bench::sweep::{install_rules, measure_so, rule_trace, Ctx, Spec};
use crate::bench::traffic::Traffic;
use crate::bench::{cpus, default_mem, eal_args, template};
use crate::CompileOpts;

/// One cache size from sysfs (`/sys/devices/system/cpu/cpu0/cache/index*`): the data or unified
/// cache of `level`, in bytes.
fn sysfs_cache(level: u32) -> Option<u64> {
    let base = Path::new("/sys/devices/system/cpu/cpu0/cache");
    for e in std::fs::read_dir(base).ok()?.flatten() {
        let p = e.path();
        let read = |f: &str| std::fs::read_to_string(p.join(f)).ok().map(|s| s.trim().to_string());
        // entries that are not cache indexes (uevent) have no level
        let (Some(l), Some(t), Some(sz)) = (read("level"), read("type"), read("size")) else {
            continue;
        };
        if l.parse::<u32>().ok() == Some(level) && t != "Instruction" {
            return parse_size(&sz);
        }
    }
    None
}

/// sysfs' cache size: `32K`, `512K`, `32768K`, `8M`.
pub fn parse_size(s: &str) -> Option<u64> {
    let s = s.trim();
    let (n, mult) = match s.chars().last()? {
        'K' | 'k' => (&s[..s.len() - 1], 1u64 << 10),
        'M' | 'm' => (&s[..s.len() - 1], 1 << 20),
        'G' | 'g' => (&s[..s.len() - 1], 1 << 30),
        _ => (s, 1),
    };
    n.parse::<u64>().ok().map(|v| v * mult)
}

/// The machine's caches; levels sysfs does not give take common sizes (and say so).
pub fn caches() -> Caches {
    let l1d = sysfs_cache(1);
    let l2 = sysfs_cache(2);
    let llc = sysfs_cache(3);
    if l1d.is_none() || l2.is_none() || llc.is_none() {
        eprintln!("calibrate: sysfs gives no size for some cache levels; assuming 32 KiB / 1 MiB / 32 MiB for those");
    }
    let l1d = l1d.unwrap_or(32 << 10);
    let l2 = l2.unwrap_or(1 << 20).max(l1d);
    let llc = llc.unwrap_or(32 << 20).max(l2);
    Caches { l1d, l2, llc }
}

fn first_line(path: &str) -> String {
    std::fs::read_to_string(path)
        .ok()
        .and_then(|s| s.lines().next().map(str::to_string))
        .unwrap_or_default()
}

/// `/proc/loadavg`'s one-minute load.
pub fn load_avg() -> f64 {
    first_line("/proc/loadavg")
        .split_whitespace()
        .next()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0.0)
}

fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|m| m.trim().to_string())
        })
        .unwrap_or_else(|| "unknown".into())
}

/// The measurement plan: sizes per kind, windows and repetitions.
struct Plan {
    sizes: Vec<(TableKind, Vec<u32>)>,
    /// Tuple-space kinds: the rule sets (log2 of the rules, the traffic) whose lookups the cost
    /// per tab and per probe is fitted over (model/profile.rs `tuple_cost`); the uniform ones
    /// are also the kind's points by entries.
    tuple_sets: Vec<(TableKind, Vec<(u32, Traffic)>)>,
    chain: Vec<u32>,
    repeat: u32,
    warmup: f64,
    duration: f64,
}

fn plan(quick: bool) -> Plan {
    if quick {
        Plan {
            sizes: vec![(TableKind::Exact, vec![4, 16]), (TableKind::Lpm, vec![4])],
            tuple_sets: vec![(TableKind::Ternary, vec![(4, Traffic::Uniform)])],
            chain: vec![1, 3],
            repeat: 1,
            warmup: 0.05,
            duration: 0.1,
        }
    } else {
        Plan {
            sizes: vec![
                (TableKind::Exact, vec![2, 8, 12, 15, 18, 20]),
                (TableKind::Lpm, vec![2, 8, 12, 16, 18]),
            ],
            tuple_sets: [TableKind::Ternary, TableKind::Range, TableKind::Optional]
                .into_iter()
                .map(|k| (k, tuple_sets()))
                .collect(),
            chain: vec![1, 2, 4, 8],
            repeat: REPEAT,
            warmup: WARMUP,
            duration: WINDOW,
        }
    }
}

/// The rule sets of each tuple-space kind: 2^2 .. 2^10 rules under uniform traffic, and 2^5,
/// 2^8 and 2^10 (other rules) under Zipf 1.1 traffic, whose hits gather on a few rules.
fn tuple_sets() -> Vec<(u32, Traffic)> {
    let mut v: Vec<(u32, Traffic)> = (2..=10).map(|l| (l, Traffic::Uniform)).collect();
    v.extend([5, 8, 10].map(|l| (l, Traffic::Zipf(1.1))));
    v
}

/// One measured rule set: its rules, traffic, what its lookups do, and its measurement.
type TuplePoint = (u64, Traffic, TupleStats, Settled);

/// Seeds of a calibration rule set of `n` rules and of its trace: uniform traffic takes the
/// rules of the kinds' points by entries, skewed traffic others.
fn set_seeds(n: u64, traffic: &Traffic) -> (u64, u64) {
    match traffic {
        Traffic::Uniform => (7 + n, 11 + n),
        _ => (13 + n, 17 + n),
    }
}

/// Bytes of the generated programs' key of `kind` (native layout: each field in 1, 2, 4 bytes).
fn key_len(kind: TableKind) -> u32 {
    gen::widths(kind)
        .iter()
        .map(|w| w.div_ceil(8).next_power_of_two())
        .sum()
}

/// Action data of the generated `fwd(bit<9> port)`.
const FWD_DATA: u32 = 2;
/// Entries of the tables in the shape measurements (cache-resident).
pub(crate) const SHAPE_ENTRIES: u64 = 256;

/// Measures one calibration point: `prog` compiled once, `n` entries of `kind` installed,
/// measured until its pairs agree (model/measure.rs `settle`) over `floor` (the quietest floor
/// window so far, lowered by this point's).
#[allow(clippy::too_many_arguments)]
fn measure(
    ctx: &mut Ctx,
    dir: &Path,
    label: &str,
    prog: ProgSpec,
    kind: TableKind,
    n: u64,
    floor: &mut f64,
    once: bool,
) -> Result<Settled> {
    measure_set(ctx, dir, label, prog, kind, n, &Traffic::Uniform, floor, once)
}

/// `measure` with the rules and trace of `set_seeds(n, traffic)` under `traffic`.
#[allow(clippy::too_many_arguments)]
fn measure_set(
    ctx: &mut Ctx,
    dir: &Path,
    label: &str,
    prog: ProgSpec,
    kind: TableKind,
    n: u64,
    traffic: &Traffic,
    floor: &mut f64,
    once: bool,
) -> Result<Settled> {
    let (rules_seed, trace_seed) = set_seeds(n, traffic);
    let rules = gen::rules(kind, n, rules_seed);
    let tmpl = template(60)?;
    ctx.set_traffic(traffic.clone());
    let trace = rule_trace(ctx, kind, &rules, &tmpl, trace_seed);
    ctx.set_traffic(Traffic::Uniform);
    let spec = Spec {
        series: kind.name().into(),
        x: n as f64,
        label: label.into(),
        prog,
        pkt_len: 60,
    };
    let tables = spec.prog.tables.len() as u32;
    let name = label.replace([' ', '^', '/', '(', ')', ','], "_");
    let src = dir.join(format!("{name}.p4"));
    std::fs::write(&src, spec.prog.source()).with_context(|| format!("writing {}", src.display()))?;
    let co = CompileOpts {
        program: src.clone(),
        include: Vec::new(),
        define: Vec::new(),
    };
    let so = crate::compile::build(&co, &dir.join(&name), false)
        .with_context(|| format!("compiling the generated {}", src.display()))?
        .so_path;
    let s = settle(*floor, once, || {
        measure_so(
            ctx,
            &spec,
            &so,
            tables,
            &mut |t: &mut BenchTarget, i| install_rules(t, i, kind, &rules),
            &trace,
            None,
        )
    })?;
    ctx.point_done();
    *floor = floor.min(s.window_floor);
    Ok(s)
}

/// Repetitions (each an l2fwd floor window then a program window), warm-up and window seconds
/// of every measured point, the same in `p4dp calibrate` and `p4dp model --check` so that both
/// sides take the same statistic: seven short pairs, whose median leaves out three disturbed
/// ones (five left out two, and the same point moved by a quarter between sittings at load 14).
pub const REPEAT: u32 = 7;
pub const WARMUP: f64 = 0.2;
pub const WINDOW: f64 = 0.3;

/// What a second worker costs each worker, from (table applications per packet, burst
/// overhead with 2 workers less with 1): the line by medians (model/measure.rs `median_line`:
/// one disturbed pair does not tilt it), its slope (per application) held at 0 or more (then
/// the intercept is the median).
pub fn worker_cost(diffs: &[(f64, f64)]) -> WorkerCost {
    let (a, b) = median_line(diffs);
    let (a, b) = if b < 0.0 {
        (median(&diffs.iter().map(|d| d.1).collect::<Vec<_>>()), 0.0)
    } else {
        (a, b)
    };
    WorkerCost {
        workers: 2,
        per_packet: a,
        per_apply: b,
    }
}

/// The part of a table's calibrated cost that further tables do not pay: its cost (`one`, over
/// the program without tables) less what each further table adds (`slope`), within [0, one].
/// N tables then cost `one + (N - 1) · slope`.
pub fn tables_fixed(one: f64, slope: f64) -> f64 {
    (one - slope).clamp(0.0, one.max(0.0))
}

/// What the cache model gives `n` exact tables of SHAPE_ENTRIES entries sharing the caches
/// beyond `n` lone ones (cycles/packet): n × (a lookup's cost with a 1/n share of each level
/// less its cost alone), as `p4dp model` costs such a program with `p`'s penalties.
pub fn shared_misses(p: &Profile, n: f64) -> f64 {
    let Some(k) = p.kind("exact") else { return 0.0 };
    let t = footprint("exact", SHAPE_ENTRIES, key_len(TableKind::Exact), FWD_DATA).touch(SHAPE_ENTRIES);
    let cost = |share: f64| lookup_cost(p, k, SHAPE_ENTRIES, &t, Popularity::Uniform, share).0;
    n * (cost(1.0 / n.max(1.0)) - cost(1.0))
}

/// The cost of one more cache-resident exact table: the slope, by medians, over the 1..N tables
/// programs (`chain`: tables, cycles/packet) of what is left when the cache model's shared misses
/// (`shared_misses`) are taken out, held at 0 or more; and those shared misses per point. The
/// model adds the shared misses to every program of several tables; a slope that held them too
/// counted them twice (8 tables of 2^8 entries came out 17 % high, 2026-11-27).
pub fn chain_slope(p: &Profile, chain: &[(f64, f64)]) -> (f64, Vec<f64>) {
    let shared: Vec<f64> = chain.iter().map(|&(n, _)| shared_misses(p, n)).collect();
    let xy: Vec<(f64, f64)> = chain.iter().zip(&shared).map(|(&(n, c), x)| (n, c - x)).collect();
    (median_line(&xy).1.max(0.0), shared)
}

/// Tables and entries of the exact chain whose later tables, not staged, fit
/// `unstaged_miss_scale`: the first table is staged, the others are below the runtime's staging
/// threshold, and eight tables of 2^14 share L2 so that each misses it on most lookups. Their
/// misses past L2 come to tens of cycles with the penalties of a profile at rest (one such table
/// beside one other gave 3, which a few cycles of noise swamp).
pub const UNSTAGED_TABLES: u32 = 8;
pub const UNSTAGED_ENTRIES: u64 = 1 << 14;

/// The model's input for `ProgSpec::exact_chain(tables, n, 0)` under uniform traffic, all hits:
/// the first table staged, the later ones staged or not.
fn exact_chain_use(tables: u32, n: u64, later_staged: bool) -> ProgramUse {
    let touched = footprint("exact", n, key_len(TableKind::Exact), FWD_DATA);
    let t = |i: u32| TableUse {
        name: format!("t{i}"),
        kind: "exact".into(),
        entries: n,
        touch: touched.touch(n),
        memory_bytes: touched.bytes,
        storage: String::new(),
        applies: 1.0,
        hit_ratio: 1.0,
        extra_data_bytes: 0.0,
        counters: 0.0,
        registers: 0.0,
        tuples: None,
        staged: i == 0 || later_staged,
    };
    ProgramUse {
        headers: 3,
        tables: (0..tables).map(t).collect(),
        workers: 1,
        popularity: Popularity::Uniform,
    }
}

/// The chain the unstaged factor is fitted on, its later tables staged or not.
fn unstaged_use(later_staged: bool) -> ProgramUse {
    exact_chain_use(UNSTAGED_TABLES, UNSTAGED_ENTRIES, later_staged)
}

/// `Profile::unstaged_miss_scale` from `measured` (cycles/packet of the chain of
/// `UNSTAGED_TABLES` tables of `UNSTAGED_ENTRIES`, floor included) with `p`'s other figures, the
/// runtime staging tables from `stage_min` entries: 1 plus what the model with a factor of 1
/// leaves unexplained over the later tables' misses past L2, within [1, UNSTAGED_SCALE_MAX]; 1
/// when those misses are under 2 cycles (too few to scale) or the later tables are staged.
/// Returns the factor, those miss cycles and the factor before it was held within its bounds.
pub fn unstaged_scale(p: &Profile, measured: f64, stage_min: u64) -> (f64, f64, f64) {
    let mut one = p.clone();
    one.unstaged_miss_scale = 1.0;
    let u = unstaged_use(UNSTAGED_ENTRIES >= stage_min);
    let (Some(k), Ok(r)) = (p.kind("exact"), predict(&one, &u)) else {
        return (1.0, 0.0, 1.0);
    };
    let t = &u.tables[1];
    let share = 1.0 / f64::from(UNSTAGED_TABLES);
    let m = lookup_cost(&one, k, t.entries, &t.touch, Popularity::Uniform, share).1;
    let alone = f64::from(UNSTAGED_TABLES - 1) * miss_scale(&one, k) * past_l2_cycles(&one, &m);
    if t.staged || alone < 2.0 {
        return (1.0, alone, 1.0);
    }
    let raw = 1.0 + (measured - r.cycles) / alone;
    (raw.clamp(1.0, UNSTAGED_SCALE_MAX), alone, raw)
}

/// How many times `calibrate` measures the sizes and the tables while they disagree with
/// themselves (`consistent`).
const CALIBRATE_ATTEMPTS: u32 = 3;

/// Whether two measurements of one program, cycles/packet over the floor, agree: within 15 %
/// of the smaller or 8 cycles/packet, the larger. A calibration on a steady machine measured the
/// exact table of SHAPE_ENTRIES 83.9 and 83.6 (series, then chain); one whose first minutes a
/// disturbance took measured 132.7 and 84.2, and its profile missed the check suite by a median
/// of 19 % where the other's met it with 2.4 %.
pub fn consistent(a: f64, b: f64) -> bool {
    (a - b).abs() <= (0.15 * a.min(b)).max(8.0)
}

/// What `calibrate` does after an attempt at the sizes and the tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Retry {
    /// Keep them: the two measurements of one exact table agree, or one of them is missing
    /// (`--quick` measures no exact table of SHAPE_ENTRIES).
    Keep,
    /// Measure them again.
    Again,
    /// Keep the last attempt with a warning: they disagreed CALIBRATE_ATTEMPTS times.
    GiveUp,
}

/// The exact series' and the chain's measurement of one exact table of SHAPE_ENTRIES (cycles/
/// packet over the floor) after attempt `attempt` (from 1).
fn retry(series: Option<f64>, chain_one: Option<f64>, attempt: u32) -> Retry {
    match (series, chain_one) {
        (Some(a), Some(b)) if !consistent(a, b) => {
            if attempt >= CALIBRATE_ATTEMPTS {
                Retry::GiveUp
            } else {
                Retry::Again
            }
        }
        _ => Retry::Keep,
    }
}

/// Tables of the worker-cost programs (cache-resident exact tables of SHAPE_ENTRIES).
const WORKER_TABLES: [u32; 2] = [1, 4];

/// Each kind's name with its measured points mapped by `point` (given the kind and one point).
fn per_kind<'a, P, Q>(
    rows: &'a [(TableKind, Vec<P>)],
    point: impl Fn(TableKind, &'a P) -> Q + 'a,
) -> impl Iterator<Item = (String, Vec<Q>)> + 'a {
    rows.iter()
        .map(move |(kind, pts)| (kind.name().into(), pts.iter().map(|p| point(*kind, p)).collect()))
}

pub fn calibrate(a: CalibrateArgs) -> Result<ExitCode> {
    let pl = plan(a.quick);
    let load_before = load_avg();
    // the TLB first, before the EAL's threads exist
    let (tlb_fit, tlb_pts) = tlb::measure(a.quick);
    for (n, d) in &tlb_pts {
        eprintln!("calibrate: pointer chase over {n:.0} pages: {d:.1} cycles per load over the packed chase");
    }
    let workers = if cpus() >= 2 { 2 } else { 1 };
    let top = pl.sizes.iter().flat_map(|(_, s)| s.iter()).max().copied().unwrap_or(4);
    let mem = (default_mem(4096, 1 << top, workers) * 2).min(16384);
    p4dp_rt::Eal::init(&eal_args(mem, workers, a.eal.as_deref())).context("starting DPDK's EAL")?;
    let scratch = crate::compile::temp_dir("calibrate")?;
    let out_dir = a.build_dir.clone().unwrap_or_else(|| scratch.path().to_path_buf());
    std::fs::create_dir_all(&out_dir).with_context(|| format!("creating {}", out_dir.display()))?;
    let common = |w: u32| -> Result<crate::bench::BenchArgs> {
        bench_args(&[
            "--workers".into(),
            w.to_string(),
            "--repeat".into(),
            pl.repeat.to_string(),
        ])
    };
    let a1 = common(1)?;
    let total = 2
        + pl.sizes.iter().map(|(_, s)| s.len()).sum::<usize>()
        + pl.tuple_sets.iter().map(|(_, s)| s.len()).sum::<usize>()
        + pl.chain.len()
        + 4;
    let mut ctx = Ctx::new(&a1, out_dir.clone(), Traffic::Uniform, pl.warmup, pl.duration, total);

    // the quietest floor window so far (what a point's pairs are judged against)
    let mut floor = f64::INFINITY;
    let once = a.quick;
    let dir = out_dir.as_path();
    // The base programs, the kinds' sizes and the 1..N exact tables, measured again while the
    // one exact table of SHAPE_ENTRIES, which the exact sizes and the chain both measure
    // minutes apart (the tuple-space sets between them), disagrees with itself: the machine
    // changed under the calibration (`consistent`).
    let mut tuple_done: Option<(Vec<(TableKind, Vec<TuplePoint>)>, Vec<(TableKind, Vec<(u64, f64)>)>)> = None;
    let remeasured = 2 + pl.sizes.iter().map(|(_, s)| s.len()).sum::<usize>() + pl.chain.len();
    let mut attempt = 0;
    let (base, more_h, kind_points, chain) = loop {
        attempt += 1;
        // base program (3 headers, no table) and the same with 4 more headers
        let base = measure(
            &mut ctx,
            dir,
            "no table",
            ProgSpec::exact_chain(0, 1, 0),
            TableKind::Exact,
            16,
            &mut floor,
            once,
        )?;
        let mut more = ProgSpec::exact_chain(0, 1, 0);
        more.extra_headers = 4;
        let more_h = measure(
            &mut ctx,
            dir,
            "no table, 7 headers",
            more,
            TableKind::Exact,
            16,
            &mut floor,
            once,
        )?;

        let mut kind_points: Vec<(TableKind, Vec<(u64, Settled)>)> = Vec::new();
        for (kind, sizes) in &pl.sizes {
            let mut points = Vec::new();
            for &l in sizes {
                let n = 1u64 << l;
                let p = measure(
                    &mut ctx,
                    dir,
                    &format!("{} 2^{l}", kind.name()),
                    ProgSpec::kind(*kind, n),
                    *kind,
                    n,
                    &mut floor,
                    once,
                )?;
                points.push((n, p));
            }
            kind_points.push((*kind, points));
        }
        if tuple_done.is_none() {
            // tuple-space kinds: rule sets, with what their lookups do (the model's replay of the
            // classifier over the same trace)
            let mut tuple_points: Vec<(TableKind, Vec<TuplePoint>)> = Vec::new();
            let mut by_entries_acl: Vec<(TableKind, Vec<(u64, f64)>)> = Vec::new();
            for (kind, sets) in &pl.tuple_sets {
                let mut points = Vec::new();
                let mut by_entries = Vec::new();
                for (l, traffic) in sets {
                    let n = 1u64 << l;
                    let (rules_seed, trace_seed) = set_seeds(n, traffic);
                    let stats = rule_set_stats(*kind, &gen::rules(*kind, n, rules_seed), traffic, trace_seed)
                        .context("a tuple-space rule set the model cannot replay")?;
                    let p = measure_set(
                        &mut ctx,
                        dir,
                        &format!("{} 2^{l} {}", kind.name(), traffic.name()),
                        ProgSpec::kind(*kind, n),
                        *kind,
                        n,
                        traffic,
                        &mut floor,
                        once,
                    )?;
                    eprintln!(
                        "calibrate: {} 2^{l} {}: {:.1} cycles/packet over the floor; {:.0} tabs, {:.2} probes, {:.2} checks per lookup",
                        kind.name(),
                        traffic.name(),
                        p.overhead(),
                        stats.passes,
                        stats.probes,
                        stats.checks
                    );
                    if *traffic == Traffic::Uniform {
                        by_entries.push((n, p.overhead()));
                    }
                    points.push((n, traffic.clone(), stats, p));
                }
                by_entries_acl.push((*kind, by_entries));
                tuple_points.push((*kind, points));
            }

            tuple_done = Some((tuple_points, by_entries_acl));
        }
        let mut chain = Vec::new();
        for &n in &pl.chain {
            let p = measure(
                &mut ctx,
                dir,
                &format!("{n} exact tables"),
                ProgSpec::exact_chain(n, SHAPE_ENTRIES, 0),
                TableKind::Exact,
                SHAPE_ENTRIES,
                &mut floor,
                once,
            )?;
            chain.push((f64::from(n), p));
        }
        let series = kind_points
            .iter()
            .find(|(k, _)| *k == TableKind::Exact)
            .and_then(|(_, v)| v.iter().find(|(n, _)| *n == SHAPE_ENTRIES))
            .map(|(_, p)| p.overhead());
        let one = chain.first().map(|(_, p)| p.overhead());
        match (series, one, retry(series, one, attempt)) {
            (Some(a), Some(b), Retry::Again) => {
                eprintln!(
                    "calibrate: one exact table of {SHAPE_ENTRIES} measured {a:.1} and then {b:.1} cycles/packet over the floor: the machine changed; measuring the sizes and the tables again"
                );
                ctx.add_points(remeasured);
                continue;
            }
            (Some(a), Some(b), Retry::GiveUp) => eprintln!(
                "calibrate: warning: one exact table of {SHAPE_ENTRIES} measured {a:.1} and then {b:.1} cycles/packet over the floor in {attempt} attempts: the machine is not steady, and this profile's figures may not hold; run it again when it is quieter"
            ),
            _ => {}
        }
        break (base, more_h, kind_points, chain);
    };
    let (tuple_points, by_entries_acl) = tuple_done.unwrap_or_default();
    // tables past L2 together, the later ones looked up one packet at a time (below the
    // runtime's staging threshold): what misses cost a table that is not staged
    let unstaged = measure(
        &mut ctx,
        dir,
        "8 exact tables 2^14, the later ones not staged",
        ProgSpec::exact_chain(UNSTAGED_TABLES, UNSTAGED_ENTRIES, 0),
        TableKind::Exact,
        UNSTAGED_ENTRIES,
        &mut floor,
        once,
    )?;
    let data = measure(
        &mut ctx,
        dir,
        "action data +32B",
        ProgSpec::exact_chain(1, SHAPE_ENTRIES, 32),
        TableKind::Exact,
        SHAPE_ENTRIES,
        &mut floor,
        once,
    )?;
    let with = |ctx: &mut Ctx, floor: &mut f64, label: &str, e: Externs| -> Result<Settled> {
        let mut s = ProgSpec::exact_chain(1, SHAPE_ENTRIES, 0);
        s.externs = e;
        measure(ctx, dir, label, s, TableKind::Exact, SHAPE_ENTRIES, floor, once)
    };
    let counter = with(
        &mut ctx,
        &mut floor,
        "counter",
        Externs {
            counter: true,
            register: false,
        },
    )?;
    let register = with(
        &mut ctx,
        &mut floor,
        "register",
        Externs {
            counter: false,
            register: true,
        },
    )?;
    ctx.finish();
    let tsc_hz = ctx.tsc_hz;

    // two workers against one, alternated (twice each), on programs of 1 and 4 tables: what a
    // second worker adds to each worker's bursts, per packet and per table application
    let mut worker_cost_v = Vec::new();
    if workers == 2 {
        let a2 = common(2)?;
        let mut diffs = Vec::new();
        for round in 0..2 {
            for tables in WORKER_TABLES {
                let mut one = 0.0;
                for w in [1u32, 2] {
                    let aw = if w == 1 { &a1 } else { &a2 };
                    let mut cw = Ctx::new(aw, out_dir.clone(), Traffic::Uniform, pl.warmup, pl.duration, 1);
                    let p = measure(
                        &mut cw,
                        dir,
                        &format!("{tables} exact table(s), {w} worker(s), round {}", round + 1),
                        ProgSpec::exact_chain(tables, SHAPE_ENTRIES, 0),
                        TableKind::Exact,
                        SHAPE_ENTRIES,
                        &mut floor,
                        once,
                    )?;
                    cw.finish();
                    if w == 1 {
                        one = p.overhead();
                    } else {
                        diffs.push((f64::from(tables), p.overhead() - one));
                    }
                }
            }
        }
        for (t, d) in &diffs {
            eprintln!("calibrate: 2 workers, {t} table(s): {d:+.1} cycles/packet over 1 worker");
        }
        worker_cost_v.push(worker_cost(&diffs));
    }

    // the reference floor: the quietest of every point's floor windows
    let mut every: Vec<&Settled> = vec![&base, &more_h, &unstaged, &data, &counter, &register];
    every.extend(kind_points.iter().flat_map(|(_, v)| v.iter().map(|x| &x.1)));
    every.extend(tuple_points.iter().flat_map(|(_, v)| v.iter().map(|x| &x.3)));
    every.extend(chain.iter().map(|c| &c.1));
    let floor = every
        .iter()
        .map(|p| p.window_floor)
        .filter(|&f| f > 0.0)
        .fold(f64::INFINITY, f64::min);
    let floor = if floor.is_finite() { floor } else { 0.0 };
    let ovh = |p: &Settled| p.overhead();
    let base_ovh = ovh(&base);
    let per_header = (ovh(&more_h) - base_ovh) / 4.0;
    let by_entries: Vec<(TableKind, Vec<(u64, f64)>)> = kind_points
        .iter()
        .map(|(k, v)| (*k, v.iter().map(|(n, p)| (*n, ovh(p))).collect()))
        .chain(by_entries_acl)
        .collect();
    let kinds: Vec<KindCost> = per_kind(&by_entries, |kind, &(n, o)| {
        let touched = footprint(kind.name(), n, key_len(kind), FWD_DATA);
        SizePoint {
            entries: n,
            footprint_bytes: touched.bytes,
            tlb_bytes: touched.tlb_bytes,
            cycles: (o - base_ovh).max(0.0),
        }
    })
    .map(|(kind, points)| KindCost { kind, points })
    .collect();
    let tuple_sets: Vec<TupleSets> = per_kind(&tuple_points, |_, (n, traffic, st, p)| TupleSet {
        entries: *n,
        zipf: match traffic {
            Traffic::Zipf(s) => *s,
            _ => 0.0,
        },
        tabs: st.passes,
        probes: st.probes,
        checks: st.checks,
        cycles: (ovh(p) - base_ovh).max(0.0),
    })
    .map(|(kind, sets)| TupleSets { kind, sets })
    .collect();
    let chain_xy: Vec<(f64, f64)> = chain.iter().map(|(n, p)| (*n, ovh(p))).collect();
    let one_table = chain_xy.first().map_or(0.0, |c| c.1);
    let exact_at_shape = kinds
        .iter()
        .find(|k| k.kind == "exact")
        .map(|k| super::profile::interpolate(&k.points, SHAPE_ENTRIES))
        .unwrap_or((one_table - base_ovh).max(0.0));
    let per_byte = ((ovh(&data) - one_table) / 32.0).max(0.0);
    let counter_c = (ovh(&counter) - one_table).max(0.0);
    let register_c = (ovh(&register) - one_table).max(0.0);

    // median latency against cycles/packet (the reference floor plus the burst overhead), over
    // every point's program and l2fwd loop
    let mut lat: Vec<(f64, f64)> = every
        .iter()
        .map(|p| (floor + p.overhead(), p.point.program_p50))
        .collect();
    lat.extend(every.iter().map(|p| (floor, p.point.l2fwd_p50 as f64)));
    let (lat_base, lat_per) = fit_line(&lat);

    let caches = caches();
    let tlb_prof = Tlb {
        page_bytes: tlb::PAGE as u64,
        reach_pages: tlb_fit.reach_pages,
        walk_latency_cycles: tlb_fit.walk_cycles,
    };
    let exact = kinds
        .iter()
        .find(|k| k.kind == "exact")
        .map(|k| k.points.clone())
        .unwrap_or_default();
    let mut prof = Profile {
        machine: Machine {
            cpu_model: cpu_model(),
            cpus: cpus(),
            tsc_hz,
            hostname: first_line("/proc/sys/kernel/hostname"),
            kernel: first_line("/proc/sys/kernel/osrelease"),
            measured_at: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs()),
            load_before,
            load_after: load_avg(),
        },
        quick: a.quick,
        miss_penalty: fit_penalties(&caches, &tlb_prof, &exact),
        unstaged_miss_scale: 1.0,
        tlb: tlb_prof,
        caches,
        floor_cycles: floor,
        base_cycles: base_ovh,
        base_headers: 3,
        parse_cycles_per_header: per_header,
        table_apply_cycles: 0.0,
        tables_fixed_cycles: 0.0,
        action_data_cycles_per_byte: per_byte,
        counter_cycles: counter_c,
        register_cycles: register_c,
        kinds,
        tuple_sets,
        latency_base: lat_base,
        latency_per_cycle: lat_per.max(0.0),
        worker_cost: worker_cost_v,
    };
    // the slope over 1..N tables, of what the cache model does not already give N tables
    // sharing the caches (the model adds that to every program of several tables)
    let (apply, shared) = chain_slope(&prof, &chain_xy);
    for ((n, c), x) in chain_xy.iter().zip(&shared) {
        eprintln!(
            "calibrate: {n} exact tables: {c:.1} cycles/packet over the floor, {x:.1} of them shared-cache misses"
        );
    }
    prof.table_apply_cycles = apply;
    // the first table's share that the next ones do not pay: a table of SHAPE_ENTRIES as the
    // exact sizes measured it, less what each further table adds (the line's slope), so that
    // N such tables cost the first one plus N - 1 slopes (the model costs a table as its lookup
    // less this part, and a packet pays it once); within what one table costs
    prof.tables_fixed_cycles = tables_fixed(exact_at_shape, apply);
    // the unstaged factor last: it explains what the rest leaves of the chain's cost
    let (scale, alone, raw) = unstaged_scale(&prof, floor + ovh(&unstaged), p4dp_rt::stage_ahead_min_entries());
    let held = if raw == scale {
        String::new()
    } else {
        format!(" (the fit {raw:.2}x, held within 1..={UNSTAGED_SCALE_MAX})")
    };
    eprintln!(
        "calibrate: {UNSTAGED_TABLES} exact tables of 2^14: {:.1} cycles/packet over the floor, the later tables' misses past L2 {alone:.1} cycles staged, {scale:.2}x not staged{held}",
        ovh(&unstaged),
    );
    prof.unstaged_miss_scale = scale;
    if let Some(d) = a.out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(d).with_context(|| format!("creating {}", d.display()))?;
    }
    std::fs::write(&a.out, prof.to_json().render()).with_context(|| format!("writing {}", a.out.display()))?;
    print!("{}", summary(&prof));
    eprintln!("calibrate: profile written to {}", a.out.display());
    Ok(ExitCode::SUCCESS)
}

/// What the profile says, for the terminal.
pub fn summary(p: &Profile) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "machine: {} ({} CPUs, TSC {:.2} GHz), load {:.1} → {:.1}{}",
        p.machine.cpu_model,
        p.machine.cpus,
        p.machine.tsc_hz / 1e9,
        p.machine.load_before,
        p.machine.load_after,
        if p.quick { ", quick" } else { "" }
    );
    let _ = writeln!(
        s,
        "caches: L1d {} KiB, L2 {} KiB, LLC {} KiB",
        p.caches.l1d >> 10,
        p.caches.l2 >> 10,
        p.caches.llc >> 10
    );
    let _ = writeln!(
        s,
        "floor {:.1}, base program {:.1} ({} headers, {:.1} per header), extra table {:.1} (first one {:.1} more), action data {:.2}/byte, counter {:.1}, register {:.1} cycles/packet",
        p.floor_cycles,
        p.base_cycles,
        p.base_headers,
        p.parse_cycles_per_header,
        p.table_apply_cycles,
        p.tables_fixed_cycles,
        p.action_data_cycles_per_byte,
        p.counter_cycles,
        p.register_cycles
    );
    for k in &p.kinds {
        let pts: Vec<String> = k
            .points
            .iter()
            .map(|q| format!("2^{}: {:.1}", q.entries.trailing_zeros(), q.cycles))
            .collect();
        let _ = writeln!(s, "{:<9} {}", k.kind, pts.join(", "));
    }
    let _ = writeln!(
        s,
        "miss penalties L1/L2/LLC/TLB: {:.1} / {:.1} / {:.1} / {:.1} (TLB reach {:.0} pages of {} B, a lone walk {:.0} cycles); latency p50 ≈ {:.0} + {:.1} × cycles/packet; 2 workers: {}",
        p.miss_penalty[0],
        p.miss_penalty[1],
        p.miss_penalty[2],
        p.miss_penalty[TLB],
        p.tlb.reach_pages,
        p.tlb.page_bytes,
        p.tlb.walk_latency_cycles,
        p.latency_base,
        p.latency_per_cycle,
        p.worker_cost
            .iter()
            .find(|w| w.workers == 2)
            .map_or("not measured".to_string(), |w| format!(
                "+{:.1} cycles/packet + {:.1} per table application",
                w.per_packet, w.per_apply
            ))
    );
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sysfs_sizes() {
        assert_eq!(parse_size("32K"), Some(32 << 10));
        assert_eq!(parse_size("32768K\n"), Some(32 << 20));
        assert_eq!(parse_size("8M"), Some(8 << 20));
        assert_eq!(parse_size("512"), Some(512));
        assert_eq!(parse_size("x"), None);
    }

    #[test]
    fn fitted_line() {
        let (a, b) = fit_line(&[(1.0, 3.0), (2.0, 5.0), (3.0, 7.0)]);
        assert!((a - 1.0).abs() < 1e-12 && (b - 2.0).abs() < 1e-12);
    }

    #[test]
    fn worker_cost_is_the_line_over_applications() {
        // 2 workers add 10 + 6 per application (two rounds of 1 and 4 tables)
        let w = worker_cost(&[(1.0, 16.0), (4.0, 34.0), (1.0, 16.0), (4.0, 34.0)]);
        assert!(
            (w.per_packet - 10.0).abs() < 1e-9 && (w.per_apply - 6.0).abs() < 1e-9,
            "{w:?}"
        );
        // a falling line (noise): no per-application cost, the mean per packet
        let w = worker_cost(&[(1.0, 30.0), (4.0, 10.0)]);
        assert_eq!(w.per_apply, 0.0);
        assert!((w.per_packet - 20.0).abs() < 1e-9, "{w:?}");
    }

    #[test]
    fn one_program_measured_twice_agrees_within_its_bounds() {
        // the steady calibration's pair, and the disturbed one's
        assert!(consistent(83.9, 83.6));
        assert!(!consistent(132.7, 84.2));
        assert!(!consistent(84.2, 132.7));
        // 8 cycles/packet on small figures, 15 % of the smaller on large ones
        assert!(consistent(20.0, 28.0));
        assert!(!consistent(20.0, 28.5));
        assert!(consistent(200.0, 230.0));
        assert!(!consistent(200.0, 231.0));
    }

    #[test]
    fn a_disagreeing_table_is_measured_again_up_to_the_attempts() {
        assert_eq!(retry(Some(83.9), Some(83.6), 1), Retry::Keep);
        assert_eq!(retry(Some(132.7), Some(84.2), 1), Retry::Again);
        assert_eq!(retry(Some(132.7), Some(84.2), CALIBRATE_ATTEMPTS - 1), Retry::Again);
        assert_eq!(retry(Some(132.7), Some(84.2), CALIBRATE_ATTEMPTS), Retry::GiveUp);
        // --quick: no exact table of SHAPE_ENTRIES in the series
        assert_eq!(retry(None, Some(84.2), 1), Retry::Keep);
        assert_eq!(retry(Some(84.2), None, 1), Retry::Keep);
    }

    #[test]
    fn the_unstaged_factor_gives_back_the_measured_chain() {
        let mut p = crate::model::profile::tests::sample();
        // eight tables of 2^14 entries sharing a 1 MiB L2 miss it
        let (_, alone, _) = unstaged_scale(&p, 0.0, u64::MAX);
        assert!(alone > 2.0, "{alone}");
        for k in [1.0, 2.5, 4.0] {
            p.unstaged_miss_scale = k;
            let measured = predict(&p, &unstaged_use(false)).unwrap().cycles;
            let (fit, _, raw) = unstaged_scale(&p, measured, u64::MAX);
            assert!((fit - k).abs() < 1e-9, "{fit} vs {k}");
            assert_eq!(raw, fit);
        }
        // a pair cheaper than the staged model: 1, never below; a far dearer one: the cap, with
        // the fit before it
        p.unstaged_miss_scale = 1.0;
        let staged = predict(&p, &unstaged_use(true)).unwrap().cycles;
        assert_eq!(unstaged_scale(&p, staged - 50.0, u64::MAX).0, 1.0);
        let (capped, _, raw) = unstaged_scale(&p, staged + 1e6, u64::MAX);
        assert_eq!(capped, UNSTAGED_SCALE_MAX);
        assert!(raw > UNSTAGED_SCALE_MAX, "{raw}");
        // the runtime stages the later tables too (threshold 0): nothing to fit
        assert_eq!(unstaged_scale(&p, staged + 100.0, 0).0, 1.0);
    }

    #[test]
    fn the_model_gives_back_the_calibrated_chain() {
        use crate::model::cost::predict;
        let mut p = crate::model::profile::tests::sample();
        // a smaller L1 so that 8 tables of SHAPE_ENTRIES share it visibly
        p.caches.l1d = 16 << 10;
        let t = footprint("exact", SHAPE_ENTRIES, key_len(TableKind::Exact), FWD_DATA);
        // a calibrated point at SHAPE_ENTRIES, a little above the smallest (30)
        p.kinds[0].points.insert(
            1,
            SizePoint {
                entries: SHAPE_ENTRIES,
                footprint_bytes: t.bytes,
                tlb_bytes: t.tlb_bytes,
                cycles: 33.0,
            },
        );
        let one = super::super::profile::interpolate(&p.kind("exact").unwrap().points, SHAPE_ENTRIES);
        assert!(shared_misses(&p, 8.0) > 1.0, "{}", shared_misses(&p, 8.0));
        // measured: the first table, 12 (or 2) per further one, and the shared misses; with a
        // slope of 2 the first table's own part is most of its lookup (31 of 33)
        for slope in [12.0, 2.0] {
            let chain: Vec<(f64, f64)> = [1.0, 2.0, 4.0, 8.0]
                .iter()
                .map(|&n| (n, p.base_cycles + one + (n - 1.0) * slope + shared_misses(&p, n)))
                .collect();
            let (apply, _) = chain_slope(&p, &chain);
            assert!((apply - slope).abs() < 1e-9, "{apply}");
            p.table_apply_cycles = apply;
            p.tables_fixed_cycles = tables_fixed(one, apply);
            for &(n, c) in &chain {
                let u = exact_chain_use(n as u32, SHAPE_ENTRIES, false);
                let r = predict(&p, &u).unwrap();
                // the prediction is the measured chain: the shared misses counted once
                assert!(
                    (r.cycles - p.floor_cycles - c).abs() < 1e-6,
                    "{n} tables: {} vs {c}",
                    r.cycles - p.floor_cycles
                );
            }
        }
    }

    #[test]
    fn n_tables_cost_the_first_plus_slopes() {
        let (one, slope) = (55.0, 14.0);
        let f = tables_fixed(one, slope);
        for n in [1.0, 2.0, 8.0] {
            // the model: the fixed part once, each table its cost less it
            let model = f + n * (one - f);
            assert!((model - (one + (n - 1.0) * slope)).abs() < 1e-9);
        }
        // a slope above one table's cost (noise): no fixed part
        assert_eq!(tables_fixed(20.0, 30.0), 0.0);
    }
}
