//! A small SVG line-plot writer for the sweeps' figures: one or more series of (x, y) points,
//! linear or log2/log10 axes, ticks, axis labels and a legend. No dependency; the output is
//! plain SVG 1.1 that browsers and documentation tools display.

use std::fmt::Write as _;

/// How an axis maps values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scale {
    Linear,
    /// Powers of two as ticks (values must be > 0).
    Log2,
    /// Powers of ten as ticks (values must be > 0).
    Log10,
    /// Percentiles as fractions p in [0, 1), drawn at log10(1 / (1 - p)) as HDR histogram plots
    /// draw them (the tail spread out); ticks at 0%, 90%, 99%, 99.9%, ...
    Percentile,
}

/// One line of a plot.
pub struct Series {
    pub name: String,
    pub points: Vec<(f64, f64)>,
}

/// A plot: title, axes and series.
pub struct Plot {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub x_scale: Scale,
    pub y_scale: Scale,
    pub series: Vec<Series>,
}

const W: f64 = 720.0;
const H: f64 = 440.0;
const LEFT: f64 = 70.0;
const RIGHT: f64 = 170.0;
const TOP: f64 = 40.0;
const BOTTOM: f64 = 55.0;
const COLORS: [&str; 8] = [
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
];

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn fwd(s: Scale, v: f64) -> f64 {
    match s {
        Scale::Linear => v,
        Scale::Log2 => v.log2(),
        Scale::Log10 => v.log10(),
        Scale::Percentile => -(1.0 - v).log10(),
    }
}

/// Whether `v` can be drawn on an axis of scale `s`.
fn drawable(s: Scale, v: f64) -> bool {
    v.is_finite()
        && match s {
            Scale::Linear => true,
            Scale::Log2 | Scale::Log10 => v > 0.0,
            Scale::Percentile => (0.0..1.0).contains(&v),
        }
}

/// A number for a tick label: short, no trailing zeros.
fn label(v: f64) -> String {
    let a = v.abs();
    if a >= 1e6 && (v / 1e6).fract() == 0.0 {
        format!("{}M", v / 1e6)
    } else if a >= 1e4 && (v / 1e3).fract() == 0.0 {
        format!("{}k", v / 1e3)
    } else if v.fract() == 0.0 {
        format!("{v:.0}")
    } else {
        let s = format!("{v:.3}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

/// A tick label: powers of two from 2^10 on as `2^k` on a log2 axis.
fn tick_label(s: Scale, v: f64) -> String {
    if s == Scale::Log2 && v >= 1024.0 {
        format!("2^{}", v.log2().round())
    } else if s == Scale::Percentile {
        format!("{}%", label((v * 1e6).round() / 1e4))
    } else {
        label(v)
    }
}

/// Tick values covering [lo, hi] (in data units).
fn ticks(s: Scale, lo: f64, hi: f64) -> Vec<f64> {
    match s {
        Scale::Linear => {
            let span = (hi - lo).max(f64::MIN_POSITIVE);
            let raw = span / 6.0;
            let mag = 10f64.powf(raw.log10().floor());
            let step = [1.0, 2.0, 5.0, 10.0]
                .iter()
                .map(|m| m * mag)
                .find(|&st| span / st <= 8.0)
                .unwrap_or(10.0 * mag);
            let mut v = (lo / step).ceil() * step;
            let mut out = Vec::new();
            while v <= hi + step * 1e-9 && out.len() < 20 {
                out.push(v);
                v += step;
            }
            out
        }
        Scale::Log2 | Scale::Log10 => {
            let (a, b) = (fwd(s, lo).floor() as i32, fwd(s, hi).ceil() as i32);
            let every = ((b - a) / 12 + 1).max(1);
            let base = if s == Scale::Log2 { 2f64 } else { 10f64 };
            (a..=b).filter(|e| (e - a) % every == 0).map(|e| base.powi(e)).collect()
        }
        Scale::Percentile => {
            let (a, b) = (fwd(s, lo).floor().max(0.0) as i32, fwd(s, hi).ceil() as i32);
            (a..=b).map(|e| 1.0 - 10f64.powi(-e)).collect()
        }
    }
}

impl Plot {
    /// The plot as an SVG document. Points with a non-finite coordinate, <= 0 on a log axis or
    /// outside [0, 1) on a percentile axis are left out.
    pub fn render(&self) -> String {
        let ok = drawable;
        let pts: Vec<(f64, f64)> = self
            .series
            .iter()
            .flat_map(|s| s.points.iter().copied())
            .filter(|&(x, y)| ok(self.x_scale, x) && ok(self.y_scale, y))
            .collect();
        let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
        for &(x, y) in &pts {
            x0 = x0.min(x);
            x1 = x1.max(x);
            y0 = y0.min(y);
            y1 = y1.max(y);
        }
        if pts.is_empty() {
            (x0, x1, y0, y1) = (1.0, 2.0, 1.0, 2.0);
        }
        if self.y_scale == Scale::Linear {
            y0 = y0.min(0.0);
            y1 *= 1.05;
        }
        if self.y_scale == Scale::Percentile {
            // from the median's decade (0%) up, at least to 90%
            (y0, y1) = (0.0, y1.max(0.9));
        }
        if x1 <= x0 {
            x1 = if self.x_scale == Scale::Linear {
                x0 + 1.0
            } else {
                x0 * 2.0
            };
        }
        if y1 <= y0 {
            y1 = if self.y_scale == Scale::Linear {
                y0 + 1.0
            } else {
                y0 * 2.0
            };
        }
        let xt = ticks(self.x_scale, x0, x1);
        let yt = ticks(self.y_scale, y0, y1);
        // the axes span the ticks too
        let (fx0, fx1) = (
            fwd(self.x_scale, x0.min(xt.first().copied().unwrap_or(x0))),
            fwd(self.x_scale, x1.max(xt.last().copied().unwrap_or(x1))),
        );
        let (fy0, fy1) = (
            fwd(self.y_scale, y0.min(yt.first().copied().unwrap_or(y0))),
            fwd(self.y_scale, y1.max(yt.last().copied().unwrap_or(y1))),
        );
        let pw = W - LEFT - RIGHT;
        let ph = H - TOP - BOTTOM;
        let px = |x: f64| LEFT + (fwd(self.x_scale, x) - fx0) / (fx1 - fx0).max(f64::MIN_POSITIVE) * pw;
        let py = |y: f64| TOP + ph - (fwd(self.y_scale, y) - fy0) / (fy1 - fy0).max(f64::MIN_POSITIVE) * ph;

        let mut s = String::new();
        let _ = writeln!(
            s,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" \
             width=\"{W}\" height=\"{H}\" viewBox=\"0 0 {W} {H}\" font-family=\"sans-serif\" font-size=\"12\">"
        );
        let _ = writeln!(s, "<rect width=\"{W}\" height=\"{H}\" fill=\"white\"/>");
        let _ = writeln!(
            s,
            "<text x=\"{}\" y=\"22\" text-anchor=\"middle\" font-size=\"14\">{}</text>",
            LEFT + pw / 2.0,
            esc(&self.title)
        );
        for &t in &xt {
            let x = px(t);
            let _ = writeln!(
                s,
                "<line x1=\"{x:.1}\" y1=\"{TOP}\" x2=\"{x:.1}\" y2=\"{:.1}\" stroke=\"#ddd\"/>\
                 <text x=\"{x:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
                TOP + ph,
                TOP + ph + 16.0,
                tick_label(self.x_scale, t)
            );
        }
        for &t in &yt {
            let y = py(t);
            let _ = writeln!(
                s,
                "<line x1=\"{LEFT}\" y1=\"{y:.1}\" x2=\"{:.1}\" y2=\"{y:.1}\" stroke=\"#ddd\"/>\
                 <text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
                LEFT + pw,
                LEFT - 6.0,
                y + 4.0,
                tick_label(self.y_scale, t)
            );
        }
        let _ = writeln!(
            s,
            "<rect x=\"{LEFT}\" y=\"{TOP}\" width=\"{pw}\" height=\"{ph}\" fill=\"none\" stroke=\"black\"/>"
        );
        let _ = writeln!(
            s,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
            LEFT + pw / 2.0,
            H - 12.0,
            esc(&self.x_label)
        );
        let _ = writeln!(
            s,
            "<text x=\"16\" y=\"{:.1}\" text-anchor=\"middle\" transform=\"rotate(-90 16 {:.1})\">{}</text>",
            TOP + ph / 2.0,
            TOP + ph / 2.0,
            esc(&self.y_label)
        );
        for (i, se) in self.series.iter().enumerate() {
            let c = COLORS[i % COLORS.len()];
            let p: Vec<(f64, f64)> = se
                .points
                .iter()
                .copied()
                .filter(|&(x, y)| ok(self.x_scale, x) && ok(self.y_scale, y))
                .collect();
            if p.len() > 1 {
                let d: Vec<String> = p.iter().map(|&(x, y)| format!("{:.1},{:.1}", px(x), py(y))).collect();
                let _ = writeln!(
                    s,
                    "<polyline fill=\"none\" stroke=\"{c}\" stroke-width=\"1.5\" points=\"{}\"/>",
                    d.join(" ")
                );
            }
            for &(x, y) in &p {
                let _ = writeln!(
                    s,
                    "<circle class=\"point\" cx=\"{:.1}\" cy=\"{:.1}\" r=\"3\" fill=\"{c}\"><title>{}: {}, {}</title></circle>",
                    px(x),
                    py(y),
                    esc(&se.name),
                    label(x),
                    label((y * 10.0).round() / 10.0)
                );
            }
            let ly = TOP + 10.0 + 18.0 * i as f64;
            let lx = LEFT + pw + 14.0;
            let _ = writeln!(
                s,
                "<line x1=\"{lx:.1}\" y1=\"{ly:.1}\" x2=\"{:.1}\" y2=\"{ly:.1}\" stroke=\"{c}\" stroke-width=\"2\"/>\
                 <text x=\"{:.1}\" y=\"{:.1}\">{}</text>",
                lx + 18.0,
                lx + 24.0,
                ly + 4.0,
                esc(&se.name)
            );
        }
        s.push_str("</svg>\n");
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_ticks_and_escapes() {
        let p = Plot {
            title: "a < b & c".into(),
            x_label: "entries".into(),
            y_label: "cycles/packet".into(),
            x_scale: Scale::Log2,
            y_scale: Scale::Linear,
            series: vec![
                Series {
                    name: "exact".into(),
                    points: vec![(1.0, 50.0), (1024.0, 60.0), (1048576.0, 200.0)],
                },
                Series {
                    name: "lpm".into(),
                    points: vec![(1.0, 55.0), (0.0, 1.0)],
                },
            ],
        };
        let s = p.render();
        assert!(s.starts_with("<?xml") && s.trim_end().ends_with("</svg>"));
        assert_eq!(
            s.matches("class=\"point\"").count(),
            4,
            "the x = 0 point is left out on a log axis"
        );
        assert!(s.contains("a &lt; b &amp; c"));
        assert!(s.contains(">2^20<"), "{s}");
    }

    #[test]
    fn a_percentile_axis_spreads_the_tail_and_labels_percents() {
        let p = Plot {
            title: "latency".into(),
            x_label: "us".into(),
            y_label: "percentile".into(),
            x_scale: Scale::Log10,
            y_scale: Scale::Percentile,
            series: vec![Series {
                name: "d_all".into(),
                points: vec![(10.0, 0.0), (20.0, 0.9), (40.0, 0.999), (50.0, 1.0)],
            }],
        };
        let s = p.render();
        assert_eq!(s.matches("class=\"point\"").count(), 3, "p = 1 is left out");
        for t in [">0%<", ">90%<", ">99%<", ">99.9%<"] {
            assert!(s.contains(t), "no tick {t}: {s}");
        }
        // equal steps per decade of 1 - p: 0 -> 90% as far as 90% -> 99%
        let (f0, f9, f99) = (
            fwd(Scale::Percentile, 0.0),
            fwd(Scale::Percentile, 0.9),
            fwd(Scale::Percentile, 0.99),
        );
        assert!((f9 - f0 - 1.0).abs() < 1e-9 && (f99 - f9 - 1.0).abs() < 1e-9);
    }
}
