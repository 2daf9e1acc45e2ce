//! Runs the generated C of every corpus program whose STF uses only `packet`/`expect` against a
//! stand-in runtime (tests/harness/stub_rt.c: tables hold only const entries), and checks the
//! output packets as the STF pass/fail rules say (per port, in order, prefix match with `*`/`$`).

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// (input packets, expectations) or None if the script uses other statements.
#[allow(clippy::type_complexity)]
fn simple_stf(text: &str) -> Option<(Vec<(u32, String)>, Vec<(u32, String)>)> {
    let (mut pk, mut ex) = (Vec::new(), Vec::new());
    for line in text.lines() {
        let l = line.split('#').next().unwrap_or("").trim();
        if l.is_empty() {
            continue;
        }
        let mut it = l.splitn(3, char::is_whitespace);
        let cmd = it.next()?;
        let port: u32 = it.next()?.trim().parse().ok()?;
        let rest: String = it.next().unwrap_or("").chars().filter(|c| !c.is_whitespace()).collect();
        match cmd {
            "packet" => pk.push((port, rest.to_uppercase())),
            "expect" => ex.push((port, rest.to_uppercase())),
            _ => return None,
        }
    }
    Some((pk, ex))
}

fn matches(pattern: &str, got: &str) -> bool {
    let (pat, exact) = match pattern.strip_suffix('$') {
        Some(p) => (p, true),
        None => (pattern, false),
    };
    if got.len() < pat.len() || (exact && got.len() > pat.len()) {
        return false;
    }
    pat.chars().zip(got.chars()).all(|(p, g)| p == '*' || p == g)
}

/// Corpus STFs whose expectations contradict conformance/stf.md section 9 (reported to the lead):
/// parse_lookahead's second packet starts with 0xAA, so the tag is extracted, the data extract
/// fails with PacketTooShort, the tag stays valid and ingress picks port 1, not 2.
const DISPUTED: &[&str] = &["parse_lookahead"];

#[test]
fn stf_on_stub_runtime() {
    let inc = vec![root().join("p4include")];
    let out = std::env::temp_dir().join(format!("p4dp-cgen-stf-{}", std::process::id()));
    std::fs::create_dir_all(&out).unwrap();
    let filter = std::env::var("P4DP_CORPUS_FILTER").unwrap_or_default();
    let mut failures = Vec::new();
    let mut passed = Vec::new();
    // the project corpus, plus this crate's own programs (PNA)
    let mut dir: Vec<PathBuf> = std::fs::read_dir(root().join("tests/programs"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    dir.extend(
        std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/p4"))
            .unwrap()
            .flatten()
            .map(|e| e.path()),
    );
    dir.sort();
    for p in dir {
        if p.extension().is_none_or(|x| x != "p4") {
            continue;
        }
        let name = p.file_stem().unwrap().to_string_lossy().to_string();
        if !name.contains(&filter) {
            continue;
        }
        if DISPUTED.contains(&name.as_str()) {
            eprintln!("skip {name}: disputed expectation");
            continue;
        }
        let Ok(stf) = std::fs::read_to_string(p.with_extension("stf")) else {
            continue;
        };
        let Some((packets, expects)) = simple_stf(&stf) else {
            continue;
        };
        let own = p.starts_with(env!("CARGO_MANIFEST_DIR"));
        let prog = match p4dp_sema::compile_file(&p, &inc, &[]) {
            Ok(x) => x.program,
            Err((_, d)) if own => {
                failures.push(format!("{name}: rejected by sema: {d:?}"));
                continue;
            }
            Err(_) => continue,
        };
        let opts = p4dp_cgen::CgenOptions {
            program_name: name.clone(),
            ..Default::default()
        };
        let c = match p4dp_cgen::generate_c(&prog, &opts) {
            Ok(c) => c,
            Err(e) => {
                failures.push(format!("{name}: {e}"));
                continue;
            }
        };
        if c.contains("P4DP_TABLE_F_ADD_ON_MISS") {
            // the stub's tables hold only const entries: data-plane inserts need the real
            // runtime (`p4dp stf`, scripts/run_corpus.sh)
            eprintln!("skip {name}: data-plane inserts (add_on_miss)");
            continue;
        }
        let cp = out.join(format!("{name}.c"));
        let exe = out.join(&name);
        std::fs::write(&cp, c).unwrap();
        let r = Command::new("gcc")
            .args([
                "-O1",
                "-Wall",
                "-Wextra",
                "-Werror",
                "-fsanitize=address,undefined",
                "-fno-sanitize-recover=all",
                "-o",
            ])
            .arg(&exe)
            .arg("-I")
            .arg(root().join("runtime/include"))
            .arg(&cp)
            .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/harness/stub_rt.c"))
            .output()
            .unwrap();
        if !r.status.success() {
            failures.push(format!(
                "{name}: gcc: {}",
                String::from_utf8_lossy(&r.stderr)
                    .lines()
                    .take(10)
                    .collect::<Vec<_>>()
                    .join("\n")
            ));
            continue;
        }
        let mut child = Command::new(&exe)
            .env("ASAN_OPTIONS", "detect_leaks=0")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        {
            let mut si = child.stdin.take().unwrap();
            for (port, hex) in &packets {
                writeln!(si, "{port} {hex}").unwrap();
            }
        }
        let o = child.wait_with_output().unwrap();
        if !o.status.success() {
            failures.push(format!(
                "{name}: harness crashed: {}",
                String::from_utf8_lossy(&o.stderr)
                    .lines()
                    .take(20)
                    .collect::<Vec<_>>()
                    .join("\n")
            ));
            continue;
        }
        let ports: BTreeSet<u32> = packets.iter().map(|x| x.0).chain(expects.iter().map(|x| x.0)).collect();
        let mut got: BTreeMap<u32, Vec<String>> = BTreeMap::new();
        for l in String::from_utf8_lossy(&o.stdout).lines() {
            if let Some((p, h)) = l.split_once(' ') {
                if let Ok(p) = p.parse::<u32>() {
                    got.entry(p).or_default().push(h.to_string());
                }
            }
        }
        let mut errs = Vec::new();
        for port in ports {
            let e: Vec<&String> = expects.iter().filter(|x| x.0 == port).map(|x| &x.1).collect();
            let g = got.get(&port).cloned().unwrap_or_default();
            if e.len() != g.len() {
                errs.push(format!(
                    "port {port}: expected {} packets, got {}: {:?}",
                    e.len(),
                    g.len(),
                    g
                ));
                continue;
            }
            for (k, (pat, pkt)) in e.iter().zip(&g).enumerate() {
                if !matches(pat, pkt) {
                    errs.push(format!("port {port} packet {k}:\n   expected {pat}\n   got      {pkt}"));
                }
            }
        }
        if errs.is_empty() {
            passed.push(name);
        } else {
            failures.push(format!("{name} ({}):\n  {}", cp.display(), errs.join("\n  ")));
        }
    }
    eprintln!("passed {}: {}", passed.len(), passed.join(" "));
    assert!(
        failures.is_empty(),
        "{} failing:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
