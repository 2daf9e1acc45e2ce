//! `p4dp bench --suite rtc-hot-cache`: what a small cache table in front of a large one saves,
//! with examples/rtc_hot_cache.p4 (the hot-entry cache of Zheng et al., When P4 Meets
//! Run-to-completion Architecture, section 4.3): a 2^k-entry `routes` table (default 2^24, every
//! key installed) behind a 1024-entry `cache` that the background pipeline `Promoter` fills with
//! the heavy keys it finds and empties of the cold ones. Every packet's IPv4 destination is drawn
//! from Zipf-distributed keys over the whole table (`--traffic zipf:S`, default zipf:1.1).
//!
//! One worker; the Promoter runs on a background thread of the run (the other CPU on a two-CPU
//! machine) during every window with the cache, warm-up included, so the figure with the cache
//! is the foreground's with its promoter live. Without the cache (`config` BYPASS set: a lookup
//! of `routes` alone) there is nothing to promote and no background thread runs.
//! 1. Calibration: one window without the cache gives the packet rate; the Promoter's thresholds
//!    (the example's `config` cells HOT and COLD, counted per period) are set from it: a key must
//!    carry 1/(4 * cache size) of a period's packets, and at least [`HOT_FLOOR`] of them, to be
//!    promoted, and stays while it carries a quarter of that ([`COLD_SHARE`]). The floor keeps a
//!    slow calibration (a loaded machine) from promoting keys whose count per period is noise; the
//!    gap between the two thresholds keeps a key near the threshold from being evicted and promoted
//!    again every few periods (with HOT = COLD = 2 the Promoter replaced its whole cache every
//!    period or two: a thrashing cache).
//! 2. Warm-up: one window with the cache (not reported as a figure): the Promoter fills it.
//! 3. Without and with the cache, alternated `--repeat` times in one sitting, the load average
//!    beside each pair; the cache keeps its entries from one window with it to the next.

use std::fmt::Write as _;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use p4dp_rt::bench::{Bench, BenchTarget, Kind, Measurement};
use p4dp_rt::bench_trace::{Trace, TraceTap};
use p4dp_rt::Dispatch;

use super::gen::Rng;
use super::json::{self, Json};
use super::rtc::{build_example, run_suite, Report};
use super::traffic::{Popularity, Traffic};
use super::{median, BenchArgs, Suite};
use crate::bench_dp::{bench_params, retry_empty, save};
use crate::model::calibrate::load_avg;

/// The IPv4 destination in the bench's packets, and the first installed key (10.0.0.0).
const KEY_OFFSET: u32 = 30;
const KEY_BASE: u64 = 0x0a00_0000;
/// The example's cache size and Promoter period (its CACHE_SIZE and PERIOD_MS defaults).
const CACHE_SIZE: u64 = 1024;
const PERIOD_S: f64 = 0.010;
/// `config` cells of the example.
const BYPASS: u32 = 0;
const HOT: u32 = 1;
const COLD: u32 = 2;
/// Zipf records in the trace (the tap hands them out in a cycle).
const TRACE_RECORDS: u64 = 1 << 22;
/// The least HOT threshold: misses per period a key needs to be promoted, whatever the rate.
const HOT_FLOOR: u64 = 8;
/// COLD = HOT / COLD_SHARE (at least 1): a promoted key stays while it is hit that often.
const COLD_SHARE: u64 = 4;

/// The Promoter's (HOT, COLD) thresholds for `period_pkts` packets per period: HOT a key's
/// 1/(4 * cache size) share of them, at least [`HOT_FLOOR`]; COLD a quarter of HOT, at least 1.
fn thresholds(period_pkts: u64) -> (u64, u64) {
    let hot = (period_pkts / (4 * CACHE_SIZE)).max(HOT_FLOOR);
    (hot, (hot / COLD_SHARE).max(1))
}

/// The indices the bench needs in the compiled example.
struct Names {
    routes: u32,
    cache: u32,
    fwd: u32,
    config: u32,
}

fn names(t: &BenchTarget) -> Result<Names> {
    let p = t.program();
    let routes = p.table("Forward.routes").context("rtc_hot_cache.p4: no table routes")?;
    let cache = p.table("Forward.cache").context("rtc_hot_cache.p4: no table cache")?;
    let fwd = routes
        .actions
        .iter()
        .map(|x| &p.actions[x.action as usize])
        .find(|ai| ai.params.len() == 1)
        .context("rtc_hot_cache.p4: no action fwd")?;
    let config = p.extern_("config").context("rtc_hot_cache.p4: no Counter config")?;
    Ok(Names {
        routes: routes.index,
        cache: cache.index,
        fwd: fwd.index,
        config: config.index,
    })
}

/// log2 of the routes table (--max-log2, default 24, 12..24) and the traffic (default zipf:1.1).
fn settings(a: &BenchArgs) -> Result<(u32, Traffic)> {
    let k = a.max_log2.unwrap_or(24);
    if !(12..=24).contains(&k) {
        bail!("--suite rtc-hot-cache: --max-log2 (the large table, 2^N entries) must be 12..24");
    }
    let traffic = match a.traffic.as_deref() {
        None => Traffic::Zipf(1.1),
        Some(s) => match Traffic::parse(s)? {
            Traffic::Pcap(_) => bail!("--suite rtc-hot-cache: --traffic takes uniform or zipf:S"),
            t => t,
        },
    };
    Ok((k, traffic))
}

/// `p4dp bench --suite rtc-hot-cache`.
pub fn suite_rtc_hot_cache(a: &BenchArgs) -> Result<ExitCode> {
    let (k, traffic) = settings(a)?;
    let intro = format!(
        "(examples/rtc_hot_cache.p4: a {CACHE_SIZE}-entry cache in front of a 2^{k}-entry exact table, after \
         Zheng et al., When P4 Meets Run-to-completion Architecture, section 4.3; {} destinations; one worker, \
         the Promoter on a background thread during every window with the cache; load average (1 min) at the \
         start {:.2})",
        traffic.name(),
        load_avg()
    );
    // the table (1232 MiB static at 2^24) and the packets
    let mem = a.mem.unwrap_or(if k >= 23 { 3072 } else { 2048 });
    run_suite(
        a,
        Suite::RtcHotCache,
        mem,
        &intro,
        vec![
            ("routes_log2", Json::Int(k.into())),
            ("cache_entries", Json::uint(CACHE_SIZE)),
            ("traffic", Json::str(traffic.name())),
        ],
        vec![],
        |out_dir, report, rep| body(a, k, &traffic, out_dir, report, rep),
    )
}

/// Median burst rx -> tx latency per packet (bursts of 32): leaves out the bursts in which the
/// worker was descheduled.
fn burst_cpp(h: &p4dp_rt::bench_trace::Histogram) -> f64 {
    h.quantile(0.5) as f64 / 32.0
}

/// One window of the program with the cache bypassed (no background thread) or in use (the
/// Promoter on one background thread): the window's figures, the median burst's cycles per
/// packet and the cache's (hits, misses, promotions, evictions) during the run.
struct Window {
    m: Measurement,
    burst_cpp: f64,
    cache: [u64; 4],
}

/// `hot_cold`: the Promoter's HOT and COLD (0: the example's defaults).
fn window(tap: &mut TraceTap<'_, '_>, nm: &Names, with_cache: bool, hot_cold: (u64, u64)) -> Result<Window> {
    let mut cache = [0u64; 4];
    let (m, _, h) = retry_empty("measurement", || {
        Ok(tap.measure_with(|b: &mut Bench<'_>| {
            b.rtc_counter_set(nm.config, BYPASS, u64::from(!with_cache))?;
            b.rtc_counter_set(nm.config, HOT, hot_cold.0)?;
            b.rtc_counter_set(nm.config, COLD, hot_cold.1)?;
            let s0 = b.table_stats(nm.cache)?;
            let m = if with_cache {
                b.measure_with_background(Kind::Program, 1)?
            } else {
                b.measure(Kind::Program)?
            };
            let s1 = b.table_stats(nm.cache)?;
            cache = [
                s1.hits - s0.hits,
                s1.misses - s0.misses,
                s1.dp_inserts - s0.dp_inserts,
                s1.deletes - s0.deletes,
            ];
            Ok(m)
        })?)
    })?;
    Ok(Window {
        m,
        burst_cpp: burst_cpp(&h),
        cache,
    })
}

fn body(
    a: &BenchArgs,
    k: u32,
    traffic: &Traffic,
    out_dir: &std::path::Path,
    report: &std::path::Path,
    rep: &mut Report,
) -> Result<()> {
    let n = 1u64 << k;
    let so = build_example(a, "rtc_hot_cache.p4", &[format!("ROUTES_SIZE={n}")], out_dir)?;
    // one worker and one background thread
    let mut t = BenchTarget::load(&so, 2).with_context(|| format!("loading {}", so.display()))?;
    let nm = names(&t)?;
    eprintln!("bench: rtc-hot-cache: installing 2^{k} routes");
    let t0 = Instant::now();
    let installed = t.table_fill(nm.routes, KEY_BASE, n, nm.fwd, &[vec![0, 0, 0, 0]])?;
    if installed != n {
        bail!("installed {installed} of {n} routes");
    }
    let fill_s = t0.elapsed().as_secs_f64();
    eprintln!(
        "bench: rtc-hot-cache: drawing {TRACE_RECORDS} {} destinations",
        traffic.name()
    );
    let mut rng = Rng::new(a.seed ^ 0xcac4e);
    let pop = Popularity::new(traffic, n, &mut rng);
    let mut records = Vec::with_capacity(TRACE_RECORDS as usize * 4);
    for _ in 0..TRACE_RECORDS {
        let key = KEY_BASE + pop.draw(&mut rng) as u64;
        records.extend_from_slice(&(key as u32).to_be_bytes());
    }
    let _ = writeln!(
        rep.text,
        "\n== all {n} routes installed in {fill_s:.1} s; {TRACE_RECORDS} destinations drawn, handed out in a cycle =="
    );
    let trace = Trace {
        records,
        rec_size: 4,
        lens: None,
        offset: KEY_OFFSET,
        record_after_ms: (a.warmup() * 1000.0) as u64,
    };
    let mut bp = bench_params(a, 1, a.warmup(), a.duration(), Dispatch::Auto);
    bp.key_offset = KEY_OFFSET;
    let mut bench = Bench::new(&mut t, &bp).context("creating the bench")?;
    retry_empty("floor loop", || Ok(bench.measure(Kind::Floor)?))?;
    let mut tap = TraceTap::attach(&mut bench, 1, 0, &trace)?;
    // ---- 1. calibration: the packet rate without the cache sets the thresholds
    eprintln!("bench: rtc-hot-cache: calibration and warm-up");
    let cal = window(&mut tap, &nm, false, (0, 0))?;
    rep.hz = cal.m.tsc_hz as f64;
    let period_pkts = (cal.m.mpps * 1e6 * PERIOD_S) as u64;
    let (hot, cold) = thresholds(period_pkts);
    // ---- 2. warm-up: the Promoter fills the cache
    let warm = window(&mut tap, &nm, true, (hot, cold))?;
    let _ = writeln!(
        rep.text,
        "calibration without the cache: {:.3} Mpps, about {period_pkts} packets per Promoter period of {:.0} ms: \
         thresholds hot = {hot} (1/(4 * {CACHE_SIZE}) of them, at least {HOT_FLOOR}), cold = {cold} per period\n\
         warm-up with the cache ({:.2} s with the Promoter live): {} promoted, {} evicted; cache hits in its \
         window {:.1} %",
        cal.m.mpps,
        PERIOD_S * 1e3,
        a.warmup() + a.duration(),
        warm.cache[2],
        warm.cache[3],
        100.0 * warm.cache[0] as f64 / (warm.cache[0] + warm.cache[1]).max(1) as f64
    );
    save(report, &rep.text)?;
    // ---- 3. without and with the cache, alternated
    let _ = writeln!(
        rep.text,
        "\n-- cycles/packet without the cache (routes alone, no background thread) and with it (the Promoter \
         live on the background thread), alternated. Window average, and the median burst's rx -> tx latency \
         / 32 in parentheses (it leaves out bursts in which the worker was descheduled); judged: the median \
         bursts"
    );
    let (mut without, mut with, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
    let (mut without_w, mut with_w, mut loads) = (Vec::new(), Vec::new(), Vec::new());
    let mut cache = [0u64; 4];
    for run in 0..a.repeat {
        eprintln!("bench: rtc-hot-cache: pair {} of {}", run + 1, a.repeat);
        let load0 = load_avg();
        let w0 = window(&mut tap, &nm, false, (hot, cold))?;
        let w1 = window(&mut tap, &nm, true, (hot, cold))?;
        let load1 = load_avg();
        let ratio = w1.burst_cpp / w0.burst_cpp;
        let hits = 100.0 * w1.cache[0] as f64 / (w1.cache[0] + w1.cache[1]).max(1) as f64;
        let _ = writeln!(
            rep.text,
            "pair {}: without {:.1} ({:.1}), with {:.1} ({:.1}) cycles/pkt: {ratio:.3}x (window {:.3}x); cache hits \
             {hits:.1} %, {} promoted, {} evicted during the run; load {load0:.2} -> {load1:.2}",
            run + 1,
            w0.m.cycles_per_pkt,
            w0.burst_cpp,
            w1.m.cycles_per_pkt,
            w1.burst_cpp,
            w1.m.cycles_per_pkt / w0.m.cycles_per_pkt,
            w1.cache[2],
            w1.cache[3],
        );
        for (c, x) in cache.iter_mut().zip(w1.cache) {
            *c += x;
        }
        without.push(w0.burst_cpp);
        with.push(w1.burst_cpp);
        ratios.push(ratio);
        without_w.push(w0.m.cycles_per_pkt);
        with_w.push(w1.m.cycles_per_pkt);
        loads.push(load1);
    }
    drop(tap);
    drop(bench);
    let hit_ratio = cache[0] as f64 / (cache[0] + cache[1]).max(1) as f64;
    let ratio = median(&mut ratios.clone());
    let _ = writeln!(
        rep.text,
        "with / without the cache (median bursts), median of the pairs: {ratio:.3}x; cache hits in the windows \
         with it: {:.1} % ({} hits, {} misses), {} promotions and {} evictions by the Promoter meanwhile",
        100.0 * hit_ratio,
        cache[0],
        cache[1],
        cache[2],
        cache[3]
    );
    rep.results.extend([
        ("routes", Json::uint(n)),
        ("threshold_hot", Json::uint(hot)),
        ("threshold_cold", Json::uint(cold)),
        ("calibration_mpps", Json::Num(cal.m.mpps)),
        ("warm_up_promoted", Json::uint(warm.cache[2])),
        ("without_cycles_per_pkt", Json::Num(median(&mut without.clone()))),
        ("with_cycles_per_pkt", Json::Num(median(&mut with.clone()))),
        ("ratio", Json::Num(ratio)),
        ("ratio_runs", json::nums(&ratios)),
        (
            "without_window_cycles_per_pkt",
            Json::Num(median(&mut without_w.clone())),
        ),
        ("with_window_cycles_per_pkt", Json::Num(median(&mut with_w.clone()))),
        ("cache_hits", Json::uint(cache[0])),
        ("cache_misses", Json::uint(cache[1])),
        ("cache_hit_ratio", Json::Num(hit_ratio)),
        ("promoted", Json::uint(cache[2])),
        ("evicted", Json::uint(cache[3])),
        ("load_avg_runs", json::nums(&loads)),
    ]);
    // the Promoter must have filled the cache: the packets hit it during the measured windows
    rep.pass.push(("cache_in_use", cache[0] > 0));
    Ok(())
}
