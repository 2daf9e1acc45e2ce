//! `--cpu-latency-limit US`: the switch holds the kernel's CPU latency limit
//! (/dev/cpu_dma_latency) while it runs, and a value out of range is refused.

mod p4rt_common;
use p4rt_common::{connect, refused, start};

const DEVICE: &str = "/dev/cpu_dma_latency";

/// The limit in effect (the lowest any process holds).
fn current() -> i32 {
    let b = std::fs::read(DEVICE).expect("read the CPU latency limit");
    i32::from_ne_bytes(b[..4].try_into().expect("4 bytes"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_switch_holds_the_limit_while_it_runs() {
    if std::fs::OpenOptions::new().write(true).open(DEVICE).is_err() {
        eprintln!("skipped: {DEVICE} cannot be opened for writing here (not root, or no CPU latency QoS)");
        return;
    }
    let sw = start(&["--cpu-latency-limit".to_string(), "9".to_string()]);
    // serving: the limit was taken before the EAL started
    let _c = connect(&sw.addr).await;
    let held = std::fs::read_dir(format!("/proc/{}/fd", sw.pid()))
        .expect("the switch's files")
        .flatten()
        .filter_map(|f| std::fs::read_link(f.path()).ok())
        .any(|l| l == std::path::Path::new(DEVICE));
    assert!(held, "the switch holds {DEVICE} open");
    // the kernel obeys the lowest request: at most the switch's
    assert!(current() <= 9, "limit in effect: {}", current());
}

#[test]
fn a_limit_out_of_range_is_refused() {
    let err = refused(&["--cpu-latency-limit", "1000001"]);
    assert!(
        err.contains("1000001 is not in 0..=1000000"),
        "the error says why: {err}"
    );
}
