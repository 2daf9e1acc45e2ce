//! `p4dp stf`: compile the program, load it into the runtime (no ports: packets are injected
//! synchronously), run the STF script and print the report. Exit code 0 only on pass.

use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context, Result};

use crate::compile;
use crate::target::{schema, RtTarget};
use crate::CompileOpts;

/// EAL arguments for single-threaded, port-less use (STF, entry files): no hugepages, no PCI, no
/// shared config (so several `p4dp` processes can run at once).
pub fn eal_args_local(mem_mib: u32) -> Vec<String> {
    vec![
        "--no-huge".into(),
        "--no-pci".into(),
        "-m".into(),
        mem_mib.to_string(),
        "--no-shconf".into(),
        "--no-telemetry".into(),
        "--log-level=error".into(),
        "-l".into(),
        "0".into(),
    ]
}

pub fn run_stf(c: &CompileOpts, stf: &Path, verbose: bool, burst: bool) -> Result<ExitCode> {
    let text = std::fs::read_to_string(stf).with_context(|| format!("reading {}", stf.display()))?;
    let dir = compile::temp_dir("stf")?;
    let built = compile::build(c, dir.path(), false)?;
    p4dp_rt::Eal::init(&eal_args_local(512)).context("starting DPDK's EAL")?;
    let rt = p4dp_rt::Runtime::load(&built.so_path, p4dp_rt::RuntimeOptions::default())
        .with_context(|| format!("loading {}", built.so_path.display()))?;
    drop(dir); // the runtime has loaded the shared object
    rt.set_inject_burst(burst);
    let sch = schema(&rt);
    let file = stf.display().to_string();
    let plan = match p4dp_stf::load(&file, &text, &sch) {
        Ok(p) => p,
        Err(diags) => {
            eprintln!("{diags}");
            anyhow::bail!("{file}: the STF script has errors");
        }
    };
    let mut target = RtTarget::new(&rt);
    let outcome = p4dp_stf::run(&plan, &mut target);
    if verbose {
        for (line, text) in &outcome.log {
            println!("{file}:{line}: {text}");
        }
        for p in &outcome.received {
            println!("received {p:?}");
        }
    }
    println!("{outcome}");
    Ok(if outcome.passed() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
