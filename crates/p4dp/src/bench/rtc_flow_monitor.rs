//! `p4dp bench --suite rtc-flow-monitor`: accurate per-flow monitoring with aging
//! (examples/rtc_flow_monitor.p4, after section 7.1 and appendix A of Zheng et al., When P4 Meets
//! Run-to-completion Architecture), compiled with a FlowTable of 2^--max-log2 entries (default
//! 2^24), an idle timeout of an hour (so that no flow ages during the run) and its packets sent
//! back to the bench's port 0, with one worker (the bench's source of fresh keys serves a single
//! port, and a bench has at least one port per worker):
//! 1. flows held: min(10,000,000, 0.6 * 2^k) TCP packets, each of a new flow (the foreground adds
//!    its record with TableOperation.entryAdd), in chunks that double in size, then hits on random
//!    flows among them, each in a window that ends with its schedule (bounded by the rate the last
//!    chunk measured: a schedule not finished in time is reported); the table's
//!    entries afterwards, the cycles/packet of each phase, and the inserts the runtime gave up
//!    (writer busy or slots in a grace period: `dp_busy`) or refused as full, as a share of the
//!    new-flow packets;
//! 2. packets/s per worker on the held flows against plain forwarding (the bench's l2fwd loop,
//!    which swaps the MACs of each packet and sends it back) of the same traffic, alternated;
//! 3. reports/s: every packet a FIN of a random held flow, with two background threads, one
//!    running the Reporter pipeline and the other Ager (`--background-threads 1`: both on one;
//!    on the CPU the worker is not on): each FIN queues its flow, Reporter pops it, reads and deletes its
//!    record and sends the report (to port 9, which the bench does not have: the report packet is
//!    built and counted as sent nowhere); a report is a delete of the table, so reports/s is the
//!    table's deletes over the run. A FIN of a flow already reported re-adds it first, so the
//!    worker's inserts race with Reporter's deletes for the table's writer: the inserts given up
//!    then are the contention this setup has.

use std::fmt::Write as _;
use std::path::Path;
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use p4dp_rt::bench::{Bench, BenchTarget, Kind};
use p4dp_rt::bench_dp::{Keys, Phase, Tap};
use p4dp_rt::Dispatch;

use super::json::{self, Json};
use super::rtc::{build_example, run_suite};
use super::{median, BenchArgs, Suite};
use crate::bench_dp::{bench_params, retry_empty, save, tap_params};

/// The flows to hold at most (the paper's scale on a server).
const FLOWS_MAX: u64 = 10_000_000;
/// Share of the table's entries to fill (an exact table is a hash table: 60 % keeps chains short).
const FILL: f64 = 0.6;
/// Hit packets after the inserts.
const HITS: u64 = 4 << 20;
/// Packets per burst (the bench's), to turn a burst's rx -> tx latency into cycles per packet.
const BURST: f64 = 32.0;
/// Idle timeout compiled in: an hour, so no flow ages during the run.
const IDLE_NS: u64 = 3_600_000_000_000;
/// TCP flags byte in the bench's packet, ACK and FIN + ACK.
const TCP_FLAGS_OFFSET: usize = 14 + 20 + 13;
const ACK: u8 = 0x10;
const FIN_ACK: u8 = 0x11;

/// An Ethernet / IPv4 / TCP packet of 64 bytes with TCP flags `flags` (the bench's tap writes the
/// flow's IPv4 destination at byte 30).
fn tcp_template(flags: u8) -> Vec<u8> {
    let mut p = vec![0u8; 64];
    p[0..6].copy_from_slice(&[0, 0, 0, 0, 0, 2]);
    p[6..12].copy_from_slice(&[0, 0, 0, 0, 0, 1]);
    p[12..14].copy_from_slice(&0x0800u16.to_be_bytes());
    p[14] = 0x45;
    p[16..18].copy_from_slice(&50u16.to_be_bytes());
    p[22] = 64;
    p[23] = 6;
    p[26..30].copy_from_slice(&[10, 1, 0, 1]);
    p[34..36].copy_from_slice(&40000u16.to_be_bytes());
    p[36..38].copy_from_slice(&443u16.to_be_bytes());
    p[46] = 0x50;
    p[TCP_FLAGS_OFFSET] = flags;
    p
}

/// Inserts of the first chunk of new flows (later chunks double), and the time per packet its
/// bound assumes; a chunk's window is bounded by BOUND_SLACK times its packets at the time per
/// packet the last chunk measured, plus BOUND_FLOOR_S.
const FIRST_CHUNK: u64 = 1 << 16;
const FIRST_NS_PER_PKT: f64 = 20_000.0;
const BOUND_SLACK: f64 = 8.0;
const BOUND_FLOOR_S: f64 = 30.0;

// Background threads in the reports' run (`--background-threads`, default 2): one per background
// pipeline, so that Reporter and Ager each have a thread and the operating system shares the CPUs
// between them by time; with 1 they share a thread, Reporter running at the yield points of
// Ager's sweep (every 1,024 rows; docs/rtc.md).

/// The bound in seconds of a window of `packets` at `ns_per_pkt`.
fn bound(packets: u64, ns_per_pkt: f64) -> f64 {
    BOUND_FLOOR_S + BOUND_SLACK * packets as f64 * ns_per_pkt * 1e-9
}

/// One window of `packets` ACK packets with `keys` (new flows after the `held` ones, or random
/// flows among them), ended when the source has handed them out or after `bound_s`: whether the
/// schedule finished, its phase's figures and the TSC rate in Hz.
fn schedule(
    a: &BenchArgs,
    t: &mut BenchTarget,
    workers: u32,
    held: u64,
    keys: Keys,
    packets: u64,
    bound_s: f64,
) -> Result<(bool, p4dp_rt::bench_dp::PhaseResult, f64)> {
    // No floor loop here: the done callback ends PROGRAM windows only, and a floor window would
    // last the whole bound.
    let mut bp = bench_params(a, workers, 0.0, bound_s, Dispatch::Auto);
    bp.template = tcp_template(ACK);
    let mut bench = Bench::new(t, &bp).context("creating the bench")?;
    let tp = tap_params(a, held, 32, 0, vec![Phase { packets, keys }]);
    let mut tap = Tap::attach(&mut bench, workers, 1, &tp)?;
    let (m, r) = tap.measure(None, Kind::Program)?;
    let hz = m.tsc_hz.max(1) as f64;
    Ok((r.done, r.phases.into_iter().next().unwrap_or_default(), hz))
}

/// A bench of `workers` on the held flows, its packets TCP with `flags`, the floor loop measured
/// (for the program and forwarding windows that follow).
fn held_flows_bench<'t>(a: &BenchArgs, t: &'t mut BenchTarget, workers: u32, flags: u8) -> Result<Bench<'t>> {
    let mut bp = bench_params(a, workers, a.warmup(), a.duration(), Dispatch::Auto);
    bp.template = tcp_template(flags);
    let mut bench = Bench::new(t, &bp).context("creating the bench")?;
    retry_empty("floor loop", || Ok(bench.measure(Kind::Floor)?))?;
    Ok(bench)
}

/// Random keys among the `flows` held, without end.
fn random_flows(a: &BenchArgs, flows: u64) -> p4dp_rt::bench_dp::TapParams {
    tap_params(
        a,
        flows,
        32,
        0,
        vec![Phase {
            packets: 0,
            keys: Keys::Random,
        }],
    )
}

/// One worker count's figures.
#[derive(Default)]
struct Figures {
    flows: u64,
    held: u64,
    capacity: u64,
    insert_cpp: f64,
    hit_cpp: f64,
    given_up: u64,
    full: u64,
    program_mpps: Vec<f64>,
    forward_mpps: Vec<f64>,
    /// The program windows' median packet latency (rx -> tx, a burst of 32) / 32: cycles per
    /// packet of a burst the worker was not descheduled in, which the window average at a high
    /// load is not.
    program_burst_cpp: Vec<f64>,
    /// The hit phase's, the same way, and the insert chunks' (new-flow packets; median of chunks).
    hit_burst_cpp: f64,
    insert_burst_cpp: f64,
    reports_per_s: f64,
    fins: u64,
    /// Whether the insert and hit schedule finished within its bound.
    schedule_done: bool,
    /// During the reports: the worker's inserts (re-added flows) and those given up.
    report_inserts: u64,
    report_given_up: u64,
}

/// `p4dp bench --suite rtc-flow-monitor`.
pub fn suite_rtc_flow_monitor(a: &BenchArgs) -> Result<ExitCode> {
    let k = a.max_log2.unwrap_or(24);
    if !(10..=25).contains(&k) {
        bail!("--suite rtc-flow-monitor: --max-log2 (the flow table, 2^N entries) must be 10..25");
    }
    let flows = FLOWS_MAX.min(((1u64 << k) as f64 * FILL) as u64);
    let intro = format!(
        "(examples/rtc_flow_monitor.p4 with a FlowTable of 2^{k} entries and an idle timeout of an hour, after \
         Zheng et al., When P4 Meets Run-to-completion Architecture, section 7.1; {flows} flows; one worker; \
         packets/s over {} alternated pairs of {:.1} s windows)",
        a.repeat,
        a.duration()
    );
    // the table (about 90 B per entry), its counters (24 B per entry) and Foreach's key snapshot
    let mem = a.mem.unwrap_or((((1u64 << k) * 140) >> 20) as u32 + 2048);
    run_suite(
        a,
        Suite::RtcFlowMonitor,
        mem,
        &intro,
        vec![
            ("table_log2", Json::Int(k.into())),
            ("flows", Json::uint(flows)),
            ("idle_ns", Json::uint(IDLE_NS)),
        ],
        vec![],
        |out_dir, report, rep| {
            let so = build_example(
                a,
                "rtc_flow_monitor.p4",
                &[
                    format!("FLOW_TABLE_SIZE={}", 1u64 << k),
                    format!("FLOW_IDLE_NS={IDLE_NS}"),
                    // back to the bench's one port: a packet sent to a port the bench does not
                    // have is dropped, and the packets in circulation would run out
                    "FLOW_OUT_PORT=0".to_string(),
                ],
                out_dir,
            )?;
            for workers in [1u32] {
                let f = one_count(a, &so, workers, flows, &mut rep.text, report)?;
                let (pm, fm) = (median(&mut f.program_mpps.clone()), median(&mut f.forward_mpps.clone()));
                let pb = median(&mut f.program_burst_cpp.clone());
                let pkts = flows as f64;
                let _ = writeln!(
                    rep.text,
                    "{workers} worker(s): {} of {} flows held (table capacity {}); insert {:.1}, hit {:.1} cycles/pkt; \
                     inserts given up {} ({:.4} % of the new-flow packets), refused as full {}; {:.3} Mpps per worker \
                     against plain forwarding {:.3} ({:.2}x), median burst {pb:.1} cycles/pkt; {:.0} reports/s ({} FIN packets; inserts given up meanwhile \
                     {} of {} packets, {:.4} %)",
                    f.held,
                    f.flows,
                    f.capacity,
                    f.insert_cpp,
                    f.hit_cpp,
                    f.given_up,
                    100.0 * f.given_up as f64 / pkts,
                    f.full,
                    pm,
                    fm,
                    fm / pm,
                    f.reports_per_s,
                    f.fins,
                    f.report_given_up,
                    f.fins,
                    100.0 * f.report_given_up as f64 / (f.fins as f64).max(1.0)
                );
                save(report, &rep.text)?;
                rep.results.push((
                    if workers == 1 { "one_worker" } else { "two_workers" },
                    Json::obj([
                        ("flows", Json::uint(f.flows)),
                        ("flows_held", Json::uint(f.held)),
                        ("schedule_completed", Json::Bool(f.schedule_done)),
                        ("table_capacity", Json::uint(f.capacity)),
                        ("insert_cycles_per_pkt", Json::Num(f.insert_cpp)),
                        ("hit_cycles_per_pkt", Json::Num(f.hit_cpp)),
                        ("inserts_given_up", Json::uint(f.given_up)),
                        ("inserts_given_up_share", Json::Num(f.given_up as f64 / pkts)),
                        ("inserts_refused_full", Json::uint(f.full)),
                        ("program_mpps_per_worker", Json::Num(pm)),
                        ("forwarding_mpps_per_worker", Json::Num(fm)),
                        ("program_burst_cycles_per_pkt", Json::Num(pb)),
                        ("program_burst_cycles_per_pkt_runs", json::nums(&f.program_burst_cpp)),
                        ("hit_burst_cycles_per_pkt", Json::Num(f.hit_burst_cpp)),
                        ("insert_burst_cycles_per_pkt", Json::Num(f.insert_burst_cpp)),
                        ("program_mpps_runs", json::nums(&f.program_mpps)),
                        ("forwarding_mpps_runs", json::nums(&f.forward_mpps)),
                        (
                            "reports_per_s",
                            if f.reports_per_s.is_finite() {
                                Json::Num(f.reports_per_s)
                            } else {
                                Json::Null
                            },
                        ),
                        ("fin_packets", Json::uint(f.fins)),
                        ("report_phase_inserts", Json::uint(f.report_inserts)),
                        ("report_phase_inserts_given_up", Json::uint(f.report_given_up)),
                    ]),
                ));
                rep.pass.push((
                    if workers == 1 {
                        "all_flows_held_1_worker"
                    } else {
                        "all_flows_held_2_workers"
                    },
                    f.held == f.flows && f.schedule_done,
                ));
                rep.pass.push(("reports_measured", f.reports_per_s.is_finite()));
            }
            Ok(())
        },
    )
}

/// The three measurements with `workers` workers on a fresh program.
fn one_count(a: &BenchArgs, so: &Path, workers: u32, flows: u64, text: &mut String, report: &Path) -> Result<Figures> {
    // workers + a background thread for each of the two background pipelines
    let mut t =
        BenchTarget::load(so, workers + a.background_threads).with_context(|| format!("loading {}", so.display()))?;
    let ti = t
        .program()
        .table("FgIngress.FlowTable")
        .context("rtc_flow_monitor.p4: no FlowTable")?
        .index;
    let mut f = Figures {
        flows,
        ..Figures::default()
    };
    let _ = writeln!(text, "\n== {workers} worker(s) ==");
    // 1. inserts, then hits, each window ending as soon as the source has handed out its
    // schedule (the tap's done callback). A window's length only bounds the wait, and the bound
    // follows the rate measured so far: the inserts in chunks that double in size, each bounded by
    // BOUND_SLACK times its packets at the last chunk's time per packet (a fixed rate of 10 us per
    // packet did not hold at 10 M flows: the inserts took 16 us each there, on a loaded machine),
    // then the hits bounded the same way by the last insert chunk's time per packet.
    let hits = HITS.min(4 * flows);
    f.schedule_done = true;
    let (mut held, mut chunk, mut ns_per_pkt) = (0u64, FIRST_CHUNK.min(flows), FIRST_NS_PER_PKT);
    let (mut insert_cycles, mut inserted, mut hz) = (0u64, 0u64, 1.0);
    let mut insert_bursts = Vec::new();
    while held < flows && f.schedule_done {
        let n = chunk.min(flows - held);
        let bound_s = bound(n, ns_per_pkt);
        eprintln!(
            "bench: rtc-flow-monitor: {workers} worker(s): new flows {}..{} (at most {bound_s:.0} s)",
            held,
            held + n
        );
        let (done, p, h) = schedule(a, &mut t, workers, held, Keys::New, n, bound_s)?;
        f.schedule_done = done;
        hz = h;
        insert_bursts.push(p.lat[1].p50 as f64 / BURST);
        if p.tsc_end > p.tsc_first && p.packets > 0 {
            insert_cycles += p.tsc_end - p.tsc_first;
            inserted += p.packets;
            ns_per_pkt = 1e9 * (p.tsc_end - p.tsc_first) as f64 / p.packets as f64 / hz;
        }
        if !done {
            let _ = writeln!(
                text,
                "new flows {held}..{}: NOT finished in {bound_s:.0} s: {} packets handed out",
                held + n,
                p.packets
            );
        }
        held += n;
        chunk *= 2;
    }
    f.insert_burst_cpp = median(&mut insert_bursts);
    f.insert_cpp = if inserted > 0 {
        f64::from(workers) * insert_cycles as f64 / inserted as f64
    } else {
        f64::NAN
    };
    if f.schedule_done {
        let bound_s = bound(hits, ns_per_pkt);
        eprintln!("bench: rtc-flow-monitor: {workers} worker(s): {hits} hits (at most {bound_s:.0} s)");
        let (done, p, _) = schedule(a, &mut t, workers, flows, Keys::Random, hits, bound_s)?;
        f.schedule_done = done;
        f.hit_burst_cpp = p.lat[0].p50 as f64 / BURST;
        f.hit_cpp = if p.tsc_end > p.tsc_first && p.packets > 0 {
            f64::from(workers) * (p.tsc_end - p.tsc_first) as f64 / p.packets as f64
        } else {
            f64::NAN
        };
        if !done {
            let _ = writeln!(
                text,
                "hits: NOT finished in {bound_s:.0} s: {} of {hits} packets handed out",
                p.packets
            );
        }
    }
    let _ = writeln!(
        text,
        "inserts and hits: {inserted} new flows in {:.1} s, then {hits} hits; insert phase {:.1}, hit phase {:.1} \
         cycles/pkt (core cycles; median bursts: inserts {:.1}, hits {:.1})",
        insert_cycles as f64 / hz,
        f.insert_cpp,
        f.hit_cpp,
        f.insert_burst_cpp,
        f.hit_burst_cpp
    );
    let st = t.table_stats(ti)?;
    f.held = st.entries;
    f.capacity = st.capacity;
    f.given_up = st.dp_busy;
    f.full = st.table_full;
    let _ = writeln!(
        text,
        "table: {} entries (capacity {}), {} data-plane inserts, {} given up, {} refused as full",
        st.entries, st.capacity, st.dp_inserts, st.dp_busy, st.table_full
    );
    save(report, text)?;
    // 2. the program against plain forwarding, hits on the held flows
    {
        let mut bench = held_flows_bench(a, &mut t, workers, ACK)?;
        let tp = random_flows(a, flows);
        let mut tap = Tap::attach(&mut bench, workers, 1, &tp)?;
        for run in 0..a.repeat {
            eprintln!(
                "bench: rtc-flow-monitor: {workers} worker(s): packets/s, pair {} of {}",
                run + 1,
                a.repeat
            );
            let (p, pr) = retry_empty("program", || Ok(tap.measure(None, Kind::Program)?))?;
            let burst_cpp = pr.lat_all.p50 as f64 / BURST;
            let (l, _) = retry_empty("forwarding", || Ok(tap.measure(None, Kind::L2fwd)?))?;
            let per = |x: f64| x / f64::from(workers);
            let _ = writeln!(
                text,
                "pair {}: program {:.3} Mpps per worker ({:.1} cycles/pkt; median burst {burst_cpp:.1}), plain \
                 forwarding {:.3} Mpps per worker ({:.1} cycles/pkt)",
                run + 1,
                per(p.mpps),
                p.cycles_per_pkt,
                per(l.mpps),
                l.cycles_per_pkt
            );
            f.program_mpps.push(per(p.mpps));
            f.program_burst_cpp.push(burst_cpp);
            f.forward_mpps.push(per(l.mpps));
        }
    }
    save(report, text)?;
    // 3. reports: every packet a FIN of a random held flow, the background pipelines running
    {
        let mut bench = held_flows_bench(a, &mut t, workers, FIN_ACK)?;
        let tp = random_flows(a, flows);
        let s0 = bench.table_stats(ti)?;
        let mut tap = Tap::attach(&mut bench, workers, 1, &tp)?;
        eprintln!("bench: rtc-flow-monitor: {workers} worker(s): reports");
        let r = retry_empty("reports", || {
            Ok(tap.measure_with(None, |b| b.measure_with_background(Kind::Program, a.background_threads))?)
        });
        drop(tap);
        // a worker that processed nothing in every window is a figure of this setup (at 10 M
        // flows: blocked while Ager's sweep snapshots the table), not a failure of the bench
        let m = match r {
            Ok((m, _)) => m,
            Err(e) => {
                let _ = writeln!(text, "reports: NOT measured: {e:#}");
                f.reports_per_s = f64::NAN;
                return Ok(f);
            }
        };
        let s1 = bench.table_stats(ti)?;
        let (d0, d1) = (s0.deletes, s1.deletes);
        f.report_given_up = s1.dp_busy - s0.dp_busy;
        f.report_inserts = s1.dp_inserts - s0.dp_inserts;
        // the background thread runs from the run's start to its end: warm-up, window, shutdown
        let secs = m.window_cycles as f64 / m.tsc_hz.max(1) as f64 + a.warmup();
        f.reports_per_s = (d1 - d0) as f64 / secs.max(1e-9);
        f.fins = m.packets;
        let _ = writeln!(
            text,
            "reports ({} background thread(s)): {} in {:.2} s (warm-up and window): {:.0} reports/s; {} FIN packets in the \
             window ({:.3} Mpps); meanwhile {} inserts (re-added flows), {} given up",
            a.background_threads,
            d1 - d0,
            secs,
            f.reports_per_s,
            m.packets,
            m.mpps,
            f.report_inserts,
            f.report_given_up
        );
    }
    Ok(f)
}
