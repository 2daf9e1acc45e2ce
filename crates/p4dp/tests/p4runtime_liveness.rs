//! Port liveness through raw tonic stubs against `p4dp serve` on pcap ports: clone session
//! replicas with backup replicas and a class of service, selector group members and one-shot
//! actions with watch ports. p4dp's `p4dp.v1.Ports` service takes ports down and up; the packets
//! show the switch-over to the backup (or the other members) and back, read-back equals what was
//! written, and invalid input is INVALID_ARGUMENT with the state unchanged.

mod p4rt_common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use p4dp_p4runtime::proto::p4::v1::*;
use p4dp_p4runtime::proto::p4dp::v1::ports_client::PortsClient;
use p4dp_p4runtime::proto::p4dp::v1::{GetPortsRequest, SetPortAdminRequest};
use p4rt_common::*;
use tonic::transport::Channel;
use tonic::Code;

const SEC: Duration = Duration::from_secs(1);
const HOST_A: [u8; 6] = [0x02, 0, 0, 0, 0, 0x0a];
const HOST_B: [u8; 6] = [0x02, 0, 0, 0, 0, 0x0b];

fn rep(port: u8, instance: u32, backups: &[(u8, u32)]) -> Replica {
    Replica {
        port_kind: Some(replica::PortKind::Port(vec![port])),
        instance,
        backup_replicas: backups
            .iter()
            .map(|&(p, i)| BackupReplica {
                port: vec![p],
                instance: i,
            })
            .collect(),
    }
}

/// Replica `(port, instance)` with one backup, instance 1, on the port of bytes `backup_port`
/// (which `rep` cannot say: a port over 255, or none).
fn rep_backup_bytes(port: u8, instance: u32, backup_port: &[u8]) -> Replica {
    Replica {
        backup_replicas: vec![BackupReplica {
            port: backup_port.to_vec(),
            instance: 1,
        }],
        ..rep(port, instance, &[])
    }
}

fn session(id: u32, replicas: Vec<Replica>, cos: u32) -> entity::Entity {
    entity::Entity::PacketReplicationEngineEntry(PacketReplicationEngineEntry {
        r#type: Some(packet_replication_engine_entry::Type::CloneSessionEntry(
            CloneSessionEntry {
                session_id: id,
                replicas,
                class_of_service: cos,
                packet_length_bytes: 0,
            },
        )),
    })
}

fn mcast(id: u32, replicas: Vec<Replica>) -> entity::Entity {
    entity::Entity::PacketReplicationEngineEntry(PacketReplicationEngineEntry {
        r#type: Some(packet_replication_engine_entry::Type::MulticastGroupEntry(
            MulticastGroupEntry {
                multicast_group_id: id,
                replicas,
                metadata: vec![],
            },
        )),
    })
}

async fn ports_client(addr: &str) -> PortsClient<Channel> {
    PortsClient::connect(format!("http://{addr}"))
        .await
        .expect("connect to the ports service")
}

async fn set_port(p: &mut PortsClient<Channel>, port: u32, up: bool) {
    p.set_port_admin(SetPortAdminRequest {
        device_id: DEVICE,
        port,
        up,
    })
    .await
    .unwrap_or_else(|e| panic!("port {port} {}: {e:?}", if up { "up" } else { "down" }));
}

/// `p4dp port ARGS --p4runtime ADDR`, the operator's command for the ports service.
fn port_cli(addr: &str, args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_p4dp"))
        .arg("port")
        .args(args)
        .args(["--p4runtime", addr, "--device-id", &DEVICE.to_string()])
        .output()
        .expect("run p4dp port")
}

fn count(p: &Path) -> usize {
    p4dp_testutil::pcap::written(p).len()
}

/// The clone of `f` the clone program sends: its Ethernet type is the replica's instance, the top
/// 3 bits of its destination the clone's priority.
fn clone_of(f: &[u8], instance: u16, priority: u8) -> Vec<u8> {
    let mut c = f.to_vec();
    c[12..14].copy_from_slice(&instance.to_be_bytes());
    c[0] = (c[0] & 0x1f) | (priority << 5);
    c
}

/// Sends `f` to port 0 cloned with clone session 5 and waits until each port has `want[port]` more
/// frames; returns those frames (and checks that no more arrive).
async fn send_clone(s: &Stream, out: &[PathBuf], f: &[u8], want: [usize; 3]) -> Vec<Vec<Vec<u8>>> {
    let before: Vec<usize> = out.iter().map(|p| count(p)).collect();
    s.send(stream_message_request::Update::Packet(PacketOut {
        payload: f.to_vec(),
        metadata: vec![
            PacketMetadata {
                metadata_id: 1,
                value: vec![0],
            },
            PacketMetadata {
                metadata_id: 2,
                value: vec![0],
            },
            PacketMetadata {
                metadata_id: 3,
                value: 5u32.to_be_bytes().to_vec(),
            },
        ],
    }))
    .await;
    let mut got = vec![];
    for (i, p) in out.iter().enumerate() {
        let frames = wait_pcap(p, 10 * SEC, |fs| fs.len() >= before[i] + want[i]);
        got.push(frames[before[i].min(frames.len())..].to_vec());
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    for (i, p) in out.iter().enumerate() {
        assert_eq!(count(p) - before[i], want[i], "frames on port {i}: {got:02x?}");
    }
    got
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clone_replicas_fail_over_to_their_backups_and_carry_the_class_of_service() {
    let dir = temp_dir("p4rt-liveness-clone");
    let (info, dc) = build("clone", &dir);
    let mut args = vec![];
    let mut out = vec![];
    for i in 0..3 {
        let o = dir.join(format!("out{i}.pcap"));
        args.push("--port".to_string());
        args.push(format!("{i}=:{}", o.display()));
        out.push(o);
    }
    let sw = start(&args);
    let mut c = connect(&sw.addr).await;
    let primary = Stream::open(&mut c, 10, Code::Ok).await;
    push(&mut c, 10, &info, &dc).await;
    let mut ports = ports_client(&sw.addr).await;
    let ins = |e| update(update::Type::Insert, e);

    // clone session 5: one replica on port 1 (instance 7) with a backup on port 2 (instance 8); class of service 5
    let s5 = session(5, vec![rep(1, 7, &[(2, 8)])], 5);
    write(&mut c, 10, vec![ins(s5.clone())])
        .await
        .expect("insert clone session 5");
    assert_eq!(
        read(&mut c, session(5, vec![], 0)).await.expect("read"),
        vec![s5.clone()]
    );
    let f = frame(HOST_B, HOST_A, 1);
    let got = send_clone(&primary, &out, &f, [1, 1, 0]).await;
    assert_eq!(got[0], vec![f.clone()], "the packet itself");
    assert_eq!(got[1], vec![clone_of(&f, 7, 5)], "the clone, priority 5");

    // port 1 down: the clone goes to the backup, with the backup's instance
    set_port(&mut ports, 1, false).await;
    let st = ports
        .get_ports(GetPortsRequest { device_id: DEVICE })
        .await
        .expect("get ports")
        .into_inner();
    let p1 = st.ports.iter().find(|p| p.port == 1).expect("port 1 listed");
    assert!(!p1.admin_up && p1.link_up, "{st:?}");
    assert!(
        st.ports.iter().any(|p| p.port == 255),
        "the controller port is listed: {st:?}"
    );
    let got = send_clone(&primary, &out, &f, [1, 0, 1]).await;
    assert_eq!(got[2], vec![clone_of(&f, 8, 5)], "the backup's clone");

    // the backup's port down too: no clone (the packet itself still goes)
    set_port(&mut ports, 2, false).await;
    send_clone(&primary, &out, &f, [1, 0, 0]).await;

    // the primary back up: the clone returns to it, whatever the backup does
    set_port(&mut ports, 1, true).await;
    let got = send_clone(&primary, &out, &f, [1, 1, 0]).await;
    assert_eq!(got[1], vec![clone_of(&f, 7, 5)]);
    set_port(&mut ports, 2, true).await;
    send_clone(&primary, &out, &f, [1, 1, 0]).await;

    // invalid input: INVALID_ARGUMENT, the session unchanged
    for (e, why) in [
        (session(5, vec![rep(1, 7, &[(2, 8)])], 8), "class_of_service 8"),
        (
            session(5, vec![rep(1, 7, &[(1, 8)])], 0),
            "a backup on its replica's port",
        ),
        (
            session(5, vec![rep(1, 7, &[(2, 7), (2, 7)])], 0),
            "a (port, instance) pair twice",
        ),
        (
            session(5, vec![rep_backup_bytes(1, 7, &[2, 0x58])], 0),
            "a backup on port 600",
        ),
        (
            session(5, vec![rep_backup_bytes(1, 7, &[])], 0),
            "a backup without a port",
        ),
        (
            session(5, vec![rep(1, 7, &[(2, 70000)])], 0),
            "a backup instance over 16 bits",
        ),
    ] {
        assert_eq!(
            one_code(write(&mut c, 10, vec![update(update::Type::Modify, e)]).await),
            Code::InvalidArgument,
            "{why}"
        );
    }
    assert_eq!(
        read(&mut c, session(5, vec![], 0)).await.expect("read"),
        vec![s5.clone()]
    );
    let got = send_clone(&primary, &out, &f, [1, 1, 0]).await;
    assert_eq!(got[1], vec![clone_of(&f, 7, 5)], "the session as before");

    // multicast groups take backups too: read back in order; the same errors
    let g = mcast(3, vec![rep(1, 1, &[(2, 2), (0, 3)]), rep(2, 4, &[])]);
    write(&mut c, 10, vec![ins(g.clone())])
        .await
        .expect("insert a group with backups");
    assert_eq!(read(&mut c, mcast(3, vec![])).await.expect("read"), vec![g.clone()]);
    for (e, why) in [
        (mcast(3, vec![rep(1, 1, &[(1, 2)])]), "a backup on its replica's port"),
        (
            mcast(3, vec![rep(1, 1, &[(2, 4)]), rep(2, 4, &[])]),
            "a backup's pair is another replica's",
        ),
        (
            mcast(3, vec![rep_backup_bytes(1, 1, &[2, 0x58])]),
            "a backup on port 600",
        ),
    ] {
        assert_eq!(
            one_code(write(&mut c, 10, vec![update(update::Type::Modify, e)]).await),
            Code::InvalidArgument,
            "{why}"
        );
    }
    assert_eq!(read(&mut c, mcast(3, vec![])).await.expect("read"), vec![g]);

    // the operator's command line does the same: port 1 down sends the clone to the backup
    let out1 = port_cli(&sw.addr, &["down", "1"]);
    assert!(out1.status.success(), "{out1:?}");
    assert_eq!(String::from_utf8_lossy(&out1.stdout).trim(), "port 1 down");
    let list = port_cli(&sw.addr, &["list"]);
    assert!(list.status.success(), "{list:?}");
    let text = String::from_utf8_lossy(&list.stdout).to_string();
    let row = |port: &str| {
        text.lines()
            .map(|l| l.split_whitespace().collect::<Vec<_>>())
            .find(|w| w.first() == Some(&port))
            .unwrap_or_else(|| panic!("port {port} listed: {text}"))
    };
    assert_eq!(row("1"), ["1", "down", "up", "no"], "{text}");
    assert_eq!(row("2"), ["2", "up", "up", "yes"], "{text}");
    let got = send_clone(&primary, &out, &f, [1, 0, 1]).await;
    assert_eq!(got[2], vec![clone_of(&f, 8, 5)], "the backup's clone");
    assert!(port_cli(&sw.addr, &["up", "1"]).status.success());
    send_clone(&primary, &out, &f, [1, 1, 0]).await;
    let bad = port_cli(&sw.addr, &["down", "7"]);
    assert!(!bad.status.success());
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(err.contains("InvalidArgument") && err.contains("no port 7"), "{err}");

    // the ports service's own errors
    let e = ports
        .set_port_admin(SetPortAdminRequest {
            device_id: DEVICE,
            port: 7,
            up: false,
        })
        .await
        .expect_err("no port 7");
    assert_eq!(e.code(), Code::InvalidArgument);
    let e = ports
        .set_port_admin(SetPortAdminRequest {
            device_id: DEVICE + 1,
            port: 1,
            up: false,
        })
        .await
        .expect_err("another device");
    assert_eq!(e.code(), Code::NotFound);
    drop(sw);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Sends 24 flows to `dst` as PacketOuts; returns how many frames ports 1 and 2 wrote.
async fn spread(s: &Stream, dir: &Path, dst: [u8; 6], want: usize) -> (usize, usize) {
    let (o1, o2) = (dir.join("out1.pcap"), dir.join("out2.pcap"));
    let (b1, b2) = (count(&o1), count(&o2));
    for i in 0..24u8 {
        s.packet_out(frame(dst, [0x02, 0, 0, 0, i, i.wrapping_mul(37)], i))
            .await;
    }
    let end = std::time::Instant::now() + 10 * SEC;
    while count(&o1) + count(&o2) - b1 - b2 < want && std::time::Instant::now() < end {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    tokio::time::sleep(SEC / 3).await;
    (count(&o1) - b1, count(&o2) - b2)
}

fn watched_group(prof: u32, id: u32, members: &[(u32, Option<u8>)]) -> entity::Entity {
    entity::Entity::ActionProfileGroup(ActionProfileGroup {
        action_profile_id: prof,
        group_id: id,
        members: members
            .iter()
            .map(|&(member_id, w)| action_profile_group::Member {
                member_id,
                weight: 1,
                watch_kind: w.map(|p| action_profile_group::member::WatchKind::WatchPort(vec![p])),
            })
            .collect(),
        max_size: 0,
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn selector_members_with_a_down_watch_port_are_left_out() {
    let dir = temp_dir("p4rt-liveness-watch");
    let (info, dc) = build("profile", &dir);
    let out = |p: u32| format!("{p}=:{}", dir.join(format!("out{p}.pcap")).display());
    let sw = start(&["--port".into(), out(1), "--port".into(), out(2)]);
    let mut c = connect(&sw.addr).await;
    let s = Stream::open(&mut c, 10, Code::Ok).await;
    push(&mut c, 10, &info, &dc).await;
    let mut ports = ports_client(&sw.addr).await;
    let prof = info.action_profiles[0].preamble.as_ref().expect("preamble").id;
    let table = info.tables[0].preamble.as_ref().expect("preamble").id;
    let fwd = id_of(&info, "ProfIngress.forward");
    let ins = |e| update(update::Type::Insert, e);
    let entry = |t: table_action::Type| {
        entity::Entity::TableEntry(TableEntry {
            table_id: table,
            r#match: vec![exact(1, &HOST_B)],
            action: Some(TableAction { r#type: Some(t) }),
            ..Default::default()
        })
    };

    // group 5: member 1 (to port 1) watches port 1, member 2 (to port 2) watches port 2
    let g = watched_group(prof, 5, &[(1, Some(1)), (2, Some(2))]);
    write(
        &mut c,
        10,
        vec![
            ins(member(prof, 1, fwd, 1)),
            ins(member(prof, 2, fwd, 2)),
            ins(g.clone()),
        ],
    )
    .await
    .expect("members and group");
    write(
        &mut c,
        10,
        vec![ins(entry(table_action::Type::ActionProfileGroupId(5)))],
    )
    .await
    .expect("entry");
    assert_eq!(
        read(&mut c, watched_group(prof, 5, &[])).await.expect("read"),
        vec![g.clone()]
    );
    let (a, b) = spread(&s, &dir, HOST_B, 24).await;
    assert!(a > 0 && b > 0 && a + b == 24, "both members: {a} {b}");

    // port 1 down: member 1 left out; back up: both again
    set_port(&mut ports, 1, false).await;
    assert_eq!(spread(&s, &dir, HOST_B, 24).await, (0, 24), "member 1 left out");
    set_port(&mut ports, 1, true).await;
    let (a, b) = spread(&s, &dir, HOST_B, 24).await;
    assert!(a > 0 && b > 0 && a + b == 24, "member 1 back: {a} {b}");
    // both down: the group is empty, the table misses (drop)
    set_port(&mut ports, 1, false).await;
    set_port(&mut ports, 2, false).await;
    assert_eq!(spread(&s, &dir, HOST_B, 0).await, (0, 0), "every member down");
    set_port(&mut ports, 2, true).await;
    assert_eq!(spread(&s, &dir, HOST_B, 24).await, (0, 24), "member 2 back");

    // a modify dropping member 2's watch port: member 2 stays whatever port 2 does
    let g2 = watched_group(prof, 5, &[(1, Some(1)), (2, None)]);
    write(&mut c, 10, vec![update(update::Type::Modify, g2.clone())])
        .await
        .expect("modify");
    set_port(&mut ports, 2, false).await;
    assert_eq!(spread(&s, &dir, HOST_B, 24).await, (0, 24), "member 2 unwatched");
    set_port(&mut ports, 1, true).await;
    set_port(&mut ports, 2, true).await;

    // a watch port the device does not have, a negative deprecated one: INVALID_ARGUMENT, unchanged
    #[allow(deprecated)]
    let negative = entity::Entity::ActionProfileGroup(ActionProfileGroup {
        action_profile_id: prof,
        group_id: 5,
        members: vec![action_profile_group::Member {
            member_id: 1,
            weight: 1,
            watch_kind: Some(action_profile_group::member::WatchKind::Watch(-1)),
        }],
        max_size: 0,
    });
    for (e, why) in [
        (watched_group(prof, 5, &[(1, Some(7))]), "port 7"),
        (negative, "watch -1"),
    ] {
        assert_eq!(
            one_code(write(&mut c, 10, vec![update(update::Type::Modify, e)]).await),
            Code::InvalidArgument,
            "{why}"
        );
    }
    assert_eq!(read(&mut c, watched_group(prof, 5, &[])).await.expect("read"), vec![g2]);

    // one-shot action sets with watch ports: the same, read back as written
    write(
        &mut c,
        10,
        vec![update(
            update::Type::Delete,
            entry(table_action::Type::ActionProfileGroupId(5)),
        )],
    )
    .await
    .expect("delete the entry");
    let to = |port: u8| {
        let Some(table_action::Type::Action(a)) = action(fwd, &[&[port]]).r#type else {
            unreachable!()
        };
        ActionProfileAction {
            action: Some(a),
            weight: 1,
            watch_kind: Some(action_profile_action::WatchKind::WatchPort(vec![port])),
        }
    };
    let set = entry(table_action::Type::ActionProfileActionSet(ActionProfileActionSet {
        action_profile_actions: vec![to(1), to(2)],
        ..Default::default()
    }));
    // (members and groups written as such cannot mix with sets: remove them first)
    write(
        &mut c,
        10,
        vec![
            update(update::Type::Delete, watched_group(prof, 5, &[])),
            update(update::Type::Delete, member(prof, 1, fwd, 1)),
            update(update::Type::Delete, member(prof, 2, fwd, 2)),
        ],
    )
    .await
    .expect("delete members and group");
    write(&mut c, 10, vec![ins(set.clone())]).await.expect("one-shot set");
    let e = read(
        &mut c,
        entity::Entity::TableEntry(TableEntry {
            table_id: table,
            ..Default::default()
        }),
    )
    .await
    .expect("read");
    let entity::Entity::TableEntry(te) = &e[0] else {
        panic!("{e:?}")
    };
    let entity::Entity::TableEntry(want) = &set else {
        unreachable!()
    };
    assert_eq!(te.action, want.action, "the set read back as written");
    set_port(&mut ports, 2, false).await;
    assert_eq!(spread(&s, &dir, HOST_B, 24).await, (24, 0), "action 2 left out");
    set_port(&mut ports, 2, true).await;
    let (a, b) = spread(&s, &dir, HOST_B, 24).await;
    assert!(a > 0 && b > 0 && a + b == 24, "action 2 back: {a} {b}");
    drop(sw);
    let _ = std::fs::remove_dir_all(&dir);
}
