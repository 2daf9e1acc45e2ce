//! How many hash tables a lookup in a tuple-space table probes: the runtime's classifier for
//! ternary, range and optional fields (runtime/src/table_tm.c, TupleMerge) places each rule in a
//! hash table ("tab") of a tuple its own covers and probes the tabs by decreasing top priority
//! until the best match found beats every remaining tab. Its cost follows those probes, not the
//! rule count, so the model replays the placement and the walk here over the table's rules and
//! the traffic's keys (docs/model.md, "Tuple-space tables").
//!
//! The placement follows the runtime's rules: the most specific existing tab that covers the
//! rule and whose bucket for it holds fewer than `BUCKET_LIMIT` rules, else a new tab of the
//! first of the rule's relaxed tuples (lean, rounded, its own) that does not exist yet, else the
//! rule's own tuple's tab. A bucket here is the rule's key bits under the tab's tuple: rules the
//! runtime's hash puts in one bucket by collision are not modelled (its buckets grow with the
//! rules, so collisions are rare).

use std::collections::HashMap;

use p4dp_rt::MatchField;

use crate::bench::gen::{self, Rule, TableKind};
use crate::bench::sweep::rule_trace_keys;
use crate::bench::traffic::Traffic;

/// Rules a bucket takes before a new rule looks for another tab (table_tm.c TM_BUCKET_LIMIT).
const BUCKET_LIMIT: usize = 8;
/// Bits a new tab's lean tuple fixes at least (table_tm.c TM_LEAN_BITS).
const LEAN_BITS: u32 = 16;

/// One rule as the classifier sees it: per field its value (the low bits of a range), the
/// length of the prefix it fixes, and its bounds.
#[derive(Clone, Debug, PartialEq)]
pub struct SimRule {
    pub plen: Vec<u32>,
    /// Per field (lo, hi): the values the field matches.
    pub bounds: Vec<(u128, u128)>,
    pub priority: i32,
}

fn value(b: &[u8]) -> u128 {
    b.iter()
        .rev()
        .take(16)
        .rev()
        .fold(0u128, |a, &x| (a << 8) | u128::from(x))
}

fn mask_of(width: u32) -> u128 {
    if width >= 128 {
        u128::MAX
    } else {
        (1u128 << width) - 1
    }
}

/// The top `len` bits of a `width`-bit field.
fn prefix_mask(width: u32, len: u32) -> u128 {
    if len == 0 {
        0
    } else {
        mask_of(width) & !mask_of(width - len)
    }
}

/// Leading ones of `m` in a `width`-bit field.
fn leading_ones(m: u128, width: u32) -> u32 {
    (0..width).take_while(|&k| m >> (width - 1 - k) & 1 == 1).count() as u32
}

/// A rule from control-plane match fields of fields of `widths` bits (at most 128 each).
/// None when a field is wider than 128 bits or does not fit its width.
pub fn sim_rule(widths: &[u32], fields: &[MatchField], priority: i32) -> Option<SimRule> {
    if widths.len() != fields.len() || widths.iter().any(|&w| w == 0 || w > 128) {
        return None;
    }
    let mut plen = Vec::new();
    let mut bounds = Vec::new();
    for (&w, f) in widths.iter().zip(fields) {
        let all = mask_of(w);
        let (p, lo, hi) = match f {
            MatchField::Exact(v) | MatchField::Optional(Some(v)) => (w, value(v) & all, value(v) & all),
            MatchField::Lpm(v, l) => {
                let l = (*l).min(w);
                let m = prefix_mask(w, l);
                (l, value(v) & m, (value(v) & m) | (all & !m))
            }
            MatchField::Ternary(v, m) => {
                let m = value(m) & all;
                let l = leading_ones(m, w);
                // a mask with holes after its leading ones matches more than its prefix; the
                // walk only needs the prefix's bounds and the tuple, so keep the prefix
                let pm = prefix_mask(w, l);
                (l, value(v) & pm, (value(v) & pm) | (all & !pm))
            }
            MatchField::Range(lo, hi) => {
                let (lo, hi) = (value(lo) & all, value(hi) & all);
                let l = leading_ones(!(lo ^ hi) & all, w);
                (l, lo, hi)
            }
            _ => (0, 0, all),
        };
        plen.push(p);
        bounds.push((lo, hi));
    }
    Some(SimRule { plen, bounds, priority })
}

/// Keys a burst lookup takes at once (table_tm.c TM_BULK).
const BURST: usize = 32;

/// One lookup's walk.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Walk {
    /// Tabs probed (hashed, their bucket read).
    pub probes: usize,
    /// Bucket candidates checked against the key.
    pub checks: usize,
}

/// A tuple-space table's lookups under a traffic, per lookup (means).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TupleStats {
    /// Tabs probed.
    pub probes: f64,
    /// Bucket candidates checked.
    pub checks: f64,
    /// Tabs the burst lookup visits per burst of `BURST` keys: its passes over the burst.
    pub passes: f64,
    /// Tabs holding rules.
    pub tabs: f64,
}

/// The placed tabs: per tab its tuple, its top priority and its buckets (key bits under its
/// tuple → the rules there, by decreasing priority).
pub struct Classifier {
    widths: Vec<u32>,
    tabs: Vec<Tab>,
    rules: Vec<SimRule>,
}

struct Tab {
    plen: Vec<u32>,
    bits: u32,
    top: i32,
    buckets: HashMap<Vec<u128>, Vec<usize>>,
}

impl Tab {
    fn key(&self, widths: &[u32], vals: impl Iterator<Item = u128>) -> Vec<u128> {
        vals.zip(widths.iter().zip(&self.plen))
            .map(|(v, (&w, &l))| v & prefix_mask(w, l))
            .collect()
    }
}

/// Round each field down to a quarter of its width; keep the longest rounded fields until they
/// fix `LEAN_BITS` bits (table_tm.c tuple_relax). Returns (rounded, lean).
fn relax(widths: &[u32], p: &[u32]) -> (Vec<u32>, Vec<u32>) {
    let round: Vec<u32> = widths
        .iter()
        .zip(p)
        .map(|(&w, &l)| {
            let g = if w >= 4 { w / 4 } else { 1 };
            l - l % g
        })
        .collect();
    let mut lean = vec![0; p.len()];
    let mut bits = 0;
    while bits < LEAN_BITS {
        let mut pick: Option<usize> = None;
        for i in 0..p.len() {
            if lean[i] == 0 && round[i] > 0 && pick.is_none_or(|j| round[i] > round[j]) {
                pick = Some(i);
            }
        }
        let Some(i) = pick else { break };
        lean[i] = round[i];
        bits += round[i];
    }
    (round, lean)
}

impl Classifier {
    /// Places `rules` in order, as the runtime does when they are added one after the other.
    pub fn build(widths: &[u32], rules: Vec<SimRule>) -> Classifier {
        let mut c = Classifier {
            widths: widths.to_vec(),
            tabs: Vec::new(),
            rules: Vec::new(),
        };
        for r in rules {
            c.add(r);
        }
        c
    }

    fn find(&self, plen: &[u32]) -> Option<usize> {
        self.tabs.iter().position(|t| t.plen == plen)
    }

    fn new_tab(&mut self, plen: Vec<u32>) -> usize {
        self.tabs.push(Tab {
            bits: plen.iter().sum(),
            plen,
            top: i32::MIN,
            buckets: HashMap::new(),
        });
        self.tabs.len() - 1
    }

    fn add(&mut self, r: SimRule) {
        let lows = || r.bounds.iter().map(|b| b.0);
        let mut best: Option<usize> = None;
        for (i, t) in self.tabs.iter().enumerate() {
            if best.is_some_and(|b| t.bits <= self.tabs[b].bits) || t.plen.iter().zip(&r.plen).any(|(a, b)| a > b) {
                continue;
            }
            let k = t.key(&self.widths, lows());
            if t.buckets.get(&k).map_or(0, Vec::len) < BUCKET_LIMIT {
                best = Some(i);
            }
        }
        let tab = match best {
            Some(b) => b,
            None => {
                let (round, lean) = relax(&self.widths, &r.plen);
                let free = [lean, round, r.plen.clone()]
                    .into_iter()
                    .find(|c| self.find(c).is_none());
                match free {
                    Some(p) => self.new_tab(p),
                    None => self.find(&r.plen).unwrap_or(0),
                }
            }
        };
        let idx = self.rules.len();
        let t = &mut self.tabs[tab];
        let k = t.key(&self.widths, lows());
        t.top = t.top.max(r.priority);
        let b = t.buckets.entry(k).or_default();
        let pos = b
            .iter()
            .position(|&j| self.rules[j].priority < r.priority)
            .unwrap_or(b.len());
        b.insert(pos, idx);
        self.rules.push(r);
    }

    /// Hash tables holding rules.
    #[cfg(test)]
    pub fn tabs(&self) -> usize {
        self.tabs.iter().filter(|t| t.top > i32::MIN).count()
    }

    /// The tabs by decreasing top priority (the runtime's view).
    fn order(&self) -> Vec<&Tab> {
        let mut order: Vec<&Tab> = self.tabs.iter().filter(|t| t.top > i32::MIN).collect();
        order.sort_by_key(|t| std::cmp::Reverse(t.top));
        order
    }

    /// What a lookup of `key` (one value per field) does: the tabs it probes, by decreasing top
    /// priority until the best match found is at least the next tab's top, and the bucket
    /// candidates it checks.
    #[cfg(test)]
    pub fn walk(&self, key: &[u128]) -> Walk {
        self.walk_in(&self.order(), key)
    }

    fn walk_in(&self, order: &[&Tab], key: &[u128]) -> Walk {
        let mut best: Option<i32> = None;
        let mut w = Walk::default();
        for t in order {
            if best.is_some_and(|b| b >= t.top) {
                break;
            }
            w.probes += 1;
            let k = t.key(&self.widths, key.iter().copied());
            for &j in t.buckets.get(&k).map_or(&[][..], Vec::as_slice) {
                let r = &self.rules[j];
                if best.is_some_and(|b| r.priority <= b) {
                    break;
                }
                w.checks += 1;
                if r.bounds.iter().zip(key).all(|(&(lo, hi), &v)| lo <= v && v <= hi) {
                    best = Some(r.priority);
                    break;
                }
            }
        }
        w
    }

    /// The lookups of `keys` in the order the traffic sends them, in bursts of `BURST`: per
    /// lookup the tabs probed and candidates checked, and per packet the passes the burst
    /// lookup makes over its keys (table_tm.c `tm_lookup_chunk` visits tab after tab for the
    /// whole burst until no key of it can find a better match: as many tabs as the burst's
    /// longest walk, and one more pass that finds every key done, unless the tabs ran out).
    pub fn stats(&self, keys: &[Vec<u128>]) -> TupleStats {
        let order = self.order();
        let mut s = TupleStats::default();
        if keys.is_empty() {
            return s;
        }
        for chunk in keys.chunks(BURST) {
            let mut longest = 0;
            for k in chunk {
                let w = self.walk_in(&order, k);
                s.probes += w.probes as f64;
                s.checks += w.checks as f64;
                longest = longest.max(w.probes);
            }
            let passes = if longest < order.len() { longest + 1 } else { longest };
            s.passes += passes as f64;
        }
        let n = keys.len() as f64;
        s.probes /= n;
        s.checks /= n;
        s.passes /= keys.len().div_ceil(BURST) as f64;
        s.tabs = order.len() as f64;
        s
    }
}

/// Most trace keys replayed: the trace's first keys, in its order (its bursts).
const REPLAY_MAX: usize = 1 << 16;

/// What lookups of a generated rule set (crate::bench::gen, installed in order with priorities
/// n - i as the sweeps install them) do under the bench trace of `traffic` drawn with `seed`
/// (crate::bench::sweep::rule_trace: the same keys in the same order).
pub fn rule_set_stats(kind: TableKind, rules: &[Rule], traffic: &Traffic, seed: u64) -> Option<TupleStats> {
    if !kind.prioritized() || rules.is_empty() {
        return None;
    }
    let w = gen::widths(kind);
    let n = rules.len();
    let sim: Option<Vec<SimRule>> = rules
        .iter()
        .enumerate()
        .map(|(i, r)| sim_rule(&w, &r.matches(kind), (n - i) as i32))
        .collect();
    let c = Classifier::build(&w, sim?);
    let keys: Vec<Vec<u128>> = rule_trace_keys(traffic, kind, rules, seed)
        .take(REPLAY_MAX)
        .map(|k| k.into_iter().map(u128::from).collect())
        .collect();
    Some(c.stats(&keys))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tern(v: u8, len: u32) -> MatchField {
        let m = if len == 0 { 0u8 } else { (0xffu16 << (8 - len)) as u8 };
        MatchField::Ternary(vec![v & m], vec![m])
    }

    #[test]
    fn rules_read_as_tuples_and_bounds() {
        let r = sim_rule(
            &[8, 16],
            &[tern(0xab, 4), MatchField::Range(vec![0, 16], vec![0, 31])],
            3,
        )
        .unwrap();
        assert_eq!(r.plen, vec![4, 12]);
        assert_eq!(r.bounds, vec![(0xa0, 0xaf), (16, 31)]);
        assert!(sim_rule(&[200], &[MatchField::Exact(vec![0; 25])], 1).is_none());
    }

    #[test]
    fn one_mask_is_one_tab_and_one_probe() {
        // 8-bit exact-like rules: the lean tuple keeps the 8 bits (rounded to quarters: 8)
        let rules: Vec<SimRule> = (0..40u8)
            .map(|i| sim_rule(&[8], &[tern(i, 8)], 100 - i32::from(i)).unwrap())
            .collect();
        let c = Classifier::build(&[8], rules);
        assert_eq!(c.tabs(), 1);
        assert_eq!(c.walk(&[5]).probes, 1);
        assert_eq!(c.walk(&[200]).probes, 1); // a miss probes every tab
    }

    #[test]
    fn the_walk_stops_once_no_tab_can_beat_the_match() {
        // three rules of different tuples, each in its own tab (buckets keep them apart only if
        // their tuples differ: a /0 wildcard cannot go in the /8 tab)
        let w = [8];
        let hi = sim_rule(&w, &[tern(7, 8)], 30).unwrap();
        let mid = sim_rule(&w, &[tern(0, 0)], 20).unwrap();
        let rules = vec![hi, mid];
        let c = Classifier::build(&w, rules);
        assert_eq!(c.tabs(), 2);
        // key 7: the top tab (priority 30) matches; nothing beats 30: one probe
        assert_eq!(c.walk(&[7]), Walk { probes: 1, checks: 1 });
        // key 9: the /8 tab misses, the wildcard tab matches: two probes
        assert_eq!(c.walk(&[9]), Walk { probes: 2, checks: 1 });
        let s = c.stats(&[vec![7], vec![9]]);
        assert!(
            (s.probes - 1.5).abs() < 1e-12 && (s.checks - 1.0).abs() < 1e-12,
            "{s:?}"
        );
        // one burst whose longest walk takes both tabs: two passes
        assert_eq!((s.passes, s.tabs), (2.0, 2.0));
        // a burst of keys the first tab settles: that pass and one that finds them all done
        assert_eq!(c.stats(&[vec![7], vec![7]]).passes, 2.0);
        // bursts of 32 keys: 31 settled by the first tab and one that needs both, then a burst
        // of one settled key: (2 + 2) / 2 passes per burst
        let mut keys = vec![vec![7u128]; 31];
        keys.push(vec![9]);
        keys.push(vec![7]);
        let s = c.stats(&keys);
        assert_eq!(s.passes, 2.0);
        assert!((s.probes - 34.0 / 33.0).abs() < 1e-12, "{s:?}");
    }

    #[test]
    fn a_full_bucket_opens_a_new_tab() {
        // nine rules whose lean tuple (/8 of 32 bits rounded to quarters = 8 bits, then 16 by
        // the second pick... one field: lean = rounded) share one bucket under the first tab:
        // value 0x0a in the top byte, /32 each
        let w = [32];
        let rules: Vec<SimRule> = (0..(BUCKET_LIMIT as u32 + 1))
            .map(|i| {
                let v = 0x0a00_0000u32 | i;
                sim_rule(&w, &[MatchField::Exact(v.to_be_bytes().to_vec())], 100 - i as i32).unwrap()
            })
            .collect();
        let c = Classifier::build(&w, rules);
        // the first rule opens the lean tab (32 bits: round = 32, lean = 32): every /32 value
        // has its own bucket, so all nine share that one tab
        assert_eq!(c.tabs(), 1);
        // /16 prefixes with the same top 16 bits but in a /8-rounded tab would share buckets:
        let rules: Vec<SimRule> = (0..(BUCKET_LIMIT as u32 + 1))
            .map(|i| {
                let v = 0x0a00_0000u32 | (i << 8);
                sim_rule(&w, &[MatchField::Lpm(v.to_be_bytes().to_vec(), 30)], 100 - i as i32).unwrap()
            })
            .collect();
        // /30 rounds to /24 (quarters of 32): the lean tuple is /24, every rule its own bucket
        let c = Classifier::build(&w, rules);
        assert_eq!(c.tabs(), 1);
        let rules: Vec<SimRule> = (0..(BUCKET_LIMIT as u32 + 1))
            .map(|i| {
                let v = 0x0a00_0000u32 | i << 2;
                sim_rule(&w, &[MatchField::Lpm(v.to_be_bytes().to_vec(), 30)], 100 - i as i32).unwrap()
            })
            .collect();
        // now all nine fall in one /24 bucket: the ninth goes to the rounded tuple... which is
        // the lean one; then its own /30 tuple
        let c = Classifier::build(&w, rules);
        assert_eq!(c.tabs(), 2);
    }

    #[test]
    fn rule_sets_replay_the_trace_the_bench_sends() {
        let rules = gen::rules(TableKind::Ternary, 64, 3);
        let s = rule_set_stats(TableKind::Ternary, &rules, &Traffic::Uniform, 5).unwrap();
        // every lookup probes one tab at least, none more than there are, and a burst visits at
        // least its longest walk
        assert!(s.probes >= 1.0 && s.probes <= s.tabs, "{s:?}");
        assert!(s.passes >= s.probes && s.passes <= s.tabs, "{s:?}");
        assert!(s.checks >= 1.0, "{s:?}");
        // the same trace gives the same figures; skewed traffic other ones
        assert_eq!(
            rule_set_stats(TableKind::Ternary, &rules, &Traffic::Uniform, 5),
            Some(s)
        );
        let z = rule_set_stats(TableKind::Ternary, &rules, &Traffic::Zipf(1.1), 5).unwrap();
        assert_ne!(z, s);
        // exact and lpm tables are not tuple spaces
        let ex = gen::rules(TableKind::Exact, 16, 3);
        assert!(rule_set_stats(TableKind::Exact, &ex, &Traffic::Uniform, 5).is_none());
    }
}
