//! rtc.p4 background pipelines under P4Runtime: `p4dp serve` on pcap ports, examples/
//! rtc_flow_monitor.p4 pushed with SetForwardingPipelineConfig: its foreground forwards the
//! input's TCP packets to port 1 and its background pipeline Reporter sends one report per
//! finished flow (FIN) to the collector on port 9. Then tests/run/rtc_report_ticker.p4 is
//! pushed: a clean switch-over stops the old program's background threads (no more flow reports)
//! and starts the new one's (its Ticker's ticks on port 3, its Reporter's reports on port 2).

mod p4rt_common;

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use p4dp_p4runtime::proto::p4::config::v1::P4Info;
use p4rt_common::*;
use tonic::Code;

const SEC: Duration = Duration::from_secs(1);
const FLOWS: u16 = 3;
const PER_FLOW: u16 = 4;

/// An Ethernet + IPv4 + TCP frame of flow `f` (source port 1000 + f), FIN on its last packet.
fn tcp(f: u16, fin: bool) -> Vec<u8> {
    let mut p = vec![0x02, 0, 0, 0, 0, 0x02, 0x02, 0, 0, 0, 0, 0x01, 0x08, 0x00];
    // IPv4: 20 bytes, total length 40, protocol TCP
    p.extend([0x45, 0, 0, 40, 0, 0, 0, 0, 64, 6, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2]);
    // TCP: ports, seq, ack, data offset 5, flags, window, checksum, urgent
    p.extend((1000 + f).to_be_bytes());
    p.extend(80u16.to_be_bytes());
    p.extend([0; 8]);
    p.extend([0x50, if fin { 0x11 } else { 0x10 }, 0x10, 0, 0, 0, 0, 0]);
    p.resize(60, 0);
    p
}

fn input() -> Vec<Vec<u8>> {
    let mut v = vec![];
    for i in 0..PER_FLOW {
        for f in 0..FLOWS {
            v.push(tcp(f, i == PER_FLOW - 1));
        }
    }
    v
}

/// `p4dp build` of `path` into `dir`: (P4Info, device config).
fn build_path(path: &Path, dir: &Path) -> (P4Info, Vec<u8>) {
    let st = Command::new(env!("CARGO_BIN_EXE_p4dp"))
        .arg("build")
        .arg(path)
        .arg("-o")
        .arg(dir)
        .status()
        .expect("run p4dp build");
    assert!(st.success(), "p4dp build {} failed", path.display());
    let stem = path.file_stem().unwrap().to_str().unwrap();
    let text = std::fs::read_to_string(dir.join(format!("{stem}.p4info.txtpb"))).expect("p4info");
    (
        p4dp_p4runtime::p4info::parse_text(&text).expect("P4Info parses"),
        std::fs::read(dir.join(format!("{stem}.device.bin"))).expect("device config"),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn background_pipelines_run_under_p4runtime_and_stop_at_a_switch_over() {
    let dir = temp_dir("p4rt-bg");
    let (mon_info, mon_dc) = build_path(&root().join("examples/rtc_flow_monitor.p4"), &dir);
    let (tick_info, tick_dc) = build_path(&root().join("tests/run/rtc_report_ticker.p4"), &dir);
    let inp = dir.join("in0.pcap");
    p4dp_testutil::pcap::write(&inp, &input());
    let out = |n: u32| dir.join(format!("out{n}.pcap"));
    let mut args = vec!["--port".to_string(), format!("0={}:", inp.display())];
    for n in [1u32, 2, 3, 9] {
        args.push("--port".into());
        args.push(format!("{n}=:{}", out(n).display()));
    }
    let sw = start(&args);
    let mut c = connect(&sw.addr).await;
    let _primary = Stream::open(&mut c, 10, Code::Ok).await;

    // the flow monitor: every packet forwarded, one report per flow on the collector port
    push(&mut c, 10, &mon_info, &mon_dc).await;
    let n_in = (FLOWS * PER_FLOW) as usize;
    wait_pcap(&out(1), 20 * SEC, |f| f.len() >= n_in);
    let reports = wait_pcap(&out(9), 20 * SEC, |f| f.len() >= FLOWS as usize);
    std::thread::sleep(Duration::from_millis(300));
    let reports_then = p4dp_testutil::pcap::written(&out(9));
    assert_eq!(
        reports_then.len(),
        FLOWS as usize,
        "one report per flow: {reports:02x?}"
    );
    let mut ports: Vec<u16> = reports_then
        .iter()
        .map(|r| {
            assert_eq!(&r[12..14], &[0x88, 0xb5], "a report");
            // report: src, dst, sport, dport, packets (64), bytes (64)
            let packets = u64::from_be_bytes(r[26..34].try_into().unwrap());
            let bytes = u64::from_be_bytes(r[34..42].try_into().unwrap());
            assert_eq!((packets, bytes), (PER_FLOW as u64, PER_FLOW as u64 * 60), "{r:02x?}");
            u16::from_be_bytes([r[22], r[23]])
        })
        .collect();
    ports.sort();
    assert_eq!(ports, (0..FLOWS).map(|f| 1000 + f).collect::<Vec<_>>());

    // switch-over to the ticker: the monitor's background threads are gone (no new report on
    // port 9 although the input is replayed), the ticker's run (ticks on port 3, one report per
    // input packet on port 2)
    push(&mut c, 10, &tick_info, &tick_dc).await;
    wait_pcap(&out(2), 20 * SEC, |f| f.len() >= n_in);
    let ticks = wait_pcap(&out(3), 20 * SEC, |f| f.len() >= 3);
    assert!(ticks.len() >= 3);
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(
        p4dp_testutil::pcap::written(&out(2)).len(),
        n_in,
        "one ticker report per packet"
    );
    // each pipeline attaches the pcap ports anew, which starts their output files anew: the
    // collector's file may be empty now, but it must hold no flow report the monitor had not
    // sent before the switch-over
    let after = p4dp_testutil::pcap::written(&out(9));
    assert!(
        after.iter().all(|f| reports_then.contains(f)),
        "no flow report after the switch-over: {after:02x?}"
    );
    // the switch still answers: the ticker keeps ticking
    let n = p4dp_testutil::pcap::written(&out(3)).len();
    wait_pcap(&out(3), 10 * SEC, |f| f.len() > n);
    drop(sw);
    let _ = std::fs::remove_dir_all(&dir);
}
