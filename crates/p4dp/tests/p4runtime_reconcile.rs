//! RECONCILE_AND_COMMIT through raw tonic stubs against `p4dp serve`: a new version of a program
//! (another action body, one table more) starts forwarding with the controller's state, and
//! packets show it; a version that changes a table holding entries is refused with the old
//! pipeline forwarding and its state unchanged; once those entries are deleted it is taken.
//!
//! Port 0 replays `in0.pcap` from its start at every switch-over, so each commit sends the same
//! frames through the pipeline it made; ports 1 and 2 write their output files anew.

mod p4rt_common;

use std::path::Path;
use std::time::Duration;

use p4dp_p4runtime::proto::p4::config::v1::P4Info;
use p4dp_p4runtime::proto::p4::v1::*;
use p4rt_common::*;
use set_forwarding_pipeline_config_request::Action as A;
use tonic::Code;

type Client = p4dp_p4runtime::proto::p4::v1::p4_runtime_client::P4RuntimeClient<tonic::transport::Channel>;

const HOST_B: [u8; 6] = [0x02, 0, 0, 0, 0, 0x0b];
const HOST_C: [u8; 6] = [0x02, 0, 0, 0, 0, 0x0c];
const UNKNOWN: [u8; 6] = [0x02, 0, 0, 0, 0, 0x0f];
/// The source the action profile's member tags.
const TAGGED: [u8; 6] = [0x02, 0, 0, 0, 0, 0xa1];
const OTHER: [u8; 6] = [0x02, 0, 0, 0, 0, 0xa2];

/// Builds the test program with each `(marker, text)` replacing `/* marker */`.
fn variant(dir: &Path, tag: &str, edits: &[(&str, &str)]) -> (P4Info, Vec<u8>) {
    let mut src = std::fs::read_to_string(root().join("tests/p4runtime/reconcile.p4")).expect("source");
    for (marker, text) in edits {
        let m = format!("/* {marker} */");
        assert!(src.contains(&m), "marker {m}");
        src = src.replace(&m, text);
    }
    let d = dir.join(tag);
    std::fs::create_dir_all(&d).expect("dir");
    let path = d.join("reconcile.p4");
    std::fs::write(&path, src).expect("write the variant");
    build_file(&path, &d)
}

async fn set(c: &mut Client, action: A, (info, dc): &(P4Info, Vec<u8>), cookie: u64) -> Result<(), tonic::Status> {
    c.set_forwarding_pipeline_config(SetForwardingPipelineConfigRequest {
        device_id: DEVICE,
        election_id: eid(10),
        action: action as i32,
        config: Some(ForwardingPipelineConfig {
            p4info: Some(info.clone()),
            p4_device_config: dc.clone(),
            cookie: Some(forwarding_pipeline_config::Cookie { cookie }),
        }),
        ..Default::default()
    })
    .await
    .map(|_| ())
}

async fn cookie(c: &mut Client) -> u64 {
    c.get_forwarding_pipeline_config(GetForwardingPipelineConfigRequest {
        device_id: DEVICE,
        response_type: get_forwarding_pipeline_config_request::ResponseType::CookieOnly as i32,
    })
    .await
    .expect("get")
    .into_inner()
    .config
    .and_then(|c| c.cookie)
    .map_or(0, |c| c.cookie)
}

fn entry(table: u32, dst: [u8; 6], action: Option<TableAction>) -> TableEntry {
    TableEntry {
        table_id: table,
        r#match: vec![exact(1, &dst)],
        action,
        ..Default::default()
    }
}

fn counter(id: u32, index: i64, packets: Option<i64>) -> entity::Entity {
    entity::Entity::CounterEntry(CounterEntry {
        counter_id: id,
        index: Some(Index { index }),
        data: packets.map(|p| CounterData {
            packet_count: p,
            byte_count: 0,
        }),
    })
}

fn register(id: u32, index: i64, v: Option<&[u8]>) -> entity::Entity {
    entity::Entity::RegisterEntry(RegisterEntry {
        register_id: id,
        index: Some(Index { index }),
        data: v.map(|v| P4Data {
            data: Some(p4_data::Data::Bitstring(v.to_vec())),
        }),
    })
}

fn group7() -> entity::Entity {
    entity::Entity::PacketReplicationEngineEntry(PacketReplicationEngineEntry {
        r#type: Some(packet_replication_engine_entry::Type::MulticastGroupEntry(
            MulticastGroupEntry {
                multicast_group_id: 7,
                replicas: [1u8, 2]
                    .iter()
                    .map(|&p| Replica {
                        instance: 1,
                        port_kind: Some(replica::PortKind::Port(vec![p])),
                        ..Default::default()
                    })
                    .collect(),
                metadata: vec![],
            },
        )),
    })
}

/// The packets counted in `table`'s direct counter for the entry to `dst`.
async fn hits(c: &mut Client, table: u32, dst: [u8; 6]) -> i64 {
    let mut q = entry(table, dst, None);
    q.counter_data = Some(CounterData::default());
    match read(c, entity::Entity::TableEntry(q)).await.expect("read").as_slice() {
        [entity::Entity::TableEntry(t)] => t.counter_data.map_or(-1, |d| d.packet_count),
        other => panic!("one entry: {other:?}"),
    }
}

async fn packets_at(c: &mut Client, rx: u32, index: i64) -> i64 {
    match read(c, counter(rx, index, None)).await.expect("read").as_slice() {
        [entity::Entity::CounterEntry(e)] => e.data.map_or(0, |d| d.packet_count),
        other => panic!("one cell: {other:?}"),
    }
}

/// Waits until port 0's counter cell reads `n` (every frame of a replay went through).
async fn wait_rx(c: &mut Client, rx: u32, n: i64) {
    for _ in 0..500 {
        if packets_at(c, rx, 0).await == n {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!(
        "port 0 never counted {n} packets (last: {})",
        packets_at(c, rx, 0).await
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reconcile_keeps_the_state_of_unchanged_objects() {
    let dir = temp_dir("p4rt-reconcile");
    let first = variant(&dir, "a", &[]);
    let second = variant(
        &dir,
        "b",
        &[
            ("FORWARD_BODY", "h.eth.etype = 0x0b0b;"),
            (
                "EXTRA_TABLE",
                "table extra { key = { h.eth.etype : exact; } actions = { NoAction; } default_action = NoAction(); }",
            ),
            ("EXTRA_APPLY", "extra.apply();"),
        ],
    );
    let resized = variant(&dir, "c", &[("DMAC_SIZE", "* 2")]);
    let input: Vec<Vec<u8>> = [HOST_B, HOST_B, HOST_B, HOST_C, HOST_C, UNKNOWN]
        .iter()
        .enumerate()
        .map(|(i, &dst)| frame(dst, if dst == HOST_B { TAGGED } else { OTHER }, i as u8))
        .collect();
    let n = input.len() as i64;
    p4dp_testutil::pcap::write(&dir.join("in0.pcap"), &input);
    let out = |p: u32| dir.join(format!("out{p}.pcap"));
    let sw = start(&[
        "--port".into(),
        format!("0={}:", dir.join("in0.pcap").display()),
        "--port".into(),
        format!("1=:{}", out(1).display()),
        "--port".into(),
        format!("2=:{}", out(2).display()),
    ]);
    let mut c = connect(&sw.addr).await;
    let _s = Stream::open(&mut c, 10, Code::Ok).await;
    let info = &first.0;
    let (dmac, src_tag, by_src) = (
        id_of(info, "RcIngress.dmac"),
        id_of(info, "RcIngress.src_tag"),
        id_of(info, "RcIngress.by_src"),
    );
    let (forward, set_etype) = (id_of(info, "RcIngress.forward"), id_of(info, "RcIngress.set_etype"));
    let (rx, notes) = (id_of(info, "RcIngress.rx_count"), id_of(info, "RcIngress.notes"));
    let ins = |e| update(update::Type::Insert, e);
    let modi = |e| update(update::Type::Modify, e);
    let del = |e| update(update::Type::Delete, e);

    // the first version, no entries: every frame is dropped
    set(&mut c, A::VerifyAndCommit, &first, 1).await.expect("commit");
    wait_rx(&mut c, rx, n).await;
    let to_b = entry(dmac, HOST_B, Some(action(forward, &[&[1]])));
    let to_c = entry(dmac, HOST_C, Some(action(forward, &[&[2]])));
    let default = TableEntry {
        table_id: dmac,
        is_default_action: true,
        action: Some(action(forward, &[&[2]])),
        ..Default::default()
    };
    let member = entity::Entity::ActionProfileMember(ActionProfileMember {
        action_profile_id: by_src,
        member_id: 1,
        action: Some(Action {
            action_id: set_etype,
            params: vec![action::Param {
                param_id: 1,
                value: vec![0x0a, 0x0a],
            }],
        }),
    });
    let tag = TableEntry {
        table_id: src_tag,
        r#match: vec![exact(1, &TAGGED)],
        action: Some(TableAction {
            r#type: Some(table_action::Type::ActionProfileMemberId(1)),
        }),
        ..Default::default()
    };
    let mut to_b_counted = to_b.clone();
    to_b_counted.counter_data = Some(CounterData {
        packet_count: 100,
        byte_count: 0,
    });
    write(
        &mut c,
        10,
        vec![
            ins(entity::Entity::TableEntry(to_b_counted)),
            ins(entity::Entity::TableEntry(to_c.clone())),
            modi(entity::Entity::TableEntry(default.clone())),
            ins(member.clone()),
            ins(entity::Entity::TableEntry(tag.clone())),
            modi(counter(rx, 5, Some(77))),
            modi(register(notes, 3, Some(&[0x12, 0x34]))),
            ins(group7()),
        ],
    )
    .await
    .expect("the controller's state");
    let state = || {
        vec![
            entity::Entity::TableEntry(TableEntry {
                table_id: dmac,
                ..Default::default()
            }),
            entity::Entity::TableEntry(TableEntry {
                table_id: dmac,
                is_default_action: true,
                ..Default::default()
            }),
            entity::Entity::TableEntry(TableEntry {
                table_id: src_tag,
                ..Default::default()
            }),
            entity::Entity::ActionProfileMember(ActionProfileMember {
                action_profile_id: by_src,
                ..Default::default()
            }),
            counter(rx, 5, None),
            register(notes, 3, None),
            group7(),
        ]
    };
    let before = read_sorted(&mut c, state()).await;
    assert_eq!(
        before.len(),
        8,
        "2 entries, a default, a tagging entry, a member, 2 cells, a group"
    );
    assert!(p4dp_testutil::pcap::written(&out(1)).is_empty() && p4dp_testutil::pcap::written(&out(2)).is_empty());

    // the second version keeps all of it, and its new forwarding body acts on the kept entries
    set(&mut c, A::ReconcileAndCommit, &second, 2).await.expect("reconcile");
    assert_eq!(cookie(&mut c).await, 2);
    wait_rx(&mut c, rx, 2 * n).await; // the first version's count of the port, and this replay
    assert_eq!(
        read_sorted(&mut c, state()).await,
        before,
        "the state read back as before"
    );
    let p1 = wait_pcap(&out(1), Duration::from_secs(10), |f| f.len() >= 3);
    let p2 = wait_pcap(&out(2), Duration::from_secs(10), |f| f.len() >= 3);
    let etypes = |f: &[Vec<u8>]| f.iter().map(|f| u16::from_be_bytes([f[12], f[13]])).collect::<Vec<_>>();
    assert_eq!(
        etypes(&p1),
        vec![0x0a0a; 3],
        "HOST_B's entry (port 1), then the kept member's tag"
    );
    assert_eq!(
        etypes(&p2),
        vec![0x0b0b; 3],
        "HOST_C's entry and the kept default (port 2), through the new body"
    );
    assert_eq!(
        hits(&mut c, dmac, HOST_B).await,
        103,
        "the direct counter kept its count"
    );
    assert_eq!(hits(&mut c, dmac, HOST_C).await, 2);

    // a version that changes a table holding entries: refused, the second version forwards on
    let e = set(&mut c, A::ReconcileAndCommit, &resized, 3)
        .await
        .expect_err("dmac holds entries and changes");
    assert_eq!(e.code(), Code::FailedPrecondition, "{e:?}");
    assert!(e.message().contains("RcIngress.dmac"), "{}", e.message());
    assert_eq!(cookie(&mut c).await, 2, "the old pipeline stays");
    assert_eq!(read_sorted(&mut c, state()).await, before, "nothing changed");
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(packets_at(&mut c, rx, 0).await, 2 * n, "no switch-over, no replay");

    // without the entries and the default it is taken: the rest is kept
    write(
        &mut c,
        10,
        vec![
            del(entity::Entity::TableEntry(to_b.clone())),
            del(entity::Entity::TableEntry(to_c.clone())),
            modi(entity::Entity::TableEntry(TableEntry {
                table_id: dmac,
                is_default_action: true,
                ..Default::default()
            })),
        ],
    )
    .await
    .expect("clear dmac");
    set(&mut c, A::ReconcileAndCommit, &resized, 3)
        .await
        .expect("reconcile");
    assert_eq!(cookie(&mut c).await, 3);
    wait_rx(&mut c, rx, 3 * n).await;
    let kept = read_sorted(
        &mut c,
        vec![
            entity::Entity::TableEntry(TableEntry {
                table_id: src_tag,
                ..Default::default()
            }),
            entity::Entity::ActionProfileMember(ActionProfileMember {
                action_profile_id: by_src,
                member_id: 1,
                action: None,
            }),
            counter(rx, 5, None),
            register(notes, 3, None),
            group7(),
        ],
    )
    .await;
    assert_eq!(kept.len(), 5, "the tagging entry, the member, the cells and the group");
    assert!(read(
        &mut c,
        entity::Entity::TableEntry(TableEntry {
            table_id: dmac,
            ..Default::default()
        })
    )
    .await
    .expect("read")
    .is_empty());
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(
        (
            p4dp_testutil::pcap::written(&out(1)).len(),
            p4dp_testutil::pcap::written(&out(2)).len()
        ),
        (0, 0),
        "the program's default drops every frame again (a switch-over opens the output files anew)"
    );
    drop(sw);
    let _ = std::fs::remove_dir_all(&dir);
}
