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
    let n_before = p4dp_testutil::pcap::written(&out0).len();
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
        p4dp_testutil::pcap::written(&out0).len(),
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

fn digest_entry(id: u32, cfg: Option<(i64, i32, i64)>) -> entity::Entity {
    entity::Entity::DigestEntry(DigestEntry {
        digest_id: id,
        config: cfg.map(|(t, n, a)| digest_entry::Config {
            max_timeout_ns: t,
            max_list_size: n,
            ack_timeout_ns: a,
        }),
    })
}

/// The (src MAC, ingress port) pairs of a learn_t DigestList.
fn learned(d: &DigestList) -> Vec<(Vec<u8>, Vec<u8>)> {
    d.data
        .iter()
        .map(|x| match &x.data {
            Some(p4_data::Data::Struct(s)) => match (&s.members[0].data, &s.members[1].data) {
                (Some(p4_data::Data::Bitstring(a)), Some(p4_data::Data::Bitstring(b))) => (a.clone(), b.clone()),
                other => panic!("members {other:?}"),
            },
            other => panic!("not a struct: {other:?}"),
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn digest_lists_with_timeouts_sizes_acks_and_deduplication() {
    let dir = temp_dir("p4rt-digest");
    let (info, dc) = build("stream", &dir);
    p4dp_testutil::pcap::write(&dir.join("in0.pcap"), &[frame(UNKNOWN, HOST_A, 1)]);
    let sw = start(&[
        "--port".into(),
        format!(
            "0={}:{}",
            dir.join("in0.pcap").display(),
            dir.join("out0.pcap").display()
        ),
    ]);
    let mut c = connect(&sw.addr).await;
    let mut s = Stream::open(&mut c, 10, Code::Ok).await;
    let mut backup = Stream::open(&mut c, 5, Code::AlreadyExists).await;
    push(&mut c, 10, &info, &dc).await;
    let learn = id_of(&info, "learn_t");
    // each PacketOut is learned (smac misses): the digest carries its source MAC and port 255
    let from = |mac: [u8; 6]| packet_out(frame(HOST_B, mac, 7), vec![md(1, &[0])]);
    let port255 = vec![0xff];

    // not configured: the input frame's digest was discarded, none arrives
    assert!(s.digest(SEC).await.is_none(), "no DigestList before a DigestEntry");
    // configuration errors
    let ins = |cfg| update(update::Type::Insert, digest_entry(learn, cfg));
    assert_eq!(
        one_code(write(&mut c, 10, vec![ins(None)]).await),
        Code::InvalidArgument
    );
    assert_eq!(
        one_code(write(&mut c, 10, vec![ins(Some((-1, 0, 0)))]).await),
        Code::InvalidArgument
    );
    assert_eq!(
        one_code(
            write(
                &mut c,
                10,
                vec![update(update::Type::Modify, digest_entry(learn, Some((0, 1, 0))))]
            )
            .await
        ),
        Code::NotFound,
        "MODIFY of a digest not configured"
    );
    assert_eq!(
        one_code(
            write(
                &mut c,
                10,
                vec![update(update::Type::Insert, digest_entry(77, Some((0, 1, 0))))]
            )
            .await
        ),
        Code::NotFound,
        "unknown digest id"
    );
    // lists after 300 ms, de-duplicated until acknowledged (ack timeout: one hour)
    let hour = 3_600_000_000_000;
    write(&mut c, 10, vec![ins(Some((300_000_000, 100, hour)))])
        .await
        .expect("INSERT");
    assert_eq!(
        one_code(write(&mut c, 10, vec![ins(Some((0, 1, 0)))]).await),
        Code::AlreadyExists
    );
    let got = read(&mut c, digest_entry(0, None)).await.expect("read");
    assert_eq!(
        got,
        vec![digest_entry(learn, Some((300_000_000, 100, hour)))],
        "read back as written"
    );

    let t0 = std::time::Instant::now();
    s.send(from(HOST_A)).await;
    s.send(from(HOST_A)).await;
    s.send(from(HOST_B)).await;
    let d = s.digest(10 * SEC).await.expect("a DigestList");
    assert!(t0.elapsed() >= Duration::from_millis(250), "sent after max_timeout_ns");
    assert_eq!(d.digest_id, learn);
    let mut l = learned(&d);
    l.sort();
    assert_eq!(
        l,
        vec![
            (HOST_A[..].to_vec(), port255.clone()),
            (HOST_B[..].to_vec(), port255.clone())
        ],
        "the repeated data is reported once"
    );
    assert!(
        backup.digest(SEC / 2).await.is_none(),
        "DigestLists go to the primary only"
    );
    s.send(from(HOST_A)).await;
    assert!(
        s.digest(SEC).await.is_none(),
        "data of an unacknowledged list is suppressed"
    );
    // acks: a backup's is refused, an unknown digest's is NOT_FOUND
    let ack = |digest_id, list_id| stream_message_request::Update::DigestAck(DigestListAck { digest_id, list_id });
    backup.send(ack(learn, d.list_id)).await;
    let e = backup.stream_error(5 * SEC).await.expect("StreamError");
    assert_eq!(Code::from(e.canonical_code), Code::PermissionDenied);
    s.send(ack(999, d.list_id)).await;
    let e = s.stream_error(5 * SEC).await.expect("StreamError");
    assert_eq!(Code::from(e.canonical_code), Code::NotFound);
    assert!(matches!(e.details, Some(stream_error::Details::DigestListAck(_))));
    s.send(ack(learn, d.list_id)).await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    s.send(from(HOST_A)).await;
    let d2 = s.digest(10 * SEC).await.expect("reported again after the ack");
    assert_eq!(learned(&d2), vec![(HOST_A[..].to_vec(), port255.clone())]);
    assert!(d2.list_id > d.list_id);

    // lists of one, sent without waiting for the (10 s) timeout; no de-duplication (ack timeout 0)
    write(
        &mut c,
        10,
        vec![update(
            update::Type::Modify,
            digest_entry(learn, Some((10_000_000_000, 1, 0))),
        )],
    )
    .await
    .expect("MODIFY");
    let t0 = std::time::Instant::now();
    for _ in 0..2 {
        s.send(from(HOST_A)).await;
    }
    for i in 0..2 {
        let d = s.digest(5 * SEC).await.unwrap_or_else(|| panic!("list {i} of one"));
        assert_eq!(learned(&d), vec![(HOST_A[..].to_vec(), port255.clone())]);
    }
    assert!(
        t0.elapsed() < Duration::from_secs(5),
        "full lists do not wait for the timeout"
    );

    // DELETE: no more lists
    write(
        &mut c,
        10,
        vec![update(update::Type::Delete, digest_entry(learn, None))],
    )
    .await
    .expect("DELETE");
    assert_eq!(
        one_code(
            write(
                &mut c,
                10,
                vec![update(update::Type::Delete, digest_entry(learn, None))]
            )
            .await
        ),
        Code::NotFound
    );
    s.send(from(HOST_B)).await;
    assert!(s.digest(SEC).await.is_none(), "no DigestList after DELETE");
    assert!(read(&mut c, digest_entry(0, None)).await.expect("read").is_empty());
    let _ = std::fs::remove_dir_all(&dir);
}
