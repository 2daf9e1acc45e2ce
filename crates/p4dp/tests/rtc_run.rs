//! rtc.p4 background pipelines under `p4dp run` (tests/run/rtc_report_ticker.p4): the
//! foreground queues each packet's key and length, background pipeline Reporter sends one report
//! per queued message to port 2, Ticker sends a tick to port 3 every 5 ms (Sleep on the run's
//! real clock). Run with the default background thread (on this two-CPU machine one thread for
//! both pipelines: Reporter's popWait must give way to Ticker) and with threads pinned by
//! `--background-cores`; the output pcaps are checked packet by packet.

use std::path::{Path, PathBuf};
use std::process::Command;

use p4dp_testutil::pcap::{read as read_pcap, write as write_pcap};
use p4dp_testutil::scratch_dir;

const N: u32 = 300;

fn program() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/run/rtc_report_ticker.p4")
}

/// Packet i: Ethernet, then key i, padded to 60 + i % 40 bytes.
fn frames() -> Vec<Vec<u8>> {
    (0..N)
        .map(|i| {
            let mut p = vec![0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 2, 0x88, 0xb5];
            p.extend(i.to_be_bytes());
            p.resize(60 + (i % 40) as usize, 0);
            p
        })
        .collect()
}

fn be32(b: &[u8]) -> u32 {
    u32::from_be_bytes(b.try_into().expect("4 bytes"))
}

/// `p4dp run` with the frames in on port 0 and ports 1-3 writing dir/outN.pcap, plus `extra`
/// arguments; returns (success, output).
fn run(dir: &Path, extra: &[&str]) -> (bool, String) {
    let input = dir.join("in.pcap");
    write_pcap(&input, &frames());
    let port = |n: u32| format!("{n}=:{}", dir.join(format!("out{n}.pcap")).display());
    let out = Command::new(env!("CARGO_BIN_EXE_p4dp"))
        .arg("run")
        .arg(program())
        .args(["--port", &format!("0={}:", input.display())])
        .args(["--port", &port(1), "--port", &port(2), "--port", &port(3)])
        .args(extra)
        .output()
        .expect("run p4dp");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

/// Every packet forwarded; one report per packet, in order, numbered from 0, with its key and
/// length; ticks numbered from 0 by iteration, at least 5 ms apart on the run clock.
fn check_outputs(dir: &Path, text: &str) {
    let fwd = read_pcap(&dir.join("out1.pcap"));
    assert_eq!(fwd, frames(), "port 1: every packet forwarded as it came\n{text}");
    let reports = read_pcap(&dir.join("out2.pcap"));
    assert_eq!(reports.len(), N as usize, "port 2: one report per packet\n{text}");
    for (i, r) in reports.iter().enumerate() {
        let i = i as u32;
        assert_eq!(r.len(), 26, "report {i}: Ethernet + 12 bytes");
        assert_eq!(
            &r[..14],
            &[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 2, 0, 0, 0, 0, 2, 0x88, 0xb6]
        );
        let (num, key, len) = (be32(&r[14..18]), be32(&r[18..22]), be32(&r[22..26]));
        assert_eq!((num, key, len), (i, i, 60 + i % 40), "report {i}\n{text}");
    }
    let ticks = read_pcap(&dir.join("out3.pcap"));
    assert!(
        ticks.len() >= 3,
        "port 3: {} ticks in a run of at least 0.2 s\n{text}",
        ticks.len()
    );
    let mut last: Option<u64> = None;
    for (i, t) in ticks.iter().enumerate() {
        assert_eq!(t.len(), 26, "tick {i}");
        assert_eq!(be32(&t[14..18]), i as u32, "tick {i}: its iteration number");
        let now = u64::from_be_bytes(t[18..26].try_into().expect("8 bytes"));
        if let Some(l) = last {
            assert!(
                now >= l + 5_000_000,
                "tick {i} at {now} ns, only {} ns after the last (Sleep 5 ms)",
                now - l
            );
        }
        last = Some(now);
    }
    // the run's report reads the shared Counter and Queue through the control API
    assert!(text.contains(&format!("rtc Counter reports: [0] {N}\n")), "{text}");
    assert!(
        text.contains("rtc Queue seen: depth 4096, 0 messages left, 0 pushes refused (full)"),
        "{text}"
    );
}

#[test]
fn background_pipelines_share_the_default_thread() {
    let dir = scratch_dir("rtc-run-default");
    // the run ends once the input is done, plus the idle time the background pipelines get
    let (ok, text) = run(&dir, &[]);
    assert!(ok, "p4dp run failed:\n{text}");
    assert!(text.contains("background pipelines Reporter, Ticker on"), "{text}");
    check_outputs(&dir, &text);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn background_pipelines_on_pinned_cores() {
    let dir = scratch_dir("rtc-run-pinned");
    // a thread per pipeline, pinned to CPUs 1 and 0
    let (ok, text) = run(&dir, &["--background-cores", "1,0", "--duration", "1"]);
    assert!(ok, "p4dp run failed:\n{text}");
    assert!(text.contains("on 2 threads (CPU 1, 0)"), "{text}");
    check_outputs(&dir, &text);
    // both pipelines on one thread pinned to CPU 1
    let (ok, text) = run(&dir, &["--background-cores", "1", "--duration", "1"]);
    assert!(ok, "p4dp run failed:\n{text}");
    assert!(text.contains("on 1 thread (CPU 1)"), "{text}");
    check_outputs(&dir, &text);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn background_cores_are_checked() {
    let dir = scratch_dir("rtc-run-bad");
    for (args, msg) in [
        (&["--background-cores", "0,1,0"][..], "named twice"),
        (&["--background-cores", "x"][..], "not a CPU number"),
    ] {
        let (ok, text) = run(&dir, args);
        assert!(!ok && text.contains(msg), "{args:?}: expected `{msg}`:\n{text}");
    }
    let (ok, text) = run(&dir, &["--background-cores", "0-2"]);
    assert!(!ok && text.contains("3 CPUs for 2 background pipelines"), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}
