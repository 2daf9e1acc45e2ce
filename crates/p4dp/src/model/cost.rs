//! Costing a program's per-packet paths with a machine profile: the prediction `p4dp model`
//! prints and `p4dp model --check` judges (docs/model.md, "Method").

use std::fmt::Write as _;

use super::calibrate::SHAPE_ENTRIES;
use super::profile::{
    interpolate, lookup_cost, miss_scale, past_l2_cycles, regime, tuple_cost, Popularity, Profile, Touch, LEVELS,
};
use super::tuples::TupleStats;
use super::ModelError;
use crate::bench::json::Json;

/// What one table does per packet, found by running the program (applications and hits from the
/// runtime's counters) and from its layout (entries, memory).
#[derive(Clone, Debug, PartialEq)]
pub struct TableUse {
    pub name: String,
    /// The profile's kind whose costs apply: exact, lpm, ternary, range, optional, or keyless.
    pub kind: String,
    pub entries: u64,
    /// What its lookups read, per entry, and on which pages (model/predict.rs `footprint`).
    pub touch: Touch,
    /// Memory of the table at its capacity as the runtime lays it out, and how.
    pub memory_bytes: u64,
    pub storage: String,
    /// Applications per packet and the share of them that hit.
    pub applies: f64,
    pub hit_ratio: f64,
    /// Action data bytes beyond a port parameter, of the actions run (hit and miss weighted).
    pub extra_data_bytes: f64,
    /// Counter and register (read + write) operations per application.
    pub counters: f64,
    pub registers: f64,
    /// Tuple-space tables: what a lookup of the traffic does (tabs visited per burst, tabs
    /// probed and candidates checked per lookup; model/tuples.rs), when the entries and keys are
    /// known.
    pub tuples: Option<TupleStats>,
    /// Its lookups are done in bulk for the whole burst ahead of the packets (the staged first
    /// table, a later staged one at or past the runtime's threshold; model/predict.rs
    /// `IrFacts::staged`), so that their misses overlap; otherwise each packet's lookup waits
    /// for its own misses (`Profile::unstaged_miss_scale`).
    pub staged: bool,
}

/// A program's paths: what the model costs.
#[derive(Clone, Debug, PartialEq)]
pub struct ProgramUse {
    /// Headers the parser extracts per packet.
    pub headers: u32,
    pub tables: Vec<TableUse>,
    pub workers: u32,
    pub popularity: Popularity,
}

/// One table's share of the prediction.
#[derive(Clone, Debug, PartialEq)]
pub struct TableCost {
    pub name: String,
    /// Cycles/packet this table adds (applications × cost of one).
    pub cycles: f64,
    pub lookup: f64,
    pub action: f64,
    /// Where most lookups are served from.
    pub regime: &'static str,
    /// The largest part of its cost, in words.
    pub dominant: String,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Prediction {
    /// Cycles/packet of one worker (core cycles: with several workers, each worker's).
    pub cycles: f64,
    pub floor: f64,
    pub parse: f64,
    /// The first searched table's fixed part, paid once per packet.
    pub tables_fixed: f64,
    pub tables: Vec<TableCost>,
    pub mpps_per_worker: f64,
    pub mpps_total: f64,
    pub latency_p50_cycles: f64,
    pub latency_p50_us: f64,
}

/// Costs `u` with `p`. Errors: a table kind the profile has no figures for.
pub fn predict(p: &Profile, u: &ProgramUse) -> Result<Prediction, ModelError> {
    let parse = p.base_cycles + (f64::from(u.headers) - f64::from(p.base_headers)) * p.parse_cycles_per_header;
    let mut tables = Vec::new();
    // the tables the packets search share the caches
    let searched = u
        .tables
        .iter()
        .filter(|t| t.kind != "keyless" && t.entries > 0 && t.applies > 0.0)
        .count()
        .max(1);
    let share = 1.0 / searched as f64;
    // every calibrated table cost holds the first table's fixed part: each searched table is
    // costed without it, and the packet pays it once (for its share of packets searching any).
    // A table of a kind is stripped of at most its kind's calibrated cost at the chain's table
    // size (`SHAPE_ENTRIES`, where the 1..N tables line was measured) less the cost of one more
    // table (`table_apply_cycles`): such a table keeps what a further table was measured to cost
    // (per kind: an lpm lookup cheaper than the exact fixed part must not cap what exact tables
    // are stripped of); the packet pays the largest part its searched tables were stripped of.
    // For the exact kind this is the calibration's own split (the fixed part is that lookup less
    // the slope), so the calibrated 1..N tables come back.
    let fixed_of = |kind: &str| -> f64 {
        let at_shape = p.kind(kind).map_or(0.0, |k| interpolate(&k.points, SHAPE_ENTRIES));
        p.tables_fixed_cycles
            .min(at_shape - p.table_apply_cycles.max(0.0))
            .max(0.0)
    };
    let searched_tables = || u.tables.iter().filter(|t| t.kind != "keyless" && t.entries > 0);
    let fixed = searched_tables().map(|t| fixed_of(&t.kind)).fold(0.0, f64::max);
    let searching: f64 = searched_tables().map(|t| t.applies).sum::<f64>().min(1.0);
    let mut sum = fixed * searching;
    for t in &u.tables {
        // an empty table finds nothing to search: the cost of applying it, as a keyless one
        let mut probed = None;
        let (lookup, misses) = if t.kind == "keyless" || t.entries == 0 {
            (p.table_apply_cycles, [0.0; LEVELS])
        } else {
            let own = fixed_of(&t.kind);
            let strip = |(c, m): (f64, [f64; LEVELS])| ((c - own).max(0.0), m);
            let k = p
                .kind(&t.kind)
                .ok_or_else(|| ModelError::NoKind(t.kind.clone(), t.name.clone()))?;
            let tc = t.tuples.and_then(|st| tuple_cost(p, &t.kind).map(|c| (st, c)));
            strip(match tc {
                Some((st, c)) => {
                    probed = Some(st);
                    // at least one hash table's probe: the exact kind's cheapest lookup (the fit's
                    // intercept is negative where the calibrated cost rises faster than linearly
                    // in the tabs, docs/model.md)
                    let least = p.kind("exact").and_then(|k| k.points.first()).map_or(0.0, |q| q.cycles);
                    (c.cycles(st.passes, st.probes, st.checks).max(least), [0.0; LEVELS])
                }
                None => {
                    let (c, m) = lookup_cost(p, k, t.entries.max(1), &t.touch, u.popularity, share);
                    // a lookup not staged waits for its misses past L2 on its own
                    let alone = if t.staged {
                        0.0
                    } else {
                        (p.unstaged_miss_scale - 1.0).max(0.0) * miss_scale(p, k) * past_l2_cycles(p, &m)
                    };
                    (c + alone, m)
                }
            })
        };
        let data = t.extra_data_bytes * p.action_data_cycles_per_byte;
        let ext = t.counters * p.counter_cycles + t.registers * p.register_cycles;
        let action = data + ext;
        let one = lookup + action;
        let cycles = t.applies * one;
        let reg = regime(&misses);
        let dominant = if t.applies == 0.0 {
            "not applied".to_string()
        } else if t.kind != "keyless" && t.entries == 0 {
            "no entries: applying it and its default action".to_string()
        } else if ext > lookup && ext >= data {
            "extern calls in its actions".to_string()
        } else if data > lookup {
            "action data".to_string()
        } else if let Some(st) = probed {
            format!(
                "{} lookup, {:.1} hash tables probed per lookup, {:.1} visited per burst",
                t.kind, st.probes, st.passes
            )
        } else if reg == "L1" {
            format!("{} lookup, cache-resident", t.kind)
        } else if t.staged {
            format!("{} lookup, memory in {reg}", t.kind)
        } else {
            format!("{} lookup, memory in {reg}, one packet at a time", t.kind)
        };
        sum += cycles;
        tables.push(TableCost {
            name: t.name.clone(),
            cycles,
            lookup,
            action,
            regime: reg,
            dominant,
        });
    }
    // more workers: each pays for the lines they share, per packet and per table application
    let applies: f64 = u.tables.iter().map(|t| t.applies).sum();
    let cycles = p.floor_cycles + parse + sum + p.worker_extra(u.workers.max(1), applies);
    let mpps_per_worker = p.machine.tsc_hz / cycles / 1e6;
    let latency = p.latency_base + p.latency_per_cycle * cycles;
    Ok(Prediction {
        cycles,
        floor: p.floor_cycles,
        parse,
        tables_fixed: fixed * searching,
        tables,
        mpps_per_worker,
        mpps_total: mpps_per_worker * f64::from(u.workers.max(1)),
        latency_p50_cycles: latency.max(0.0),
        latency_p50_us: latency.max(0.0) / p.machine.tsc_hz * 1e6,
    })
}

fn human(bytes: u64) -> String {
    if bytes >= 10 << 20 {
        format!("{} MiB", bytes >> 20)
    } else if bytes >= 10 << 10 {
        format!("{} KiB", bytes >> 10)
    } else {
        format!("{bytes} B")
    }
}

/// The text report: the figures, then per table what it costs and what dominates.
pub fn report(p: &Profile, u: &ProgramUse, r: &Prediction) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "prediction ({} worker{}, profile of {} on {}{})",
        u.workers,
        if u.workers == 1 { "" } else { "s" },
        p.machine.hostname,
        p.machine.cpu_model,
        if p.quick { ", quick calibration" } else { "" }
    );
    let _ = writeln!(s, "  cycles/packet:        {:.1}", r.cycles);
    let _ = writeln!(s, "  Mpps per worker:      {:.2}", r.mpps_per_worker);
    let _ = writeln!(s, "  Mpps total:           {:.2}", r.mpps_total);
    let _ = writeln!(
        s,
        "  median latency:       {:.0} cycles ({:.2} us, rx burst to tx burst)",
        r.latency_p50_cycles, r.latency_p50_us
    );
    let _ = writeln!(s, "where the cycles go (per packet, one worker):");
    let _ = writeln!(s, "  {:<28} {:>9}", "rx/tx floor", format!("{:.1}", r.floor));
    let _ = writeln!(
        s,
        "  {:<28} {:>9}",
        format!(
            "parse/deparse ({} header{})",
            u.headers,
            if u.headers == 1 { "" } else { "s" }
        ),
        format!("{:.1}", r.parse)
    );
    if r.tables_fixed > 0.0 {
        let _ = writeln!(
            s,
            "  {:<28} {:>9}  once per packet that searches a table",
            "tables' fixed part",
            format!("{:.1}", r.tables_fixed)
        );
    }
    for (t, c) in u.tables.iter().zip(&r.tables) {
        let _ = writeln!(
            s,
            "  {:<28} {:>9}  {:.2} applies/pkt, {:.0}% hit; lookup {:.1} + action {:.1}; {}",
            format!("table {}", t.name),
            format!("{:.1}", c.cycles),
            t.applies,
            t.hit_ratio * 100.0,
            c.lookup,
            c.action,
            c.dominant
        );
    }
    let _ = writeln!(s, "table memory:");
    for t in &u.tables {
        let _ = writeln!(
            s,
            "  {:<28} {:>8} entries  {:<20} {}",
            t.name,
            t.entries,
            t.storage,
            if t.kind == "keyless" {
                "-".to_string()
            } else {
                human(t.memory_bytes)
            }
        );
    }
    if let Some(top) = r.tables.iter().max_by(|a, b| a.cycles.total_cmp(&b.cycles)) {
        if top.cycles > r.floor {
            let _ = writeln!(s, "dominant: table {} ({})", top.name, top.dominant);
        } else {
            let _ = writeln!(
                s,
                "dominant: the rx/tx floor and parsing (no table costs more than the floor)"
            );
        }
    } else {
        let _ = writeln!(s, "dominant: the rx/tx floor and parsing (no tables)");
    }
    s
}

/// The prediction as JSON (`p4dp model --json`).
pub fn to_json(u: &ProgramUse, r: &Prediction) -> Json {
    Json::obj([
        ("cycles_per_pkt", Json::Num(r.cycles)),
        ("mpps_per_worker", Json::Num(r.mpps_per_worker)),
        ("mpps_total", Json::Num(r.mpps_total)),
        ("latency_p50_cycles", Json::Num(r.latency_p50_cycles)),
        ("latency_p50_us", Json::Num(r.latency_p50_us)),
        ("workers", Json::uint(u64::from(u.workers))),
        ("floor_cycles", Json::Num(r.floor)),
        ("parse_cycles", Json::Num(r.parse)),
        ("tables_fixed_cycles", Json::Num(r.tables_fixed)),
        (
            "tables",
            Json::Arr(
                u.tables
                    .iter()
                    .zip(&r.tables)
                    .map(|(t, c)| {
                        Json::obj([
                            ("name", Json::str(t.name.clone())),
                            ("kind", Json::str(t.kind.clone())),
                            ("entries", Json::uint(t.entries)),
                            ("storage", Json::str(t.storage.clone())),
                            ("memory_bytes", Json::uint(t.memory_bytes)),
                            ("applies_per_pkt", Json::Num(t.applies)),
                            ("hit_ratio", Json::Num(t.hit_ratio)),
                            ("probes_per_lookup", Json::opt(t.tuples.map(|s| s.probes))),
                            ("tabs_per_burst", Json::opt(t.tuples.map(|s| s.passes))),
                            ("checks_per_lookup", Json::opt(t.tuples.map(|s| s.checks))),
                            ("staged", Json::Bool(t.staged)),
                            ("cycles_per_pkt", Json::Num(c.cycles)),
                            ("lookup_cycles", Json::Num(c.lookup)),
                            ("action_cycles", Json::Num(c.action)),
                            ("regime", Json::str(c.regime)),
                            ("dominant", Json::str(c.dominant.clone())),
                        ])
                    })
                    .collect(),
            ),
        ),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::profile::tests::sample;

    fn table(kind: &str, entries: u64, applies: f64) -> TableUse {
        TableUse {
            name: "t".into(),
            kind: kind.into(),
            entries,
            touch: Touch {
                bytes_per_entry: 64.0,
                tlb_bytes_per_entry: 64.0,
                lines: 2.0,
                base_page_lines: 2.0,
            },
            memory_bytes: entries * 64,
            storage: "static".into(),
            applies,
            hit_ratio: 1.0,
            extra_data_bytes: 0.0,
            counters: 0.0,
            registers: 0.0,
            tuples: None,
            staged: true,
        }
    }

    #[test]
    fn cycles_add_up_from_the_profile() {
        let p = sample();
        let u = ProgramUse {
            headers: 3,
            tables: vec![table("exact", 16, 1.0), table("exact", 16, 1.0)],
            workers: 1,
            popularity: Popularity::Uniform,
        };
        let r = predict(&p, &u).unwrap();
        // floor 60 + base 40 + 2 × 30
        assert!((r.cycles - 160.0).abs() < 1e-9, "{}", r.cycles);
        assert!((r.mpps_per_worker - 2.0e9 / 160.0 / 1e6).abs() < 1e-9);
        assert!((r.latency_p50_cycles - (100.0 + 32.0 * 160.0)).abs() < 1e-9);
        assert_eq!(r.tables[0].regime, "L1");
    }

    #[test]
    fn headers_actions_externs_and_workers_are_costed() {
        let p = sample();
        let mut t = table("exact", 16, 2.0);
        t.extra_data_bytes = 8.0;
        t.counters = 1.0;
        t.registers = 1.0;
        let u = ProgramUse {
            headers: 5,
            tables: vec![t],
            workers: 2,
            popularity: Popularity::Uniform,
        };
        let r = predict(&p, &u).unwrap();
        // 60 + 40 + 2·5 + 2 × (30 + 8·0.5 + 10 + 12), and the second worker's 20 + 5 per
        // application
        let want = 60.0 + 40.0 + 10.0 + 2.0 * 56.0 + 20.0 + 5.0 * 2.0;
        assert!((r.cycles - want).abs() < 1e-9, "{} vs {want}", r.cycles);
        assert!((r.mpps_total - 2.0 * r.mpps_per_worker).abs() < 1e-12);
        // lookup 30 > externs 22 > data 4
        assert_eq!(r.tables[0].dominant, "exact lookup, cache-resident");
    }

    #[test]
    fn the_first_table_pays_the_fixed_part_once() {
        let mut p = sample();
        // a table costs 30 at every size (the chain's 256 entries too), each further one 20:
        // 10 is the first one's own part
        for q in &mut p.kinds[0].points {
            q.cycles = 30.0;
        }
        p.table_apply_cycles = 20.0;
        p.tables_fixed_cycles = 10.0;
        let u = ProgramUse {
            headers: 3,
            tables: vec![
                table("exact", 16, 1.0),
                table("exact", 16, 1.0),
                table("exact", 16, 1.0),
            ],
            workers: 1,
            popularity: Popularity::Uniform,
        };
        let r = predict(&p, &u).unwrap();
        // floor 60 + base 40 + 10 once + 3 × (30 - 10)
        assert!((r.cycles - 170.0).abs() < 1e-9, "{}", r.cycles);
        assert!((r.tables[0].lookup - 20.0).abs() < 1e-9);
        // a fixed part past the cheapest table less a further table's cost is held there: every
        // table keeps the 20 a further table costs
        p.tables_fixed_cycles = 300.0;
        let r = predict(&p, &u).unwrap();
        assert!((r.tables_fixed - 10.0).abs() < 1e-9, "{}", r.tables_fixed);
        assert!((r.tables[0].lookup - 20.0).abs() < 1e-9, "{}", r.tables[0].lookup);
        // the bound is each kind's own: a cheaper lpm kind does not cap the exact tables'
        p.table_apply_cycles = 5.0;
        p.tables_fixed_cycles = 20.0;
        let mut lpm = p.kinds[0].clone();
        lpm.kind = "lpm".into();
        for q in &mut lpm.points {
            q.cycles = 10.0;
        }
        p.kinds.push(lpm);
        let r = predict(&p, &u).unwrap();
        assert!((r.tables_fixed - 20.0).abs() < 1e-9, "{}", r.tables_fixed);
        assert!((r.cycles - (100.0 + 20.0 + 3.0 * 10.0)).abs() < 1e-9, "{}", r.cycles);
        // an lpm table beside them is stripped of 5 (its 10 less a further table's 5), the
        // packet pays 20 once
        let mut mixed = u.clone();
        mixed.tables.push(table("lpm", 16, 1.0));
        let r = predict(&p, &mixed).unwrap();
        assert!((r.tables[3].lookup - 5.0).abs() < 1e-9, "{}", r.tables[3].lookup);
        assert!((r.tables_fixed - 20.0).abs() < 1e-9, "{}", r.tables_fixed);
    }

    #[test]
    fn tuple_space_tables_are_costed_by_what_their_lookups_do() {
        use crate::model::profile::{KindCost, TupleSet, TupleSets};
        let mut p = sample();
        let mut tern: KindCost = p.kinds[0].clone();
        tern.kind = "ternary".into();
        for q in &mut tern.points {
            q.cycles = 500.0;
        }
        p.kinds.push(tern);
        // cycles = -40 + 30 per tab + 20 per probe + 5 per check
        let set = |tabs: f64, probes: f64, checks: f64| TupleSet {
            entries: 64,
            zipf: 0.0,
            tabs,
            probes,
            checks,
            cycles: -40.0 + 30.0 * tabs + 20.0 * probes + 5.0 * checks,
        };
        p.tuple_sets = vec![TupleSets {
            kind: "ternary".into(),
            sets: vec![
                set(3.0, 2.0, 1.0),
                set(4.0, 3.5, 1.0),
                set(7.0, 4.5, 1.5),
                set(9.0, 6.0, 2.5),
                set(5.0, 4.5, 2.0),
                set(11.0, 9.5, 2.0),
            ],
        }];
        let mut t = table("ternary", 64, 1.0);
        t.tuples = Some(TupleStats {
            probes: 4.0,
            checks: 2.0,
            passes: 6.0,
            tabs: 6.0,
        });
        let u = ProgramUse {
            headers: 3,
            tables: vec![t.clone()],
            workers: 1,
            popularity: Popularity::Uniform,
        };
        let r = predict(&p, &u).unwrap();
        let want = -40.0 + 180.0 + 80.0 + 10.0;
        assert!((r.tables[0].lookup - want).abs() < 1e-6, "{}", r.tables[0].lookup);
        assert!(
            r.tables[0].dominant.contains("4.0 hash tables probed"),
            "{}",
            r.tables[0].dominant
        );
        // one tab probed: never below the exact kind's cheapest lookup (30)
        let mut one = u.clone();
        one.tables[0].tuples = Some(TupleStats {
            probes: 1.0,
            checks: 1.0,
            passes: 1.0,
            tabs: 1.0,
        });
        let r = predict(&p, &one).unwrap();
        assert!((r.tables[0].lookup - 30.0).abs() < 1e-9, "{}", r.tables[0].lookup);
        // without the lookups' figures (a capture's keys): the calibrated cost by entries
        let mut blind = u.clone();
        blind.tables[0].tuples = None;
        let r = predict(&p, &blind).unwrap();
        assert!((r.tables[0].lookup - 500.0).abs() < 1e-9, "{}", r.tables[0].lookup);
    }

    #[test]
    fn a_table_not_staged_pays_its_misses_past_l2_scaled() {
        let mut p = sample();
        p.unstaged_miss_scale = 3.0;
        let cost = |entries: u64, staged: bool| {
            let mut t = table("exact", entries, 1.0);
            t.staged = staged;
            let u = ProgramUse {
                headers: 3,
                tables: vec![table("exact", entries, 1.0), t],
                workers: 1,
                popularity: Popularity::Uniform,
            };
            predict(&p, &u).unwrap()
        };
        // 2^16 entries of 64 bytes: 4 MiB each, past L2 (1 MiB) but within the LLC (16 MiB)
        let (a, b) = (cost(1 << 16, true), cost(1 << 16, false));
        let k = p.kind("exact").unwrap();
        let t = table("exact", 1 << 16, 1.0);
        let m = lookup_cost(&p, k, 1 << 16, &t.touch, Popularity::Uniform, 0.5).1;
        let want = 2.0 * miss_scale(&p, k) * past_l2_cycles(&p, &m);
        assert!(want > 10.0, "{want}");
        assert!(
            (b.cycles - a.cycles - want).abs() < 1e-9,
            "{} vs {} + {want}",
            b.cycles,
            a.cycles
        );
        assert!((b.tables[1].lookup - a.tables[1].lookup - want).abs() < 1e-9);
        assert!(
            b.tables[1].dominant.ends_with("one packet at a time"),
            "{}",
            b.tables[1].dominant
        );
        assert!(!a.tables[1].dominant.contains("one packet"), "{}", a.tables[1].dominant);
        // cache-resident: staged or not, the same
        let (a, b) = (cost(16, true), cost(16, false));
        assert!((a.cycles - b.cycles).abs() < 1e-9, "{} vs {}", a.cycles, b.cycles);
    }

    #[test]
    fn a_kind_without_figures_is_an_error() {
        let p = sample();
        let u = ProgramUse {
            headers: 3,
            tables: vec![table("ternary", 16, 1.0)],
            workers: 1,
            popularity: Popularity::Uniform,
        };
        let e = predict(&p, &u).unwrap_err().to_string();
        assert!(e.contains("ternary"), "{e}");
    }

    #[test]
    fn the_report_names_every_table_and_the_dominant_one() {
        let p = sample();
        let mut big = table("exact", 1 << 20, 1.0);
        big.name = "big".into();
        let u = ProgramUse {
            headers: 3,
            tables: vec![table("exact", 16, 1.0), big],
            workers: 1,
            popularity: Popularity::Uniform,
        };
        let r = predict(&p, &u).unwrap();
        let s = report(&p, &u, &r);
        assert!(s.contains("table big"), "{s}");
        assert!(s.contains("dominant: table big (exact lookup, memory in DRAM)"), "{s}");
        assert!(s.contains("cycles/packet:"), "{s}");
    }
}
