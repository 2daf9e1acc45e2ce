//! `p4dp model --check`: the validation suite. Each configuration is a generated program (every
//! match kind, cache-resident to DRAM sizes, 1..8 tables, uniform and Zipf traffic, 1 and 2
//! workers); it is predicted from the profile and the paths its run counted, and measured in the
//! same run (the sweeps' method: docs/bench.md); the error is |predicted - measured| / measured
//! of the program's cycles/packet.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};

use super::cost;
use super::measure::settle;
use super::predict::{ir_facts, popularity, program_use, rt_program, PathCounts};
use super::tuples::rule_set_stats;
use super::{bench_args, load_profile, ModelArgs};
use crate::bench::gen::{self, Externs, ProgSpec, TableKind};
use crate::bench::json::{self, Json};
use crate::bench::sweep::{install_rules, measure_so, rule_trace, Ctx, Spec};
use crate::bench::traffic::Traffic;
use crate::bench::{cpus, default_mem, eal_args, template};
use crate::{compile, CompileOpts};

struct Config {
    label: String,
    prog: ProgSpec,
    kind: TableKind,
    entries: u64,
    traffic: Traffic,
    workers: u32,
}

fn cfg(kind: TableKind, l: u32, traffic: Traffic, workers: u32) -> Config {
    let n = 1u64 << l;
    Config {
        label: format!("{} 2^{l} {}{}", kind.name(), traffic.name(), wlabel(workers)),
        prog: ProgSpec::kind(kind, n),
        kind,
        entries: n,
        traffic,
        workers,
    }
}

fn wlabel(w: u32) -> String {
    if w == 1 {
        String::new()
    } else {
        format!(" {w}w")
    }
}

fn chain(tables: u32, l: u32, traffic: Traffic, workers: u32) -> Config {
    let n = 1u64 << l;
    Config {
        label: format!("{tables} exact tables 2^{l} {}{}", traffic.name(), wlabel(workers)),
        prog: ProgSpec::exact_chain(tables, n, 0),
        kind: TableKind::Exact,
        entries: n,
        traffic,
        workers,
    }
}

/// The suite: at least 20 configurations (6 in quick mode, for tests of the command).
fn configs(quick: bool, two: bool) -> Vec<Config> {
    use TableKind::*;
    let (u, z) = (Traffic::Uniform, Traffic::Zipf(1.1));
    let w2 = if two { 2 } else { 1 };
    if quick {
        return vec![
            cfg(Exact, 4, u.clone(), 1),
            cfg(Exact, 14, z.clone(), 1),
            cfg(Lpm, 6, u.clone(), 1),
            cfg(Ternary, 4, u.clone(), 1),
            chain(2, 8, u.clone(), 1),
            chain(1, 8, u, w2),
        ];
    }
    let mut v = vec![
        cfg(Exact, 4, u.clone(), 1),
        cfg(Exact, 10, u.clone(), 1),
        cfg(Exact, 14, u.clone(), 1),
        cfg(Exact, 17, u.clone(), 1),
        cfg(Exact, 20, u.clone(), 1),
        cfg(Exact, 20, z.clone(), 1),
        cfg(Exact, 16, z.clone(), 1),
        cfg(Lpm, 4, u.clone(), 1),
        cfg(Lpm, 10, u.clone(), 1),
        cfg(Lpm, 14, u.clone(), 1),
        cfg(Lpm, 17, z.clone(), 1),
        cfg(Ternary, 4, u.clone(), 1),
        cfg(Ternary, 7, u.clone(), 1),
        cfg(Ternary, 9, z.clone(), 1),
        cfg(Range, 5, u.clone(), 1),
        cfg(Optional, 5, u.clone(), 1),
        chain(2, 8, u.clone(), 1),
        chain(4, 8, u.clone(), 1),
        chain(8, 8, u.clone(), 1),
        chain(4, 14, z.clone(), 1),
        cfg(Exact, 10, u.clone(), w2),
        chain(4, 8, u.clone(), w2),
    ];
    let mut data = chain(1, 8, u.clone(), 1);
    data.label = "exact 2^8 action data +16B".into();
    data.prog.data_bytes = 16;
    v.push(data);
    let mut ext = chain(1, 8, u, 1);
    ext.label = "exact 2^8 counter + register".into();
    ext.prog.externs = Externs {
        counter: true,
        register: true,
    };
    v.push(ext);
    v
}

/// The configurations whose label contains one of `only` (all of them when `only` is empty), each
/// with its position in the whole suite: a configuration's entries and traffic are seeded by that
/// position, so `--only` measures the same rule sets and keys as the full suite.
fn select(cs: Vec<Config>, only: &[String]) -> Result<Vec<(usize, Config)>> {
    let labels: Vec<String> = cs.iter().map(|c| c.label.clone()).collect();
    let v: Vec<(usize, Config)> = cs
        .into_iter()
        .enumerate()
        .filter(|(_, c)| only.is_empty() || only.iter().any(|o| c.label.contains(o.as_str())))
        .collect();
    if v.is_empty() {
        anyhow::bail!(
            "--only {}: no configuration's label contains it; the labels are: {}",
            only.join(", "),
            labels.join("; ")
        );
    }
    Ok(v)
}

struct Row {
    label: String,
    /// The model's prediction (`p4dp model`'s cycles/packet).
    predicted: f64,
    /// The profile's floor plus the program's median-burst overhead over its own floor.
    measured: f64,
    /// The quietest windows' floor and program cycles/packet (what the load left of them).
    window_floor: f64,
    window_program: f64,
    error: f64,
    /// Measurement pairs the figure is the median of.
    pairs: usize,
}

/// Median and worst of the absolute errors (fractions).
pub fn summarize(errors: &[f64]) -> (f64, f64) {
    let mut e: Vec<f64> = errors.iter().map(|x| x.abs()).collect();
    e.sort_by(f64::total_cmp);
    if e.is_empty() {
        return (0.0, 0.0);
    }
    let m = if e.len() % 2 == 1 {
        e[e.len() / 2]
    } else {
        (e[e.len() / 2 - 1] + e[e.len() / 2]) / 2.0
    };
    (m, e[e.len() - 1])
}

/// The final line of the suite's output.
pub fn summary_line(errors: &[f64]) -> String {
    let (m, w) = summarize(errors);
    format!(
        "model error: median {:.1}%, worst {:.1}% over {} configurations",
        m * 100.0,
        w * 100.0,
        errors.len()
    )
}

pub fn check(a: &ModelArgs) -> Result<ExitCode> {
    let profile = load_profile(&a.profile)?;
    let two = cpus() >= 2;
    let cs = select(configs(a.quick, two), &a.only)?;
    let top = cs.iter().map(|(_, c)| c.entries).max().unwrap_or(16);
    let workers = if two { 2 } else { 1 };
    let mem = (default_mem(4096, top, workers) * 2).min(16384);
    p4dp_rt::Eal::init(&eal_args(mem, workers, a.eal.as_deref())).context("starting DPDK's EAL")?;
    let tmp = compile::temp_dir("model-check")?;
    let (repeat, warmup, duration) = if a.quick {
        (1, 0.05, 0.1)
    } else {
        (
            super::calibrate::REPEAT,
            super::calibrate::WARMUP,
            super::calibrate::WINDOW,
        )
    };
    let load_before = super::calibrate::load_avg();
    let mut rows = Vec::new();
    for (done, (i, c)) in cs.iter().enumerate() {
        let i = *i;
        let ba = bench_args(&[
            "--workers".into(),
            c.workers.to_string(),
            "--repeat".into(),
            repeat.to_string(),
        ])?;
        let mut ctx = Ctx::new(
            &ba,
            tmp.path().to_path_buf(),
            c.traffic.clone(),
            warmup,
            duration,
            cs.len(),
        );
        for _ in 0..done {
            ctx.point_done();
        }
        let name = format!("cfg{i}");
        let src = tmp.path().join(format!("{name}.p4"));
        std::fs::write(&src, c.prog.source()).with_context(|| format!("writing {}", src.display()))?;
        let co = CompileOpts {
            program: src.clone(),
            include: Vec::new(),
            define: Vec::new(),
        };
        let so = compile::build(&co, &tmp.path().join(&name), false)?.so_path;
        let (ir, _) = compile::front(&co)?;
        let facts = ir_facts(&ir);
        let layouts = p4dp_rt::inspect::table_layouts(&so)?;
        let rules = gen::rules(c.kind, c.entries, a.seed.wrapping_add(i as u64));
        let trace = rule_trace(&ctx, c.kind, &rules, &template(60)?, a.seed ^ (i as u64));
        let spec = Spec {
            series: c.kind.name().into(),
            x: c.entries as f64,
            label: c.label.clone(),
            prog: c.prog.clone(),
            pkt_len: 60,
        };
        let n_tables = c.prog.tables.len() as u32;
        let kind = c.kind;
        // the runtime's own count of tabs, to set beside the replay's
        let runtime_tabs = std::cell::Cell::new(0u64);
        // measured until its pairs agree (model/measure.rs), as the calibration's points are
        let settled = settle(profile.floor_cycles, a.quick, || {
            measure_so(
                &mut ctx,
                &spec,
                &so,
                n_tables,
                &mut |t, ti| {
                    let n = install_rules(t, ti, kind, &rules)?;
                    runtime_tabs.set(t.table_stats(ti)?.tuples);
                    Ok(n)
                },
                &trace,
                None,
            )
        })?;
        ctx.finish();
        let point = &settled.point;
        let prog = rt_program(&so)?;
        let entries = vec![c.entries; n_tables as usize];
        // the paths: the measured run's own counters (every packet of every window)
        let paths = PathCounts {
            packets: point.packets,
            table_counts: point.table_counts.clone(),
        };
        let tuples = rule_set_stats(c.kind, &rules, &c.traffic, a.seed ^ (i as u64));
        if let Some(t) = &tuples {
            eprintln!(
                "check: {}: the replayed lookups visit {:.2} of {} tabs per burst, probe {:.2}, check {:.2} (the runtime made {} tabs)",
                c.label,
                t.passes,
                t.tabs,
                t.probes,
                t.checks,
                runtime_tabs.get()
            );
        }
        let u = program_use(
            &prog,
            &layouts,
            &facts,
            &entries,
            &paths,
            &vec![tuples; n_tables as usize],
            c.workers,
            popularity(&c.traffic),
        );
        let r = cost::predict(&profile, &u)?;
        // the program's work as its median burst shows it (load hardly reaches inside a burst)
        // on the profile's floor: the model's floor is the machine's, its program costs are
        // what it predicts
        let measured = profile.floor_cycles + settled.overhead();
        let predicted = r.cycles;
        let error = (predicted - measured) / measured.max(1e-9);
        eprintln!(
            "check: {}: predicted {:.1}, measured {:.1} cycles/packet ({:+.1}%; {} pairs; quietest windows: floor {:.1}, program {:.1})",
            c.label,
            predicted,
            measured,
            error * 100.0,
            settled.pairs.len(),
            point.l2fwd_min,
            point.program_min
        );
        rows.push(Row {
            label: c.label.clone(),
            predicted,
            measured,
            window_floor: point.l2fwd_min,
            window_program: point.program_min,
            error,
            pairs: settled.pairs.len(),
        });
    }
    let load_after = super::calibrate::load_avg();
    let mut s = String::new();
    let _ = writeln!(
        s,
        "p4dp model --check: {} configurations, profile {} ({}{}), load average {:.1} → {:.1}",
        rows.len(),
        a.profile.display(),
        profile.machine.cpu_model,
        if profile.quick { ", quick calibration" } else { "" },
        load_before,
        load_after
    );
    let _ = writeln!(
        s,
        "measured = the profile's floor ({:.1}) + the program's median-burst cycles/packet over its own floor; \
         the quietest windows' floor and program are shown for the load",
        profile.floor_cycles
    );
    let _ = writeln!(
        s,
        "{:<40} {:>10} {:>10} {:>8} {:>6} {:>11} {:>11}",
        "configuration", "predicted", "measured", "error", "pairs", "win. floor", "win. prog."
    );
    for r in &rows {
        let _ = writeln!(
            s,
            "{:<40} {:>10.1} {:>10.1} {:>7.1}% {:>6} {:>11.1} {:>11.1}",
            r.label,
            r.predicted,
            r.measured,
            r.error * 100.0,
            r.pairs,
            r.window_floor,
            r.window_program
        );
    }
    let errors: Vec<f64> = rows.iter().map(|r| r.error).collect();
    let _ = writeln!(s, "{}", summary_line(&errors));
    print!("{s}");
    let out = a.out.clone().unwrap_or_else(|| PathBuf::from("build/model-check.txt"));
    if let Some(d) = out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(d).with_context(|| format!("creating {}", d.display()))?;
    }
    std::fs::write(&out, &s).with_context(|| format!("writing {}", out.display()))?;
    if let Some(j) = &a.json {
        let (m, w) = summarize(&errors);
        let doc = Json::obj([
            (
                "configurations",
                Json::Arr(
                    rows.iter()
                        .map(|r| {
                            Json::obj([
                                ("label", Json::str(r.label.clone())),
                                ("predicted_cycles", Json::Num(r.predicted)),
                                ("window_floor_cycles", Json::Num(r.window_floor)),
                                ("window_program_cycles", Json::Num(r.window_program)),
                                ("measured_cycles", Json::Num(r.measured)),
                                ("error", Json::Num(r.error)),
                                ("pairs", Json::uint(r.pairs as u64)),
                            ])
                        })
                        .collect(),
                ),
            ),
            ("median_error", Json::Num(m)),
            ("worst_error", Json::Num(w)),
        ]);
        json::emit(j, &doc)?;
    }
    eprintln!("check: results written to {}", out.display());
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_suite_covers_what_it_must() {
        let c = configs(false, true);
        assert!(c.len() >= 20);
        for k in TableKind::ALL {
            assert!(c.iter().any(|x| x.kind == k), "{}", k.name());
        }
        assert!(c.iter().any(|x| x.workers == 2));
        assert!(c.iter().any(|x| matches!(x.traffic, Traffic::Zipf(_))));
        assert!(c.iter().any(|x| x.prog.tables.len() == 8));
        assert!(c.iter().any(|x| x.entries >= 1 << 20));
    }

    #[test]
    fn only_selects_by_label() {
        let v = select(configs(false, true), &["2w".into()]).unwrap();
        assert_eq!(v.len(), 2);
        assert!(v.iter().all(|(_, c)| c.workers == 2));
        let v = select(
            configs(false, true),
            &["exact 2^10 uniform".into(), "ternary 2^4".into()],
        )
        .unwrap();
        let l: Vec<&str> = v.iter().map(|(_, c)| c.label.as_str()).collect();
        assert_eq!(
            l,
            ["exact 2^10 uniform", "ternary 2^4 uniform", "exact 2^10 uniform 2w"]
        );
        // each keeps its position in the whole suite (what seeds its entries and traffic)
        let all = configs(false, true);
        for (i, c) in &v {
            assert_eq!(all[*i].label, c.label);
        }
        assert_ne!(v[1].0, 1, "ternary 2^4 is not the suite's second configuration");
        assert_eq!(select(configs(false, true), &[]).unwrap().len(), 24);
        let e = match select(configs(false, true), &["nothing like it".into()]) {
            Ok(_) => panic!("a text no label contains selected something"),
            Err(e) => e.to_string(),
        };
        assert!(
            e.contains("--only nothing like it") && e.contains("exact 2^4 uniform"),
            "{e}"
        );
    }

    #[test]
    fn summary_of_errors() {
        assert_eq!(summarize(&[0.1, -0.3, 0.05]), (0.1, 0.3));
        assert_eq!(
            summary_line(&[0.1, -0.2, 0.05, 0.0]),
            "model error: median 7.5%, worst 20.0% over 4 configurations"
        );
    }
}
