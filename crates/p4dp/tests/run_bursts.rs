//! `p4dp run` on pcap ports, where the worker hands the program whole bursts (`process_burst`):
//! behaviour that the STF runner (one packet per call) cannot show.

use std::path::{Path, PathBuf};
use std::process::Command;

fn scratch() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("p4dp-run-bursts-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

/// A pcap (microsecond timestamps, Ethernet) holding `frames`.
fn write_pcap(path: &Path, frames: &[Vec<u8>]) {
    let mut b = Vec::new();
    for v in [
        0xa1b2_c3d4u32.to_le_bytes().to_vec(),
        2u16.to_le_bytes().to_vec(),
        4u16.to_le_bytes().to_vec(),
    ] {
        b.extend(v);
    }
    for v in [0u32, 0, 65535, 1] {
        b.extend(v.to_le_bytes());
    }
    for (i, f) in frames.iter().enumerate() {
        for v in [1u32, i as u32, f.len() as u32, f.len() as u32] {
            b.extend(v.to_le_bytes());
        }
        b.extend(f);
    }
    std::fs::write(path, b).expect("write pcap");
}

/// The row of port `port` in `p4dp run`'s statistics: rx pkts, rx bytes, tx pkts, tx bytes, drops.
fn port_row(out: &str, port: u32) -> Vec<u64> {
    out.lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .find(|w| w.len() == 6 && w[0] == port.to_string())
        .unwrap_or_else(|| panic!("no statistics row for port {port} in:\n{out}"))[1..]
        .iter()
        .map(|x| x.parse().expect("number"))
        .collect()
}

/// PNA add-on-miss, "never miss twice" inside one burst: tests/programs/pna_add_on_miss.p4
/// sends a flow's first packet (it misses and inserts the flow) to port 1 and every later packet
/// (a hit) to port 2. All 10 packets arrive in one rx burst, so the burst path's staged lookup
/// (made for the whole burst before the first packet ran) misses for every packet of a new flow;
/// only a fresh lookup after an earlier packet's insert finds the entry.
#[test]
fn add_on_miss_never_misses_twice_in_one_burst() {
    let dir = scratch();
    let flows = [7u32, 7, 7, 8, 7, 8, 9, 9, 9, 9];
    let frames: Vec<Vec<u8>> = flows
        .iter()
        .map(|f| {
            let mut p = vec![0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 2, 0x88, 0xb5];
            p.extend(f.to_be_bytes());
            p.resize(60, 0);
            p
        })
        .collect();
    let input = dir.join("in.pcap");
    write_pcap(&input, &frames);
    let prog = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/programs/pna_add_on_miss.p4");
    let port = |n: u32| format!("{n}=:{}", dir.join(format!("out{n}.pcap")).display());
    let out = Command::new(env!("CARGO_BIN_EXE_p4dp"))
        .arg("run")
        .arg(&prog)
        .args(["--port", &format!("0={}:", input.display())])
        .args(["--port", &port(1), "--port", &port(2)])
        .output()
        .expect("run p4dp");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "p4dp run failed:\n{text}");
    assert_eq!(port_row(&text, 0)[0], 10, "received\n{text}");
    // one miss (insert) per distinct flow, every other packet a hit
    assert_eq!(
        port_row(&text, 1)[2],
        3,
        "first packets of flows 7, 8, 9 on port 1\n{text}"
    );
    assert_eq!(port_row(&text, 2)[2], 7, "later packets on port 2\n{text}");
    let _ = std::fs::remove_dir_all(&dir);
}
