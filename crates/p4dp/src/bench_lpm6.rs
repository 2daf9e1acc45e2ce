//! `p4dp bench --suite lpm6`: longest-prefix match on IPv6 routing tables. For each prefix count
//! (`--lpm6-prefixes`, default 10 000 and 100 000) it generates a prefix set with a realistic
//! length mix (docs/bench.md, "IPv6 prefix sets") and random destinations inside it, and
//! measures in the same run: the floor, the l2fwd floor, the floor plus DPDK's `rte_lpm6` bulk
//! lookups of the same prefixes, the floor plus p4dp's own bulk lookups of the table,
//! benches/l3_lpm6.p4 with the prefixes installed, and benches/l3_exact6.p4 with an exact table
//! of 128-bit keys of the same size (its keys: the destinations). Before measuring, p4dp's table
//! and rte_lpm6 must choose the same prefix for every sampled destination.

use std::collections::HashSet;
use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use p4dp_rt::bench::{Bench, BenchParams, BenchTarget, Measurement};
use p4dp_rt::bench_lpm::RteLpm6;
use p4dp_rt::Dispatch;

use crate::bench::{BenchArgs, Suite};
use crate::bench_lpm::{measure_family, port0, run_lpm_suite, Family, LpmNames, LpmRow, LpmSuite, Rng};

/// Share of each IPv6 prefix length, in prefixes per 10 000: the shape of the public BGP IPv6
/// table (most /48, then /32, /44, /40, /29, /46, /36, ...; few longer than /48, almost none
/// longer than /64). Approximate, see docs/bench.md for the sources.
const LEN_SHARE: [(u8, u32); 27] = [
    (20, 3),
    (24, 8),
    (28, 20),
    (29, 380),
    (30, 40),
    (31, 30),
    (32, 1_250),
    (33, 70),
    (34, 80),
    (35, 50),
    (36, 270),
    (37, 50),
    (38, 80),
    (39, 60),
    (40, 600),
    (41, 70),
    (42, 210),
    (43, 80),
    (44, 780),
    (45, 170),
    (46, 330),
    (47, 260),
    (48, 4_699),
    (52, 30),
    (56, 220),
    (60, 20),
    (64, 140),
];

/// The interface identifier (low 64 bits) of every destination: the template's.
const IID: u64 = 1;

/// Ethernet + IPv6 + UDP header bytes; the IPv6 destination is bytes 38..54.
const HDRS: u32 = 62;
const DST_OFFSET: u32 = 38;

fn mask(len: u8) -> u64 {
    if len == 0 {
        0
    } else {
        u64::MAX << (64 - u32::from(len))
    }
}

fn addr16(hi: u64) -> [u8; 16] {
    let mut a = [0u8; 16];
    a[..8].copy_from_slice(&hi.to_be_bytes());
    a
}

/// A generated IPv6 routing table: distinct prefixes (top 64 bits of the address, host bits
/// zero; LEN_SHARE's lengths are at most /64, so destinations vary in the top 64 bits only).
struct PrefixSet {
    hi: Vec<u64>,
    lens: Vec<u8>,
}

impl PrefixSet {
    /// `n` distinct prefixes: lengths drawn from LEN_SHARE. As in the BGP table, most prefixes
    /// are more specifics of a provider's allocation: the prefixes of /29../32 drawn stand for
    /// the allocations (random under 2000::/3, as the shorter ones); a longer prefix takes a
    /// random allocation's bits and random bits from the allocation's length down to its own.
    /// An address drawn twice is drawn again (the lengths stay as drawn).
    fn generate(n: usize, rng: &mut Rng) -> Result<PrefixSet> {
        let total: u64 = LEN_SHARE.iter().map(|&(_, s)| u64::from(s)).sum();
        let mut lens: Vec<u8> = (0..n)
            .map(|_| {
                let mut r = rng.below(total);
                LEN_SHARE
                    .iter()
                    .find(|&&(_, s)| {
                        let hit = r < u64::from(s);
                        r = r.saturating_sub(u64::from(s));
                        hit
                    })
                    .map_or(48, |&(l, _)| l)
            })
            .collect();
        lens.sort_unstable(); // allocations first
        let mut seen = HashSet::with_capacity(n);
        let mut hi = Vec::with_capacity(n);
        let mut alloc: Vec<(u64, u8)> = Vec::new();
        for &len in &lens {
            let mut attempts = 0u32;
            loop {
                attempts += 1;
                if attempts > 10_000 {
                    bail!("cannot draw {n} distinct IPv6 prefixes (/{len})");
                }
                let a = if len > 32 && !alloc.is_empty() {
                    let (p, pl) = alloc[rng.below(alloc.len() as u64) as usize];
                    p | (rng.next() & !mask(pl))
                } else {
                    0x2000_0000_0000_0000 | (rng.next() & 0x1fff_ffff_ffff_ffff)
                } & mask(len);
                if seen.insert((a, len)) {
                    hi.push(a);
                    if (29..=32).contains(&len) {
                        alloc.push((a, len));
                    }
                    break;
                }
            }
        }
        // the order of the list is the order of installation: mix the lengths
        let mut order: Vec<usize> = (0..n).collect();
        for i in (1..n).rev() {
            order.swap(i, rng.below(i as u64 + 1) as usize);
        }
        Ok(PrefixSet {
            hi: order.iter().map(|&i| hi[i]).collect(),
            lens: order.iter().map(|&i| lens[i]).collect(),
        })
    }

    /// `n` distinct destinations (top 64 bits), each a random address inside a random prefix.
    fn destinations(&self, n: usize, rng: &mut Rng) -> Result<Vec<u64>> {
        let mut seen = HashSet::with_capacity(n);
        let mut out = Vec::with_capacity(n);
        let mut attempts = 0u64;
        while out.len() < n {
            attempts += 1;
            if attempts > 100 * n as u64 + 1000 {
                bail!("cannot draw {n} distinct destinations from {} prefixes", self.hi.len());
            }
            let i = rng.below(self.hi.len() as u64) as usize;
            let d = self.hi[i] | (rng.next() & !mask(self.lens[i]));
            if seen.insert(d) {
                out.push(d);
            }
        }
        Ok(out)
    }

    /// rte_lpm6's tbl8 groups for the set: one per distinct 8-bit step below /24 that a prefix
    /// continues past (the prefix's first `b` bits, b = 24, 32, ... < its length).
    fn tbl8s(&self) -> u32 {
        let mut steps = HashSet::new();
        for (&a, &l) in self.hi.iter().zip(&self.lens) {
            let mut b = 24u8;
            while b < l {
                steps.insert((a & mask(b), b));
                b += 8;
            }
        }
        u32::try_from(steps.len() + steps.len() / 16 + 64).unwrap_or(u32::MAX)
    }

    fn histogram(&self) -> String {
        let mut c = [0usize; 129];
        for &l in &self.lens {
            c[l as usize] += 1;
        }
        let n = self.lens.len().max(1) as f64;
        (0..=128)
            .filter(|&l| c[l] > 0 && 100.0 * c[l] as f64 / n >= 0.5)
            .map(|l| format!("/{l} {:.1}%", 100.0 * c[l] as f64 / n))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// An Ethernet/IPv6/UDP frame of `len` bytes; the IPv6 destination's top 64 bits (bytes 38..46)
/// are where the bench writes the keys, its low 64 bits are IID.
fn template6(len: u32) -> Result<Vec<u8>> {
    if !(HDRS..=1500).contains(&len) {
        bail!("--pkt-len must be {HDRS}..1500 for --suite lpm6 (Ethernet + IPv6 + UDP headers)");
    }
    let mut p = vec![0u8; len as usize];
    p[0..6].copy_from_slice(&[0x02, 0, 0, 0, 0, 0x02]);
    p[6..12].copy_from_slice(&[0x02, 0, 0, 0, 0, 0x01]);
    p[12..14].copy_from_slice(&[0x86, 0xdd]);
    let payload = (len - 54) as u16;
    p[14] = 0x60;
    p[18..20].copy_from_slice(&payload.to_be_bytes());
    p[20] = 17;
    p[21] = 64;
    p[22..30].copy_from_slice(&0x2001_0db8_0000_0000u64.to_be_bytes());
    p[30..38].copy_from_slice(&1u64.to_be_bytes());
    p[46..54].copy_from_slice(&IID.to_be_bytes());
    p[54..56].copy_from_slice(&1234u16.to_be_bytes());
    p[56..58].copy_from_slice(&5678u16.to_be_bytes());
    p[58..60].copy_from_slice(&payload.to_be_bytes());
    Ok(p)
}

fn params(a: &BenchArgs, packets: usize) -> Result<BenchParams> {
    Ok(BenchParams {
        workers: a.workers,
        ports: a.ports,
        packets: u32::try_from(packets).context("too many packets")?,
        template: template6(a.pkt_len.max(HDRS))?,
        key_offset: DST_OFFSET,
        key_bytes: 8,
        key_base: 0,
        n_keys: packets as u64,
        seed: a.seed,
        warmup: Duration::from_secs_f64(a.warmup()),
        duration: Duration::from_secs_f64(a.duration()),
        dispatch: Dispatch::Auto,
    })
}

/// Destinations checked for agreement between p4dp and rte_lpm6 (evenly spaced).
const CHECKED_MAX: usize = 1 << 16;

/// The IPv6 family: a prefix set (as 16-byte addresses), its destinations (full addresses) and
/// the sample on which p4dp and rte_lpm6 must agree.
struct Ipv6 {
    addr: Vec<[u8; 16]>,
    lens: Vec<u8>,
    tbl8s: u32,
    dst: Vec<[u8; 16]>,
    sample: Vec<[u8; 16]>,
}

impl Family for Ipv6 {
    type Baseline = RteLpm6;
    const TAG: &'static str = "lpm6";
    const TABLES: [&'static str; 3] = [
        "BenchIngress.ipv6_lpm",
        "BenchIngress.set_port",
        "BenchIngress.ipv6_exact",
    ];

    fn fill_lpm(&self, t: &mut BenchTarget, ti: u32, act: u32) -> p4dp_rt::Result<u64> {
        t.table_fill_list128(ti, &self.addr, Some(&self.lens), act, &port0())
    }

    fn baseline(&self, t: &mut BenchTarget, ti: u32) -> Result<RteLpm6> {
        let rte = RteLpm6::new(&self.addr, &self.lens, self.tbl8s).context("building the rte_lpm6")?;
        t.lpm6_agree(ti, &rte, &self.addr, &self.lens, &self.sample)
            .context("checking that p4dp's lpm table and rte_lpm6 choose the same prefixes")?;
        eprintln!(
            "bench: lpm6 {}: p4dp and rte_lpm6 agree on {} destinations",
            self.addr.len(),
            self.sample.len()
        );
        Ok(rte)
    }

    fn measure_baseline(&self, b: &mut Bench, base: &RteLpm6) -> Result<Measurement> {
        Ok(b.measure_rte_lpm6(base)?)
    }

    fn measure_lookup(&self, b: &mut Bench, ti: u32) -> Result<Measurement> {
        Ok(b.measure_table128(ti)?)
    }

    fn fill_exact(&self, t: &mut BenchTarget, ti: u32, act: u32) -> p4dp_rt::Result<u64> {
        t.table_fill_list128(ti, &self.dst, None, act, &port0())
    }
}

fn measure_size(a: &BenchArgs, names: &LpmNames, n: usize, so: (&Path, &Path)) -> Result<LpmRow> {
    let mut rng = Rng(a.seed ^ (n as u64).wrapping_mul(0x9e37_79b9) ^ 0x6);
    let set = PrefixSet::generate(n, &mut rng)?;
    let packets = a.packets.map_or(n.min(1 << 20), |p| p as usize);
    let dst = set.destinations(packets, &mut rng)?;
    let full = |d: u64| {
        let mut x = addr16(d);
        x[8..].copy_from_slice(&IID.to_be_bytes());
        x
    };
    let step = packets.div_ceil(CHECKED_MAX).max(1);
    let fam = Ipv6 {
        addr: set.hi.iter().map(|&h| addr16(h)).collect(),
        lens: set.lens.clone(),
        tbl8s: set.tbl8s(),
        dst: dst.iter().map(|&d| full(d)).collect(),
        sample: dst.iter().step_by(step).map(|&d| full(d)).collect(),
    };
    let p = params(a, packets)?;
    let checked = Some(fam.sample.len());
    measure_family(a, &fam, names, so, &p, &dst, n, (set.histogram(), checked))
}

/// `p4dp bench --suite lpm6`.
pub fn suite_lpm6(a: &BenchArgs) -> Result<ExitCode> {
    // per prefix about one 2.3 KiB trie node, one 1 KiB rte_lpm6 tbl8 group and the entries
    run_lpm_suite(
        a,
        &a.lpm6_prefixes,
        &LpmSuite {
            suite: Suite::Lpm6,
            flag: "--lpm6-prefixes",
            bytes_per_prefix: 4096,
            names: LpmNames {
                baseline: "rte_lpm6",
                programs: ["l3_lpm6", "l3_exact6"],
                exact_lookup: ("p4dp exact", "exact_floor_p4dp_lookup"),
                baseline_method: "DPDK's rte_lpm6 holding the same prefixes, one rte_lpm6_lookup_bulk_func per burst \
                                  on the packets' destination addresses",
                hist_label: "lengths (>= 0.5%)",
            },
            measure: measure_size,
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefix_sets_are_distinct_clustered_and_shaped() {
        let mut rng = Rng(7);
        let set = PrefixSet::generate(20_000, &mut rng).unwrap();
        let uniq: HashSet<_> = set.hi.iter().zip(&set.lens).collect();
        assert_eq!(uniq.len(), 20_000);
        for (&a, &l) in set.hi.iter().zip(&set.lens) {
            assert_eq!(a & !mask(l), 0, "host bits of {a:#x}/{l}");
            assert_eq!(a >> 61, 1, "{a:#x} outside 2000::/3");
        }
        let share = |len: u8| set.lens.iter().filter(|&&l| l == len).count() as f64 / 20_000.0;
        assert!((0.44..0.50).contains(&share(48)), "/48 share {}", share(48));
        assert!((0.11..0.14).contains(&share(32)), "/32 share {}", share(32));
        // more specifics share their allocation's bits: far fewer tbl8 steps than 3 per /48
        assert!(set.tbl8s() < 45_000, "{} tbl8s", set.tbl8s());
        let dst = set.destinations(5_000, &mut rng).unwrap();
        assert_eq!(dst.iter().collect::<HashSet<_>>().len(), 5_000);
    }
}
