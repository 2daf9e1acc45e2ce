//! `p4dp bench --suite rtc-spacesaving`: SpaceSaving top-k without locks (examples/rtc_spacesaving.p4,
//! after appendix C of Zheng et al., When P4 Meets Run-to-completion Architecture) on a Zipf trace:
//! the recall of the true top-k by the program's slots, with 1 and 2 workers, against an exact
//! single-threaded SpaceSaving (Metwally, Agrawal and El Abbadi, Efficient Computation of Frequent
//! and Top-k Elements in Data Streams) with as many slots over as many packets of the same trace,
//! and the program's packets/s against the bench's floor (rx -> tx, no program) with the same trace.
//!
//! Each run loads the program afresh (empty slots), replays the trace through the bench's trace
//! tap (every packet's IPv4 source is the next record: the flow), reads the slots through the
//! control API after the window and compares the k flows with the largest counts against the k
//! most frequent flows of the packets handed out. The bench's ports read the trace cyclically,
//! each from its own start (bench_trace.h), so the reference stream (the trace from its start,
//! cyclically, for as many packets as the tap handed out) holds the same flows in the same
//! proportions, not the same order.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::Path;
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use p4dp_rt::bench::{Bench, BenchTarget, Kind};
use p4dp_rt::bench_trace::{Trace, TraceTap};
use p4dp_rt::Dispatch;

use super::gen::Rng;
use super::json::{self, Json};
use super::rtc::{build_example, run_suite};
use super::traffic::{Popularity, Traffic};
use super::{median, BenchArgs, Suite};
use crate::bench_dp::{bench_params, retry_empty, save};

/// Slots of the summary (the program's SPACESAVING_SLOTS and the reference's).
const SLOTS: usize = 64;
/// The k of top-k.
const TOP_K: usize = 10;
/// Distinct flows of the trace and its Zipf exponent.
const FLOWS: u64 = 1 << 16;
const ZIPF_S: f64 = 1.1;
/// Records of the trace (one IPv4 source address each).
const TRACE_RECS: usize = 1 << 22;
/// The flows' addresses: FLOW_BASE + flow number.
const FLOW_BASE: u32 = 0x0b00_0000;
/// Where the record goes in the bench's packet: the IPv4 source address.
const SRC_OFFSET: u32 = 26;
/// Target: the program's recall at least the reference's minus this.
const RECALL_LOSS_TARGET: f64 = 0.0;

/// An exact, single-threaded SpaceSaving summary: `m` slots of (flow, count); a flow in a slot is
/// counted, any other flow replaces the slot with the smallest count (the first such slot in slot
/// order; empty slots count 0) and takes that count plus one. The same rule as the program's.
struct SpaceSaving {
    flow: Vec<Option<u32>>,
    count: Vec<u64>,
    index: HashMap<u32, usize>,
}

impl SpaceSaving {
    fn new(m: usize) -> SpaceSaving {
        SpaceSaving {
            flow: vec![None; m],
            count: vec![0; m],
            index: HashMap::with_capacity(m * 2),
        }
    }

    fn add(&mut self, f: u32) {
        if let Some(&i) = self.index.get(&f) {
            self.count[i] += 1;
            return;
        }
        let mut min = 0;
        for i in 1..self.count.len() {
            if self.count[i] < self.count[min] {
                min = i;
            }
        }
        if let Some(old) = self.flow[min] {
            self.index.remove(&old);
        }
        self.flow[min] = Some(f);
        self.count[min] += 1;
        self.index.insert(f, min);
    }

    fn slots(&self) -> Vec<(u32, u64)> {
        self.flow
            .iter()
            .zip(&self.count)
            .filter_map(|(f, c)| f.map(|f| (f, *c)))
            .collect()
    }
}

/// The `k` flows with the largest counts (ties: the smaller flow first).
fn top(mut v: Vec<(u32, u64)>, k: usize) -> Vec<u32> {
    v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    v.into_iter().take(k).map(|(f, _)| f).collect()
}

/// Share of `truth` found in `got`.
fn recall(got: &[u32], truth: &[u32]) -> f64 {
    truth.iter().filter(|f| got.contains(f)).count() as f64 / truth.len().max(1) as f64
}

/// The reference over the first `n` packets of the trace read cyclically: the true top-k (exact
/// counts) and the recall of the reference SpaceSaving.
fn reference(trace: &[u32], n: u64) -> (Vec<u32>, f64) {
    let mut exact: HashMap<u32, u64> = HashMap::new();
    let mut ss = SpaceSaving::new(SLOTS);
    for i in 0..n {
        let f = trace[(i % trace.len() as u64) as usize];
        *exact.entry(f).or_insert(0) += 1;
        ss.add(f);
    }
    let truth = top(exact.into_iter().collect(), TOP_K);
    let r = recall(&top(ss.slots(), TOP_K), &truth);
    (truth, r)
}

/// One run's figures.
struct RunFigures {
    recall: f64,
    ref_recall: f64,
    packets: u64,
    mpps_per_worker: f64,
    cycles_per_pkt: f64,
    floor_mpps_per_worker: f64,
}

/// `p4dp bench --suite rtc-spacesaving`.
pub fn suite_rtc_spacesaving(a: &BenchArgs) -> Result<ExitCode> {
    let intro = format!(
        "(examples/rtc_spacesaving.p4 with {SLOTS} slots, after Zheng et al., When P4 Meets Run-to-completion \
         Architecture, appendix C; a trace of {TRACE_RECS} packets over {FLOWS} flows (IPv4 sources), Zipf \
         s = {ZIPF_S}; top-{TOP_K} recall against an exact single-threaded SpaceSaving with {SLOTS} slots over \
         as many packets of the same trace; {} runs per worker count, each on a fresh program, medians)",
        a.repeat
    );
    run_suite(
        a,
        Suite::RtcSpacesaving,
        a.mem.unwrap_or(2048),
        &intro,
        vec![
            ("slots", Json::uint(SLOTS as u64)),
            ("top_k", Json::uint(TOP_K as u64)),
            ("flows", Json::uint(FLOWS)),
            ("zipf_s", Json::Num(ZIPF_S)),
            ("trace_packets", Json::uint(TRACE_RECS as u64)),
        ],
        vec![("recall_loss_target", Json::Num(RECALL_LOSS_TARGET))],
        |out_dir, report, rep| body(a, out_dir, report, rep),
    )
}

fn body(a: &BenchArgs, out_dir: &Path, report: &Path, rep: &mut super::rtc::Report) -> Result<()> {
    let so = build_example(
        a,
        "rtc_spacesaving.p4",
        &[format!("SPACESAVING_SLOTS={SLOTS}")],
        out_dir,
    )?;
    let mut rng = Rng::new(a.seed ^ 0x5ace);
    let pop = Popularity::new(&Traffic::Zipf(ZIPF_S), FLOWS, &mut rng);
    let flows: Vec<u32> = (0..TRACE_RECS).map(|_| FLOW_BASE + pop.draw(&mut rng) as u32).collect();
    let trace = Trace {
        records: flows.iter().flat_map(|f| f.to_be_bytes()).collect(),
        rec_size: 4,
        lens: None,
        offset: SRC_OFFSET,
        record_after_ms: 0,
    };
    let mut all = Vec::new();
    for workers in [1u32, 2] {
        let _ = writeln!(
            rep.text,
            "\n== {workers} worker(s): recall of the top {TOP_K} flows, packets/s =="
        );
        let mut runs = Vec::new();
        for run in 0..a.repeat {
            eprintln!(
                "bench: rtc-spacesaving: {workers} worker(s), run {} of {}",
                run + 1,
                a.repeat
            );
            let f = retry_empty("spacesaving", || one_run(a, &so, workers, &trace, &flows))?;
            let _ = writeln!(
                rep.text,
                "run {}: recall {:.2} (reference SpaceSaving {:.2}) over {} packets; {:.2} Mpps per worker, {:.1} \
                 cycles/pkt (floor with the same trace {:.2} Mpps per worker)",
                run + 1,
                f.recall,
                f.ref_recall,
                f.packets,
                f.mpps_per_worker,
                f.cycles_per_pkt,
                f.floor_mpps_per_worker
            );
            save(report, &rep.text)?;
            runs.push(f);
        }
        let med = |g: fn(&RunFigures) -> f64| median(&mut runs.iter().map(g).collect::<Vec<f64>>());
        let (r, rr) = (med(|f| f.recall), med(|f| f.ref_recall));
        let ok = r >= rr - RECALL_LOSS_TARGET;
        let _ = writeln!(
            rep.text,
            "{workers} worker(s): recall {r:.2} against the reference's {rr:.2} (medians; target: no loss): {}; \
             {:.2} Mpps per worker, {:.1} cycles/pkt (floor {:.2} Mpps per worker)",
            crate::bench_dp::verdict(ok),
            med(|f| f.mpps_per_worker),
            med(|f| f.cycles_per_pkt),
            med(|f| f.floor_mpps_per_worker)
        );
        all.push((
            workers,
            Json::obj([
                ("recall", Json::Num(r)),
                ("reference_recall", Json::Num(rr)),
                (
                    "recall_runs",
                    json::nums(&runs.iter().map(|f| f.recall).collect::<Vec<_>>()),
                ),
                (
                    "reference_recall_runs",
                    json::nums(&runs.iter().map(|f| f.ref_recall).collect::<Vec<_>>()),
                ),
                ("mpps_per_worker", Json::Num(med(|f| f.mpps_per_worker))),
                ("cycles_per_pkt", Json::Num(med(|f| f.cycles_per_pkt))),
                ("floor_mpps_per_worker", Json::Num(med(|f| f.floor_mpps_per_worker))),
                ("packets_last_run", Json::uint(runs.last().map_or(0, |f| f.packets))),
            ]),
        ));
        rep.pass.push((
            if workers == 1 {
                "recall_1_worker"
            } else {
                "recall_2_workers"
            },
            ok,
        ));
    }
    let mut it = all.into_iter();
    let (one, two) = (it.next(), it.next());
    rep.results.push(("one_worker", one.map_or(Json::Null, |x| x.1)));
    rep.results.push(("two_workers", two.map_or(Json::Null, |x| x.1)));
    Ok(())
}

/// One run on a fresh program: the floor with the trace, then the program, its slots, and the
/// reference over as many packets.
fn one_run(a: &BenchArgs, so: &Path, workers: u32, trace: &Trace, flows: &[u32]) -> Result<RunFigures> {
    let mut t = BenchTarget::load(so, workers).with_context(|| format!("loading {}", so.display()))?;
    let (key, count) = {
        let p = t.program();
        let ext = |n: &str| {
            p.externs
                .iter()
                .find(|e| e.name.ends_with(n))
                .map(|e| e.index)
                .with_context(|| format!("rtc_spacesaving.p4: no Counter {n}"))
        };
        (ext("slot_key")?, ext("slot_count")?)
    };
    // the program sends every packet to port 1: two ports, whatever the workers
    let mut bp = bench_params(a, workers, a.warmup(), a.duration(), Dispatch::Auto);
    bp.ports = 2;
    let mut bench = Bench::new(&mut t, &bp).context("creating the bench")?;
    // configures the ports, which the tap needs
    retry_empty("floor loop", || Ok(bench.measure(Kind::Floor)?))?;
    let mut tap = TraceTap::attach(&mut bench, workers, 2, trace)?;
    let (floor, _, _) = tap.measure(Kind::Floor)?;
    let mut slots = Vec::with_capacity(SLOTS);
    let (m, tc, _) = tap.measure_with(|b| {
        let m = b.measure(Kind::Program)?;
        for i in 0..SLOTS as u32 {
            let k = b.rtc_counter_get(key, i)?;
            if k != 0 {
                slots.push((k as u32, b.rtc_counter_get(count, i)?));
            }
        }
        Ok(m)
    })?;
    if tc.handed == 0 {
        bail!("the trace tap handed out no packet");
    }
    let (truth, ref_recall) = reference(flows, tc.handed);
    let per = |x: f64| x / f64::from(workers);
    Ok(RunFigures {
        recall: recall(&top(slots, TOP_K), &truth),
        ref_recall,
        packets: tc.handed,
        mpps_per_worker: per(m.mpps),
        cycles_per_pkt: m.cycles_per_pkt,
        floor_mpps_per_worker: per(floor.mpps),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn space_saving_keeps_heavy_flows_and_overestimates_replacements() {
        let mut ss = SpaceSaving::new(2);
        for f in [1, 1, 1, 2, 3, 1, 3] {
            ss.add(f);
        }
        // 1: 4 counts in slot 0; 2 took slot 1 (count 1), 3 replaced it (1 + 1), then 3 again
        assert_eq!(ss.slots(), vec![(1, 4), (3, 3)]);
        assert_eq!(top(ss.slots(), 1), vec![1]);
        assert_eq!(recall(&[1, 3], &[1, 2]), 0.5);
    }
}
