//! Write atomicity through raw gRPC stubs against `p4dp serve`: a ROLLBACK_ON_ERROR (and
//! DATAPLANE_ATOMIC) batch with one bad update leaves every entity unchanged, read back; and
//! DATAPLANE_ATOMIC batches that rewrite two tables together are never seen half-applied by
//! packets flowing through both tables (tests/p4runtime/atomic.p4 counts the packets that see
//! the two tables disagree).

use std::time::Duration;

use p4dp_p4runtime::proto::google::rpc;
use p4dp_p4runtime::proto::p4::config::v1::P4Info;
use p4dp_p4runtime::proto::p4::v1::p4_runtime_client::P4RuntimeClient;
use p4dp_p4runtime::proto::p4::v1::*;
use prost::Message;
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;
use tokio_stream::StreamExt;
use tonic::transport::Channel;
use tonic::Code;

mod p4rt_common;
use p4rt_common::{build, connect, id_of, push, read_sorted, start, temp_dir, Switch, DEVICE};

const ELECTION: u64 = 10;

/// Connects, becomes primary (the returned sender keeps the stream open) and pushes the pipeline.
async fn primary_with(
    sw: &Switch,
    info: &P4Info,
    dc: &[u8],
) -> (P4RuntimeClient<Channel>, mpsc::Sender<StreamMessageRequest>) {
    let mut c = connect(&sw.addr).await;
    let (tx, rx) = mpsc::channel(8);
    tx.send(StreamMessageRequest {
        update: Some(stream_message_request::Update::Arbitration(MasterArbitrationUpdate {
            device_id: DEVICE,
            election_id: Some(Uint128 { high: 0, low: ELECTION }),
            ..Default::default()
        })),
    })
    .await
    .expect("send arbitration");
    let mut inbound = c
        .stream_channel(ReceiverStream::new(rx))
        .await
        .expect("stream")
        .into_inner();
    let first = tokio::time::timeout(Duration::from_secs(10), inbound.next()).await;
    assert!(matches!(first, Ok(Some(Ok(_)))), "arbitration answered: {first:?}");
    tokio::spawn(async move { while inbound.next().await.is_some() {} });
    push(&mut c, ELECTION, info, dc).await;
    (c, tx)
}

fn exact(value: &[u8]) -> FieldMatch {
    FieldMatch {
        field_id: 1,
        field_match_type: Some(field_match::FieldMatchType::Exact(field_match::Exact {
            value: value.to_vec(),
        })),
    }
}

fn action(id: u32, param: Option<&[u8]>) -> Option<TableAction> {
    Some(TableAction {
        r#type: Some(table_action::Type::Action(Action {
            action_id: id,
            params: param
                .map(|v| {
                    vec![action::Param {
                        param_id: 1,
                        value: v.to_vec(),
                    }]
                })
                .unwrap_or_default(),
        })),
    })
}

fn entry(table: u32, key: &[u8], act: u32, param: &[u8]) -> TableEntry {
    TableEntry {
        table_id: table,
        r#match: vec![exact(key)],
        action: action(act, Some(param)),
        ..Default::default()
    }
}

fn up(t: update::Type, e: entity::Entity) -> Update {
    Update {
        r#type: t as i32,
        entity: Some(Entity { entity: Some(e) }),
    }
}

fn write_req(atomicity: write_request::Atomicity, updates: Vec<Update>) -> WriteRequest {
    WriteRequest {
        device_id: DEVICE,
        election_id: Some(Uint128 { high: 0, low: ELECTION }),
        updates,
        atomicity: atomicity as i32,
        ..Default::default()
    }
}

/// The per-update codes of a failed batch (from the status details).
fn batch_codes(s: &tonic::Status) -> Vec<Code> {
    assert_eq!(s.code(), Code::Unknown, "{s:?}");
    let st = rpc::Status::decode(s.details()).expect("google.rpc.Status details");
    st.details
        .iter()
        .map(|a| Code::from(Error::decode(a.value.as_slice()).expect("p4.v1.Error").canonical_code))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rollback_on_error_leaves_every_entity_unchanged() {
    use entity::Entity as E;
    use update::Type::{Delete, Insert, Modify};
    use write_request::Atomicity::{ContinueOnError, DataplaneAtomic, RollbackOnError};
    let dir = temp_dir("p4rt-rollback");
    let (info, dc) = build("fwd", &dir);
    let sw = start(&[]);
    let (mut c, _arb) = primary_with(&sw, &info, &dc).await;
    let dmac = id_of(&info, "FwdIngress.dmac");
    let src_lpm = id_of(&info, "FwdIngress.src_lpm");
    let fwd = id_of(&info, "FwdIngress.forward");
    let drop_a = id_of(&info, "FwdIngress.drop");
    let set_src = id_of(&info, "FwdIngress.set_src");
    let reg = id_of(&info, "FwdIngress.last_len");
    let ctr = id_of(&info, "FwdIngress.rx_count");
    let group = |id: u32, ports: &[u32]| {
        E::PacketReplicationEngineEntry(PacketReplicationEngineEntry {
            r#type: Some(packet_replication_engine_entry::Type::MulticastGroupEntry(
                MulticastGroupEntry {
                    multicast_group_id: id,
                    replicas: ports
                        .iter()
                        .map(|p| Replica {
                            port_kind: Some(replica::PortKind::Port(vec![*p as u8])),
                            instance: 1,
                            ..Default::default()
                        })
                        .collect(),
                    ..Default::default()
                },
            )),
        })
    };
    let register = |index: i64, v: u8| {
        E::RegisterEntry(RegisterEntry {
            register_id: reg,
            index: Some(Index { index }),
            data: Some(P4Data {
                data: Some(p4_data::Data::Bitstring(vec![v])),
            }),
        })
    };
    let counter = |index: i64, n: i64| {
        E::CounterEntry(CounterEntry {
            counter_id: ctr,
            index: Some(Index { index }),
            data: Some(CounterData {
                byte_count: n * 64,
                packet_count: n,
            }),
        })
    };
    let default_dmac = |param: Option<&[u8]>, act: u32| {
        E::TableEntry(TableEntry {
            table_id: dmac,
            is_default_action: true,
            action: action(act, param),
            ..Default::default()
        })
    };
    let lpm = |v: u8, plen: i32| TableEntry {
        table_id: src_lpm,
        r#match: vec![FieldMatch {
            field_id: 1,
            field_match_type: Some(field_match::FieldMatchType::Lpm(field_match::Lpm {
                value: vec![v, 0, 0, 0, 0, 0],
                prefix_len: plen,
            })),
        }],
        action: action(set_src, Some(&[0xee])),
        ..Default::default()
    };
    // the state before: two entries, a default, a register cell, a counter cell, a group
    c.write(write_req(
        ContinueOnError,
        vec![
            up(Insert, E::TableEntry(entry(dmac, &[1], fwd, &[1]))),
            up(Insert, E::TableEntry(entry(dmac, &[2], fwd, &[2]))),
            up(Modify, default_dmac(Some(&[5]), fwd)),
            up(Modify, register(3, 33)),
            up(Modify, counter(4, 44)),
            up(Insert, group(7, &[1, 2])),
        ],
    ))
    .await
    .expect("the state before");
    let everything = || {
        vec![
            E::TableEntry(TableEntry::default()),
            E::TableEntry(TableEntry {
                table_id: dmac,
                is_default_action: true,
                ..Default::default()
            }),
            E::RegisterEntry(RegisterEntry {
                register_id: reg,
                ..Default::default()
            }),
            E::CounterEntry(CounterEntry {
                counter_id: ctr,
                ..Default::default()
            }),
            E::PacketReplicationEngineEntry(PacketReplicationEngineEntry::default()),
        ]
    };
    let before = read_sorted(&mut c, everything()).await;
    let drop_entry = |key: &[u8]| TableEntry {
        table_id: dmac,
        r#match: vec![exact(key)],
        action: action(drop_a, None),
        ..Default::default()
    };
    // one update of every kind the batch can hold, then one that fails when it is applied
    // (the entry exists): everything before it must be undone
    let batch = |last: Update| {
        vec![
            up(Modify, E::TableEntry(drop_entry(&[1]))),
            up(Delete, E::TableEntry(entry(dmac, &[2], fwd, &[2]))),
            up(Insert, E::TableEntry(entry(dmac, &[3], fwd, &[3]))),
            up(Insert, E::TableEntry(lpm(0x0a, 8))),
            up(Modify, default_dmac(None, drop_a)),
            up(Modify, register(3, 99)),
            up(
                Modify,
                E::RegisterEntry(RegisterEntry {
                    register_id: reg,
                    index: None,
                    data: Some(P4Data {
                        data: Some(p4_data::Data::Bitstring(vec![7])),
                    }),
                }),
            ),
            up(Modify, counter(4, 1)),
            up(Modify, group(7, &[3])),
            up(Insert, group(8, &[4])),
            last,
        ]
    };
    let dup = || up(Insert, E::TableEntry(entry(dmac, &[1], fwd, &[9])));
    for mode in [RollbackOnError, DataplaneAtomic] {
        let e = c.write(write_req(mode, batch(dup()))).await.unwrap_err();
        let mut want = vec![Code::Aborted; 10];
        want.push(Code::AlreadyExists);
        assert_eq!(
            batch_codes(&e),
            want,
            "{mode:?}: the failing update's code, ABORTED for the rest"
        );
        assert_eq!(
            read_sorted(&mut c, everything()).await,
            before,
            "{mode:?}: every entity read back unchanged"
        );
        // a failure in the middle: the updates after it are not attempted
        let mut b = batch(up(Delete, E::TableEntry(entry(dmac, &[2], fwd, &[2]))));
        b.insert(4, up(Modify, E::TableEntry(entry(dmac, &[0x44], fwd, &[1]))));
        let e = c.write(write_req(mode, b)).await.unwrap_err();
        let mut want = vec![Code::Aborted; 12];
        want[4] = Code::NotFound;
        assert_eq!(
            batch_codes(&e),
            want,
            "{mode:?}: a missing entry's modify fails the batch"
        );
        assert_eq!(
            read_sorted(&mut c, everything()).await,
            before,
            "{mode:?}: unchanged after a failure in the middle"
        );
        // an invalid update is found before anything is written
        let mut bad = entry(dmac, &[4], fwd, &[1]);
        bad.r#match = vec![exact(&[1, 0, 0, 0, 0, 0, 0])];
        let e = c
            .write(write_req(mode, batch(up(Insert, E::TableEntry(bad)))))
            .await
            .unwrap_err();
        let mut want = vec![Code::Aborted; 10];
        want.push(Code::InvalidArgument);
        assert_eq!(batch_codes(&e), want, "{mode:?}: a value too wide");
        assert_eq!(
            read_sorted(&mut c, everything()).await,
            before,
            "{mode:?}: unchanged after an invalid update"
        );
    }
    // without the bad update, each mode applies the whole batch
    for mode in [RollbackOnError, DataplaneAtomic] {
        let ok = up(Insert, E::TableEntry(entry(dmac, &[5], fwd, &[5])));
        c.write(write_req(mode, batch(ok))).await.expect("a good batch");
        let after = read_sorted(&mut c, everything()).await;
        assert_ne!(after, before, "{mode:?}: the batch was applied");
        let dmac_now = read_sorted(
            &mut c,
            vec![E::TableEntry(TableEntry {
                table_id: dmac,
                ..Default::default()
            })],
        )
        .await;
        let mut want: Vec<Vec<u8>> = [
            drop_entry(&[1]),
            entry(dmac, &[3], fwd, &[3]),
            entry(dmac, &[5], fwd, &[5]),
        ]
        .into_iter()
        .map(|t| {
            Entity {
                entity: Some(E::TableEntry(t)),
            }
            .encode_to_vec()
        })
        .collect();
        want.sort();
        assert_eq!(dmac_now, want, "{mode:?}: the entries the batch wrote");
        // back to the state before for the next mode
        c.write(write_req(
            ContinueOnError,
            vec![
                up(Modify, E::TableEntry(entry(dmac, &[1], fwd, &[1]))),
                up(Insert, E::TableEntry(entry(dmac, &[2], fwd, &[2]))),
                up(Delete, E::TableEntry(entry(dmac, &[3], fwd, &[3]))),
                up(Delete, E::TableEntry(entry(dmac, &[5], fwd, &[5]))),
                up(Delete, E::TableEntry(lpm(0x0a, 8))),
                up(Modify, default_dmac(Some(&[5]), fwd)),
                up(
                    Modify,
                    E::RegisterEntry(RegisterEntry {
                        register_id: reg,
                        index: None,
                        data: Some(P4Data {
                            data: Some(p4_data::Data::Bitstring(vec![0])),
                        }),
                    }),
                ),
                up(Modify, register(3, 33)),
                up(Modify, counter(4, 44)),
                up(Modify, group(7, &[1, 2])),
                up(Delete, group(8, &[])),
            ],
        ))
        .await
        .expect("restore");
        assert_eq!(
            read_sorted(&mut c, everything()).await,
            before,
            "restored for the next mode"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The `outcome` counter: (miss, disagree, agree) packets so far.
async fn outcomes(c: &mut P4RuntimeClient<Channel>, id: u32) -> [i64; 3] {
    let mut s = c
        .read(ReadRequest {
            device_id: DEVICE,
            entities: vec![Entity {
                entity: Some(entity::Entity::CounterEntry(CounterEntry {
                    counter_id: id,
                    ..Default::default()
                })),
            }],
            ..Default::default()
        })
        .await
        .expect("read the outcome counter")
        .into_inner();
    let mut out = [0i64; 3];
    while let Some(r) = s.next().await {
        for e in r.expect("read response").entities {
            if let Some(entity::Entity::CounterEntry(c)) = e.entity {
                let i = c.index.map_or(0, |i| i.index) as usize;
                out[i] = c.data.map_or(0, |d| d.packet_count);
            }
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dataplane_atomic_batches_are_never_seen_half_applied() {
    use update::Type::{Insert, Modify};
    let dir = temp_dir("p4rt-atomic");
    let (info, dc) = build("atomic", &dir);
    // packets for 4 destinations, replayed without end
    let keys: [[u8; 6]; 4] = [
        [2, 0, 0, 0, 0, 1],
        [2, 0, 0, 0, 0, 2],
        [2, 0, 0, 0, 0, 3],
        [2, 0, 0, 0, 0, 4],
    ];
    let frames: Vec<Vec<u8>> = (0..256)
        .map(|i| {
            let mut f = vec![0u8; 64];
            f[..6].copy_from_slice(&keys[i % 4]);
            f[6..12].copy_from_slice(&[4, 0, 0, 0, 0, i as u8]);
            f[12] = 0x88;
            f[13] = 0xb5;
            f
        })
        .collect();
    let pcap = dir.join("in.pcap");
    p4dp_testutil::pcap::write(&pcap, &frames);
    let vdev = format!("0=net_pcap_atomic,rx_pcap={},infinite_rx=1", pcap.display());
    let sw = start(&["--vdev".into(), vdev]);
    let (mut c, _arb) = primary_with(&sw, &info, &dc).await;
    let (tag, check) = (id_of(&info, "AtomicIngress.tag"), id_of(&info, "AtomicIngress.check"));
    let (set_tag, expect) = (
        id_of(&info, "AtomicIngress.set_tag"),
        id_of(&info, "AtomicIngress.expect"),
    );
    let outcome = id_of(&info, "AtomicIngress.outcome");
    let both = |t: update::Type, v: u32| -> Vec<Update> {
        keys.iter()
            .flat_map(|k| {
                [
                    up(t, entity::Entity::TableEntry(entry(tag, k, set_tag, &v.to_be_bytes()))),
                    up(t, entity::Entity::TableEntry(entry(check, k, expect, &v.to_be_bytes()))),
                ]
            })
            .collect()
    };
    c.write(write_req(write_request::Atomicity::DataplaneAtomic, both(Insert, 1)))
        .await
        .expect("the first entries");
    // wait until packets hit the entries
    let mut base = outcomes(&mut c, outcome).await;
    for _ in 0..100 {
        if base[2] > 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
        base = outcomes(&mut c, outcome).await;
    }
    assert!(base[2] > 0, "packets flow through both tables: {base:?}");
    let n: u32 = std::env::var("P4DP_TEST_ATOMIC_BATCHES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2000);
    let mut last_agree = base[2];
    let mut forwarded_between = 0;
    for i in 0..n {
        c.write(write_req(
            write_request::Atomicity::DataplaneAtomic,
            both(Modify, i + 2),
        ))
        .await
        .expect("a data-plane atomic batch");
        if i % 200 == 199 {
            let now = outcomes(&mut c, outcome).await;
            if now[2] > last_agree {
                forwarded_between += 1;
            }
            last_agree = now[2];
        }
    }
    let end = outcomes(&mut c, outcome).await;
    let d = [end[0] - base[0], end[1] - base[1], end[2] - base[2]];
    eprintln!(
        "{n} batches of 8 modifies: packets during them: miss {}, disagree {}, agree {}",
        d[0], d[1], d[2]
    );
    assert_eq!(d[1], 0, "packets saw the two tables disagree (a half-applied batch)");
    assert_eq!(d[0], 0, "packets missed an entry during modifies");
    assert!(d[2] > 0, "packets flowed during the batches");
    assert!(forwarded_between > 0, "the workers forwarded between batches");
    let _ = std::fs::remove_dir_all(&dir);
}
