//! `--cpu-latency-limit`: the switch's request to the kernel's CPU latency QoS. While a process
//! holds /dev/cpu_dma_latency open with a value written to it, the kernel keeps every CPU out of
//! the idle states that take longer than that many microseconds to leave; at 0 an idle CPU polls
//! instead of halting. Closing the file (or the process's exit) withdraws the request, and the
//! kernel obeys the lowest value any process holds.
//!
//! Why a switch wants it: a P4Runtime request that reaches an idle control CPU first waits for
//! that CPU to wake up; in a virtual machine a halted CPU is woken by the hypervisor, which took
//! tens of microseconds on this project's machine (docs/p4runtime.md, `--cpu-latency-limit`).

use std::fs::File;
use std::io::{Read, Write};
use std::path::Path;
use std::sync::OnceLock;

use anyhow::{Context, Result};

/// The kernel's interface (Documentation/admin-guide/pm/cpuidle.rst, "Power Management Quality
/// of Service for CPUs").
pub const DEVICE: &str = "/dev/cpu_dma_latency";

/// A held limit: the request stands while this is alive.
#[derive(Debug)]
pub struct CpuLatencyLimit {
    _file: File,
}

/// Asks the kernel, through `device`, to keep every CPU's wake-up latency at most `us`
/// microseconds until the returned value is dropped.
pub fn hold(device: &Path, us: u32) -> Result<CpuLatencyLimit> {
    let mut f = File::options().write(true).open(device).with_context(|| {
        format!(
            "--cpu-latency-limit {us}: cannot open {} (needs root; the kernel must have CPU latency QoS)",
            device.display()
        )
    })?;
    // the kernel takes the value as a binary s32 in the machine's byte order (or as hex text)
    let v = i32::try_from(us).context("--cpu-latency-limit: out of range")?;
    f.write_all(&v.to_ne_bytes())
        .with_context(|| format!("--cpu-latency-limit {us}: writing {}", device.display()))?;
    Ok(CpuLatencyLimit { _file: f })
}

/// The limit in effect now (the lowest any process holds; the kernel's default when none),
/// read from `device`.
pub fn current(device: &Path) -> Result<i32> {
    let mut b = [0u8; 4];
    File::open(device)
        .and_then(|mut f| f.read_exact(&mut b))
        .with_context(|| format!("reading {}", device.display()))?;
    Ok(i32::from_ne_bytes(b))
}

static HELD: OnceLock<CpuLatencyLimit> = OnceLock::new();

/// [`hold`] on the kernel's device for the rest of the process (the switch's lifetime); a second
/// call keeps the first limit.
pub fn hold_for_process(us: u32) -> Result<()> {
    if HELD.get().is_none() {
        let held = hold(Path::new(DEVICE), us)?;
        let _ = HELD.set(held);
        // another process may hold a lower one: the kernel obeys the lowest
        let now = current(Path::new(DEVICE)).map_or_else(|e| format!("unknown: {e:#}"), |v| format!("{v} us"));
        eprintln!("cpu latency limit: {us} us while the switch runs (--cpu-latency-limit; in effect: {now})");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_held_limit_is_in_effect_until_dropped() {
        let dev = Path::new(DEVICE);
        if File::options().write(true).open(dev).is_err() {
            eprintln!("skipped: {DEVICE} cannot be opened for writing here (not root, or no CPU latency QoS)");
            return;
        }
        let held = hold(dev, 3).unwrap();
        // the lowest request wins: at most ours, whatever other processes hold
        assert!(current(dev).unwrap() <= 3);
        let inner = hold(dev, 0).unwrap();
        assert_eq!(current(dev).unwrap(), 0);
        drop(inner);
        assert!(current(dev).unwrap() <= 3);
        drop(held);
    }

    #[test]
    fn a_device_that_cannot_be_opened_is_a_clear_error() {
        let e = hold(Path::new("/nonexistent/cpu_dma_latency"), 0).unwrap_err();
        let msg = format!("{e:#}");
        assert!(
            msg.contains("--cpu-latency-limit 0: cannot open /nonexistent/cpu_dma_latency"),
            "{msg}"
        );
    }
}
