//! P4Runtime StreamChannel through raw tonic stubs against `p4dp serve` on pcap ports: PacketIn
//! and PacketOut through the controller port, digests, idle-timeout notifications; each checked
//! with the packets on the ports.

mod p4rt_common;

use std::time::Duration;

use p4dp_p4runtime::proto::p4::v1::*;
use p4rt_common::*;
use tonic::Code;

const SEC: Duration = Duration::from_secs(1);
const HOST_A: [u8; 6] = [0x02, 0, 0, 0, 0, 0x0a];
const HOST_B: [u8; 6] = [0x02, 0, 0, 0, 0, 0x0b];
const UNKNOWN: [u8; 6] = [0x02, 0, 0, 0, 0, 0x99];

fn md(id: u32, v: &[u8]) -> PacketMetadata {
    PacketMetadata {
        metadata_id: id,
        value: v.to_vec(),
    }
}

fn packet_out(payload: Vec<u8>, metadata: Vec<PacketMetadata>) -> stream_message_request::Update {
    stream_message_request::Update::Packet(PacketOut { payload, metadata })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn packet_in_and_packet_out_through_the_controller_port() {
    let dir = temp_dir("p4rt-pktio");
    let (info, dc) = build("stream", &dir);
    // three frames to an unknown destination: the program sends them to the controller port
    let input: Vec<Vec<u8>> = (0..3).map(|i| frame(UNKNOWN, HOST_A, i)).collect();
    p4dp_testutil::pcap::write(&dir.join("in0.pcap"), &input);
    let out0 = dir.join("out0.pcap");
    let sw = start(&[
        "--port".into(),
        format!("0={}:{}", dir.join("in0.pcap").display(), out0.display()),
    ]);
    let mut c = connect(&sw.addr).await;
    let mut primary = Stream::open(&mut c, 10, Code::Ok).await;
    let mut backup = Stream::open(&mut c, 5, Code::AlreadyExists).await;
    push(&mut c, 10, &info, &dc).await;

    // PacketIn: the packet_in header's fields as metadata, the frame after it as payload
    for (i, f) in input.iter().enumerate() {
        let pi = primary
            .packet_in(10 * SEC)
            .await
            .unwrap_or_else(|| panic!("PacketIn {i}"));
        assert_eq!(&pi.payload, f, "PacketIn {i} payload");
        assert_eq!(pi.metadata, vec![md(1, &[0]), md(2, &[0])], "ingress_port 0, pad 0");
    }
    assert!(
        backup.packet_in(SEC).await.is_none(),
        "PacketIns go to the primary only"
    );

    // PacketOut: the packet_out header carries egress_port; the program sends the payload there
    let out = frame(HOST_B, HOST_A, 0x55);
    primary.send(packet_out(out.clone(), vec![md(1, &[0])])).await;
    let got = wait_pcap(&out0, 10 * SEC, |fs| fs.contains(&out));
    assert!(got.contains(&out), "the PacketOut's payload leaves port 0: {got:02x?}");
    assert!(
        primary.stream_error(SEC / 2).await.is_none(),
        "no error for good PacketOuts"
    );

    // bad PacketOuts: StreamError with the PacketOut in its details, nothing sent
    let n_before = p4dp_testutil::pcap::read(&out0).len();
    for (m, why) in [
        (vec![md(9, &[0])], "unknown metadata id"),
        (vec![md(1, &[0x02, 0x00])], "value wider than 9 bits"),
        (vec![md(1, &[0]), md(1, &[0])], "metadata given twice"),
    ] {
        primary.send(packet_out(out.clone(), m)).await;
        let e = primary
            .stream_error(5 * SEC)
            .await
            .unwrap_or_else(|| panic!("a StreamError: {why}"));
        assert_eq!(Code::from(e.canonical_code), Code::InvalidArgument, "{why}: {e:?}");
        match e.details {
            Some(stream_error::Details::PacketOut(p)) => {
                assert_eq!(p.packet_out.map(|p| p.payload), Some(out.clone()), "{why}")
            }
            other => panic!("{why}: details {other:?}"),
        }
    }
    primary.send(packet_out(vec![], vec![md(1, &[0])])).await;
    let e = primary.stream_error(5 * SEC).await.expect("empty payload");
    assert_eq!(Code::from(e.canonical_code), Code::InvalidArgument);
    // a backup may not send packets
    backup.send(packet_out(out.clone(), vec![md(1, &[0])])).await;
    let e = backup
        .stream_error(5 * SEC)
        .await
        .expect("a backup's PacketOut is refused");
    assert_eq!(Code::from(e.canonical_code), Code::PermissionDenied);
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(
        p4dp_testutil::pcap::read(&out0).len(),
        n_before,
        "rejected PacketOuts send nothing"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn packet_out_needs_a_controller_port() {
    let dir = temp_dir("p4rt-pktio-noport");
    let (info, dc) = build("stream", &dir);
    let sw = start(&[]); // no data ports: no data plane, no controller port
    let mut c = connect(&sw.addr).await;
    let mut s = Stream::open(&mut c, 1, Code::Ok).await;
    s.send(packet_out(frame(HOST_B, HOST_A, 1), vec![])).await;
    let e = s.stream_error(5 * SEC).await.expect("StreamError before a pipeline");
    assert_eq!(Code::from(e.canonical_code), Code::FailedPrecondition);
    push(&mut c, 1, &info, &dc).await;
    s.send(packet_out(frame(HOST_B, HOST_A, 1), vec![md(1, &[1])])).await;
    let e = s
        .stream_error(5 * SEC)
        .await
        .expect("StreamError without a controller port");
    assert_eq!(Code::from(e.canonical_code), Code::FailedPrecondition, "{e:?}");
    let _ = std::fs::remove_dir_all(&dir);
}
