//! `p4dp model prog.p4`: compile the program, install generated entries, run it functionally
//! in-process over the traffic (every packet injected and processed to completion) to learn each
//! table's applications and hits per packet (the runtime's counters), and cost those paths with
//! the profile (cost.rs).

use std::collections::HashMap;
use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context, Result};
use p4dp_ir::{for_each_call, CallTarget, ExternKind, ExternRef, Stmt};
use p4dp_rt::bench_trace::Trace;
use p4dp_rt::inspect::TableLayout;
use p4dp_rt::{KeyInfo, MatchField, MatchKind, Program, Runtime, RuntimeOptions, TableEntry};

use super::cost::{self, ProgramUse, TableUse};
use super::profile::{Popularity, Touch};
use super::tuples::{sim_rule, Classifier, SimRule, TupleStats};
use super::{load_profile, ModelArgs, ModelError};
use crate::bench::gen::Rng;
use crate::bench::json;
use crate::bench::traffic::{self, Traffic};
use crate::bench::{default_mem, eal_args, template};
use crate::{compile, CompileOpts};

/// The profile's kind for a table's key: all exact → exact (hash); one lpm field with exact ones
/// → lpm (trie); otherwise tuple-space search, named by its most general field (range, then
/// ternary, then optional; an lpm among them counts as ternary). No key: keyless.
pub fn kind_of(keys: &[KeyInfo]) -> &'static str {
    if keys.is_empty() {
        return "keyless";
    }
    let has = |k: MatchKind| keys.iter().any(|f| f.match_kind == k);
    let lpm = keys.iter().filter(|f| f.match_kind == MatchKind::Lpm).count();
    if keys.iter().all(|f| f.match_kind == MatchKind::Exact) {
        "exact"
    } else if lpm == 1
        && keys
            .iter()
            .all(|f| matches!(f.match_kind, MatchKind::Exact | MatchKind::Lpm))
    {
        "lpm"
    } else if has(MatchKind::Range) {
        "range"
    } else if has(MatchKind::Ternary) || lpm > 0 {
        "ternary"
    } else {
        "optional"
    }
}

/// The memory a table's lookups read, from its layout (the lines of a hit: index bucket and
/// entry; not what only updates touch), and the pages it lies on.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Footprint {
    /// Bytes of the lines the lookups of all entries read.
    pub bytes: u64,
    /// The TLB entries those bytes need, as bytes of base pages: regions on base pages count
    /// their bytes, regions on huge pages one base page per huge page.
    pub tlb_bytes: u64,
    /// Cache lines one lookup reads, and of them those on base pages.
    pub lines: f64,
    pub base_page_lines: f64,
}

impl Footprint {
    /// Per entry of a table of `entries` entries: what the cost model takes.
    pub fn touch(&self, entries: u64) -> Touch {
        let n = entries.max(1) as f64;
        Touch {
            bytes_per_entry: self.bytes as f64 / n,
            tlb_bytes_per_entry: self.tlb_bytes as f64 / n,
            lines: self.lines,
            base_page_lines: self.base_page_lines,
        }
    }
}

/// A base page (4 KiB) and the huge page the runtime maps large table regions with
/// (`TABLE_HUGE`, runtime/src/table_internal.h), and the smallest region it maps so
/// (`TABLE_HUGE_MIN`).
const BASE_PAGE: u64 = 4096;
const HUGE_PAGE: u64 = 2 << 20;
const HUGE_MIN: u64 = HUGE_PAGE / 2;
/// The read index's layout (runtime/include/p4dp/xindex.h): slots per bucket, longest key, most
/// entries, and the bucket count of a capacity (a power of two, at least 2, with twice as many
/// slots as entries).
const XI_WAYS: u64 = 4;
const XI_KEY_MAX: u32 = 16;
const XI_MAX_ENTRIES: u64 = 1 << 22;
fn xi_buckets(capacity: u64) -> u64 {
    let mut nb = 2;
    while nb * XI_WAYS < 2 * capacity {
        nb <<= 1;
    }
    nb
}

/// TLB bytes of a region of `bytes`: on huge pages (`huge`, and at least `HUGE_MIN`: the
/// runtime's table_huge_map) a base page's worth per huge page, else its bytes.
fn tlb_region(bytes: u64, huge: bool) -> u64 {
    if huge && bytes >= HUGE_MIN {
        bytes.div_ceil(HUGE_PAGE) * BASE_PAGE
    } else {
        bytes
    }
}

/// What the lookups of a table of `entries` entries read (its capacity: as many entries).
/// Exact tables, from the runtime's layout (ARCHITECTURE.md "Entry storage and memory model",
/// `p4dp_table_mem_predict`'s storage choice): a lookup reads one read-index bucket (one line
/// for keys of up to 8 bytes, two for up to 16; the index on huge pages from 1 MiB,
/// table_xindex.c) or, for longer keys, an rte_hash bucket and its key slot (base pages), then
/// its entry: a static slot (the slot array on huge pages from 1 MiB, table_exact.c) or a
/// dynamic allocation (base pages; the allocator's header line is not read). Lpm tables: the
/// estimate below, on huge pages (the trie's nodes are carved from 2 MiB chunks, table_lpm.c),
/// two lines per lookup. Tuple-space tables: the estimate, on base pages, an index line and
/// the entry's lines per probe. The estimate: one allocation per entry (a 64-byte allocator
/// header plus the entry rounded to cache lines) and about two key-sized index slots per entry.
pub fn footprint(kind: &str, entries: u64, key_len: u32, data_len: u32) -> Footprint {
    let n = entries.max(1);
    let key_len = key_len.max(1);
    if kind == "exact" {
        if let Ok(m) = p4dp_rt::table_mem_predict(u32::try_from(n).unwrap_or(u32::MAX), key_len, data_len, 100) {
            let (index, index_lines, index_huge) = if key_len <= XI_KEY_MAX && n <= XI_MAX_ENTRIES {
                let bucket = if key_len <= 8 { 64 } else { 128 };
                (xi_buckets(n) * bucket, (bucket / 64) as f64, true)
            } else {
                // rte_hash: its buckets and key store (the hash's memory less its rings and
                // the read index, which does not exist here)
                let e = n.max(64);
                let key_slot = (8 + u64::from(key_len)).div_ceil(16) * 16;
                (2 * (e.next_power_of_two() / 8) * 64 + (e + 1) * key_slot, 2.0, false)
            };
            let entry = 24 + u64::from(data_len);
            let (ent, ent_tlb, ent_lines, ent_huge) = if m.static_storage {
                let b = n * u64::from(m.slot_bytes);
                (b, b, u64::from(m.slot_bytes).div_ceil(64) as f64, true)
            } else {
                let lines = entry.div_ceil(64);
                (n * lines * 64, n * u64::from(m.dyn_entry_bytes), lines as f64, false)
            };
            return Footprint {
                bytes: index + ent,
                tlb_bytes: tlb_region(index, index_huge) + tlb_region(ent_tlb, ent_huge),
                lines: index_lines + ent_lines,
                base_page_lines: if index_huge && index >= HUGE_MIN {
                    0.0
                } else {
                    index_lines
                } + if ent_huge && ent_tlb >= HUGE_MIN {
                    0.0
                } else {
                    ent_lines
                },
            };
        }
    }
    let bytes = footprint_bytes(kind, n, key_len, data_len);
    let ent_lines = (24 + u64::from(key_len) + u64::from(data_len)).div_ceil(64) as f64;
    if kind == "lpm" {
        Footprint {
            bytes,
            tlb_bytes: tlb_region(bytes, true),
            lines: 2.0,
            base_page_lines: 0.0,
        }
    } else {
        Footprint {
            bytes,
            tlb_bytes: bytes,
            lines: 1.0 + ent_lines,
            base_page_lines: 1.0 + ent_lines,
        }
    }
}

/// The memory estimate of a non-exact table of `entries` entries (and of an exact one the
/// runtime's model refuses): one allocation per entry (a 64-byte allocator header plus the
/// entry rounded to cache lines) and about two key-sized index slots per entry.
pub fn footprint_bytes(kind: &str, entries: u64, key_len: u32, data_len: u32) -> u64 {
    let n = entries.max(1);
    if kind == "exact" {
        if let Ok(m) = p4dp_rt::table_mem_predict(u32::try_from(n).unwrap_or(u32::MAX), key_len.max(1), data_len, 100) {
            return if m.static_storage {
                m.static_bytes
            } else {
                m.dynamic_bytes
            };
        }
    }
    let entry = 64 + (24 + u64::from(key_len) + u64::from(data_len)).div_ceil(64) * 64;
    let index = 2 * (8 + u64::from(key_len)).div_ceil(16) * 16;
    n * (entry + index)
}

/// A table's memory at its capacity as the runtime lays it out, and the storage it uses.
pub fn table_memory(t: &TableLayout, kind: &str, entries: u64) -> (u64, String) {
    let cap = if t.size == 0 {
        p4dp_ir::DEFAULT_TABLE_SIZE
    } else {
        t.size
    };
    match kind {
        "keyless" => (0, "keyless".into()),
        "exact" => {
            let fill = if cap == 0 {
                100
            } else {
                ((entries * 100).div_ceil(cap)).clamp(1, 100) as u32
            };
            let cap32 = u32::try_from(cap).unwrap_or(u32::MAX);
            // the runtime chooses at its assumed fill of 100 %; the memory is that of the real fill
            let chosen = p4dp_rt::table_mem_predict(cap32, t.key_len.max(1), t.data_len, 100);
            match (
                chosen,
                p4dp_rt::table_mem_predict(cap32, t.key_len.max(1), t.data_len, fill),
            ) {
                (Ok(c), Ok(m)) => {
                    let stat = match t.storage {
                        1 => true,
                        2 => false,
                        _ => c.static_storage,
                    };
                    let how = if t.storage != 0 { " (@storage)" } else { "" };
                    if stat {
                        (m.static_bytes, format!("static{how}"))
                    } else {
                        (m.dynamic_bytes, format!("dynamic{how}"))
                    }
                }
                _ => (footprint_bytes(kind, entries, t.key_len, t.data_len), "dynamic".into()),
            }
        }
        "lpm" => (
            footprint_bytes(kind, entries, t.key_len, t.data_len),
            "dynamic (trie, est.)".into(),
        ),
        _ => (
            footprint_bytes(kind, entries, t.key_len, t.data_len),
            "dynamic (tss, est.)".into(),
        ),
    }
}

/// What the IR says about the per-packet work the runtime does not count: headers the parsers
/// extract, each action's counter and register operations (by control-plane name), and which
/// tables a burst looks up in bulk ahead of the packets (p4dp_ir staging.rs).
pub struct IrFacts {
    pub headers: u32,
    pub action_externs: HashMap<String, (f64, f64)>,
    /// The staged first table's control-plane name.
    pub staged_first: Option<String>,
    /// The later tables staged when they hold at least `stage_ahead_min` entries.
    pub staged_later: Vec<String>,
    /// The runtime's threshold (`p4dp_rt::stage_ahead_min_entries`).
    pub stage_ahead_min: u64,
}

impl IrFacts {
    /// Whether the lookups of table `name` with `entries` entries are done in bulk ahead of the
    /// packets: the staged first table always, a later staged one from the threshold on
    /// (ARCHITECTURE.md "Later staged tables"); every other table is looked up where it is
    /// applied, one packet at a time.
    pub fn staged(&self, name: &str, entries: u64) -> bool {
        self.staged_first.as_deref() == Some(name)
            || (entries >= self.stage_ahead_min && self.staged_later.iter().any(|l| l == name))
    }
}

fn count_extracts(b: &[Stmt]) -> u32 {
    let mut n = 0;
    for_each_call(&b.to_vec(), &mut |c| {
        if let CallTarget::ExternMethod { method, .. } = &c.target {
            if method == "extract" {
                n += 1;
            }
        }
    });
    n
}

pub fn ir_facts(p: &p4dp_ir::Program) -> IrFacts {
    let mut headers = 0;
    for (_, parser) in p.parsers.iter() {
        for (_, st) in parser.states.iter() {
            headers += count_extracts(&st.body);
        }
    }
    let mut action_externs = HashMap::new();
    for (_, a) in p.actions.iter() {
        let (mut counters, mut registers) = (0.0, 0.0);
        for_each_call(&a.body, &mut |c| {
            if let CallTarget::ExternMethod {
                obj: ExternRef::Instance(id),
                method,
            } = &c.target
            {
                match p.externs[*id].kind {
                    ExternKind::V1Counter | ExternKind::PnaCounter if method == "count" => counters += 1.0,
                    // the profile's register cost is one read plus one write
                    ExternKind::V1Register | ExternKind::PnaRegister if method == "read" || method == "write" => {
                        registers += 0.5
                    }
                    _ => {}
                }
            }
        });
        action_externs.insert(a.fq_name.clone(), (counters, registers));
    }
    let plan = p4dp_ir::analysis::staging::plan(p);
    let name = |t: p4dp_ir::TableId| p.tables[t].fq_name.clone();
    IrFacts {
        headers: headers.max(1),
        action_externs,
        staged_first: plan.staged.map(name),
        staged_later: plan.later.iter().map(|&t| name(t)).collect(),
        stage_ahead_min: p4dp_rt::stage_ahead_min_entries(),
    }
}

/// The action the generated entries of a table run: its first action with parameters, else its
/// first action.
fn entry_action(prog: &Program, t: &p4dp_rt::TableInfo) -> Option<u32> {
    let with = t.actions.iter().find(|ta| {
        prog.actions
            .get(ta.action as usize)
            .is_some_and(|a| !a.params.is_empty())
    });
    with.or(t.actions.first()).map(|ta| ta.action)
}

/// Data bytes of an action beyond the 2 bytes of a port parameter (what the profile's action
/// cost was measured with), and its extern operations.
fn action_cost(prog: &Program, facts: &IrFacts, action: u32) -> (f64, f64, f64) {
    let Some(a) = prog.actions.get(action as usize) else {
        return (0.0, 0.0, 0.0);
    };
    let bytes: u32 = a.params.iter().map(|p| p.bitwidth.div_ceil(8)).sum();
    let (c, r) = facts.action_externs.get(&a.name).copied().unwrap_or((0.0, 0.0));
    (f64::from(bytes.saturating_sub(2)), c, r)
}

/// What a run of the program counted: packets processed, and per table (index order) its hits
/// and misses.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PathCounts {
    pub packets: u64,
    pub table_counts: Vec<(u64, u64)>,
}

/// The paths a run found, as the model's input: per table its kind, entries, memory,
/// applications and hits per packet (from the run's counters), and its actions' costs.
pub fn program_use(
    prog: &Program,
    layouts: &[TableLayout],
    facts: &IrFacts,
    entries: &[u64],
    run: &PathCounts,
    tuples: &[Option<TupleStats>],
    workers: u32,
    popularity: Popularity,
) -> ProgramUse {
    let pkts = run.packets.max(1) as f64;
    let mut tables = Vec::new();
    for (i, t) in prog.tables.iter().enumerate() {
        let kind = kind_of(&t.keys).to_string();
        let n = entries.get(i).copied().unwrap_or(0);
        let (h, m) = run.table_counts.get(i).copied().unwrap_or((0, 0));
        let applies = (h + m) as f64 / pkts;
        let hit_ratio = if h + m == 0 { 0.0 } else { h as f64 / (h + m) as f64 };
        let hit = entry_action(prog, t).map_or((0.0, 0.0, 0.0), |a| action_cost(prog, facts, a));
        let miss = action_cost(prog, facts, t.default_action);
        let mix = |x: f64, y: f64| hit_ratio * x + (1.0 - hit_ratio) * y;
        let lay = layouts.iter().find(|l| l.name == t.name);
        let (key_len, data_len) = lay.map_or((4, 2), |l| (l.key_len, l.data_len));
        let (memory_bytes, storage) = match lay {
            Some(l) => table_memory(l, &kind, n),
            None => (0, "-".into()),
        };
        let touch = footprint(&kind, n, key_len, data_len).touch(n);
        tables.push(TableUse {
            name: t.name.clone(),
            kind,
            entries: n,
            touch,
            memory_bytes,
            storage,
            applies,
            hit_ratio,
            extra_data_bytes: mix(hit.0, miss.0),
            counters: mix(hit.1, miss.1),
            registers: mix(hit.2, miss.2),
            tuples: tuples.get(i).copied().flatten(),
            staged: facts.staged(&t.name, n),
        });
    }
    ProgramUse {
        headers: facts.headers,
        tables,
        workers,
        popularity,
    }
}

/// Parses `--entries TABLE=N` against the program's tables (full control-plane name or its last
/// component). Returns entries per table index.
pub fn parse_entries(specs: &[String], layouts: &[TableLayout]) -> Result<Vec<u64>, ModelError> {
    let mut out = vec![0u64; layouts.len()];
    for s in specs {
        let (name, n) = s.split_once('=').ok_or_else(|| ModelError::EntriesSyntax(s.clone()))?;
        let n: u64 = n.trim().parse().map_err(|_| ModelError::EntriesSyntax(s.clone()))?;
        let name = name.trim();
        let i = layouts
            .iter()
            .position(|l| l.name == name)
            .or_else(|| {
                let m: Vec<usize> = (0..layouts.len())
                    .filter(|&i| layouts[i].name.rsplit('.').next() == Some(name))
                    .collect();
                (m.len() == 1).then(|| m[0])
            })
            .ok_or_else(|| {
                let names: Vec<&str> = layouts.iter().map(|l| l.name.as_str()).collect();
                ModelError::UnknownTable(s.clone(), name.to_string(), names.join(", "))
            })?;
        out[i] = n;
    }
    Ok(out)
}

/// First key value of generated entries and of the traffic's IPv4 destinations: 10.0.0.0.
const KEY_BASE: u64 = 0x0a00_0000;
/// Byte offset of the IPv4 destination in the bench packets.
const DST_OFFSET: u32 = 30;

fn be(v: u64, width: u32) -> Vec<u8> {
    let n = width.div_ceil(8) as usize;
    let b = v.to_be_bytes();
    if n <= 8 {
        let mut x = b[8 - n..].to_vec();
        if width % 8 != 0 {
            x[0] &= (1u8 << (width % 8)) - 1;
        }
        x
    } else {
        let mut x = vec![0; n - 8];
        x.extend_from_slice(&b);
        x
    }
}

/// Entry `i` of a generated set: the first key field takes `KEY_BASE + i` (the value the
/// traffic's IPv4 destinations carry), matched exactly; the other fields are wildcards (zero
/// for exact fields).
fn gen_entry(t: &p4dp_rt::TableInfo, i: u64, n: u64, action: u32, params: &[Vec<u8>]) -> TableEntry {
    let base = if t.keys.first().is_some_and(|k| k.bitwidth >= 32) {
        KEY_BASE
    } else {
        0
    };
    let matches = t
        .keys
        .iter()
        .enumerate()
        .map(|(f, k)| {
            let w = k.bitwidth;
            let first = f == 0;
            let v = be(if first { base + i } else { 0 }, w);
            let full = be(u64::MAX, w);
            match (k.match_kind, first) {
                (MatchKind::Exact, _) => MatchField::Exact(v),
                (MatchKind::Lpm, true) => MatchField::Lpm(v, w),
                (MatchKind::Ternary, true) => MatchField::Ternary(v, full),
                (MatchKind::Range, true) => MatchField::Range(v.clone(), v),
                (MatchKind::Optional, true) => MatchField::Optional(Some(v)),
                (MatchKind::Lpm, false) => MatchField::Lpm(be(0, w), 0),
                (MatchKind::Ternary, false) => MatchField::Ternary(be(0, w), be(0, w)),
                (MatchKind::Range, false) => MatchField::Range(be(0, w), full),
                (MatchKind::Optional, false) => MatchField::Optional(None),
            }
        })
        .collect();
    TableEntry {
        matches,
        priority: if t.needs_priority { (n - i) as i32 } else { 0 },
        action,
        params: params.to_vec(),
    }
}

fn install(rt: &Runtime, t: u32, n: u64) -> Result<u64> {
    let prog = rt.program();
    let ti = &prog.tables[t as usize];
    if n == 0 {
        return Ok(0);
    }
    let Some(action) = entry_action(prog, ti) else {
        anyhow::bail!("table {} has no action to install entries with", ti.name)
    };
    let params: Vec<Vec<u8>> = prog.actions[action as usize]
        .params
        .iter()
        .map(|p| vec![0; p.bitwidth.div_ceil(8) as usize])
        .collect();
    let w = ti.keys.first().map_or(0, |k| k.bitwidth);
    let n = if w < 64 { n.min(1u64 << w) } else { n };
    for i in 0..n {
        rt.entry_add(t, &gen_entry(ti, i, n, action, &params))
            .with_context(|| format!("installing entry {} of {n} in {}", i + 1, ti.name))?;
    }
    Ok(n)
}

/// What lookups of a tuple-space table holding the `n` generated entries (gen_entry, installed in
/// order) do when the traffic's destinations draw over `keys` keys by its popularity: the key of
/// a drawn entry is the low end of each of its fields, the draws in bursts in their order. None
/// for tables of other kinds or without entries.
fn entry_stats(t: &p4dp_rt::TableInfo, n: u64, traffic: &Traffic, keys: u64, seed: u64) -> Option<TupleStats> {
    let kind = kind_of(&t.keys);
    if n == 0 || !matches!(kind, "ternary" | "range" | "optional") {
        return None;
    }
    let widths: Vec<u32> = t.keys.iter().map(|k| k.bitwidth).collect();
    let n = t
        .keys
        .first()
        .map_or(n, |k| if k.bitwidth < 64 { n.min(1u64 << k.bitwidth) } else { n });
    let rules: Vec<SimRule> = (0..n)
        .map(|i| {
            let e = gen_entry(t, i, n, 0, &[]);
            sim_rule(&widths, &e.matches, if t.needs_priority { e.priority } else { 1 })
        })
        .collect::<Option<_>>()?;
    let keyset: Vec<Vec<u128>> = {
        let mut rng = Rng::new(seed ^ 0x6b65);
        let pop = traffic::Popularity::new(traffic, keys.max(1), &mut rng);
        (0..4096)
            .map(|_| {
                let k = (pop.draw(&mut rng) as u64).min(n - 1) as usize;
                rules[k].bounds.iter().map(|b| b.0).collect()
            })
            .collect()
    };
    let c = Classifier::build(&widths, rules);
    Some(c.stats(&keyset))
}

/// Most packets the functional run injects.
const RUN_MAX: u64 = 1 << 18;

/// The functional run: every packet of `trace` (overlaid on the bench's Ethernet/IPv4/UDP
/// template, or whole packets of a capture) processed to completion in-process on port 0, then
/// the runtime's per-table hit and miss counters. Timing is not measured.
fn functional_run(rt: &Runtime, trace: &Trace) -> Result<PathCounts> {
    let tmpl = template(60)?;
    let n = trace.len();
    let rs = trace.rec_size as usize;
    let off = trace.offset as usize;
    for k in 0..n {
        let rec = &trace.records[k * rs..(k + 1) * rs];
        let pkt = match &trace.lens {
            Some(l) => {
                let mut p = tmpl[..off.min(tmpl.len())].to_vec();
                p.extend_from_slice(&rec[..usize::from(l[k]).min(rs)]);
                p
            }
            None => {
                let mut p = tmpl.clone();
                if off + rs <= p.len() {
                    p[off..off + rs].copy_from_slice(rec);
                }
                p
            }
        };
        rt.inject(0, &pkt).context("running a packet")?;
    }
    let mut table_counts = Vec::new();
    for t in 0..rt.program().tables.len() as u32 {
        let st = rt.table_stats(t)?;
        table_counts.push((st.hits, st.misses));
    }
    Ok(PathCounts {
        packets: n as u64,
        table_counts,
    })
}

/// The traffic: IPv4 destinations `KEY_BASE + k`, k drawn over `n` keys by the popularity.
fn dst_trace(t: &Traffic, n: u64, seed: u64, warmup: f64) -> Trace {
    let mut rng = Rng::new(seed ^ 0x6d6f);
    let pop = traffic::Popularity::new(t, n.max(1), &mut rng);
    let recs = (n.max(1) * 4).clamp(4096, RUN_MAX);
    let mut records = Vec::with_capacity(recs as usize * 4);
    for _ in 0..recs {
        let k = KEY_BASE + pop.draw(&mut rng) as u64;
        records.extend_from_slice(&(k as u32).to_be_bytes());
    }
    Trace {
        records,
        rec_size: 4,
        lens: None,
        offset: DST_OFFSET,
        record_after_ms: (warmup * 1000.0) as u64,
    }
}

pub fn popularity(t: &Traffic) -> Popularity {
    match t {
        Traffic::Zipf(s) => Popularity::Zipf(*s),
        _ => Popularity::Uniform,
    }
}

pub fn model(a: ModelArgs) -> Result<ExitCode> {
    if a.check {
        return super::check::check(&a);
    }
    if a.workers == 0 || a.workers > 16 {
        return Err(ModelError::Workers.into());
    }
    let program = a.program.clone().context("a program is needed")?;
    let profile = load_profile(&a.profile)?;
    let traffic = Traffic::parse(&a.traffic)?;
    let c = CompileOpts {
        program,
        include: a.include.clone(),
        define: a.define.clone(),
    };
    let tmp = compile::temp_dir("model")?;
    let built = compile::build(&c, tmp.path(), false)?;
    let (ir, _) = compile::front(&c)?;
    let facts = ir_facts(&ir);
    let layouts = p4dp_rt::inspect::table_layouts(&built.so_path)?;
    let entries = parse_entries(&a.entries, &layouts)?;
    let top = entries.iter().copied().max().unwrap_or(0);
    let pcap = match &traffic {
        Traffic::Pcap(p) => Some(traffic::pcap_trace(p, 1 << 22)?.0),
        _ => None,
    };
    let mem = default_mem(4096, top, 1);
    p4dp_rt::Eal::init(&eal_args(mem, 1, a.eal.as_deref())).context("starting DPDK's EAL")?;
    let rt = Runtime::load(&built.so_path, RuntimeOptions::default())
        .with_context(|| format!("loading {}", built.so_path.display()))?;
    for (t, &n) in entries.iter().enumerate() {
        install(&rt, t as u32, n)?;
    }
    let trace = pcap.unwrap_or_else(|| dst_trace(&traffic, top, a.seed, 0.0));
    let run = functional_run(&rt, &trace)?;
    // the tuple-space tables' lookups: the generated entries under the generated traffic (a
    // capture's keys are not known here: those tables are costed by their entry count)
    let tuples: Vec<Option<TupleStats>> = (0..entries.len())
        .map(|t| match traffic {
            Traffic::Pcap(_) => None,
            _ => entry_stats(&rt.program().tables[t], entries[t], &traffic, top, a.seed),
        })
        .collect();
    let u = program_use(
        rt.program(),
        &layouts,
        &facts,
        &entries,
        &run,
        &tuples,
        a.workers,
        popularity(&traffic),
    );
    let r = cost::predict(&profile, &u)?;
    print!("{}", cost::report(&profile, &u, &r));
    if let Some(j) = &a.json {
        json::emit(j, &cost::to_json(&u, &r))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The program's schema (tables, actions) as the runtime loads it.
pub fn rt_program(so: &Path) -> Result<Program> {
    let t = Runtime::load(so, RuntimeOptions::default()).with_context(|| format!("loading {}", so.display()))?;
    Ok(t.program().clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn staged_tables_follow_the_plan_and_the_threshold() {
        let program = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/programs/staged_later_tables.p4");
        let co = CompileOpts {
            program,
            include: Vec::new(),
            define: Vec::new(),
        };
        let (ir, _) = compile::front(&co).expect("the corpus program compiles");
        let f = ir_facts(&ir);
        assert_eq!(f.staged_first.as_deref(), Some("ingress.t_first"));
        assert_eq!(
            f.staged_later,
            ["ingress.t_a", "ingress.t_b", "ingress.t_m", "ingress.t_c"]
        );
        assert_eq!(f.stage_ahead_min, p4dp_rt::stage_ahead_min_entries());
        let min = f.stage_ahead_min.max(1);
        // the first table whatever its size; a later one from the threshold on; no other
        assert!(f.staged("ingress.t_first", 1));
        assert!(!f.staged("ingress.t_a", min - 1));
        assert!(f.staged("ingress.t_a", min));
        assert!(f.staged("ingress.t_c", min + 1));
        assert!(!f.staged("egress.t_a", min));
    }

    fn key(k: MatchKind) -> KeyInfo {
        KeyInfo {
            name: "k".into(),
            id: 1,
            match_kind: k,
            bitwidth: 32,
        }
    }

    #[test]
    fn kinds_follow_the_runtime_structures() {
        use MatchKind::*;
        assert_eq!(kind_of(&[]), "keyless");
        assert_eq!(kind_of(&[key(Exact), key(Exact)]), "exact");
        assert_eq!(kind_of(&[key(Lpm), key(Exact)]), "lpm");
        assert_eq!(kind_of(&[key(Lpm), key(Lpm)]), "ternary");
        assert_eq!(kind_of(&[key(Ternary), key(Range)]), "range");
        assert_eq!(kind_of(&[key(Optional), key(Exact)]), "optional");
    }

    #[test]
    fn entries_name_tables_by_full_or_short_name() {
        let l = |n: &str| TableLayout {
            name: n.into(),
            key_len: 4,
            data_len: 2,
            size: 1024,
            storage: 0,
            exact: true,
        };
        let ls = [l("ingress.fwd"), l("ingress.acl")];
        assert_eq!(parse_entries(&["acl=10".into()], &ls).unwrap(), vec![0, 10]);
        assert_eq!(parse_entries(&["ingress.fwd=3".into()], &ls).unwrap(), vec![3, 0]);
        let e = parse_entries(&["nat=1".into()], &ls).unwrap_err().to_string();
        assert!(e.contains("no table `nat`") && e.contains("ingress.acl"), "{e}");
        let e = parse_entries(&["acl".into()], &ls).unwrap_err().to_string();
        assert!(e.contains("TABLE=N"), "{e}");
        let e = parse_entries(&["acl=x".into()], &ls).unwrap_err().to_string();
        assert!(e.contains("TABLE=N"), "{e}");
    }

    #[test]
    fn footprints_grow_with_entries() {
        let a = footprint_bytes("ternary", 100, 16, 2);
        let b = footprint_bytes("ternary", 200, 16, 2);
        assert_eq!(b, 2 * a);
        assert!(footprint_bytes("exact", 1 << 20, 4, 2) > footprint_bytes("exact", 1 << 10, 4, 2) * 512);
    }

    #[test]
    fn exact_footprints_follow_the_layout() {
        // 2^20 entries of a 4-byte key: 2^19 one-line index buckets and 2^20 slots of 32 bytes,
        // both on huge pages (16 of 2 MiB each); a lookup reads a bucket and a slot
        let big = footprint("exact", 1 << 20, 4, 2);
        assert_eq!(big.bytes, (32 << 20) + (32 << 20));
        assert_eq!(big.tlb_bytes, 32 * 4096);
        assert_eq!((big.lines, big.base_page_lines), (2.0, 0.0));
        // 2^10: under the huge-page threshold, on base pages
        let small = footprint("exact", 1 << 10, 4, 2);
        assert_eq!(small.bytes, 512 * 64 + 1024 * 32);
        assert_eq!(small.tlb_bytes, small.bytes);
        assert_eq!(small.base_page_lines, 2.0);
        // 16-byte keys: two-line buckets
        assert_eq!(footprint("exact", 1 << 10, 16, 2).lines, 3.0);
        // per entry
        let t = big.touch(1 << 20);
        assert_eq!(t.bytes_per_entry, 64.0);
        // lpm: huge pages; tuple space: base pages
        assert_eq!(footprint("lpm", 1 << 16, 4, 2).base_page_lines, 0.0);
        let tss = footprint("ternary", 1 << 10, 4, 2);
        assert_eq!(tss.tlb_bytes, tss.bytes);
    }

    #[test]
    fn big_endian_values_fit_their_width() {
        assert_eq!(be(0x1ff, 9), vec![0x01, 0xff]);
        assert_eq!(be(u64::MAX, 9), vec![0x01, 0xff]);
        assert_eq!(be(0x0a000001, 32), vec![10, 0, 0, 1]);
        assert_eq!(be(1, 128).len(), 16);
    }
}
