//! `p4dp bench --suite lpm`: longest-prefix match on IPv4 routing tables. For each prefix count
//! (`--lpm-prefixes`, default 100 000 and 1 000 000) it generates a prefix set with a realistic
//! length mix and random destinations inside it (docs/bench.md, "Longest-prefix match"), and
//! measures in the same run: the floor, the l2fwd floor, the floor plus DPDK's `rte_lpm`
//! (DIR-24-8) bulk lookups of the same prefixes, the floor plus p4dp's own bulk lookups of the
//! table, benches/l3_lpm.p4 with the prefixes installed, and benches/l3_exact.p4 with an exact
//! table of the same size (its keys: the destinations). Target: the lpm program within 1.2x of
//! floor + rte_lpm.

use std::collections::HashSet;
use std::fmt::Write as _;
use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use p4dp_rt::bench::{Bench, BenchParams, BenchTarget, Kind, Measurement};
use p4dp_rt::bench_lpm::RteLpm;
use p4dp_rt::Dispatch;

use crate::bench::json::{self, Json};
use crate::bench::{build_so, common_settings, eal_args, figures, template, BenchArgs, Figures, Suite};
use crate::bench_dp::save;
use crate::compile;

/// The target of both lpm suites: lpm program cycles/packet <= TARGET x (floor + DPDK's bulk
/// lookup: rte_lpm for IPv4, rte_lpm6 for IPv6).
const TARGET: f64 = 1.2;

/// Share of each IPv4 prefix length, in prefixes per 100 000: the shape of the public BGP table
/// (most /24, then /22, /23, /21, /20, /19, /16, ...; very few longer than /24, which the
/// default-free zone filters). Approximate, see docs/bench.md for the source.
const LEN_SHARE: [(u8, u32); 25] = [
    (8, 2),
    (9, 3),
    (10, 8),
    (11, 15),
    (12, 40),
    (13, 75),
    (14, 130),
    (15, 230),
    (16, 1_300),
    (17, 750),
    (18, 1_300),
    (19, 2_300),
    (20, 3_900),
    (21, 4_800),
    (22, 11_500),
    (23, 10_500),
    (24, 62_900),
    (25, 40),
    (26, 40),
    (27, 30),
    (28, 25),
    (29, 25),
    (30, 20),
    (31, 5),
    (32, 60),
];

/// splitmix64: the generator of prefixes and destinations (deterministic per --seed).
pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    pub(crate) fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

/// A generated routing table: distinct prefixes (address in host order, host bits zero).
struct PrefixSet {
    addr: Vec<u32>,
    lens: Vec<u8>,
}

fn mask(len: u8) -> u32 {
    if len == 0 {
        0
    } else {
        u32::MAX << (32 - u32::from(len))
    }
}

impl PrefixSet {
    /// `n` distinct prefixes: lengths drawn from LEN_SHARE, addresses uniform over the unicast
    /// space 1.0.0.0 .. 223.255.255.255.
    fn generate(n: usize, rng: &mut Rng) -> Result<PrefixSet> {
        let total: u64 = LEN_SHARE.iter().map(|&(_, s)| u64::from(s)).sum();
        let mut seen = HashSet::with_capacity(n);
        let (mut addr, mut lens) = (Vec::with_capacity(n), Vec::with_capacity(n));
        let mut attempts = 0u64;
        while addr.len() < n {
            attempts += 1;
            if attempts > 100 * n as u64 + 1000 {
                bail!("cannot draw {n} distinct prefixes");
            }
            let mut r = rng.below(total);
            let len = LEN_SHARE
                .iter()
                .find(|&&(_, s)| {
                    let hit = r < u64::from(s);
                    r = r.saturating_sub(u64::from(s));
                    hit
                })
                .map_or(24, |&(l, _)| l);
            let a = (0x0100_0000 + rng.below(0xe000_0000 - 0x0100_0000)) as u32 & mask(len);
            if seen.insert((a, len)) {
                addr.push(a);
                lens.push(len);
            }
        }
        Ok(PrefixSet { addr, lens })
    }

    /// `n` distinct destinations, each a random address inside a random prefix of the set.
    fn destinations(&self, n: usize, rng: &mut Rng) -> Result<Vec<u64>> {
        let mut seen = HashSet::with_capacity(n);
        let mut out = Vec::with_capacity(n);
        let mut attempts = 0u64;
        while out.len() < n {
            attempts += 1;
            if attempts > 100 * n as u64 + 1000 {
                bail!(
                    "cannot draw {n} distinct destinations from {} prefixes",
                    self.addr.len()
                );
            }
            let i = rng.below(self.addr.len() as u64) as usize;
            let d = self.addr[i] | (rng.next() as u32 & !mask(self.lens[i]));
            if seen.insert(d) {
                out.push(u64::from(d));
            }
        }
        Ok(out)
    }

    /// Prefixes per length, for the report.
    fn histogram(&self) -> String {
        let mut c = [0usize; 33];
        for &l in &self.lens {
            c[l as usize] += 1;
        }
        let n = self.lens.len().max(1) as f64;
        (0..=32)
            .filter(|&l| c[l] > 0)
            .map(|l| format!("/{l} {:.1}%", 100.0 * c[l] as f64 / n))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// The figures of one prefix count, IPv4 or IPv6: the baseline is DPDK's structure for the
/// family (`rte_lpm`, `rte_lpm6`); `checked` is the count of destinations on which p4dp and the
/// baseline were checked to choose the same prefix (None: not checked).
pub(crate) struct LpmRow {
    pub prefixes: usize,
    pub packets: usize,
    pub checked: Option<usize>,
    pub floor: Figures,
    pub l2fwd: Figures,
    pub baseline: Figures,
    /// A router on the floor: the baseline's lookups, then each packet's next hop applied as the
    /// lpm program applies it (IPv4: its Ethernet destination rewritten). None where the lpm
    /// program writes nothing into the packet (IPv6), so the baseline is already like for like.
    pub router: Option<Figures>,
    pub p4dp_lookup: Figures,
    pub lpm_program: Figures,
    pub exact_floor: Figures,
    pub exact_lookup: Figures,
    pub exact_program: Figures,
    pub hist: String,
    pub tsc_hz: f64,
}

/// What the IPv4 and the IPv6 suites' reports name differently.
pub(crate) struct LpmNames {
    /// DPDK's structure: `rte_lpm`, `rte_lpm6` (also the JSON keys' suffix).
    pub baseline: &'static str,
    /// The benches/ programs without `.p4`: the lpm one and the exact one.
    pub programs: [&'static str; 2],
    /// The exact bench's lookup loop (`rte_hash`, `p4dp exact lookup`) and its JSON key.
    pub exact_lookup: (&'static str, &'static str),
    /// The sentence under the table that says how the baseline loop is built.
    pub baseline_method: &'static str,
    /// What the length histogram lists.
    pub hist_label: &'static str,
}

/// Load `so`, install entries of `table` running `action` with `fill`, and return the target and
/// the table's index.
pub(crate) fn load(
    a: &BenchArgs,
    so: &Path,
    table: &str,
    action: &str,
    fill: impl FnOnce(&mut BenchTarget, u32, u32) -> p4dp_rt::Result<u64>,
) -> Result<(BenchTarget, u32)> {
    let mut t = BenchTarget::load(so, a.workers).with_context(|| format!("loading {}", so.display()))?;
    let prog = t.program();
    let ti = prog
        .table(table)
        .with_context(|| format!("{}: no table {table}", so.display()))?
        .index;
    let act = prog
        .action(action)
        .with_context(|| format!("{}: no action {action}", so.display()))?
        .index;
    let n = fill(&mut t, ti, act).with_context(|| format!("installing the entries of {table}"))?;
    eprintln!("bench: lpm: installed {n} entries in {table}");
    Ok((t, ti))
}

fn params(a: &BenchArgs, packets: usize) -> Result<BenchParams> {
    Ok(BenchParams {
        workers: a.workers,
        ports: a.ports,
        packets: u32::try_from(packets).context("too many packets")?,
        template: template(a.pkt_len)?,
        key_offset: a.key_offset,
        key_bytes: 4,
        key_base: 0,
        n_keys: packets as u64,
        seed: a.seed,
        warmup: Duration::from_secs_f64(a.warmup()),
        duration: Duration::from_secs_f64(a.duration()),
        dispatch: Dispatch::Auto,
    })
}

/// Next hops of the lpm prefix sets: prefix i routes to next hop i mod NEXT_HOPS (docs/bench.md).
const NEXT_HOPS: usize = 256;

/// Next hop `h`'s MAC address: a locally administered one of its own.
fn nhop_mac(h: usize) -> [u8; 6] {
    [0x02, 0, 0, 0, (h >> 8) as u8, h as u8]
}

/// Install prefix `keys[i]` / `lens[i]` with `set_nhop(0, next hop i mod NEXT_HOPS's MAC)`: all to
/// bench port 0 (the packets stay on the bench ports), each next hop its own MAC address, so the
/// table holds NEXT_HOPS distinct (action, data) pairs as a routing table does, not one.
fn fill_next_hops(t: &mut BenchTarget, ti: u32, act: u32, keys: &[u64], lens: &[u8]) -> p4dp_rt::Result<u64> {
    let mut n = 0;
    for h in 0..NEXT_HOPS.min(keys.len()) {
        let k: Vec<u64> = keys.iter().skip(h).step_by(NEXT_HOPS).copied().collect();
        let l: Vec<u8> = lens.iter().skip(h).step_by(NEXT_HOPS).copied().collect();
        // set_nhop(bit<9> port, bit<48> nhop_mac): big-endian bytes; a locally administered MAC
        let params = vec![vec![0u8, 0], nhop_mac(h).to_vec()];
        n += t.table_fill_list(ti, &k, Some(&l), act, &params)?;
    }
    Ok(n)
}

/// A table-lookup loop whose every lookup must hit (the destinations lie inside the prefixes).
pub(crate) fn all_hit(m: Measurement, what: &str) -> Result<Measurement> {
    if m.misses > 0 {
        bail!("{what} missed {} of {} lookups", m.misses, m.hits + m.misses);
    }
    Ok(m)
}

/// What one family's suite (IPv4 `lpm`, IPv6 `lpm6`) does in its own way when it measures a
/// prefix count: its tables, how it fills them, its DPDK baseline and its lookup loops.
/// [`measure_family`] is the measurement sequence both share.
pub(crate) trait Family {
    /// DPDK's structure holding the same prefixes (`RteLpm`, `RteLpm6`).
    type Baseline;
    /// The suite's name in progress lines.
    const TAG: &'static str;
    /// The lpm program's table and its entries' action, and the exact program's table.
    const TABLES: [&'static str; 3];
    fn fill_lpm(&self, t: &mut BenchTarget, ti: u32, act: u32) -> p4dp_rt::Result<u64>;
    /// Build the baseline from the same prefixes; may check it against the filled table `ti`.
    fn baseline(&self, t: &mut BenchTarget, ti: u32) -> Result<Self::Baseline>;
    fn measure_baseline(&self, b: &mut Bench, base: &Self::Baseline) -> Result<Measurement>;
    /// The router loop (LpmRow::router): the baseline's lookups plus each packet's next hop
    /// applied as the lpm program does; None if the program writes nothing into the packet.
    fn measure_router(&self, _b: &mut Bench, _base: &Self::Baseline) -> Result<Option<Measurement>> {
        Ok(None)
    }
    /// The floor plus p4dp's bulk lookups of table `ti`.
    fn measure_lookup(&self, b: &mut Bench, ti: u32) -> Result<Measurement>;
    /// Fill the exact program's table (its action `set_port`) with the destinations.
    fn fill_exact(&self, t: &mut BenchTarget, ti: u32, act: u32) -> p4dp_rt::Result<u64>;
}

/// One prefix count of a family: the lpm program's bench (floor, l2fwd floor, baseline, p4dp's
/// lookup, the program) then the exact program's (floor, lookup, program), `a.repeat` times each,
/// on the same packets (`params`, destinations `dst`). `hist` and `checked` go into the row.
#[allow(clippy::too_many_arguments)]
pub(crate) fn measure_family<F: Family>(
    a: &BenchArgs,
    fam: &F,
    names: &LpmNames,
    (lpm_so, exact_so): (&Path, &Path),
    params: &BenchParams,
    dst: &[u64],
    prefixes: usize,
    (hist, checked): (String, Option<usize>),
) -> Result<LpmRow> {
    let (tag, base, [lpm, exact]) = (F::TAG, names.baseline, names.programs);
    let [lpm_table, lpm_action, exact_table] = F::TABLES;
    let (mut fl, mut l2, mut rl, mut pl, mut pr) = (vec![], vec![], vec![], vec![], vec![]);
    let mut ro = vec![];
    {
        let (mut t, ti) = load(a, lpm_so, lpm_table, lpm_action, |t, ti, act| fam.fill_lpm(t, ti, act))?;
        let rte = fam.baseline(&mut t, ti)?;
        {
            let mut b = Bench::new(&mut t, params).context("creating the bench ports and packets")?;
            b.set_keys(dst)?;
            for rep in 0..a.repeat {
                eprintln!("bench: {tag} {prefixes}: repetition {}/{}", rep + 1, a.repeat);
                fl.push(b.measure(Kind::Floor).context("floor loop")?);
                l2.push(b.measure(Kind::L2fwd).context("l2fwd floor loop")?);
                rl.push(all_hit(
                    fam.measure_baseline(&mut b, &rte)?,
                    &format!("floor + {base}"),
                )?);
                if let Some(m) = fam.measure_router(&mut b, &rte)? {
                    ro.push(all_hit(m, &format!("floor + {base} router"))?);
                }
                pl.push(all_hit(fam.measure_lookup(&mut b, ti)?, "floor + p4dp lpm lookup")?);
                pr.push(
                    b.measure(Kind::Program)
                        .with_context(|| format!("running benches/{lpm}.p4"))?,
                );
                let c = |v: &[Measurement]| v.last().map_or(0.0, |m| m.cycles_per_pkt);
                eprintln!(
                    "bench: {tag} {prefixes}:   cycles/pkt floor {:.1}, l2fwd {:.1}, {base} {:.1}{}, p4dp lookup {:.1}, program {:.1}",
                    c(&fl),
                    c(&l2),
                    c(&rl),
                    if ro.is_empty() {
                        String::new()
                    } else {
                        format!(", {base} router {:.1}", c(&ro))
                    },
                    c(&pl),
                    c(&pr)
                );
            }
        }
        let (_, misses) = t.table_hits_misses(ti)?;
        if misses > 0 {
            bail!("benches/{lpm}.p4 missed {misses} lookups");
        }
    }
    let (mut xf, mut xl, mut xp) = (vec![], vec![], vec![]);
    {
        let (mut t, ti) = load(a, exact_so, exact_table, "BenchIngress.set_port", |t, ti, act| {
            fam.fill_exact(t, ti, act)
        })?;
        let mut b = Bench::new(&mut t, params).context("creating the bench ports and packets")?;
        b.set_keys(dst)?;
        for rep in 0..a.repeat {
            eprintln!(
                "bench: {tag} {prefixes}: exact table, repetition {}/{}",
                rep + 1,
                a.repeat
            );
            xf.push(b.measure(Kind::Floor).context("floor loop")?);
            xl.push(all_hit(
                fam.measure_lookup(&mut b, ti)?,
                &format!("floor + {} lookup", names.exact_lookup.0),
            )?);
            xp.push(
                b.measure(Kind::Program)
                    .with_context(|| format!("running benches/{exact}.p4"))?,
            );
        }
    }
    Ok(LpmRow {
        prefixes,
        packets: dst.len(),
        checked,
        floor: figures(&fl),
        l2fwd: figures(&l2),
        baseline: figures(&rl),
        router: (!ro.is_empty()).then(|| figures(&ro)),
        p4dp_lookup: figures(&pl),
        lpm_program: figures(&pr),
        exact_floor: figures(&xf),
        exact_lookup: figures(&xl),
        exact_program: figures(&xp),
        hist,
        tsc_hz: fl.first().map_or(0.0, |m| m.tsc_hz as f64),
    })
}

/// The IPv4 family: a prefix set, its next hops, and its destinations (as u64 keys).
struct Ipv4<'a> {
    set: &'a PrefixSet,
    dst: &'a [u64],
}

impl Family for Ipv4<'_> {
    type Baseline = RteLpm;
    const TAG: &'static str = "lpm";
    const TABLES: [&'static str; 3] = [
        "BenchIngress.ipv4_lpm",
        "BenchIngress.set_nhop",
        "BenchIngress.ipv4_exact",
    ];

    fn fill_lpm(&self, t: &mut BenchTarget, ti: u32, act: u32) -> p4dp_rt::Result<u64> {
        let keys: Vec<u64> = self.set.addr.iter().map(|&x| u64::from(x)).collect();
        fill_next_hops(t, ti, act, &keys, &self.set.lens)
    }

    fn baseline(&self, _t: &mut BenchTarget, _ti: u32) -> Result<RteLpm> {
        let mut l = RteLpm::new(&self.set.addr, &self.set.lens).context("building the rte_lpm")?;
        // rte_lpm's next hop of prefix i is i: its MAC is that of the program's next hop i mod NEXT_HOPS
        let macs: Vec<[u8; 6]> = (0..NEXT_HOPS).map(nhop_mac).collect();
        l.set_next_hops(&macs).context("the rte_lpm's next hops")?;
        Ok(l)
    }

    fn measure_baseline(&self, b: &mut Bench, base: &RteLpm) -> Result<Measurement> {
        Ok(b.measure_rte_lpm(base)?)
    }

    fn measure_router(&self, b: &mut Bench, base: &RteLpm) -> Result<Option<Measurement>> {
        Ok(Some(b.measure_rte_lpm_route(base)?))
    }

    fn measure_lookup(&self, b: &mut Bench, ti: u32) -> Result<Measurement> {
        Ok(b.measure(Kind::Table(ti))?)
    }

    fn fill_exact(&self, t: &mut BenchTarget, ti: u32, act: u32) -> p4dp_rt::Result<u64> {
        t.table_fill_list(ti, self.dst, None, act, &port0())
    }
}

/// `set_port(0)`'s action data (bit<9>, big-endian), the exact programs' entries.
pub(crate) fn port0() -> Vec<Vec<u8>> {
    vec![vec![0, 0]]
}

fn measure_size(a: &BenchArgs, names: &LpmNames, n: usize, so: (&Path, &Path)) -> Result<LpmRow> {
    let mut rng = Rng(a.seed ^ (n as u64).wrapping_mul(0x9e37_79b9));
    let set = PrefixSet::generate(n, &mut rng)?;
    let packets = a.packets.map_or(n.min(1 << 20), |p| p as usize);
    let dst = set.destinations(packets, &mut rng)?;
    let fam = Ipv4 { set: &set, dst: &dst };
    let p = params(a, packets)?;
    measure_family(a, &fam, names, so, &p, &dst, n, (set.histogram(), None))
}

pub(crate) fn ratio(a: &Figures, b: &Figures) -> f64 {
    a.cycles / b.cycles.max(f64::MIN_POSITIVE)
}

/// The judged ratio: the lpm program against the router loop where there is one (the same
/// work on the packet), else against the baseline lookup loop.
fn judged(r: &LpmRow) -> f64 {
    ratio(&r.lpm_program, r.router.as_ref().unwrap_or(&r.baseline))
}

/// The head of an lpm suite's report: the command, the run's settings and the column titles.
pub(crate) fn report_head(a: &BenchArgs, suite: Suite, tsc_hz: f64, cmdline: &str) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "p4dp bench --suite {} results\ncommand: {cmdline}", suite.name());
    let _ = writeln!(
        s,
        "TSC {:.1} MHz, {} worker(s), {:.1} s window after {:.1} s warm-up, {} repetition(s), medians (min..max); seed {}\n",
        tsc_hz / 1e6,
        a.workers,
        a.duration(),
        a.warmup(),
        a.repeat,
        a.seed
    );
    let _ = writeln!(s, "{:>9} {:<36} {:>8} {:>22}", "prefixes", "loop", "Mpps", "cycles/pkt");
    s
}

/// The report lines of one prefix count's loops.
pub(crate) fn report_loops(s: &mut String, prefixes: usize, loops: &[(&str, &Figures)]) {
    for (name, f) in loops {
        let _ = writeln!(
            s,
            "{:>9} {:<36} {:>8.2} {:>8.1} ({:>5.1}..{:>5.1})",
            prefixes, name, f.mpps, f.cycles, f.cycles_min, f.cycles_max
        );
    }
}

/// The text report of an lpm suite's rows so far.
fn report(a: &BenchArgs, suite: Suite, names: &LpmNames, rows: &[LpmRow], tsc_hz: f64, cmdline: &str) -> String {
    let (base, [lpm, exact]) = (names.baseline, names.programs);
    let mut s = report_head(a, suite, tsc_hz, cmdline);
    for r in rows {
        let mut loops: Vec<(String, &Figures)> = vec![
            ("floor (rx->tx)".into(), &r.floor),
            ("l2fwd floor (swap MACs)".into(), &r.l2fwd),
            (format!("floor + {base} bulk lookup"), &r.baseline),
            ("floor + p4dp lpm bulk lookup".into(), &r.p4dp_lookup),
            (format!("{lpm}.p4 (p4dp lpm table)"), &r.lpm_program),
            ("exact: floor (rx->tx)".into(), &r.exact_floor),
            (
                format!("exact: floor + {} bulk lookup", names.exact_lookup.0),
                &r.exact_lookup,
            ),
            (format!("{exact}.p4 (exact, same size)"), &r.exact_program),
        ];
        if let Some(ro) = &r.router {
            loops.insert(3, (format!("floor + {base} router"), ro));
        }
        let loops: Vec<(&str, &Figures)> = loops.iter().map(|(n, f)| (n.as_str(), *f)).collect();
        report_loops(&mut s, r.prefixes, &loops);
        let judged = judged(r);
        let vs = if r.router.is_some() {
            format!(
                "{lpm} / (floor + {base} router) = {judged:.2}x (target <= {TARGET:.2}x: {}); \
                 {lpm} / (floor + {base} lookup alone) = {:.2}x",
                if judged <= TARGET { "PASS" } else { "MISS" },
                ratio(&r.lpm_program, &r.baseline)
            )
        } else {
            format!(
                "{lpm} / (floor + {base}) = {judged:.2}x (target <= {TARGET:.2}x: {})",
                if judged <= TARGET { "PASS" } else { "MISS" }
            )
        };
        let _ = writeln!(
            s,
            "{:>9} {vs}; {lpm} / {exact} = {:.2}x; p4dp lookup / {base} lookup = {:.2}x; {lpm} / l2fwd floor = {:.2}x",
            r.prefixes,
            ratio(&r.lpm_program, &r.exact_program),
            ratio(&r.p4dp_lookup, &r.baseline),
            ratio(&r.lpm_program, &r.l2fwd),
        );
        let agreed = r.checked.map_or(String::new(), |c| {
            format!("p4dp and {base} agreed on all {c} checked; ")
        });
        let _ = writeln!(
            s,
            "{:>9} {} packets, destinations uniform over the prefixes; {agreed}{}: {}",
            r.prefixes, r.packets, names.hist_label, r.hist
        );
    }
    let _ = writeln!(
        s,
        "\nfloor + {base}: {} inside the floor loop; floor + p4dp lpm bulk lookup: the same with \
         p4dp_table_lookup_bulk on the program's table. The exact rows are a second bench (same packets) on \
         benches/{exact}.p4 whose table holds the destinations themselves. Prefix sets: docs/bench.md.",
        names.baseline_method
    );
    if rows.iter().any(|r| r.router.is_some()) {
        let _ = writeln!(
            s,
            "floor + {base} router: the same lookups, then each packet's Ethernet destination set to its next \
             hop's MAC address (the program's set_nhop does the same write of the packet's first cache line); the \
             judged ratio is against this loop, the ratio against the lookup alone is printed after it."
        );
    }
    s
}

pub(crate) fn fig_json(f: &Figures) -> Json {
    Json::obj([
        ("mpps", Json::Num(f.mpps)),
        ("cycles_per_pkt", Json::Num(f.cycles)),
        ("cycles_min", Json::Num(f.cycles_min)),
        ("cycles_max", Json::Num(f.cycles_max)),
    ])
}

/// The JSON document of an lpm suite's rows.
fn report_json(a: &BenchArgs, suite: Suite, names: &LpmNames, rows: &[LpmRow], tsc_hz: f64) -> Json {
    let base = names.baseline;
    let all_pass = rows.iter().all(|r| judged(r) <= TARGET);
    let rs = rows
        .iter()
        .map(|r| {
            let judged = judged(r);
            let mut fields = vec![
                ("prefixes".to_string(), Json::uint(r.prefixes as u64)),
                ("packets".to_string(), Json::uint(r.packets as u64)),
            ];
            if let Some(c) = r.checked {
                fields.push(("agreement_checked".to_string(), Json::uint(c as u64)));
            }
            let mut loops = vec![
                ("floor".to_string(), fig_json(&r.floor)),
                ("l2fwd_floor".to_string(), fig_json(&r.l2fwd)),
                (format!("floor_{base}"), fig_json(&r.baseline)),
            ];
            if let Some(ro) = &r.router {
                loops.push((format!("floor_{base}_router"), fig_json(ro)));
                fields.push((format!("ratio_vs_{base}_router"), Json::Num(judged)));
            }
            fields.extend([
                (
                    "loops".to_string(),
                    Json::obj(loops.into_iter().chain([
                        ("floor_p4dp_lpm_lookup".to_string(), fig_json(&r.p4dp_lookup)),
                        ("lpm_program".to_string(), fig_json(&r.lpm_program)),
                        ("exact_floor".to_string(), fig_json(&r.exact_floor)),
                        (names.exact_lookup.1.to_string(), fig_json(&r.exact_lookup)),
                        ("exact_program".to_string(), fig_json(&r.exact_program)),
                    ])),
                ),
                (
                    format!("ratio_vs_{base}"),
                    Json::Num(ratio(&r.lpm_program, &r.baseline)),
                ),
                (
                    "ratio_vs_exact".to_string(),
                    Json::Num(ratio(&r.lpm_program, &r.exact_program)),
                ),
                (
                    format!("lookup_ratio_vs_{base}"),
                    Json::Num(ratio(&r.p4dp_lookup, &r.baseline)),
                ),
                ("target".to_string(), Json::Num(TARGET)),
                ("pass".to_string(), Json::Bool(judged <= TARGET)),
            ]);
            Json::obj(fields)
        })
        .collect();
    json::document(
        Some(suite.name()),
        tsc_hz,
        common_settings(a),
        Json::obj([("sizes", Json::Arr(rs))]),
        Json::obj([("pass", Json::Bool(all_pass))]),
    )
}

/// One longest-prefix-match suite (IPv4 here, IPv6 in bench_lpm6.rs): per prefix count, the
/// figures of `measure(args, names, count, (lpm program, exact program))`, written as text after each
/// count and as JSON at the end.
pub(crate) struct LpmSuite {
    pub suite: Suite,
    /// The option giving the counts, for errors.
    pub flag: &'static str,
    /// Memory of the structures per prefix (bytes), for the EAL's default --mem.
    pub bytes_per_prefix: u64,
    pub names: LpmNames,
    pub measure: fn(&BenchArgs, &LpmNames, usize, (&Path, &Path)) -> Result<LpmRow>,
}

/// Run `suite` for each count of `sizes` (each 1..=2^20, the programs' table size).
pub(crate) fn run_lpm_suite(a: &BenchArgs, sizes: &[u64], suite: &LpmSuite) -> Result<ExitCode> {
    if sizes.is_empty() || sizes.iter().any(|&n| n == 0 || n > 1 << 20) {
        bail!(
            "{}: each count must be 1..=1048576 (the tables' size in benches/{}.p4)",
            suite.flag,
            suite.names.programs[0]
        );
    }
    let max = sizes.iter().copied().max().unwrap_or(0);
    let packets = a.packets.map_or(max.min(1 << 20), u64::from);
    // packets ~600 B, the prefixes' structures, the baseline's first table, runtime pools
    let need = 1024 + (packets * 600 + max * suite.bytes_per_prefix) / (1 << 20) + 160 * u64::from(a.workers);
    let mem = a.mem.unwrap_or(need.next_power_of_two().clamp(2048, 16384) as u32);
    let out = a.out.clone().unwrap_or_else(|| suite.suite.default_out());
    if let Some(d) = out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(d).with_context(|| format!("creating {}", d.display()))?;
    }
    p4dp_rt::Eal::init(&eal_args(mem, a.workers, a.eal.as_deref())).context("starting DPDK's EAL")?;
    let scratch = compile::scratch_dir(&format!("bench-{}", suite.suite.name()))?;
    let out_dir = a.build_dir.clone().unwrap_or_else(|| scratch.clone());
    let dir = compile::home().join("benches");
    let [lpm, exact] = suite.names.programs.map(|p| dir.join(format!("{p}.p4")));
    let lpm_so = build_so(a, &lpm, &out_dir)?;
    let exact_so = build_so(a, &exact, &out_dir)?;
    let cmdline = std::env::args().collect::<Vec<_>>().join(" ");
    let mut rows = Vec::new();
    let mut text = String::new();
    for &n in sizes {
        eprintln!("bench: {}: {n} prefixes", suite.suite.name());
        rows.push(
            (suite.measure)(a, &suite.names, n as usize, (&lpm_so, &exact_so))
                .with_context(|| format!("{n} prefixes"))?,
        );
        text = report(a, suite.suite, &suite.names, &rows, rows[0].tsc_hz, &cmdline);
        save(&out, &text)?;
    }
    let hz = rows.first().map_or(0.0, |r| r.tsc_hz);
    let to_stdout = a.json.as_deref().is_some_and(|p| p.as_os_str() == "-");
    if !to_stdout {
        print!("{text}");
    }
    if let Some(j) = &a.json {
        json::emit(j, &report_json(a, suite.suite, &suite.names, &rows, hz))?;
    }
    eprintln!("bench: results written to {}", out.display());
    if a.build_dir.is_none() {
        let _ = std::fs::remove_dir_all(&scratch);
    }
    Ok(ExitCode::SUCCESS)
}

/// `p4dp bench --suite lpm`.
pub fn suite_lpm(a: &BenchArgs) -> Result<ExitCode> {
    // an entry in all three structures ~400 B (rte_lpm's 64 MiB table within the 1 GiB)
    run_lpm_suite(
        a,
        &a.lpm_prefixes,
        &LpmSuite {
            suite: Suite::Lpm,
            flag: "--lpm-prefixes",
            bytes_per_prefix: 400,
            names: LpmNames {
                baseline: "rte_lpm",
                programs: ["l3_lpm", "l3_exact"],
                exact_lookup: ("rte_hash", "exact_floor_rte_hash"),
                baseline_method:
                    "DPDK's DIR-24-8 rte_lpm holding the same prefixes, one rte_lpm_lookup_bulk per burst \
                                  on the packets' destination addresses (host order)",
                hist_label: "lengths",
            },
            measure: measure_size,
        },
    )
}
