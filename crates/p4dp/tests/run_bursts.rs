//! `p4dp run` on pcap ports, where the worker hands the program whole bursts (`process_burst`,
//! `process_mbufs`) and sorts their packets into tx buffers: behaviour that the STF runner (one
//! packet per call) cannot show.

use std::path::Path;
use std::process::Command;

use p4dp_testutil::pcap::{read as read_pcap, write as write_pcap};
use p4dp_testutil::scratch_dir;

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

/// `p4dp run prog` with `frames` in on port 0 (dir/in.pcap) and ports 1, 2 and 3 writing
/// dir/out1.pcap, dir/out2.pcap and dir/out3.pcap; returns the run's output (statistics),
/// asserting success.
fn run_pcaps(dir: &Path, prog: &Path, frames: &[Vec<u8>]) -> String {
    run_pcaps_with(dir, prog, frames, &[], &[])
}

/// [`run_pcaps`] with more arguments `args` and environment variables `envs`.
fn run_pcaps_with(dir: &Path, prog: &Path, frames: &[Vec<u8>], args: &[&str], envs: &[(&str, &str)]) -> String {
    let input = dir.join("in.pcap");
    write_pcap(&input, frames);
    let port = |n: u32| format!("{n}=:{}", dir.join(format!("out{n}.pcap")).display());
    let out = Command::new(env!("CARGO_BIN_EXE_p4dp"))
        .arg("run")
        .arg(prog)
        .args(["--port", &format!("0={}:", input.display())])
        .args(["--port", &port(1), "--port", &port(2), "--port", &port(3)])
        .args(args)
        .envs(envs.iter().copied())
        .output()
        .expect("run p4dp");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "p4dp run failed:\n{text}");
    text
}

/// PNA add-on-miss, "never miss twice" inside one burst: tests/programs/pna_add_on_miss.p4
/// sends a flow's first packet (it misses and inserts the flow) to port 1 and every later packet
/// (a hit) to port 2. All 10 packets arrive in one rx burst, so the burst path's staged lookup
/// (made for the whole burst before the first packet ran) misses for every packet of a new flow;
/// only a fresh lookup after an earlier packet's insert finds the entry.
#[test]
fn add_on_miss_never_misses_twice_in_one_burst() {
    let dir = scratch_dir("run-bursts");
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
    let prog = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/programs/pna_add_on_miss.p4");
    let text = run_pcaps(&dir, &prog, &frames);
    assert_eq!(port_row(&text, 0)[0], 10, "received\n{text}");
    // one miss (insert) per distinct flow, every other packet a hit
    assert_eq!(
        port_row(&text, 1)[2],
        3,
        "first packets of flows 7, 8, 9 on port 1\n{text}"
    );
    assert_eq!(port_row(&text, 2)[2], 7, "later packets on port 2\n{text}");
    // the bytes of a mixed burst (burst_out sums them per run of one port)
    assert_eq!(
        (port_row(&text, 1)[3], port_row(&text, 2)[3]),
        (3 * 60, 7 * 60),
        "tx bytes\n{text}"
    );
    assert_eq!(port_row(&text, 0)[1], 10 * 60, "rx bytes\n{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Later staged tables in whole bursts: tests/programs/staged_later_tables.p4 (its STF's entries)
/// on 24 packets of four kinds in one rx burst, with every later table staged
/// (`P4DP_STAGE_AHEAD_MIN=0`: process_mbufs' pre-pass builds four more keys per packet and looks
/// each table up in bulk) and with none staged (the default threshold, which these small tables
/// are below). Both must give every packet the output one packet at a time gives it (the STF's
/// expectations): two kinds have keys their first table's action rewrites, so a staged entry
/// reused for them would show.
#[test]
fn later_staged_tables_in_one_burst_match_packet_by_packet() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let prog = root.join("tests/programs/staged_later_tables.p4");
    let stf = std::fs::read_to_string(root.join("tests/programs/staged_later_tables.stf")).expect("stf");
    let dir = scratch_dir("run-burst-later");
    let entries = dir.join("entries.txt");
    let adds: String = stf
        .lines()
        .filter(|l| l.starts_with("add "))
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(&entries, adds).expect("entries");
    let hex = |s: &str| -> Vec<u8> {
        let s: String = s.split_whitespace().collect();
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex"))
            .collect()
    };
    // (packet, expected output) of each kind, as the STF gives them; padded to 60 bytes
    let kinds: Vec<(Vec<u8>, Vec<u8>)> = [
        (
            "01 000000a1 0a000001 0c0c 00 00 00 00",
            "01 000000a2 0a000001 0c0c 22 33 44 00",
        ),
        (
            "02 000000a1 0a000001 0c0c 00 00 00 00",
            "02 000000a2 0a000001 0c0c 22 33 45 55",
        ),
        (
            "03 000000a1 0b000001 0c0c 00 00 00 00",
            "03 000000a1 0b000001 0c0c 11 ee 46 00",
        ),
        (
            "04 000000a3 0b000001 0c0c 00 00 00 00",
            "04 000000a3 0b000001 0c0c ee ee ee 00",
        ),
    ]
    .iter()
    .map(|(i, o)| {
        let (mut i, mut o) = (hex(i), hex(o));
        i.resize(60, 0x5a);
        o.resize(60, 0x5a);
        (i, o)
    })
    .collect();
    let order = [
        0usize, 1, 2, 3, 3, 2, 1, 0, 1, 1, 2, 0, 3, 0, 2, 1, 0, 3, 3, 1, 2, 2, 0, 1,
    ];
    let frames: Vec<Vec<u8>> = order.iter().map(|&k| kinds[k].0.clone()).collect();
    let expected: Vec<Vec<u8>> = order.iter().map(|&k| kinds[k].1.clone()).collect();
    let e = entries.display().to_string();
    for min in ["0", ""] {
        let envs: &[(&str, &str)] = if min.is_empty() {
            &[]
        } else {
            &[("P4DP_STAGE_AHEAD_MIN", min)]
        };
        let text = run_pcaps_with(&dir, &prog, &frames, &["--table-entries", &e], envs);
        assert_eq!(
            port_row(&text, 1)[2],
            order.len() as u64,
            "all on port 1 (P4DP_STAGE_AHEAD_MIN={min})\n{text}"
        );
        let got = read_pcap(&dir.join("out1.pcap"));
        assert_eq!(got.len(), expected.len(), "P4DP_STAGE_AHEAD_MIN={min}");
        for (i, (g, x)) in got.iter().zip(&expected).enumerate() {
            assert_eq!(
                g,
                x,
                "packet {i} (kind {}), P4DP_STAGE_AHEAD_MIN={min}\n{text}",
                order[i] + 1
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// PNA: an add-on-miss table staged first and two later staged tables, in one burst:
/// tests/programs/pna_staged_later_tables.p4 on 12 packets of two new flows. Each flow's first
/// packet learns it (port 1); every later packet of the flow, in the same burst, must hit the
/// entry the first one added (the staged miss is stale) and then look `by_tag` up again with the
/// tag the hit rewrote (port 2). Checked with every later table staged and with none.
#[test]
fn pna_later_staged_tables_after_add_on_miss_in_one_burst() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let prog = root.join("tests/programs/pna_staged_later_tables.p4");
    let stf = std::fs::read_to_string(root.join("tests/programs/pna_staged_later_tables.stf")).expect("stf");
    let dir = scratch_dir("run-burst-pna-later");
    let entries = dir.join("entries.txt");
    let adds: String = stf
        .lines()
        .filter(|l| l.starts_with("add "))
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(&entries, adds).expect("entries");
    let frame = |flow: &[u8]| {
        let mut p = vec![0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 2, 0x88, 0xb5];
        p.extend_from_slice(flow);
        p.resize(60, 0x5a);
        p
    };
    // per flow: its packet, its first packet's output (port 1), a later packet's (port 2)
    let a = (
        frame(&[1, 2, 3, 4, 0, 0, 0, 0, 0]),
        frame(&[1, 2, 3, 4, 0, 0, 1, 0x22, 0x33]),
        frame(&[1, 2, 3, 4, 0xfc, 0xfb, 0xaa, 0x11, 0x33]),
    );
    let b = (
        frame(&[0x0a, 0x0b, 0x0c, 0x0d, 0x12, 0x34, 0, 0, 0]),
        frame(&[0x0a, 0x0b, 0x0c, 0x0d, 0x12, 0x34, 1, 0xee, 0xee]),
        frame(&[0x0a, 0x0b, 0x0c, 0x0d, 0xf3, 0xf2, 0xaa, 0xee, 0xee]),
    );
    let order = "AABABBAABBAB";
    let frames: Vec<Vec<u8>> = order
        .chars()
        .map(|c| if c == 'A' { a.0.clone() } else { b.0.clone() })
        .collect();
    let e = entries.display().to_string();
    for min in ["0", ""] {
        let envs: &[(&str, &str)] = if min.is_empty() {
            &[]
        } else {
            &[("P4DP_STAGE_AHEAD_MIN", min)]
        };
        let text = run_pcaps_with(&dir, &prog, &frames, &["--table-entries", &e], envs);
        assert_eq!(
            read_pcap(&dir.join("out1.pcap")),
            vec![a.1.clone(), b.1.clone()],
            "first packets (P4DP_STAGE_AHEAD_MIN={min})\n{text}"
        );
        // every packet but the first of its flow, in order
        let want: Vec<Vec<u8>> = order
            .char_indices()
            .filter(|&(i, c)| order.find(c) != Some(i))
            .map(|(_, c)| if c == 'A' { a.2.clone() } else { b.2.clone() })
            .collect();
        assert_eq!(want.len(), order.len() - 2);
        assert_eq!(
            read_pcap(&dir.join("out2.pcap")),
            want,
            "later packets (P4DP_STAGE_AHEAD_MIN={min})\n{text}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The same program (a staged table: process_mbufs' pre-pass and bulk lookup) with ten new flows:
/// every packet misses and goes to port 1, so the burst takes the one-port path with the byte
/// total process_mbufs summed.
#[test]
fn staged_process_mbufs_sends_a_one_port_burst_with_its_bytes() {
    let dir = scratch_dir("run-burst-one");
    let frames: Vec<Vec<u8>> = (1..=10u32)
        .map(|f| {
            let mut p = vec![0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 2, 0x88, 0xb5];
            p.extend(f.to_be_bytes());
            p.resize(60 + f as usize, 0);
            p
        })
        .collect();
    let prog = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/programs/pna_add_on_miss.p4");
    let text = run_pcaps(&dir, &prog, &frames);
    let bytes: u64 = frames.iter().map(|f| f.len() as u64).sum();
    assert_eq!(port_row(&text, 0)[..2], [10, bytes], "rx\n{text}");
    assert_eq!(port_row(&text, 1)[2..4], [10, bytes], "all on port 1\n{text}");
    assert_eq!(port_row(&text, 2)[2], 0, "nothing on port 2\n{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A program without tables (no staged lookup), so workers run it through `process_mbufs`
/// (abi.h). It pushes a 4-byte tag onto IPv4 frames (port 1), pops the tag of tagged frames (port
/// 2) and drops the rest: one burst holds packets for two ports and a drop, and every forwarded
/// mbuf changes length (p4dp_mbuf_done writes it back).
const TAGGER: &str = r#"
#include <core.p4>
#include <v1model.p4>
header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
header tag_t { bit<16> vid; bit<16> type; }
struct h_t { eth_t eth; tag_t tag; }
struct m_t { }
parser P(packet_in pk, out h_t h, inout m_t m, inout standard_metadata_t sm) {
    state start { pk.extract(h.eth); transition select(h.eth.type) { 0x8100: tag; default: accept; } }
    state tag { pk.extract(h.tag); transition accept; }
}
control V(inout h_t h, inout m_t m) { apply { } }
control I(inout h_t h, inout m_t m, inout standard_metadata_t sm) {
    apply {
        if (h.eth.type == 0x0800) {
            sm.egress_spec = 1;
            h.tag.setValid();
            h.tag.vid = 0x0abc;
            h.tag.type = h.eth.type;
            h.eth.type = 0x8100;
        } else if (h.tag.isValid()) {
            sm.egress_spec = 2;
            h.eth.type = h.tag.type;
            h.tag.setInvalid();
        } else {
            mark_to_drop(sm);
        }
    }
}
control E(inout h_t h, inout m_t m, inout standard_metadata_t sm) { apply { } }
control C(inout h_t h, inout m_t m) { apply { } }
control D(packet_out pk, in h_t h) { apply { pk.emit(h.eth); pk.emit(h.tag); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
"#;

/// `p4dp run` of TAGGER on `frames` (port 0 in, ports 1 and 2 out): the frames out of ports 1
/// and 2, and the run's statistics text.
fn run_tagger(dir: &Path, frames: &[Vec<u8>]) -> (Vec<Vec<u8>>, Vec<Vec<u8>>, String) {
    let prog = dir.join("tagger.p4");
    std::fs::write(&prog, TAGGER).unwrap();
    let built = dir.join("build");
    let b = Command::new(env!("CARGO_BIN_EXE_p4dp"))
        .args(["build", prog.to_str().unwrap(), "-o", built.to_str().unwrap()])
        .output()
        .expect("run p4dp build");
    assert!(b.status.success(), "build: {}", String::from_utf8_lossy(&b.stderr));
    let c = std::fs::read_to_string(built.join("tagger.c")).unwrap();
    assert!(
        c.contains(".process_mbufs = P4DP_PROCESS_MBUFS"),
        "the program must take process_mbufs"
    );
    let text = run_pcaps(dir, &prog, frames);
    (
        read_pcap(&dir.join("out1.pcap")),
        read_pcap(&dir.join("out2.pcap")),
        text,
    )
}

/// Frame `i` of a test: Ethernet type `ty`, then (tagged) a tag with inner type 0x86dd, then a
/// payload byte pattern that identifies the frame.
fn frame(i: u8, ty: u16) -> Vec<u8> {
    let mut f = vec![0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 1];
    f.extend(ty.to_be_bytes());
    if ty == 0x8100 {
        f.extend([0, 7, 0x86, 0xdd]);
    }
    while f.len() < 60 {
        f.push(i.wrapping_mul(31).wrapping_add(f.len() as u8));
    }
    f
}

#[test]
fn process_mbufs_sends_a_mixed_burst_to_its_ports_with_new_lengths() {
    let dir = scratch_dir("run-mbufs-mixed");
    let types = [
        0x0800u16, 0x8100, 0x1234, 0x0800, 0x0800, 0x8100, 0x1234, 0x8100, 0x0800, 0x8100, 0x8100, 0x0800,
    ];
    let frames: Vec<Vec<u8>> = types.iter().enumerate().map(|(i, t)| frame(i as u8, *t)).collect();
    let (o1, o2, text) = run_tagger(&dir, &frames);
    let want1: Vec<Vec<u8>> = frames
        .iter()
        .filter(|f| f[12..14] == [0x08, 0x00])
        .map(|f| [&f[..12], &[0x81, 0x00, 0x0a, 0xbc, 0x08, 0x00][..], &f[14..]].concat())
        .collect();
    let want2: Vec<Vec<u8>> = frames
        .iter()
        .filter(|f| f[12..14] == [0x81, 0x00])
        .map(|f| [&f[..12], &[0x86, 0xdd][..], &f[18..]].concat())
        .collect();
    assert_eq!(o1, want1, "port 1: IPv4 frames, tagged (64 bytes), in order\n{text}");
    assert_eq!(
        o2, want2,
        "port 2: tagged frames, untagged (56 bytes), in order\n{text}"
    );
    assert_eq!(port_row(&text, 0)[..2], [12, 12 * 60], "received\n{text}");
    assert_eq!(port_row(&text, 0)[4], 2, "dropped on port 0 (type 0x1234)\n{text}");
    assert_eq!(
        port_row(&text, 1)[3],
        5 * 64,
        "tx bytes of port 1 count the new length\n{text}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn process_mbufs_sends_a_one_port_burst_with_new_lengths() {
    let dir = scratch_dir("run-mbufs-one");
    let frames: Vec<Vec<u8>> = (0..20u8).map(|i| frame(i, 0x0800)).collect();
    let (o1, o2, text) = run_tagger(&dir, &frames);
    assert_eq!(o1.len(), 20, "all on port 1\n{text}");
    assert!(o2.is_empty(), "nothing on port 2\n{text}");
    for (f, o) in frames.iter().zip(&o1) {
        assert_eq!(
            o[..],
            [&f[..12], &[0x81, 0x00, 0x0a, 0xbc, 0x08, 0x00][..], &f[14..]].concat()[..]
        );
    }
    assert_eq!(port_row(&text, 1)[3], 20 * 64, "tx bytes\n{text}");
    assert_eq!(port_row(&text, 0)[..2], [20, 20 * 60], "rx packets and bytes\n{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A burst whose packets go to ports 1 and 2 only, none dropped: the outputs' bits ORed are 3,
/// also a port of the run, so a wrong "all to one port" verdict would show on port 3.
#[test]
fn process_mbufs_sends_a_two_port_burst_to_both_ports() {
    let dir = scratch_dir("run-mbufs-two");
    let frames: Vec<Vec<u8>> = (0..10u8)
        .map(|i| frame(i, if i % 3 == 0 { 0x8100 } else { 0x0800 }))
        .collect();
    let (o1, o2, text) = run_tagger(&dir, &frames);
    assert_eq!((o1.len(), o2.len()), (6, 4), "ports 1 and 2\n{text}");
    assert_eq!(port_row(&text, 1)[2..4], [6, 6 * 64], "port 1 tx\n{text}");
    assert_eq!(port_row(&text, 2)[2..4], [4, 4 * 56], "port 2 tx\n{text}");
    assert_eq!(port_row(&text, 3)[2], 0, "nothing on port 3\n{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A frame too large for one mbuf (net_pcap chains it) in the middle of a burst: process_mbufs
/// skips it (the program runs on single-segment mbufs only), the runtime drops and counts it, and
/// the frames around it go out as usual.
#[test]
fn process_mbufs_skips_a_multi_segment_mbuf() {
    let dir = scratch_dir("run-mbufs-multiseg");
    let mut big = frame(1, 0x0800);
    big.resize(5000, 0x5a);
    let frames = vec![frame(0, 0x0800), big, frame(2, 0x0800)];
    let (o1, o2, text) = run_tagger(&dir, &frames);
    let tagged = |f: &Vec<u8>| [&f[..12], &[0x81, 0x00, 0x0a, 0xbc, 0x08, 0x00][..], &f[14..]].concat();
    assert_eq!(o1, vec![tagged(&frames[0]), tagged(&frames[2])], "port 1\n{text}");
    assert!(o2.is_empty(), "nothing on port 2\n{text}");
    assert_eq!(
        port_row(&text, 0)[..2],
        [3, 60 + 5000 + 60],
        "rx counts the large frame\n{text}"
    );
    assert_eq!(port_row(&text, 1)[2..4], [2, 2 * 64], "tx\n{text}");
    assert!(
        text.contains("packets larger than one mbuf (multi-segment, over 4096 bytes), dropped unprocessed: 1"),
        "the large frame is counted\n{text}"
    );
    assert!(text.contains("2 packets processed"), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}
