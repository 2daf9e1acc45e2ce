//! How `p4dp calibrate` and `p4dp model --check` turn a program's measurement pairs into one
//! figure they can trust on a shared machine (docs/model.md, "Measuring on a loaded machine"):
//! more pairs while the pairs disagree, a point measured again when a window saw no packet, and
//! lines fitted by medians rather than least squares.

use anyhow::Result;

use crate::bench::sweep::{Point, SWEEP_BURST};
use crate::bench_dp::empty_window;

/// Pairs a point may take before its figure is accepted as it stands (three measurements of
/// `REPEAT` pairs).
pub const MAX_PAIRS: usize = 21;
/// A point is settled when the standard error of its pairs' median is at most this share of
/// the cycles/packet it is part of (the floor plus the overhead): a 2 % standard error keeps
/// the figure within about ±4 % at two standard errors.
pub const SETTLED: f64 = 0.02;
/// Attempts of a whole point (a fresh load of the program) whose window saw no packet after
/// the bench's own retries: a worker descheduled for a whole window.
const POINT_TRIES: u32 = 3;

/// The median of `v` (0 for none).
pub fn median(v: &[f64]) -> f64 {
    let mut v = v.to_vec();
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => 0.0,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

/// The standard error of the median of `v`, from its interquartile range: for a normal sample
/// the median's standard error is √(π/2)·σ/√n and σ ≈ IQR / 1.349; the interquartile range
/// leaves the disturbed pairs in the tails out of σ as the median leaves them out of the
/// figure. Infinite for fewer than 3 values (no spread to judge).
pub fn median_se(v: &[f64]) -> f64 {
    let n = v.len();
    if n < 3 {
        return f64::INFINITY;
    }
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    let q = |f: f64| {
        let x = f * (n - 1) as f64;
        let (i, r) = (x.floor() as usize, x - x.floor());
        s[i] + r * (s[(i + 1).min(n - 1)] - s[i])
    };
    let sigma = (q(0.75) - q(0.25)) / 1.349;
    (std::f64::consts::PI / 2.0).sqrt() * sigma / (n as f64).sqrt()
}

/// A point measured until its pairs agree: the last measurement (its paths and windows) and
/// every pair's burst overhead.
pub struct Settled {
    pub point: Point,
    /// Every measurement's pairs (program median burst less its floor's, cycles per burst).
    pub pairs: Vec<f64>,
    /// The quietest l2fwd floor window of every measurement (cycles/packet).
    pub window_floor: f64,
}

impl Settled {
    /// The program's cycles/packet over its floor: the median of all pairs, per packet.
    pub fn overhead(&self) -> f64 {
        median(&self.pairs) / SWEEP_BURST
    }
}

/// Does a point of `pairs` (cycles per burst) over a floor of `floor` cycles/packet need more
/// pairs: the standard error of their median above `SETTLED` of floor + overhead, and fewer
/// than `MAX_PAIRS` pairs.
pub fn unsettled(pairs: &[f64], floor: f64) -> bool {
    if pairs.len() >= MAX_PAIRS {
        return false;
    }
    let total = floor.max(0.0) + median(pairs) / SWEEP_BURST;
    median_se(pairs) / SWEEP_BURST > SETTLED * total.max(1.0)
}

/// Measures a point with `measure` (one load of the program, `REPEAT` pairs) and again while
/// `unsettled` says its pairs disagree over `floor` (cycles/packet; the quietest floor window of
/// the point's own measurements when that is lower) (`once`: a single measurement, as quick runs
/// take it). A measurement that fails because a window saw no packet is made again, up to
/// `POINT_TRIES`.
pub fn settle(floor: f64, once: bool, mut measure: impl FnMut() -> Result<Point>) -> Result<Settled> {
    let mut pairs = Vec::new();
    let mut window_floor = f64::INFINITY;
    loop {
        let mut tries = 1;
        let p = loop {
            match measure() {
                Err(e) if tries < POINT_TRIES && empty_window(&e) => {
                    eprintln!("model: a window saw no packet; measuring the point again ({e:#})");
                    tries += 1;
                }
                r => break r?,
            }
        };
        pairs.extend_from_slice(&p.overhead_pairs);
        if p.l2fwd_min > 0.0 {
            window_floor = window_floor.min(p.l2fwd_min);
        }
        if once || !unsettled(&pairs, floor.min(window_floor)) {
            return Ok(Settled {
                point: p,
                pairs,
                window_floor,
            });
        }
        eprintln!(
            "model: {}: {} pairs disagree (median {:.1}, standard error {:.1} cycles/packet); measuring more",
            p.label,
            pairs.len(),
            median(&pairs) / SWEEP_BURST,
            median_se(&pairs) / SWEEP_BURST
        );
    }
}

/// A line through `xy` by medians (Theil and Sen): the slope is the median of the slopes between
/// every two points of different x, the intercept the median of y - slope·x. One disturbed
/// point moves it far less than it moves a least-squares line. (intercept, slope); (mean, 0) for
/// points that do not spread over x.
pub fn median_line(xy: &[(f64, f64)]) -> (f64, f64) {
    let mut slopes = Vec::new();
    for (i, a) in xy.iter().enumerate() {
        for b in &xy[i + 1..] {
            if (b.0 - a.0).abs() > 1e-12 {
                slopes.push((b.1 - a.1) / (b.0 - a.0));
            }
        }
    }
    if slopes.is_empty() {
        return (median(&xy.iter().map(|p| p.1).collect::<Vec<_>>()), 0.0);
    }
    let b = median(&slopes);
    let a = median(&xy.iter().map(|p| p.1 - b * p.0).collect::<Vec<_>>());
    (a, b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_line_ignores_one_disturbed_point() {
        // y = 40 + 10x, the 4-table point disturbed by +80
        let xy = [(1.0, 50.0), (2.0, 60.0), (4.0, 180.0), (8.0, 120.0)];
        let (a, b) = median_line(&xy);
        assert!((b - 10.0).abs() < 1e-9 && (a - 40.0).abs() < 1e-9, "{a} {b}");
        // the 8-table point disturbed: the medians are pulled less than least squares
        let xy = [(1.0, 50.0), (2.0, 60.0), (4.0, 80.0), (8.0, 200.0)];
        let (_, b) = median_line(&xy);
        let (_, lsb) = crate::model::profile::fit_line(&xy);
        assert!((b - 10.0).abs() < 6.0 && (lsb - 10.0).abs() > 10.0, "{b} {lsb}");
        // no spread over x: the median, no slope
        assert_eq!(median_line(&[(1.0, 3.0), (1.0, 5.0), (1.0, 100.0)]), (5.0, 0.0));
    }

    #[test]
    fn standard_error_of_the_median_follows_the_spread() {
        let tight = [100.0, 101.0, 99.0, 100.5, 99.5, 100.2, 99.8];
        let wide = [100.0, 130.0, 70.0, 115.0, 85.0, 120.0, 80.0];
        assert!(median_se(&tight) < 0.5, "{}", median_se(&tight));
        assert!(median_se(&wide) > 5.0, "{}", median_se(&wide));
        // more pairs of the same spread: a smaller error
        let twice: Vec<f64> = wide.iter().chain(wide.iter()).copied().collect();
        assert!(median_se(&twice) < median_se(&wide));
        assert!(median_se(&[1.0, 2.0]).is_infinite());
    }

    #[test]
    fn a_point_settles_when_its_pairs_agree() {
        // cycles per burst of 32 packets; a floor of 60 cycles/packet
        let tight: Vec<f64> = [3200.0, 3210.0, 3190.0, 3205.0, 3195.0, 3202.0, 3198.0].to_vec();
        assert!(!unsettled(&tight, 60.0));
        let wide: Vec<f64> = [3200.0, 4800.0, 1600.0, 4000.0, 2400.0, 4400.0, 2000.0].to_vec();
        assert!(unsettled(&wide, 60.0));
        // however wide, MAX_PAIRS pairs are the end
        let many: Vec<f64> = wide.iter().cycle().take(MAX_PAIRS).copied().collect();
        assert!(!unsettled(&many, 60.0));
    }
}
