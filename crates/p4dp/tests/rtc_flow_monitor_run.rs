//! examples/rtc_flow_monitor.p4 under `p4dp run` at a larger scale than its STF: a generated trace
//! of FLOWS TCP flows, 1 to 8 packets each of random lengths, interleaved at random (each flow's
//! packets in order), every flow ending with a FIN or an RST. Every packet must leave on port 1 as
//! it came, and the collector (port 9) must get exactly one report per flow with the flow's exact
//! packet and byte counts: with one worker, and with two (flows dispatched by their 5-tuple, the
//! inserts from both workers into one table).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use p4dp_testutil::pcap::{read as read_pcap, write as write_pcap};
use p4dp_testutil::scratch_dir;

const FLOWS: u32 = 3000;

fn program() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/rtc_flow_monitor.p4")
}

/// xorshift64*: a fixed pseudo-random sequence (the trace is the same in every run).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Flow f's 4-tuple: (src, dst, sport, dport).
fn tuple(f: u32) -> (u32, u32, u16, u16) {
    (
        0x0a00_0000 | f,
        0x0b00_0000 | (f * 7919 % 65521),
        1024 + (f % 50000) as u16,
        80 + (f % 3) as u16,
    )
}

/// A TCP packet of flow `f`, `len` bytes (>= 54), with TCP flags `flags`.
fn packet(f: u32, len: usize, flags: u8) -> Vec<u8> {
    let (s, d, sp, dp) = tuple(f);
    let mut p = vec![0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 1, 0x08, 0x00];
    p.extend([0x45, 0]);
    p.extend(((len - 14) as u16).to_be_bytes());
    p.extend([0, 0, 0, 0, 64, 6, 0, 0]);
    p.extend(s.to_be_bytes());
    p.extend(d.to_be_bytes());
    p.extend(sp.to_be_bytes());
    p.extend(dp.to_be_bytes());
    p.extend([0; 8]);
    p.extend([0x50, flags, 0xff, 0xff, 0, 0, 0, 0]);
    p.resize(len, 0xab);
    p
}

/// The trace and each flow's (packets, bytes).
fn trace() -> (Vec<Vec<u8>>, Vec<(u64, u64)>) {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut left: Vec<u32> = (0..FLOWS).map(|_| 1 + rng.below(8) as u32).collect();
    let mut counts = vec![(0u64, 0u64); FLOWS as usize];
    let mut live: Vec<u32> = (0..FLOWS).collect();
    let mut frames = Vec::new();
    while !live.is_empty() {
        let i = rng.below(live.len() as u64) as usize;
        let f = live[i];
        let len = 54 + rng.below(200) as usize;
        left[f as usize] -= 1;
        let flags = if left[f as usize] > 0 {
            0x10 // ACK
        } else if f % 2 == 0 {
            0x11 // FIN + ACK
        } else {
            0x04 // RST
        };
        frames.push(packet(f, len, flags));
        counts[f as usize].0 += 1;
        counts[f as usize].1 += len as u64;
        if left[f as usize] == 0 {
            live.swap_remove(i);
        }
    }
    (frames, counts)
}

fn run_and_check(workers: &str) {
    let dir = scratch_dir(&format!("flowmon-{workers}"));
    let (frames, counts) = trace();
    let input = dir.join("in.pcap");
    write_pcap(&input, &frames);
    let (out1, out9) = (dir.join("out1.pcap"), dir.join("out9.pcap"));
    // --duration: the run lasts 3 s, so Reporter has time to report the last flows
    let out = Command::new(env!("CARGO_BIN_EXE_p4dp"))
        .arg("run")
        .arg(program())
        .args(["-D", "FLOW_TABLE_SIZE=8192", "--workers", workers, "--duration", "3"])
        .args(["--port", &format!("0={}:", input.display())])
        .args(["--port", &format!("1=:{}", out1.display())])
        .args(["--port", &format!("9=:{}", out9.display())])
        .output()
        .expect("run p4dp");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{text}");
    let mut fwd = read_pcap(&out1);
    let mut sent = frames.clone();
    // two workers may interleave their outputs differently: compare as multisets
    fwd.sort();
    sent.sort();
    assert!(
        fwd == sent,
        "port 1: {} of {} packets forwarded as they came\n{text}",
        fwd.len(),
        sent.len()
    );
    let mut by_flow: HashMap<(u32, u32, u16, u16), u32> = (0..FLOWS).map(|f| (tuple(f), f)).collect();
    let reports = read_pcap(&out9);
    for r in &reports {
        assert_eq!(r.len(), 14 + 28, "a report is Ethernet + 28 bytes: {r:02x?}");
        assert_eq!(&r[12..14], &[0x88, 0xb5]);
        let be32 = |o: usize| u32::from_be_bytes(r[o..o + 4].try_into().expect("4 bytes"));
        let be16 = |o: usize| u16::from_be_bytes(r[o..o + 2].try_into().expect("2 bytes"));
        let be64 = |o: usize| u64::from_be_bytes(r[o..o + 8].try_into().expect("8 bytes"));
        let key = (be32(14), be32(18), be16(22), be16(24));
        let f = by_flow
            .remove(&key)
            .unwrap_or_else(|| panic!("a report of an unknown flow or a second report: {key:x?}\n{text}"));
        assert_eq!(
            (be64(26), be64(34)),
            counts[f as usize],
            "flow {f}: (packets, bytes) reported against sent\n{text}"
        );
    }
    assert!(
        by_flow.is_empty(),
        "{} of {FLOWS} flows were not reported\n{text}",
        by_flow.len()
    );
}

#[test]
fn every_flow_is_reported_once_with_exact_counts_with_one_worker() {
    run_and_check("1");
}

#[test]
fn every_flow_is_reported_once_with_exact_counts_with_two_workers() {
    run_and_check("2");
}
