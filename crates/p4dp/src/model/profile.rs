//! The machine profile `p4dp calibrate` writes and `p4dp model` reads (docs/model.md), and the
//! arithmetic that turns a profile and a program's per-packet paths into cycles/packet: lookup
//! costs interpolated over the calibrated table sizes, corrected for the traffic's popularity by
//! a cache model (Che's approximation of an LRU cache per level).

use serde_json::Value;

use super::ModelError;
use crate::bench::json::Json;

/// Version of the profile's layout; bumped when a field changes meaning or goes away.
pub const FORMAT: u64 = 6;

/// The machine a profile was measured on.
#[derive(Clone, Debug, PartialEq)]
pub struct Machine {
    pub cpu_model: String,
    pub cpus: u32,
    pub tsc_hz: f64,
    pub hostname: String,
    pub kernel: String,
    /// Seconds since the Unix epoch at the end of the calibration.
    pub measured_at: u64,
    /// `/proc/loadavg`'s one-minute figure before and after.
    pub load_before: f64,
    pub load_after: f64,
}

/// Data cache sizes in bytes (sysfs), innermost first.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Caches {
    pub l1d: u64,
    pub l2: u64,
    pub llc: u64,
}

impl Caches {
    pub fn levels(&self) -> [u64; 3] {
        [self.l1d, self.l2, self.llc]
    }
}

/// The last-level data TLB (model/tlb.rs): how much memory it maps without a page walk.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tlb {
    /// Bytes one TLB entry maps (the base page: 4 KiB without huge pages).
    pub page_bytes: u64,
    /// Pages the TLB holds, as the pointer chase shows it.
    pub reach_pages: f64,
    /// A dependent load's page walk as the chase measures it (no other load in flight): shown
    /// for reference; a lookup's share of it is the fitted `miss_penalty[TLB]`.
    pub walk_latency_cycles: f64,
}

impl Tlb {
    /// Bytes the TLB maps.
    pub fn reach_bytes(&self) -> f64 {
        self.reach_pages * self.page_bytes as f64
    }
}

/// What N workers cost beyond one, per packet of each worker: `per_packet + per_apply ×
/// table applications per packet` (the lines the workers share: ports, counters).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WorkerCost {
    pub workers: u32,
    pub per_packet: f64,
    pub per_apply: f64,
}

/// Miss levels of a lookup: L1d, L2, LLC and the TLB (a page walk).
pub const LEVELS: usize = 4;
/// Index of the TLB in the miss and penalty arrays.
pub const TLB: usize = 3;

/// One calibrated table size: the cost of applying one table of `entries` entries (uniform
/// traffic, all hits) over the program without tables, and the memory its lookups touch.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SizePoint {
    pub entries: u64,
    /// Bytes the lookups of all entries read (model/predict.rs `footprint`).
    pub footprint_bytes: u64,
    /// The TLB entries those bytes need, as bytes of base pages (`Touch::tlb_bytes_per_entry`).
    pub tlb_bytes: u64,
    pub cycles: f64,
}

/// One calibrated rule set of a tuple-space kind: its cost over the program without tables and
/// what its lookups do under its traffic (model/tuples.rs `TupleStats`, per lookup).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TupleSet {
    pub entries: u64,
    /// The traffic's Zipf exponent; 0: uniform.
    pub zipf: f64,
    /// Tabs the burst lookup visits per burst (its passes over the burst's keys).
    pub tabs: f64,
    /// Tabs probed (hashed, bucket read) per lookup.
    pub probes: f64,
    /// Bucket candidates checked per lookup.
    pub checks: f64,
    pub cycles: f64,
}

/// The calibrated rule sets of one tuple-space kind.
#[derive(Clone, Debug, PartialEq)]
pub struct TupleSets {
    pub kind: String,
    pub sets: Vec<TupleSet>,
}

/// What a table's lookups touch, from its layout (model/predict.rs `footprint`), per entry.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Touch {
    /// Bytes of the lines the lookups of all entries read (index buckets and entries; not the
    /// memory only updates touch), per entry.
    pub bytes_per_entry: f64,
    /// The TLB entries those lines need, per entry, counted as bytes of base pages: a region on
    /// base pages counts its bytes, a region on huge pages one base page per huge page (a TLB
    /// entry maps either).
    pub tlb_bytes_per_entry: f64,
    /// Cache lines one lookup reads, and how many of them lie on base pages.
    pub lines: f64,
    pub base_page_lines: f64,
}

/// The calibrated sizes of one match kind (exact, lpm, ternary, range, optional).
#[derive(Clone, Debug, PartialEq)]
pub struct KindCost {
    pub kind: String,
    /// Ascending by entries.
    pub points: Vec<SizePoint>,
}

/// Everything `p4dp model` needs to know about a machine. Cycles are TSC cycles per packet.
#[derive(Clone, Debug, PartialEq)]
pub struct Profile {
    pub machine: Machine,
    pub quick: bool,
    pub caches: Caches,
    /// The l2fwd floor with the trace tap (rx, tx, the packet loop; no program).
    pub floor_cycles: f64,
    /// The generated program without tables (Ethernet, IPv4, 2 ports parsed and deparsed) over
    /// the floor.
    pub base_cycles: f64,
    /// Headers the base program parses.
    pub base_headers: u32,
    /// Each parsed header more or less: half the difference between the base program and one
    /// that parses Ethernet only.
    pub parse_cycles_per_header: f64,
    /// Cost of one more application of a cache-resident exact table (slope over 1..N tables).
    pub table_apply_cycles: f64,
    /// What the first searched table costs once per packet beyond the next ones (the intercept
    /// of the 1..N tables line over the program without tables): every calibrated single-table
    /// cost includes it, a program pays it once.
    pub tables_fixed_cycles: f64,
    /// Each byte of action data beyond the port parameter.
    pub action_data_cycles_per_byte: f64,
    /// One `counter.count` in the action.
    pub counter_cycles: f64,
    /// One register read plus write in the action.
    pub register_cycles: f64,
    pub kinds: Vec<KindCost>,
    /// Tuple-space kinds' rule sets (`tuple_cost` fits their lookups' cost over them).
    pub tuple_sets: Vec<TupleSets>,
    /// Extra cycles of a lookup whose data misses L1, L2, the LLC, and whose translation misses
    /// the TLB (fitted on the exact sizes).
    pub miss_penalty: [f64; LEVELS],
    /// How many times a lookup's misses past L2 (`past_l2_cycles`) cost when the table is looked
    /// up where it is applied, one packet at a time, than in the staged bulk lookups the
    /// penalties were fitted on (where a burst's misses overlap): 1 or more, fitted on two exact
    /// tables of `calibrate::UNSTAGED_ENTRIES` whose second is not staged.
    pub unstaged_miss_scale: f64,
    pub tlb: Tlb,
    /// Median rx → tx latency ≈ latency_base + latency_per_cycle × cycles/packet.
    pub latency_base: f64,
    pub latency_per_cycle: f64,
    /// What 2 (or more) workers cost each worker beyond one, ascending by workers.
    pub worker_cost: Vec<WorkerCost>,
}

fn num(v: &Value, path: &str) -> Result<f64, ModelError> {
    let mut cur = v;
    for k in path.split('.') {
        cur = cur
            .get(k)
            .ok_or_else(|| ModelError::Profile(format!("missing field `{path}`")))?;
    }
    cur.as_f64()
        .filter(|x| x.is_finite())
        .ok_or_else(|| ModelError::Profile(format!("field `{path}` is not a number")))
}

fn text(v: &Value, path: &str) -> String {
    let mut cur = v;
    for k in path.split('.') {
        match cur.get(k) {
            Some(c) => cur = c,
            None => return String::new(),
        }
    }
    cur.as_str().unwrap_or_default().to_string()
}

fn nonneg(x: f64, what: &str) -> Result<f64, ModelError> {
    if x < 0.0 {
        return Err(ModelError::Profile(format!("field `{what}` is negative ({x})")));
    }
    Ok(x)
}

impl Profile {
    /// Parses a profile document; every field the model uses must be present and sane.
    pub fn parse(s: &str) -> Result<Profile, ModelError> {
        let v: Value = serde_json::from_str(s).map_err(|e| ModelError::Profile(format!("not JSON: {e}")))?;
        match v.get("p4dp_profile").and_then(Value::as_u64) {
            Some(FORMAT) => {}
            Some(f) => {
                return Err(ModelError::Profile(format!(
                    "format {f}, this p4dp reads format {FORMAT}"
                )))
            }
            None => {
                return Err(ModelError::Profile(
                    "not a p4dp profile (no `p4dp_profile` field)".into(),
                ))
            }
        }
        let tsc_hz = num(&v, "machine.tsc_hz")?;
        if tsc_hz < 1e6 {
            return Err(ModelError::Profile(format!(
                "machine.tsc_hz {tsc_hz} is not a clock rate"
            )));
        }
        let caches = Caches {
            l1d: num(&v, "caches.l1d_bytes")? as u64,
            l2: num(&v, "caches.l2_bytes")? as u64,
            llc: num(&v, "caches.llc_bytes")? as u64,
        };
        if caches.l1d == 0 || caches.l2 < caches.l1d || caches.llc < caches.l2 {
            return Err(ModelError::Profile("caches: need 0 < l1d <= l2 <= llc".into()));
        }
        let mut kinds = Vec::new();
        let ks = v
            .get("kinds")
            .and_then(Value::as_object)
            .ok_or_else(|| ModelError::Profile("missing object `kinds`".into()))?;
        for (k, pts) in ks {
            let arr = pts
                .as_array()
                .ok_or_else(|| ModelError::Profile(format!("kinds.{k} is not an array")))?;
            let mut points = Vec::new();
            for p in arr {
                let entries = num(p, "entries")?;
                if entries < 1.0 {
                    return Err(ModelError::Profile(format!("kinds.{k}: a point has {entries} entries")));
                }
                points.push(SizePoint {
                    entries: entries as u64,
                    footprint_bytes: num(p, "footprint_bytes")? as u64,
                    tlb_bytes: num(p, "tlb_bytes")? as u64,
                    cycles: num(p, "cycles")?,
                });
            }
            if points.is_empty() {
                return Err(ModelError::Profile(format!("kinds.{k} has no points")));
            }
            points.sort_by_key(|p| p.entries);
            kinds.push(KindCost {
                kind: k.clone(),
                points,
            });
        }
        let mut tuple_sets = Vec::new();
        let ts = v
            .get("tuple_sets")
            .and_then(Value::as_object)
            .ok_or_else(|| ModelError::Profile("missing object `tuple_sets`".into()))?;
        for (k, sets) in ts {
            let arr = sets
                .as_array()
                .ok_or_else(|| ModelError::Profile(format!("tuple_sets.{k} is not an array")))?;
            let mut out = Vec::new();
            for q in arr {
                let entries = num(q, "entries")?;
                if entries < 1.0 {
                    return Err(ModelError::Profile(format!(
                        "tuple_sets.{k}: a set has {entries} entries"
                    )));
                }
                out.push(TupleSet {
                    entries: entries as u64,
                    zipf: nonneg(num(q, "zipf")?, "zipf")?,
                    tabs: nonneg(num(q, "tabs")?, "tabs")?,
                    probes: nonneg(num(q, "probes")?, "probes")?,
                    checks: nonneg(num(q, "checks")?, "checks")?,
                    cycles: num(q, "cycles")?,
                });
            }
            tuple_sets.push(TupleSets {
                kind: k.clone(),
                sets: out,
            });
        }
        let pen = v
            .get("miss_penalty_cycles")
            .and_then(Value::as_array)
            .filter(|a| a.len() == LEVELS)
            .ok_or_else(|| ModelError::Profile("`miss_penalty_cycles` must be an array of 4 numbers".into()))?;
        let mut miss_penalty = [0.0; LEVELS];
        for (i, x) in pen.iter().enumerate() {
            miss_penalty[i] = x
                .as_f64()
                .filter(|x| x.is_finite())
                .ok_or_else(|| ModelError::Profile("`miss_penalty_cycles` must hold numbers".into()))?;
        }
        let mut worker_cost = Vec::new();
        if let Some(a) = v.get("worker_cost").and_then(Value::as_array) {
            for w in a {
                let n = num(w, "workers")? as u32;
                if n > 1 {
                    worker_cost.push(WorkerCost {
                        workers: n,
                        per_packet: num(w, "per_packet_cycles")?,
                        per_apply: nonneg(num(w, "per_apply_cycles")?, "per_apply_cycles")?,
                    });
                }
            }
        }
        worker_cost.sort_by_key(|w| w.workers);
        let tlb = Tlb {
            page_bytes: num(&v, "tlb.page_bytes")? as u64,
            reach_pages: nonneg(num(&v, "tlb.reach_pages")?, "tlb.reach_pages")?,
            walk_latency_cycles: nonneg(num(&v, "tlb.walk_latency_cycles")?, "tlb.walk_latency_cycles")?,
        };
        if tlb.page_bytes == 0 {
            return Err(ModelError::Profile("field `tlb.page_bytes` is 0".into()));
        }
        Ok(Profile {
            machine: Machine {
                cpu_model: text(&v, "machine.cpu_model"),
                cpus: num(&v, "machine.cpus")? as u32,
                tsc_hz,
                hostname: text(&v, "machine.hostname"),
                kernel: text(&v, "machine.kernel"),
                measured_at: num(&v, "machine.measured_at")? as u64,
                load_before: num(&v, "machine.load_before").unwrap_or(0.0),
                load_after: num(&v, "machine.load_after").unwrap_or(0.0),
            },
            quick: v.get("quick").and_then(Value::as_bool).unwrap_or(false),
            caches,
            floor_cycles: nonneg(num(&v, "floor_cycles")?, "floor_cycles")?,
            base_cycles: num(&v, "base_cycles")?,
            base_headers: num(&v, "base_headers")? as u32,
            parse_cycles_per_header: num(&v, "parse_cycles_per_header")?,
            table_apply_cycles: num(&v, "table_apply_cycles")?,
            tables_fixed_cycles: nonneg(num(&v, "tables_fixed_cycles")?, "tables_fixed_cycles")?,
            action_data_cycles_per_byte: num(&v, "action_data_cycles_per_byte")?,
            counter_cycles: num(&v, "counter_cycles")?,
            register_cycles: num(&v, "register_cycles")?,
            kinds,
            tuple_sets,
            miss_penalty,
            unstaged_miss_scale: {
                let k = num(&v, "unstaged_miss_scale")?;
                if !(1.0..=UNSTAGED_SCALE_MAX).contains(&k) {
                    return Err(ModelError::Profile(format!(
                        "unstaged_miss_scale {k} is not within 1..={UNSTAGED_SCALE_MAX}"
                    )));
                }
                k
            },
            tlb,
            latency_base: num(&v, "latency.base_cycles")?,
            latency_per_cycle: num(&v, "latency.per_cycle")?,
            worker_cost,
        })
    }

    /// The document `parse` reads.
    pub fn to_json(&self) -> Json {
        let m = &self.machine;
        Json::obj([
            ("p4dp_profile", Json::uint(FORMAT)),
            (
                "machine",
                Json::obj([
                    ("cpu_model", Json::str(m.cpu_model.clone())),
                    ("cpus", Json::uint(u64::from(m.cpus))),
                    ("tsc_hz", Json::Num(m.tsc_hz)),
                    ("hostname", Json::str(m.hostname.clone())),
                    ("kernel", Json::str(m.kernel.clone())),
                    ("measured_at", Json::uint(m.measured_at)),
                    ("load_before", Json::Num(m.load_before)),
                    ("load_after", Json::Num(m.load_after)),
                ]),
            ),
            ("quick", Json::Bool(self.quick)),
            (
                "caches",
                Json::obj([
                    ("l1d_bytes", Json::uint(self.caches.l1d)),
                    ("l2_bytes", Json::uint(self.caches.l2)),
                    ("llc_bytes", Json::uint(self.caches.llc)),
                ]),
            ),
            ("floor_cycles", Json::Num(self.floor_cycles)),
            ("base_cycles", Json::Num(self.base_cycles)),
            ("base_headers", Json::uint(u64::from(self.base_headers))),
            ("parse_cycles_per_header", Json::Num(self.parse_cycles_per_header)),
            ("table_apply_cycles", Json::Num(self.table_apply_cycles)),
            ("tables_fixed_cycles", Json::Num(self.tables_fixed_cycles)),
            ("unstaged_miss_scale", Json::Num(self.unstaged_miss_scale)),
            (
                "action_data_cycles_per_byte",
                Json::Num(self.action_data_cycles_per_byte),
            ),
            ("counter_cycles", Json::Num(self.counter_cycles)),
            ("register_cycles", Json::Num(self.register_cycles)),
            (
                "kinds",
                Json::obj(self.kinds.iter().map(|k| {
                    (
                        k.kind.clone(),
                        Json::Arr(
                            k.points
                                .iter()
                                .map(|p| {
                                    Json::obj([
                                        ("entries", Json::uint(p.entries)),
                                        ("footprint_bytes", Json::uint(p.footprint_bytes)),
                                        ("tlb_bytes", Json::uint(p.tlb_bytes)),
                                        ("cycles", Json::Num(p.cycles)),
                                    ])
                                })
                                .collect(),
                        ),
                    )
                })),
            ),
            (
                "tuple_sets",
                Json::obj(self.tuple_sets.iter().map(|k| {
                    (
                        k.kind.clone(),
                        Json::Arr(
                            k.sets
                                .iter()
                                .map(|q| {
                                    Json::obj([
                                        ("entries", Json::uint(q.entries)),
                                        ("zipf", Json::Num(q.zipf)),
                                        ("tabs", Json::Num(q.tabs)),
                                        ("probes", Json::Num(q.probes)),
                                        ("checks", Json::Num(q.checks)),
                                        ("cycles", Json::Num(q.cycles)),
                                    ])
                                })
                                .collect(),
                        ),
                    )
                })),
            ),
            (
                "miss_penalty_cycles",
                Json::Arr(self.miss_penalty.iter().map(|&x| Json::Num(x)).collect()),
            ),
            (
                "latency",
                Json::obj([
                    ("base_cycles", Json::Num(self.latency_base)),
                    ("per_cycle", Json::Num(self.latency_per_cycle)),
                ]),
            ),
            (
                "tlb",
                Json::obj([
                    ("page_bytes", Json::uint(self.tlb.page_bytes)),
                    ("reach_pages", Json::Num(self.tlb.reach_pages)),
                    ("walk_latency_cycles", Json::Num(self.tlb.walk_latency_cycles)),
                ]),
            ),
            (
                "worker_cost",
                Json::Arr(
                    self.worker_cost
                        .iter()
                        .map(|w| {
                            Json::obj([
                                ("workers", Json::uint(u64::from(w.workers))),
                                ("per_packet_cycles", Json::Num(w.per_packet)),
                                ("per_apply_cycles", Json::Num(w.per_apply)),
                            ])
                        })
                        .collect(),
                ),
            ),
        ])
    }

    pub fn kind(&self, kind: &str) -> Option<&KindCost> {
        self.kinds.iter().find(|k| k.kind == kind)
    }

    /// Cycles/packet each of `workers` workers pays beyond what one worker alone pays, with
    /// `applies` table applications per packet (the largest measured count stands for more
    /// workers; one worker pays nothing).
    pub fn worker_extra(&self, workers: u32, applies: f64) -> f64 {
        let mut x = 0.0;
        for w in &self.worker_cost {
            if w.workers <= workers {
                x = w.per_packet + w.per_apply * applies;
            }
        }
        x
    }
}

/// Key popularity of the traffic over a table's entries.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Popularity {
    Uniform,
    /// Rank k with probability ∝ 1/k^s.
    Zipf(f64),
}

/// Groups of ranks with (count, probability of each rank in the group): exact for the first
/// ranks, geometric groups after, so that tables of 2^24 entries cost a few thousand terms.
fn rank_groups(n: u64, pop: Popularity) -> Vec<(f64, f64)> {
    match pop {
        Popularity::Uniform => vec![(n as f64, 1.0 / n as f64)],
        Popularity::Zipf(s) => {
            let mut groups = Vec::new();
            let mut r = 1u64;
            while r <= n {
                let end = if r < 1024 {
                    r
                } else {
                    (((r as f64) * 1.02) as u64).min(n)
                };
                let cnt = (end - r + 1) as f64;
                // the mean of k^-s over the group, by its midpoint
                let mid = (r as f64 + end as f64) / 2.0;
                groups.push((cnt, mid.powf(-s)));
                r = end + 1;
            }
            let z: f64 = groups.iter().map(|(c, p)| c * p).sum();
            groups.iter().map(|&(c, p)| (c, p / z)).collect()
        }
    }
}

/// The share of lookups that miss an LRU cache holding `cap` of `n` entries, by Che's
/// approximation: entry r stays cached with probability 1 - exp(-p_r·T), T chosen so that the
/// cache holds `cap` entries on average. Uniform popularity gives 1 - cap/n.
pub fn miss_ratio(n: u64, cap: f64, pop: Popularity) -> f64 {
    if n == 0 || cap >= n as f64 {
        return 0.0;
    }
    if cap <= 0.0 {
        return 1.0;
    }
    if pop == Popularity::Uniform {
        return 1.0 - cap / n as f64;
    }
    let g = rank_groups(n, pop);
    let held = |t: f64| -> f64 { g.iter().map(|&(c, p)| c * (1.0 - (-p * t).exp())).sum() };
    let (lo, mut hi) = (0.0f64, 1.0f64);
    while held(hi) < cap && hi < 1e30 {
        hi *= 2.0;
    }
    let t = bisect(held, cap, lo, hi, 100);
    g.iter()
        .map(|&(c, p)| c * p * (-p * t).exp())
        .sum::<f64>()
        .clamp(0.0, 1.0)
}

/// The x in [lo, hi] where the non-decreasing `f` reaches `target`, by `iters` halvings.
pub fn bisect(f: impl Fn(f64) -> f64, target: f64, mut lo: f64, mut hi: f64, iters: u32) -> f64 {
    for _ in 0..iters {
        let mid = (lo + hi) / 2.0;
        if f(mid) < target {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    (lo + hi) / 2.0
}

/// Miss ratio per cache level (L1, L2, LLC) for `n` entries taking `cache_bpe` bytes of cache
/// each, and of the TLB (the last element) holding `tlb_bytes` of the table (base-page bytes)
/// with each entry taking `tlb_bpe` of it; `tlb_all` is the whole table's TLB bytes (a table
/// within the TLB's reach never walks, however the traffic spreads over its pages).
pub fn level_misses(
    caches: &Caches,
    tlb_bytes: f64,
    n: u64,
    cache_bpe: f64,
    tlb_all: f64,
    tlb_bpe: f64,
    pop: Popularity,
) -> [f64; LEVELS] {
    let mut m = [0.0; LEVELS];
    for (i, c) in caches.levels().iter().enumerate() {
        m[i] = miss_ratio(n, *c as f64 / cache_bpe.max(1.0), pop);
    }
    m[TLB] = if tlb_all <= tlb_bytes {
        0.0
    } else {
        miss_ratio(n, tlb_bytes / tlb_bpe.max(1.0), pop)
    };
    m
}

/// `level_misses` for one table alone under uniform traffic (the calibration's condition):
/// every level, the TLB included, holds its share of the footprint (`bytes_per_entry` in the
/// caches, `tlb_bpe` in the TLB).
pub fn uniform_misses(caches: &Caches, tlb: &Tlb, n: u64, bytes_per_entry: f64, tlb_bpe: f64) -> [f64; LEVELS] {
    level_misses(
        caches,
        tlb.reach_bytes(),
        n,
        bytes_per_entry,
        n as f64 * tlb_bpe,
        tlb_bpe,
        Popularity::Uniform,
    )
}

/// A calibrated point's uniform miss ratios.
pub fn point_misses(caches: &Caches, tlb: &Tlb, q: &SizePoint) -> [f64; LEVELS] {
    let n = q.entries.max(1);
    uniform_misses(
        caches,
        tlb,
        n,
        q.footprint_bytes as f64 / n as f64,
        q.tlb_bytes as f64 / n as f64,
    )
}

/// Fits the per-level miss penalties from uniform-traffic points (ascending entries, cycles):
/// the smallest point is the all-cached cost; each larger point assigns what the penalties known
/// so far leave unexplained to the levels it newly misses (miss ratio ≥ 0.25), in proportion to
/// their miss ratios. Penalties are never negative; a level no point reaches keeps 0.
pub fn fit_penalties(caches: &Caches, tlb: &Tlb, points: &[SizePoint]) -> [f64; LEVELS] {
    let mut pen = [0.0; LEVELS];
    let mut known = [false; LEVELS];
    let Some(first) = points.first() else { return pen };
    let c0 = first.cycles;
    for p in points.iter().skip(1) {
        let m = point_misses(caches, tlb, p);
        let explained: f64 = (0..LEVELS).filter(|&l| known[l]).map(|l| m[l] * pen[l]).sum();
        let newly: Vec<usize> = (0..LEVELS).filter(|&l| !known[l] && m[l] >= 0.25).collect();
        let share: f64 = newly.iter().map(|&l| m[l]).sum();
        if share > 0.0 {
            let r = (p.cycles - c0 - explained).max(0.0) / share;
            for l in newly {
                pen[l] = r;
                known[l] = true;
            }
        }
    }
    pen
}

/// Lookup cost of a table of `n` entries under uniform traffic: linear in log2(entries) between
/// the calibrated points, held constant beyond the smallest and the largest.
pub fn interpolate(points: &[SizePoint], n: u64) -> f64 {
    let x = (n.max(1) as f64).log2();
    let xs: Vec<f64> = points.iter().map(|p| (p.entries as f64).log2()).collect();
    match points.len() {
        0 => 0.0,
        _ if x <= xs[0] => points[0].cycles,
        l if x >= xs[l - 1] => points[l - 1].cycles,
        _ => {
            let i = xs.iter().position(|&v| v >= x).unwrap_or(xs.len() - 1).max(1);
            let f = (x - xs[i - 1]) / (xs[i] - xs[i - 1]).max(1e-9);
            points[i - 1].cycles + f * (points[i].cycles - points[i - 1].cycles)
        }
    }
}

/// Bytes of a cache line.
pub const LINE: f64 = 64.0;

/// Cache bytes one entry takes under `pop`: under uniform traffic every line the lookups read is
/// used alike, so an entry takes its share of them; under skew a popular entry keeps the whole
/// lines its lookup reads cached (`t.lines` of them: its index bucket and its entry), the
/// unpopular neighbours in those lines riding along.
pub fn cache_bytes_per_entry(t: &Touch, pop: Popularity) -> f64 {
    match pop {
        Popularity::Uniform => t.bytes_per_entry,
        Popularity::Zipf(_) => t.bytes_per_entry.max(t.lines * LINE),
    }
}

/// TLB bytes one entry takes under `pop`: under skew a popular entry keeps mapped the base page
/// of each of its lines that lie on base pages (in a table past the TLB's reach those lines lie
/// pages apart), its neighbours on those pages riding along; lines on huge pages share the few
/// TLB entries of their region, which its uniform share already counts.
pub fn tlb_bytes_per_entry(p: &Profile, t: &Touch, pop: Popularity) -> f64 {
    match pop {
        Popularity::Uniform => t.tlb_bytes_per_entry,
        Popularity::Zipf(_) => t.tlb_bytes_per_entry.max(t.base_page_lines * p.tlb.page_bytes as f64),
    }
}

/// Miss cycles of per-level miss ratios `m`: Σ m_L · penalty_L.
fn miss_cycles(p: &Profile, m: &[f64; LEVELS]) -> f64 {
    (0..LEVELS).map(|l| m[l] * p.miss_penalty[l]).sum()
}

/// The part of `miss_cycles` past L2: the misses served from the LLC or memory and the page
/// walks (an L1 miss served from L2 is short enough for the core to hide whether staged or not:
/// the cache-resident chains do not show a difference).
pub fn past_l2_cycles(p: &Profile, m: &[f64; LEVELS]) -> f64 {
    (1..LEVELS).map(|l| m[l] * p.miss_penalty[l]).sum()
}

/// The largest `Profile::unstaged_miss_scale` a profile may hold: a lone miss served from memory
/// (100-300 cycles on a server) over what a staged one costs (the fitted L2 penalty, 5-11
/// cycles in steady calibrations), with room for an LLC that other tenants of the host evict,
/// where misses the model places in the LLC go to memory.
pub const UNSTAGED_SCALE_MAX: f64 = 32.0;

/// The cost of one lookup of `kind` in a table of `n` entries that touch `t`, with the
/// traffic's popularity, when the table gets `share` (0..1] of each cache level and of the TLB
/// (the program's tables with entries share them). The calibrated cost at `n` (one table,
/// uniform traffic: miss cycles W₁ by the penalties) is moved by the change in miss cycles,
/// W - W₁, scaled by `miss_scale`: how this kind's misses cost against the exact-fitted
/// penalties. Returns (cycles, per-level miss ratios).
pub fn lookup_cost(
    p: &Profile,
    kind: &KindCost,
    n: u64,
    t: &Touch,
    pop: Popularity,
    share: f64,
) -> (f64, [f64; LEVELS]) {
    let uni = interpolate(&kind.points, n);
    let c0 = kind.points.first().map_or(0.0, |q| q.cycles);
    let share = share.clamp(1e-6, 1.0);
    let shared = Caches {
        l1d: (p.caches.l1d as f64 * share) as u64,
        l2: (p.caches.l2 as f64 * share) as u64,
        llc: (p.caches.llc as f64 * share) as u64,
    };
    let m1 = uniform_misses(&p.caches, &p.tlb, n, t.bytes_per_entry, t.tlb_bytes_per_entry);
    let mx = level_misses(
        &shared,
        p.tlb.reach_bytes() * share,
        n,
        cache_bytes_per_entry(t, pop),
        n as f64 * t.tlb_bytes_per_entry,
        tlb_bytes_per_entry(p, t, pop),
        pop,
    );
    let (w1, wx) = (miss_cycles(p, &m1), miss_cycles(p, &mx));
    let k = miss_scale(p, kind);
    ((uni + k * (wx - w1)).max(c0.min(uni)), mx)
}

/// How a kind's misses cost against the penalties (fitted on exact tables): its largest
/// calibrated size's cost over its smallest's, divided by the miss cycles the penalties give
/// that size, within [0.2, 5]; 1 when that size misses less than 10 cycles' worth (the growth
/// is then not misses) or the kind has one size. About 1 for exact tables by construction; an
/// lpm lookup's misses are not an exact lookup's.
pub fn miss_scale(p: &Profile, kind: &KindCost) -> f64 {
    let (Some(first), Some(last)) = (kind.points.first(), kind.points.last()) else {
        return 1.0;
    };
    let w = miss_cycles(p, &point_misses(&p.caches, &p.tlb, last));
    if last.entries == first.entries || w < 10.0 {
        return 1.0;
    }
    ((last.cycles - first.cycles) / w).clamp(0.2, 5.0)
}

/// The cost model of a tuple-space kind's lookup, fitted over the calibrated rule sets of the
/// tuple-space kinds together: `fixed + per_tab · tabs + per_probe · probes + per_check · checks
/// + per_probe_beyond · max(0, probes - knee)` (model/tuples.rs `TupleStats`), the per-unit costs
/// 0 or more; `fixed` is the kind's own.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TupleCost {
    pub fixed: f64,
    pub per_tab: f64,
    pub per_probe: f64,
    pub per_check: f64,
    /// Probes per lookup from which each more costs `per_probe_beyond` more (infinite: none).
    pub knee: f64,
    pub per_probe_beyond: f64,
}

impl TupleCost {
    /// Cycles of a lookup doing `st` (never below 0).
    pub fn cycles(&self, tabs: f64, probes: f64, checks: f64) -> f64 {
        let beyond = if self.knee.is_finite() {
            self.per_probe_beyond * (probes - self.knee).max(0.0)
        } else {
            0.0
        };
        (self.fixed + self.per_tab * tabs + self.per_probe * probes + self.per_check * checks + beyond).max(0.0)
    }
}

/// Least squares of `y` over the columns `xs` (with an intercept): (intercept, coefficients, sum
/// of squared residuals); None when the system is singular.
fn least_squares(xs: &[Vec<f64>], y: &[f64]) -> Option<(f64, Vec<f64>, f64)> {
    let k = xs.len() + 1;
    let n = y.len();
    if n < k {
        return None;
    }
    let row = |i: usize| -> Vec<f64> { std::iter::once(1.0).chain(xs.iter().map(|c| c[i])).collect() };
    // normal equations, solved by Gaussian elimination with partial pivoting
    let mut a = vec![vec![0.0; k + 1]; k];
    for (i, &yi) in y.iter().enumerate() {
        let r = row(i);
        for (p, ap) in a.iter_mut().enumerate() {
            for q in 0..k {
                ap[q] += r[p] * r[q];
            }
            ap[k] += r[p] * yi;
        }
    }
    for c in 0..k {
        let piv = (c..k).max_by(|&x, &z| a[x][c].abs().total_cmp(&a[z][c].abs()))?;
        if a[piv][c].abs() < 1e-9 * (1.0 + a[c][c].abs()) {
            return None;
        }
        a.swap(c, piv);
        let pivot = a[c].clone();
        for (r, row) in a.iter_mut().enumerate() {
            if r != c {
                let f = row[c] / pivot[c];
                for (x, pv) in row.iter_mut().zip(&pivot).skip(c) {
                    *x -= f * pv;
                }
            }
        }
    }
    let b: Vec<f64> = (0..k).map(|c| a[c][k] / a[c][c]).collect();
    let sse = (0..n)
        .map(|i| {
            let r = row(i);
            let f: f64 = r.iter().zip(&b).map(|(x, w)| x * w).sum();
            (y[i] - f).powi(2)
        })
        .sum();
    Some((b[0], b[1..].to_vec(), sse))
}

/// The kind's `TupleCost`, fitted over the rule sets of every tuple-space kind with 5 sets or
/// more (the three kinds run the same lookup code: table_tm.c): least squares of the sets'
/// cycles over their tabs, probes and checks per lookup and the probes beyond a knee, with a
/// constant per kind. The knee is one of the sets' probe counts (or none); each per-unit
/// coefficient is held at 0 or more. Of the knees and the subsets of the four terms whose
/// unconstrained fit has no negative per-unit coefficient, the one of least residual.
/// Why a knee: the calibrated sets' cost does not grow evenly with the probes. Below about five
/// probes per lookup a burst's probes overlap (32 keys' independent loads in flight) and a
/// probe more costs little; above, each costs tens of cycles (docs/model.md, "Tuple-space
/// tables"). None with fewer than 5 rule sets of the kind (a quick profile) or when its sets
/// do not spread over tabs.
pub fn tuple_cost(p: &Profile, kind: &str) -> Option<TupleCost> {
    let pooled: Vec<&TupleSets> = p.tuple_sets.iter().filter(|k| k.sets.len() >= 5).collect();
    let me = pooled.iter().position(|k| k.kind == kind)?;
    let (lo, hi) = pooled[me]
        .sets
        .iter()
        .fold((f64::INFINITY, 0.0f64), |(l, h), q| (l.min(q.tabs), h.max(q.tabs)));
    if hi - lo < 1.0 {
        return None;
    }
    let all: Vec<(usize, &TupleSet)> = pooled
        .iter()
        .enumerate()
        .flat_map(|(i, k)| k.sets.iter().map(move |q| (i, q)))
        .collect();
    let y: Vec<f64> = all.iter().map(|(_, q)| q.cycles).collect();
    // a constant per kind: the intercept is the first kind's, each other kind's differs by its
    // column's coefficient (of any sign)
    let consts: Vec<Vec<f64>> = (1..pooled.len())
        .map(|j| all.iter().map(|(i, _)| f64::from(u8::from(*i == j))).collect())
        .collect();
    let mut knees: Vec<f64> = all.iter().map(|(_, q)| q.probes).collect();
    knees.sort_by(f64::total_cmp);
    knees.dedup();
    knees.push(f64::INFINITY);
    let mut best: Option<(f64, TupleCost)> = None;
    for &knee in &knees {
        let beyond = |q: &TupleSet| {
            if knee.is_finite() {
                (q.probes - knee).max(0.0)
            } else {
                0.0
            }
        };
        let cols: [Vec<f64>; 4] = [
            all.iter().map(|(_, q)| q.tabs).collect(),
            all.iter().map(|(_, q)| q.probes).collect(),
            all.iter().map(|(_, q)| q.checks).collect(),
            all.iter().map(|(_, q)| beyond(q)).collect(),
        ];
        for mask in 0u32..16 {
            if !knee.is_finite() && mask & 8 != 0 {
                continue;
            }
            let used: Vec<usize> = (0..4).filter(|i| mask >> i & 1 == 1).collect();
            let xs: Vec<Vec<f64>> = consts
                .iter()
                .cloned()
                .chain(used.iter().map(|&i| cols[i].clone()))
                .collect();
            let Some((a, b, sse)) = least_squares(&xs, &y) else {
                continue;
            };
            let (kinds, units) = b.split_at(consts.len());
            if units.iter().any(|&x| x < 0.0) {
                continue;
            }
            let mut w = [0.0; 4];
            for (&i, &x) in used.iter().zip(units) {
                w[i] = x;
            }
            let c = TupleCost {
                fixed: a + if me > 0 { kinds[me - 1] } else { 0.0 },
                per_tab: w[0],
                per_probe: w[1],
                per_check: w[2],
                knee: if w[3] > 0.0 { knee } else { f64::INFINITY },
                per_probe_beyond: w[3],
            };
            if best.is_none_or(|(e, _)| sse < e - 1e-9) {
                best = Some((sse, c));
            }
        }
    }
    best.map(|b| b.1)
}

/// Least-squares (intercept, slope) of y over x.
pub fn fit_line(xy: &[(f64, f64)]) -> (f64, f64) {
    let n = xy.len().max(1) as f64;
    let mx = xy.iter().map(|p| p.0).sum::<f64>() / n;
    let my = xy.iter().map(|p| p.1).sum::<f64>() / n;
    let sxx: f64 = xy.iter().map(|p| (p.0 - mx).powi(2)).sum();
    let sxy: f64 = xy.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    let b = if sxx == 0.0 { 0.0 } else { sxy / sxx };
    (my - b * mx, b)
}

/// The cache level most lookups are served from, by the miss ratios: "L1", "L2", "LLC", "DRAM".
pub fn regime(m: &[f64; LEVELS]) -> &'static str {
    if m[0] < 0.5 {
        "L1"
    } else if m[1] < 0.5 {
        "L2"
    } else if m[2] < 0.5 {
        "LLC"
    } else {
        "DRAM"
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// 64-byte entries on base pages, two lines per lookup.
    const T64: Touch = Touch {
        bytes_per_entry: 64.0,
        tlb_bytes_per_entry: 64.0,
        lines: 2.0,
        base_page_lines: 2.0,
    };

    pub fn sample() -> Profile {
        Profile {
            machine: Machine {
                cpu_model: "test cpu".into(),
                cpus: 2,
                tsc_hz: 2.0e9,
                hostname: "h".into(),
                kernel: "k".into(),
                measured_at: 1,
                load_before: 0.5,
                load_after: 0.7,
            },
            quick: true,
            caches: Caches {
                l1d: 32 << 10,
                l2: 1 << 20,
                llc: 16 << 20,
            },
            floor_cycles: 60.0,
            base_cycles: 40.0,
            base_headers: 3,
            parse_cycles_per_header: 5.0,
            table_apply_cycles: 30.0,
            tables_fixed_cycles: 0.0,
            action_data_cycles_per_byte: 0.5,
            counter_cycles: 10.0,
            register_cycles: 12.0,
            kinds: vec![KindCost {
                kind: "exact".into(),
                points: vec![
                    SizePoint {
                        entries: 16,
                        footprint_bytes: 16 * 64,
                        tlb_bytes: 16 * 64,
                        cycles: 30.0,
                    },
                    SizePoint {
                        entries: 1 << 20,
                        footprint_bytes: 64 << 20,
                        tlb_bytes: 64 << 20,
                        cycles: 330.0,
                    },
                ],
            }],
            tuple_sets: Vec::new(),
            miss_penalty: [10.0, 40.0, 250.0, 0.0],
            unstaged_miss_scale: 1.0,
            tlb: Tlb {
                page_bytes: 4096,
                reach_pages: 1024.0,
                walk_latency_cycles: 500.0,
            },
            latency_base: 100.0,
            latency_per_cycle: 32.0,
            worker_cost: vec![WorkerCost {
                workers: 2,
                per_packet: 20.0,
                per_apply: 5.0,
            }],
        }
    }

    #[test]
    fn profile_round_trips_through_json() {
        let mut p = sample();
        p.tuple_sets = vec![TupleSets {
            kind: "range".into(),
            sets: vec![set(3.0, 2.5, 1.0, 120.0), set(6.0, 4.0, 1.5, 200.0)],
        }];
        let back = Profile::parse(&p.to_json().render()).expect("parses");
        assert_eq!(back, p);
        // a rule set without its checks is refused, naming the field
        let doc = p.to_json().render().replace("\"checks\":1.5,", "");
        let e = Profile::parse(&doc).unwrap_err().to_string();
        assert!(e.contains("checks"), "{e}");
    }

    #[test]
    fn bad_profiles_are_refused_with_the_field() {
        let good = sample().to_json().render();
        let e = Profile::parse("{").unwrap_err().to_string();
        assert!(e.contains("not JSON"), "{e}");
        let e = Profile::parse(&good.replace("\"floor_cycles\"", "\"floor\""))
            .unwrap_err()
            .to_string();
        assert!(e.contains("floor_cycles"), "{e}");
        let e = Profile::parse(&good.replace(&format!("\"p4dp_profile\":{FORMAT}"), "\"p4dp_profile\":9"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("format 9"), "{e}");
        let e = Profile::parse(&good.replace("\"l2_bytes\":1048576", "\"l2_bytes\":1"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("l1d <= l2"), "{e}");
        let e = Profile::parse(&good.replace("\"unstaged_miss_scale\":1", "\"unstaged_miss_scale\":0.5"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("unstaged_miss_scale 0.5"), "{e}");
        // the cap is held; a factor past it is refused
        assert!(Profile::parse(&good.replace("\"unstaged_miss_scale\":1", "\"unstaged_miss_scale\":32")).is_ok());
        let e = Profile::parse(&good.replace("\"unstaged_miss_scale\":1", "\"unstaged_miss_scale\":33"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("unstaged_miss_scale 33 is not within 1..=32"), "{e}");
        let e = Profile::parse("{\"a\":1}").unwrap_err().to_string();
        assert!(e.contains("not a p4dp profile"), "{e}");
    }

    #[test]
    fn che_approximation_matches_uniform_and_favours_skew() {
        assert!((miss_ratio(1000, 250.0, Popularity::Uniform) - 0.75).abs() < 1e-12);
        assert_eq!(miss_ratio(100, 200.0, Popularity::Zipf(1.0)), 0.0);
        assert_eq!(miss_ratio(100, 0.0, Popularity::Zipf(1.0)), 1.0);
        // a tiny exponent is nearly uniform
        let near = miss_ratio(4000, 1000.0, Popularity::Zipf(1e-6));
        assert!((near - 0.75).abs() < 0.01, "{near}");
        // skew keeps the popular entries cached: fewer misses, more with a larger exponent
        let z1 = miss_ratio(1 << 20, 4096.0, Popularity::Zipf(1.0));
        let z2 = miss_ratio(1 << 20, 4096.0, Popularity::Zipf(1.5));
        assert!(z1 < 0.5 && z2 < z1, "{z1} {z2}");
    }

    #[test]
    fn interpolation_is_linear_in_log2_and_clamped() {
        let pts = sample().kinds[0].points.clone();
        assert_eq!(interpolate(&pts, 1), 30.0);
        assert_eq!(interpolate(&pts, 1 << 24), 330.0);
        // 2^12 is halfway between 2^4 and 2^20 in log2
        assert!((interpolate(&pts, 1 << 12) - 180.0).abs() < 1e-9);
    }

    #[test]
    fn penalties_explain_the_larger_points() {
        let c = sample().caches;
        let pts = [
            SizePoint {
                entries: 16,
                footprint_bytes: 1024,
                tlb_bytes: 1024,
                cycles: 20.0,
            },
            SizePoint {
                entries: 4096,
                footprint_bytes: 4096 * 64,
                tlb_bytes: 4096 * 64,
                cycles: 30.0,
            },
            SizePoint {
                entries: 1 << 22,
                footprint_bytes: 64 << 22,
                tlb_bytes: 64 << 22,
                cycles: 400.0,
            },
        ];
        // a TLB whose reach covers every point: no walks
        let wide = Tlb {
            page_bytes: 4096,
            reach_pages: 1e9,
            walk_latency_cycles: 0.0,
        };
        let pen = fit_penalties(&c, &wide, &pts);
        assert_eq!(pen[TLB], 0.0);
        // the 256 KiB point misses only L1 (7/8 of its lookups): 10 cycles / 0.875
        assert!((pen[0] - 10.0 / 0.875).abs() < 1e-6, "{pen:?}");
        assert!(pen[1] > 0.0 && pen[2] > 0.0);
        // the largest point is reproduced by the penalties it fitted
        let m = uniform_misses(&c, &wide, 1 << 22, 64.0, 64.0);
        let y = 20.0 + (0..LEVELS).map(|l| m[l] * pen[l]).sum::<f64>();
        assert!((y - 400.0).abs() < 1e-6, "{y}");
    }

    #[test]
    fn skewed_traffic_costs_less_than_uniform_in_dram_only() {
        let p = sample();
        let k = &p.kinds[0];
        let (u, mu) = lookup_cost(&p, k, 1 << 20, &T64, Popularity::Uniform, 1.0);
        let (z, mz) = lookup_cost(&p, k, 1 << 20, &T64, Popularity::Zipf(1.2), 1.0);
        assert_eq!(u, 330.0);
        assert_eq!(regime(&mu), "DRAM");
        assert!(z < u && z >= 30.0, "{z}");
        assert_ne!(regime(&mz), "DRAM");
        let (s, _) = lookup_cost(&p, k, 16, &T64, Popularity::Zipf(1.2), 1.0);
        assert_eq!(s, 30.0);
    }

    /// An LRU cache of `cap` entries fed `draws` requests of Zipf(`s`) over `n` ranks: its
    /// measured miss ratio (after one cache-fill of warm-up).
    fn lru_misses(n: u64, cap: usize, s: f64, draws: usize) -> f64 {
        use std::collections::{BTreeMap, HashMap};
        let mut cdf = Vec::new();
        let mut acc = 0.0;
        for k in 1..=n {
            acc += (k as f64).powf(-s);
            cdf.push(acc);
        }
        let mut rng = crate::bench::gen::Rng::new(5);
        let (mut at, mut by_age) = (HashMap::new(), BTreeMap::new());
        let (mut miss, mut seen) = (0usize, 0usize);
        for t in 0..draws + cap * 4 {
            let u = rng.unit() * acc;
            let r = cdf.partition_point(|&c| c < u);
            let hit = match at.insert(r, t) {
                Some(old) => {
                    by_age.remove(&old);
                    true
                }
                None => false,
            };
            by_age.insert(t, r);
            if at.len() > cap {
                let (&old, &victim) = by_age.iter().next().expect("non-empty");
                by_age.remove(&old);
                at.remove(&victim);
            }
            if t >= cap * 4 {
                seen += 1;
                miss += usize::from(!hit);
            }
        }
        miss as f64 / seen as f64
    }

    #[test]
    fn che_approximation_matches_a_simulated_lru_cache() {
        // grouped ranks (above 1024) and the fixed point both enter: n well above the groups
        for (n, cap, s) in [(20_000u64, 500usize, 1.1), (50_000, 2_000, 0.9), (5_000, 100, 1.3)] {
            let sim = lru_misses(n, cap, s, 300_000);
            let che = miss_ratio(n, cap as f64, Popularity::Zipf(s));
            assert!((che - sim).abs() < 0.02, "n {n} cap {cap} s {s}: che {che}, lru {sim}");
        }
    }

    #[test]
    fn shared_caches_and_wider_lookups_cost_misses() {
        let p = sample();
        let k = &p.kinds[0];
        let n = 1u64 << 16;
        let (alone, _) = lookup_cost(&p, k, n, &T64, Popularity::Zipf(1.1), 1.0);
        let (shared, _) = lookup_cost(&p, k, n, &T64, Popularity::Zipf(1.1), 0.25);
        assert!(shared > alone, "{shared} {alone}");
        // a lookup that reads more lines keeps more of them cached per popular entry
        let wide = Touch { lines: 8.0, ..T64 };
        let (w, _) = lookup_cost(&p, k, n, &wide, Popularity::Zipf(1.1), 1.0);
        assert!(w > alone, "{w} {alone}");
        // uniform traffic alone in the caches is the calibrated cost
        let (u, _) = lookup_cost(&p, k, n, &T64, Popularity::Uniform, 1.0);
        assert!((u - interpolate(&k.points, n)).abs() < 1e-9);
    }

    #[test]
    fn miss_scale_compares_a_kind_with_the_penalties() {
        let p = sample();
        let mut k = p.kinds[0].clone();
        // the penalties give the largest point (64 B entries, 2^20) W miss cycles; a kind
        // whose cost grows twice that from its smallest size scales by 2
        let w = miss_cycles(&p, &uniform_misses(&p.caches, &p.tlb, 1 << 20, 64.0, 64.0));
        k.points[1].cycles = k.points[0].cycles + 2.0 * w;
        assert!((miss_scale(&p, &k) - 2.0).abs() < 1e-9);
        // growth far beyond the penalties is held at 5
        k.points[1].cycles = k.points[0].cycles + 100.0 * w;
        assert_eq!(miss_scale(&p, &k), 5.0);
        // a largest size that misses nothing: no scaling
        k.points[1].footprint_bytes = 1024;
        k.points[1].tlb_bytes = 1024;
        assert_eq!(miss_scale(&p, &k), 1.0);
    }

    fn set(tabs: f64, probes: f64, checks: f64, cycles: f64) -> TupleSet {
        TupleSet {
            entries: 64,
            zipf: 0.0,
            tabs,
            probes,
            checks,
            cycles,
        }
    }

    #[test]
    fn tuple_cost_pools_the_kinds_and_finds_the_knee() {
        let mut p = sample();
        // cycles = kind's constant + 8 per tab + 5 per check + 40 per probe beyond 5 probes
        let f = |c: f64, t: f64, pr: f64, ch: f64| set(t, pr, ch, c + 8.0 * t + 5.0 * ch + 40.0 * (pr - 5.0).max(0.0));
        let sets = |c: f64| {
            vec![
                f(c, 3.0, 2.0, 1.0),
                f(c, 4.0, 3.0, 1.5),
                f(c, 6.0, 5.0, 1.0),
                f(c, 7.0, 6.5, 2.0),
                f(c, 9.0, 8.0, 1.2),
                f(c, 5.0, 4.0, 2.5),
            ]
        };
        p.tuple_sets = vec![
            TupleSets {
                kind: "ternary".into(),
                sets: sets(30.0),
            },
            TupleSets {
                kind: "range".into(),
                sets: sets(45.0),
            },
        ];
        for (kind, fixed) in [("ternary", 30.0), ("range", 45.0)] {
            let c = tuple_cost(&p, kind).unwrap();
            assert!((c.fixed - fixed).abs() < 1e-6, "{kind}: {c:?}");
            assert!((c.per_tab - 8.0).abs() < 1e-6 && c.per_probe.abs() < 1e-6, "{c:?}");
            assert!((c.per_check - 5.0).abs() < 1e-6, "{c:?}");
            assert!(
                (c.knee - 5.0).abs() < 1e-9 && (c.per_probe_beyond - 40.0).abs() < 1e-6,
                "{c:?}"
            );
            // below the knee a probe more costs nothing, above it 40
            assert!((c.cycles(6.0, 4.0, 1.0) - c.cycles(6.0, 3.0, 1.0)).abs() < 1e-6);
            assert!((c.cycles(6.0, 7.0, 1.0) - c.cycles(6.0, 6.0, 1.0) - 40.0).abs() < 1e-6);
        }
        // a kind with too few sets of its own gets no fit, even beside others
        p.tuple_sets.push(TupleSets {
            kind: "optional".into(),
            sets: sets(50.0)[..4].to_vec(),
        });
        assert!(tuple_cost(&p, "optional").is_none());
        assert!(tuple_cost(&p, "ternary").is_some());
    }

    #[test]
    fn tuple_cost_fits_tabs_probes_and_checks() {
        let mut p = sample();
        // cycles = 20 + 6 per tab + 15 per probe + 4 per check, over sets that vary them apart
        let f = |t: f64, pr: f64, c: f64| set(t, pr, c, 20.0 + 6.0 * t + 15.0 * pr + 4.0 * c);
        p.tuple_sets = vec![TupleSets {
            kind: "ternary".into(),
            sets: vec![
                f(3.0, 2.0, 1.0),
                f(4.0, 2.5, 1.0),
                f(7.0, 4.7, 1.1),
                f(9.0, 5.8, 2.2),
                f(5.0, 4.4, 2.4),
                f(11.0, 9.7, 2.1),
            ],
        }];
        let c = tuple_cost(&p, "ternary").unwrap();
        assert!((c.fixed - 20.0).abs() < 1e-6, "{c:?}");
        assert!((c.per_tab - 6.0).abs() < 1e-6, "{c:?}");
        assert!((c.per_probe - 15.0).abs() < 1e-6, "{c:?}");
        assert!((c.per_check - 4.0).abs() < 1e-6, "{c:?}");
        assert!((c.cycles(6.0, 3.0, 1.5) - (20.0 + 36.0 + 45.0 + 6.0)).abs() < 1e-6);
        assert!(tuple_cost(&p, "range").is_none());
        // a term whose fit comes out negative is left out, the others refitted: cycles fall with
        // checks here, so checks cost 0 and the line follows tabs and probes
        p.tuple_sets[0].sets = vec![
            set(2.0, 1.0, 3.0, 50.0),
            set(4.0, 2.0, 2.0, 70.0),
            set(6.0, 3.5, 1.5, 95.0),
            set(8.0, 4.0, 1.0, 110.0),
            set(10.0, 6.0, 1.0, 140.0),
        ];
        let c = tuple_cost(&p, "ternary").unwrap();
        assert!(c.per_tab >= 0.0 && c.per_probe >= 0.0 && c.per_check == 0.0, "{c:?}");
        // too few sets, or sets that do not spread over tabs: no fit
        p.tuple_sets[0].sets.truncate(4);
        assert!(tuple_cost(&p, "ternary").is_none());
        p.tuple_sets[0].sets = (0..6).map(|i| set(4.0, 2.0 + f64::from(i) * 0.1, 1.0, 100.0)).collect();
        assert!(tuple_cost(&p, "ternary").is_none());
    }

    #[test]
    fn worker_extra_is_per_packet_plus_per_application() {
        let p = sample();
        assert_eq!(p.worker_extra(1, 4.0), 0.0);
        assert_eq!(p.worker_extra(2, 4.0), 20.0 + 5.0 * 4.0);
        assert_eq!(p.worker_extra(8, 0.0), 20.0);
    }

    #[test]
    fn the_tlb_takes_what_the_caches_leave_past_its_reach() {
        // 1 KiB, 256 KiB (misses L1), 4 MiB (misses L2; inside the TLB's 4 MiB), 16 MiB (inside
        // the LLC, 3/4 of its pages past the TLB's reach), 256 MiB (misses the LLC)
        let pt = |entries: u64, cycles: f64| SizePoint {
            entries,
            footprint_bytes: entries * 64,
            tlb_bytes: entries * 64,
            cycles,
        };
        let pts = [
            pt(16, 20.0),
            pt(4096, 30.0),
            pt(1 << 16, 60.0),
            pt(1 << 18, 150.0),
            pt(1 << 22, 500.0),
        ];
        let p = sample();
        let pen = fit_penalties(&p.caches, &p.tlb, &pts);
        let m16 = uniform_misses(&p.caches, &p.tlb, 1 << 16, 64.0, 64.0);
        assert_eq!(m16[TLB], 0.0);
        let m18 = uniform_misses(&p.caches, &p.tlb, 1 << 18, 64.0, 64.0);
        assert_eq!(m18[2], 0.0);
        assert!((m18[TLB] - 0.75).abs() < 1e-12, "{m18:?}");
        // the 16 MiB point's rise past what L1 and L2 explain is the walks'
        let explained = 20.0 + m18[0] * pen[0] + m18[1] * pen[1];
        assert!((pen[TLB] - (150.0 - explained) / 0.75).abs() < 1e-9, "{pen:?}");
        assert!(pen[TLB] > 50.0, "{pen:?}");
        // every point is reproduced
        for q in &pts {
            let m = uniform_misses(&p.caches, &p.tlb, q.entries, 64.0, 64.0);
            let y = 20.0 + (0..LEVELS).map(|l| m[l] * pen[l]).sum::<f64>();
            assert!(
                (y - q.cycles).abs() < 1e-6,
                "{} entries: {y} vs {}",
                q.entries,
                q.cycles
            );
        }
    }

    #[test]
    fn skewed_lookups_keep_paying_page_walks() {
        // only walks cost: the lookup moves by the TLB's miss ratios alone
        let mut p = sample();
        p.miss_penalty = [0.0, 0.0, 0.0, 100.0];
        let k = p.kinds[0].clone();
        let n = 1u64 << 20;
        let uni = interpolate(&k.points, n);
        let (z, mz) = lookup_cost(&p, &k, n, &T64, Popularity::Zipf(1.1), 1.0);
        // uniform: 1 - 4 MiB / 64 MiB of the lookups walk; skewed: Che's ratio with each entry
        // keeping 2 pages mapped, 1024 pages for 512 entries
        let mu = 1.0 - 4096.0 * 1024.0 / (64.0 * n as f64);
        let want_m = miss_ratio(n, 512.0, Popularity::Zipf(1.1));
        assert!((mz[TLB] - want_m).abs() < 1e-12, "{} vs {want_m}", mz[TLB]);
        assert!(want_m > 0.1 && want_m < mu, "{want_m} {mu}");
        // (moved as the kind's misses scale)
        let scale = miss_scale(&p, &k);
        assert!((z - (uni + scale * 100.0 * (want_m - mu))).abs() < 1e-9, "{z}");
        // sharing the TLB with three more tables: more walks
        let (s, ms) = lookup_cost(&p, &k, n, &T64, Popularity::Zipf(1.1), 0.25);
        assert!((ms[TLB] - miss_ratio(n, 128.0, Popularity::Zipf(1.1))).abs() < 1e-12);
        assert!(s > z, "{s} {z}");
        // a table inside the TLB's reach never walks, even with its reach shared
        let (_, small) = lookup_cost(&p, &k, 1 << 10, &T64, Popularity::Zipf(1.1), 0.25);
        assert_eq!(small[TLB], 0.0);
        // nor does a large one on huge pages: 64 MiB in 32 TLB entries, skewed or not
        let huge = Touch {
            tlb_bytes_per_entry: 32.0 * 4096.0 / n as f64,
            base_page_lines: 0.0,
            ..T64
        };
        for pop in [Popularity::Uniform, Popularity::Zipf(1.1)] {
            let (_, m) = lookup_cost(&p, &k, n, &huge, pop, 0.25);
            assert_eq!(m[TLB], 0.0);
        }
    }
}
