//! P4Runtime clone sessions through raw tonic stubs against `p4dp serve` on pcap ports: several
//! replicas per session (each clone leaves its replica's port carrying its instance as
//! egress_rid), truncation, read-back of both replica port forms as written, the errors, and
//! a ROLLBACK_ON_ERROR batch that leaves the sessions (and the clones packets get) unchanged.

mod p4rt_common;

use std::time::Duration;

use p4dp_p4runtime::proto::p4::v1::*;
use p4rt_common::*;
use tonic::Code;

const SEC: Duration = Duration::from_secs(1);
const HOST_A: [u8; 6] = [0x02, 0, 0, 0, 0, 0x0a];
const HOST_B: [u8; 6] = [0x02, 0, 0, 0, 0, 0x0b];

#[allow(deprecated)]
fn rep_u32(port: u32, instance: u32) -> Replica {
    Replica {
        port_kind: Some(replica::PortKind::EgressPort(port)),
        instance,
        ..Default::default()
    }
}

fn rep_bytes(port: &[u8], instance: u32) -> Replica {
    Replica {
        port_kind: Some(replica::PortKind::Port(port.to_vec())),
        instance,
        ..Default::default()
    }
}

fn session(id: u32, replicas: Vec<Replica>, trunc: i32) -> CloneSessionEntry {
    CloneSessionEntry {
        session_id: id,
        replicas,
        class_of_service: 0,
        packet_length_bytes: trunc,
    }
}

fn pre(c: CloneSessionEntry) -> entity::Entity {
    entity::Entity::PacketReplicationEngineEntry(PacketReplicationEngineEntry {
        r#type: Some(packet_replication_engine_entry::Type::CloneSessionEntry(c)),
    })
}

fn md(id: u32, v: &[u8]) -> PacketMetadata {
    PacketMetadata {
        metadata_id: id,
        value: v.to_vec(),
    }
}

/// A PacketOut that the program sends to `port` and clones with `session` (0: no clone).
fn packet_out(payload: Vec<u8>, port: u8, session: u32) -> stream_message_request::Update {
    stream_message_request::Update::Packet(PacketOut {
        payload,
        metadata: vec![md(1, &[port]), md(2, &[0]), md(3, &session.to_be_bytes())],
    })
}

/// The clone of `f` the program sends: its Ethernet type is the replica's instance.
fn clone_of(f: &[u8], instance: u16, len: usize) -> Vec<u8> {
    let mut c = f.to_vec();
    c[12..14].copy_from_slice(&instance.to_be_bytes());
    c.truncate(len);
    c
}

impl Ports {
    /// Sends `f` out of `s` (to port 0, cloned with `session`) and waits until every port has
    /// received `want[port]` more frames; returns those new frames per port.
    async fn send(&self, s: &Stream, f: &[u8], session: u32, want: [usize; 3]) -> Vec<Vec<Vec<u8>>> {
        let before = self.counts();
        s.send(packet_out(f.to_vec(), 0, session)).await;
        let mut got = vec![];
        for (i, p) in self.out.iter().enumerate() {
            let n = before[i] + want[i];
            let frames = wait_pcap(p, 10 * SEC, |fs| fs.len() >= n);
            got.push(frames[before[i].min(frames.len())..].to_vec());
        }
        // nothing more arrives late
        std::thread::sleep(Duration::from_millis(300));
        let after = self.counts();
        for i in 0..3 {
            assert_eq!(after[i] - before[i], want[i], "frames on port {i}: {got:02x?}");
        }
        got
    }
}

async fn read_sessions(
    c: &mut p4dp_p4runtime::proto::p4::v1::p4_runtime_client::P4RuntimeClient<tonic::transport::Channel>,
    id: u32,
) -> Vec<CloneSessionEntry> {
    read(c, pre(session(id, vec![], 0)))
        .await
        .expect("read clone sessions")
        .into_iter()
        .map(|e| match e {
            entity::Entity::PacketReplicationEngineEntry(PacketReplicationEngineEntry {
                r#type: Some(packet_replication_engine_entry::Type::CloneSessionEntry(c)),
            }) => c,
            other => panic!("not a clone session: {other:?}"),
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clone_sessions_with_several_replicas_truncation_read_back_and_rollback() {
    let dir = temp_dir("p4rt-clone");
    let (info, dc) = build("clone", &dir);
    let (sw, ports) = start_on_three_ports(&dir);
    let mut c = connect(&sw.addr).await;
    let primary = Stream::open(&mut c, 10, Code::Ok).await;
    push(&mut c, 10, &info, &dc).await;
    let ins = |e| update(update::Type::Insert, e);

    // clone session id 5: three replicas, in both port forms; clone session id 6: one replica, truncated
    let s5 = session(5, vec![rep_u32(1, 7), rep_bytes(&[2], 8), rep_bytes(&[0], 9)], 0);
    let s6 = session(6, vec![rep_u32(1, 3)], 20);
    write(&mut c, 10, vec![ins(pre(s5.clone())), ins(pre(s6.clone()))])
        .await
        .expect("insert two clone sessions");

    // without a session the packet only goes to port 0
    let f = frame(HOST_B, HOST_A, 1);
    let got = ports.send(&primary, &f, 0, [1, 0, 0]).await;
    assert_eq!(got[0], vec![f.clone()]);

    // clone session id 5: a clone on each replica's port with its instance, the packet itself on port 0
    let f = frame(HOST_B, HOST_A, 2);
    let got = ports.send(&primary, &f, 5, [2, 1, 1]).await;
    let mut on0 = got[0].clone();
    on0.sort();
    let mut want0 = vec![f.clone(), clone_of(&f, 9, 64)];
    want0.sort();
    assert_eq!(on0, want0, "port 0: the packet and the clone of instance 9");
    assert_eq!(got[1], vec![clone_of(&f, 7, 64)], "port 1: the clone of instance 7");
    assert_eq!(got[2], vec![clone_of(&f, 8, 64)], "port 2: the clone of instance 8");

    // clone session id 6: the clone truncated to 20 bytes
    let f = frame(HOST_B, HOST_A, 3);
    let got = ports.send(&primary, &f, 6, [1, 1, 0]).await;
    assert_eq!(got[0], vec![f.clone()]);
    assert_eq!(got[1], vec![clone_of(&f, 3, 20)], "port 1: the clone truncated");

    // read back as written: all sessions, and one
    assert_eq!(read_sessions(&mut c, 0).await, vec![s5.clone(), s6.clone()]);
    assert_eq!(read_sessions(&mut c, 6).await, vec![s6.clone()]);

    // errors, each leaving the sessions unchanged
    let too_many = session(7, (0..65).map(|i| rep_u32(i % 3, i)).collect(), 0);
    let mut cos = session(7, vec![rep_u32(1, 1)], 0);
    cos.class_of_service = 8;
    for (e, code, why) in [
        (
            ins(pre(s5.clone())),
            Code::AlreadyExists,
            "insert of an existing session",
        ),
        (ins(pre(too_many)), Code::ResourceExhausted, "65 replicas"),
        (ins(pre(cos)), Code::InvalidArgument, "class_of_service 8 (3 bits)"),
        (
            ins(pre(session(7, vec![rep_u32(1, 1), rep_bytes(&[1], 1)], 0))),
            Code::InvalidArgument,
            "the same replica twice",
        ),
        (
            ins(pre(session(7, vec![rep_u32(1, 70000)], 0))),
            Code::InvalidArgument,
            "instance over 16 bits",
        ),
        (
            ins(pre(session(7, vec![rep_bytes(&[2, 0x58], 1)], 0))),
            Code::InvalidArgument,
            "port 600",
        ),
        (
            ins(pre(session(7, vec![rep_u32(1, 1)], -1))),
            Code::InvalidArgument,
            "negative length",
        ),
        (
            update(update::Type::Modify, pre(session(8, vec![rep_u32(1, 1)], 0))),
            Code::NotFound,
            "modify of a missing session",
        ),
    ] {
        assert_eq!(one_code(write(&mut c, 10, vec![e]).await), code, "{why}");
    }
    assert_eq!(read_sessions(&mut c, 0).await, vec![s5.clone(), s6.clone()]);

    // ROLLBACK_ON_ERROR: a modify, a delete and an insert, then a bad update: nothing changes
    let r = c
        .write(WriteRequest {
            device_id: DEVICE,
            election_id: eid(10),
            updates: vec![
                update(update::Type::Modify, pre(session(5, vec![rep_u32(2, 1)], 0))),
                update(update::Type::Delete, pre(session(6, vec![], 0))),
                ins(pre(session(7, vec![rep_u32(2, 2)], 0))),
                ins(pre(session(8, vec![rep_u32(1, 70000)], 0))),
            ],
            atomicity: write_request::Atomicity::RollbackOnError as i32,
            ..Default::default()
        })
        .await;
    assert_eq!(r.expect_err("the batch fails").code(), Code::Unknown);
    assert_eq!(
        read_sessions(&mut c, 0).await,
        vec![s5.clone(), s6.clone()],
        "rolled back"
    );
    let f = frame(HOST_B, HOST_A, 4);
    let got = ports.send(&primary, &f, 5, [2, 1, 1]).await;
    assert_eq!(
        got[1],
        vec![clone_of(&f, 7, 64)],
        "clone session id 5 clones as before the batch"
    );
    assert_eq!(got[2], vec![clone_of(&f, 8, 64)]);
    let got = ports.send(&primary, &f, 6, [1, 1, 0]).await;
    assert_eq!(got[1], vec![clone_of(&f, 3, 20)], "clone session id 6 still exists");

    // modify to one replica, then delete: the clones follow
    let m5 = session(5, vec![rep_bytes(&[2], 4)], 0);
    write(&mut c, 10, vec![update(update::Type::Modify, pre(m5.clone()))])
        .await
        .expect("modify");
    assert_eq!(read_sessions(&mut c, 5).await, vec![m5]);
    let got = ports.send(&primary, &f, 5, [1, 0, 1]).await;
    assert_eq!(got[2], vec![clone_of(&f, 4, 64)]);
    write(
        &mut c,
        10,
        vec![update(update::Type::Delete, pre(session(5, vec![], 0)))],
    )
    .await
    .expect("delete");
    ports.send(&primary, &f, 5, [1, 0, 0]).await;
    assert_eq!(read_sessions(&mut c, 0).await, vec![s6]);
    drop(sw);
    let _ = std::fs::remove_dir_all(&dir);
}
