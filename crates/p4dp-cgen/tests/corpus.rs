//! Every program of tests/programs (and tests/programs/compile_only) that semantic analysis
//! accepts must produce C that gcc compiles with -Wall -Wextra -Werror.

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn programs() -> Vec<PathBuf> {
    let mut v = Vec::new();
    for d in ["tests/programs", "tests/programs/compile_only"] {
        if let Ok(rd) = std::fs::read_dir(root().join(d)) {
            for e in rd.flatten() {
                let p = e.path();
                if p.extension().is_some_and(|x| x == "p4") {
                    v.push(p);
                }
            }
        }
    }
    v.sort();
    v
}

/// Programs using constructs the back end reports as unsupported (with a clear error).
const EXPECTED_UNSUPPORTED: &[&str] = &[];

#[test]
fn corpus_compiles() {
    let inc = vec![root().join("p4include")];
    let out = std::env::temp_dir().join(format!("p4dp-cgen-corpus-{}", std::process::id()));
    std::fs::create_dir_all(&out).unwrap();
    let filter = std::env::var("P4DP_CORPUS_FILTER").unwrap_or_default();
    let mut failures = Vec::new();
    let mut ok = 0;
    for p in programs() {
        let name = p.file_stem().unwrap().to_string_lossy().to_string();
        if !name.contains(&filter) {
            continue;
        }
        let prog = match p4dp_sema::compile_file(&p, &inc, &[]) {
            Ok(x) => x.program,
            Err(_) => {
                eprintln!("skip {name}: rejected by sema");
                continue;
            }
        };
        let opts = p4dp_cgen::CgenOptions {
            program_name: name.clone(),
            ..Default::default()
        };
        let c = match p4dp_cgen::generate_c(&prog, &opts) {
            Ok(c) => c,
            Err(e) if EXPECTED_UNSUPPORTED.contains(&name.as_str()) => {
                eprintln!("expected unsupported {name}: {e}");
                continue;
            }
            Err(e) => {
                failures.push(format!("{name}: cgen: {e}"));
                continue;
            }
        };
        let _ = p4dp_cgen::generate_p4info(&prog);
        let cp = out.join(format!("{name}.c"));
        std::fs::write(&cp, &c).unwrap();
        // with DPDK's flags and P4DP_DPDK, as compile_so builds programs, so process_mbufs
        // (burst.rs) compiles warning-free too (stf_stub.rs compiles the other branch)
        let mut gcc = std::process::Command::new("gcc");
        if let Some(f) = p4dp_cgen::dpdk_cflags() {
            gcc.args(f).arg("-DP4DP_DPDK");
        }
        let r = gcc
            .args(["-c", "-O1", "-Wall", "-Wextra", "-Werror", "-o"])
            .arg(out.join(format!("{name}.o")))
            .arg("-I")
            .arg(root().join("runtime/include"))
            .arg(&cp)
            .output()
            .unwrap();
        if !r.status.success() {
            failures.push(format!(
                "{name}: gcc ({}):\n{}",
                cp.display(),
                String::from_utf8_lossy(&r.stderr)
                    .lines()
                    .take(15)
                    .collect::<Vec<_>>()
                    .join("\n")
            ));
        } else {
            ok += 1;
        }
    }
    eprintln!("{ok} programs compiled");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
