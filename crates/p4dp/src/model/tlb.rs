//! The data TLB of this machine, measured by `p4dp calibrate` (docs/model.md, "TLB"): a pointer
//! chase over N cache lines, one line per 4 KiB page ("spread") against the same N lines packed
//! next to each other ("packed"). Both chases load the same number of lines in the same random
//! order, so the caches serve them alike; the spread chase also needs one page translation per
//! load, which misses the TLB once N pages exceed what it holds. The difference per load, over
//! N, gives the page-walk cost and the TLB's reach in pages.

use std::hint::black_box;

use crate::bench::gen::Rng;

/// Bytes of a base page (no huge pages on the tables' memory).
pub const PAGE: usize = 4096;
const LINE: usize = 64;
/// Pages of the chases: 2^8 .. 2^14 in half octaves (the largest spread chase maps 64 MiB).
pub fn sizes() -> Vec<usize> {
    (16..=28)
        .map(|k| 2f64.powf(f64::from(k) / 2.0).round() as usize)
        .collect()
}

/// Time-stamp counter (the TSC the profile's cycles count).
fn tsc() -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: RDTSC has no preconditions on x86-64.
        unsafe { core::arch::x86_64::_rdtsc() }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        use std::time::{SystemTime, UNIX_EPOCH};
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64)
    }
}

/// A random single cycle over `n` slots (Sattolo's algorithm): `next[i]` is the slot after `i`.
fn cycle(n: usize, rng: &mut Rng) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        let j = rng.below(i as u64) as usize;
        order.swap(i, j);
    }
    let mut next = vec![0; n];
    for i in 0..n {
        next[order[i]] = order[(i + 1) % n];
    }
    next
}

/// TSC cycles per load of a chase over `n` lines; `spread`: line i in page i (at line i mod 64
/// of its page, so that the lines use all cache sets), else the lines packed. The minimum over
/// `reps` passes of `loads` loads each: other processes only ever add time.
pub fn chase(n: usize, spread: bool, loads: usize, reps: u32, seed: u64) -> f64 {
    let slots = if spread { (n + 1) * PAGE } else { (n + 1) * LINE } / 8;
    let mut buf = vec![0usize; slots];
    let next = cycle(n, &mut Rng::new(seed));
    let at = |i: usize| {
        if spread {
            i * (PAGE / 8) + (i % 64) * (LINE / 8)
        } else {
            i * (LINE / 8)
        }
    };
    for i in 0..n {
        buf[at(i)] = at(next[i]);
    }
    let mut best = f64::INFINITY;
    let mut p = 0usize;
    // one pass to bring the lines (and translations) in
    for _ in 0..n {
        p = buf[p];
    }
    for _ in 0..reps {
        let t0 = tsc();
        for _ in 0..loads {
            p = black_box(buf[p]);
        }
        let dt = tsc().wrapping_sub(t0) as f64;
        best = best.min(dt / loads as f64);
    }
    black_box(p);
    best
}

/// The TLB as the chases show it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TlbFit {
    /// The largest chase (pages) whose loads pay under a tenth of the largest chase's walk
    /// cycles: past it the TLB misses.
    pub reach_pages: f64,
    /// The largest chase's cycles per load over the packed chase, divided by the share of its
    /// loads that miss a TLB of that reach (1 - reach / pages): one walk with nothing else in
    /// flight.
    pub walk_cycles: f64,
}

/// Reads reach and walk off the chases' differences `(pages, spread - packed cycles per load)`,
/// ascending by pages.
pub fn fit(points: &[(f64, f64)]) -> TlbFit {
    let Some(&(top_n, top_d)) = points.last() else {
        return TlbFit {
            reach_pages: 0.0,
            walk_cycles: 0.0,
        };
    };
    if top_d <= 0.0 {
        return TlbFit {
            reach_pages: top_n,
            walk_cycles: 0.0,
        };
    }
    let reach = points
        .iter()
        .take_while(|p| p.1 < 0.1 * top_d)
        .last()
        .map_or(points[0].0, |p| p.0);
    let miss = 1.0 - reach / top_n;
    TlbFit {
        reach_pages: reach,
        walk_cycles: if miss > 0.0 { top_d / miss } else { 0.0 },
    }
}

/// Runs the chases over `sizes()` pages (`quick`: fewer loads) and reads the TLB off them;
/// returns the fit and the points.
pub fn measure(quick: bool) -> (TlbFit, Vec<(f64, f64)>) {
    let (loads, reps) = if quick { (50_000, 3) } else { (200_000, 5) };
    let mut pts = Vec::new();
    for (i, n) in sizes().into_iter().enumerate() {
        let seed = 17 + i as u64;
        let spread = chase(n, true, loads, reps, seed);
        let packed = chase(n, false, loads, reps, seed);
        pts.push((n as f64, (spread - packed).max(0.0)));
    }
    (fit(&pts), pts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cycle_visits_every_slot_once() {
        let next = cycle(1000, &mut Rng::new(3));
        let (mut i, mut seen) = (0, vec![false; 1000]);
        for _ in 0..1000 {
            assert!(!seen[i]);
            seen[i] = true;
            i = next[i];
        }
        assert_eq!(i, 0);
    }

    fn curve(reach: f64, walk: f64) -> Vec<(f64, f64)> {
        sizes()
            .into_iter()
            .map(|n| {
                let n = n as f64;
                // an L1 TLB miss that the L2 TLB serves costs a little below the reach
                (n, walk * (1.0 - reach / n).max(0.0) + 3.0)
            })
            .collect()
    }

    #[test]
    fn the_fit_reads_reach_and_walk() {
        for (reach, walk) in [(1024.0, 900.0), (2048.0, 300.0), (724.0, 2000.0)] {
            let f = fit(&curve(reach, walk));
            assert_eq!(f.reach_pages, reach, "{f:?}");
            assert!((f.walk_cycles / walk - 1.0).abs() < 0.02, "{f:?} vs {walk}");
        }
    }

    #[test]
    fn a_machine_without_tlb_misses_fits_no_walk() {
        let pts: Vec<(f64, f64)> = sizes().into_iter().map(|n| (n as f64, 0.0)).collect();
        let f = fit(&pts);
        assert_eq!(f.walk_cycles, 0.0);
        assert_eq!(f.reach_pages, 16384.0);
    }
}
