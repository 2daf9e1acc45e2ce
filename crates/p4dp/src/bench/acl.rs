//! The ACL comparison inside `p4dp bench --suite table-kinds` (docs/bench.md): for ternary and
//! range tables, the same rule set in DPDK's `rte_acl` classified in the same run with the same
//! trace tap (floor + `rte_acl_classify` per burst), and what changing one rule costs each: p4dp
//! deletes a rule of the full table and inserts it again through the control API, `rte_acl`
//! (which has no incremental update) adds every rule and builds its context again.

use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use p4dp_rt::bench::BenchTarget;
use p4dp_rt::bench_acl::AclRule;
use p4dp_rt::TableEntry;

use super::gen::{FieldMatch, Rule, TableKind};
use super::median;

/// Rule changes timed per point at most (a delete and an insert each).
pub const UPDATES: usize = 200;
/// Target of the ternary row: p4dp within 2x of floor + rte_acl.
pub const RATIO_TARGET: f64 = 2.0;
/// Target for one rule insert or delete.
pub const UPDATE_TARGET_US: f64 = 100.0;

/// The kinds compared with rte_acl: 5-tuple rules of prefixes, ternary ports or port ranges.
pub fn compared(kind: TableKind) -> bool {
    matches!(kind, TableKind::Ternary | TableKind::Range)
}

/// The inclusive range a `width`-bit field match covers.
fn range(m: FieldMatch, width: u32) -> (u64, u64) {
    match m {
        FieldMatch::Range(lo, hi) => (lo, hi),
        FieldMatch::Prefix(v, len) => (v, v | ((1u64 << (width - len)) - 1)),
    }
}

fn prefix(m: FieldMatch) -> (u64, u32) {
    match m {
        FieldMatch::Prefix(v, l) => (v, l),
        // the generator never puts a range on an address or the protocol
        FieldMatch::Range(lo, _) => (lo, 32),
    }
}

/// `r` (a 5-tuple rule of gen::rules) as an rte_acl rule of `priority`.
pub fn acl_rule(r: &Rule, priority: i32) -> AclRule {
    let (src, src_len) = prefix(r.0[0]);
    let (dst, dst_len) = prefix(r.0[1]);
    let (proto, plen) = prefix(r.0[2]);
    let (sport_lo, sport_hi) = range(r.0[3], 16);
    let (dport_lo, dport_hi) = range(r.0[4], 16);
    AclRule {
        src: src as u32,
        dst: dst as u32,
        src_len: src_len as u8,
        dst_len: dst_len as u8,
        proto: proto as u8,
        proto_mask: if plen == 0 { 0 } else { 0xff },
        sport_lo: sport_lo as u16,
        sport_hi: sport_hi as u16,
        dport_lo: dport_lo as u16,
        dport_hi: dport_hi as u16,
        priority,
    }
}

/// Median and maximum of a set of durations, in microseconds.
#[derive(Clone, Copy, Debug, Default)]
pub struct Times {
    pub median_us: f64,
    pub max_us: f64,
}

fn times(mut v: Vec<f64>) -> Times {
    let max_us = v.iter().copied().fold(0.0, f64::max);
    Times {
        median_us: median(&mut v),
        max_us,
    }
}

/// What a point of a compared kind adds to the sweep.
#[derive(Clone, Copy, Debug, Default)]
pub struct AclFigures {
    /// floor + rte_acl, cycles/packet (median over the repetitions)
    pub rte_acl: f64,
    /// rte_acl: adding every rule and building the context
    pub rebuild: Duration,
    pub insert: Times,
    pub delete: Times,
}

/// Time deleting and inserting again up to UPDATES rules of the full table `t` of a `kind`
/// program (spread over `rules`, the table's rules; rule i has priority n - i as installed),
/// one at a time through the control API with no traffic running. The table is full again after
/// each pair, so every insert goes into a table of n - 1 rules and every delete leaves n - 1.
pub fn time_updates(
    target: &mut BenchTarget,
    t: u32,
    kind: TableKind,
    rules: &[Rule],
    action: u32,
    params: &[Vec<u8>],
) -> Result<(Times, Times)> {
    let n = rules.len();
    let step = n.div_ceil(UPDATES).max(1);
    let (mut ins, mut del) = (Vec::new(), Vec::new());
    for i in (0..n).step_by(step) {
        let e = TableEntry {
            matches: rules[i].matches(kind),
            priority: (n - i) as i32,
            action,
            params: params.to_vec(),
        };
        let t0 = Instant::now();
        target.entry_delete(t, &e).context("timing a rule delete")?;
        del.push(t0.elapsed().as_secs_f64() * 1e6);
        let t0 = Instant::now();
        target.entry_add(t, &e).context("timing a rule insert")?;
        ins.push(t0.elapsed().as_secs_f64() * 1e6);
    }
    Ok((times(ins), times(del)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ternary_ports_become_the_ranges_they_cover() {
        let r = Rule(vec![
            FieldMatch::Prefix(0x0a00_0000, 8),
            FieldMatch::Prefix(0, 0),
            FieldMatch::Prefix(6, 8),
            FieldMatch::Prefix(0x0400, 6),
            FieldMatch::Range(1024, 65535),
        ]);
        let a = acl_rule(&r, 7);
        assert_eq!((a.src, a.src_len, a.dst_len), (0x0a00_0000, 8, 0));
        assert_eq!((a.proto, a.proto_mask), (6, 0xff));
        assert_eq!((a.sport_lo, a.sport_hi), (0x0400, 0x07ff));
        assert_eq!((a.dport_lo, a.dport_hi), (1024, 65535));
        assert_eq!(a.priority, 7);
        let any = acl_rule(&Rule(vec![FieldMatch::Prefix(0, 0); 5]), 1);
        assert_eq!((any.proto_mask, any.sport_lo, any.sport_hi), (0, 0, 65535));
    }
}
