//! P4Runtime through raw gRPC stubs against `p4dp serve` (a control-plane-only switch: no ports):
//! arbitration, pipeline configuration and Write/Read with the specification's error codes, and
//! that a rejected request leaves the state unchanged.

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use p4dp_p4runtime::proto::google::rpc;
use p4dp_p4runtime::proto::p4::v1::p4_runtime_client::P4RuntimeClient;
use p4dp_p4runtime::proto::p4::v1::*;
use prost::Message;
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;
use tokio_stream::StreamExt;
use tonic::transport::Channel;
use tonic::Code;

const DEVICE: u64 = 1;

struct Switch {
    child: Child,
    addr: String,
}

impl Drop for Switch {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

/// `p4dp build` of the test program: (P4Info text, device config).
fn build(dir: &std::path::Path) -> (String, Vec<u8>) {
    let st = Command::new(env!("CARGO_BIN_EXE_p4dp"))
        .args(["build"])
        .arg(root().join("tests/p4runtime/fwd.p4"))
        .arg("-o")
        .arg(dir)
        .stderr(Stdio::null())
        .status()
        .expect("run p4dp build");
    assert!(st.success(), "p4dp build failed");
    (
        std::fs::read_to_string(dir.join("fwd.p4info.txtpb")).expect("p4info"),
        std::fs::read(dir.join("fwd.device.bin")).expect("device config"),
    )
}

fn start() -> Switch {
    let addr = format!("127.0.0.1:{}", free_port());
    let child = Command::new(env!("CARGO_BIN_EXE_p4dp"))
        .args(["serve", "--p4runtime", &addr, "--duration", "120", "--mem", "256"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start p4dp serve");
    Switch { child, addr }
}

async fn connect(addr: &str) -> P4RuntimeClient<Channel> {
    for _ in 0..100 {
        if let Ok(c) = P4RuntimeClient::connect(format!("http://{addr}")).await {
            return c
                .max_decoding_message_size(64 << 20)
                .max_encoding_message_size(64 << 20);
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("cannot connect to {addr}");
}

fn eid(v: u64) -> Option<Uint128> {
    Some(Uint128 { high: 0, low: v })
}

/// An arbitration stream: returns the sender (keep it alive) and the first response.
async fn arbitrate(
    c: &mut P4RuntimeClient<Channel>,
    device: u64,
    election: Option<Uint128>,
) -> (
    mpsc::Sender<StreamMessageRequest>,
    Result<StreamMessageResponse, tonic::Status>,
    tonic::Streaming<StreamMessageResponse>,
) {
    let (tx, rx) = mpsc::channel(8);
    tx.send(StreamMessageRequest {
        update: Some(stream_message_request::Update::Arbitration(MasterArbitrationUpdate {
            device_id: device,
            election_id: election,
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
    let first = match tokio::time::timeout(Duration::from_secs(10), inbound.next()).await {
        Ok(Some(r)) => r,
        Ok(None) => Err(tonic::Status::new(Code::Aborted, "stream ended")),
        Err(_) => panic!("no arbitration response"),
    };
    (tx, first, inbound)
}

fn arb_code(r: &Result<StreamMessageResponse, tonic::Status>) -> Code {
    match r {
        Ok(StreamMessageResponse {
            update: Some(stream_message_response::Update::Arbitration(a)),
        }) => Code::from(a.status.as_ref().map_or(-1, |s| s.code)),
        Ok(_) => panic!("not an arbitration response"),
        Err(s) => s.code(),
    }
}

fn p4info(text: &str) -> p4dp_p4runtime::proto::p4::config::v1::P4Info {
    p4dp_p4runtime::p4info::parse_text(text).expect("P4Info parses")
}

fn id_of(info: &p4dp_p4runtime::proto::p4::config::v1::P4Info, name: &str) -> u32 {
    let pre = info
        .tables
        .iter()
        .filter_map(|t| t.preamble.as_ref())
        .chain(info.actions.iter().filter_map(|a| a.preamble.as_ref()))
        .chain(info.counters.iter().filter_map(|a| a.preamble.as_ref()))
        .chain(info.registers.iter().filter_map(|a| a.preamble.as_ref()))
        .find(|p| p.name == name);
    pre.unwrap_or_else(|| panic!("no {name} in the P4Info")).id
}

fn dmac_entry(info: &p4dp_p4runtime::proto::p4::config::v1::P4Info, mac: &[u8], port: &[u8]) -> TableEntry {
    TableEntry {
        table_id: id_of(info, "FwdIngress.dmac"),
        r#match: vec![FieldMatch {
            field_id: 1,
            field_match_type: Some(field_match::FieldMatchType::Exact(field_match::Exact {
                value: mac.to_vec(),
            })),
        }],
        action: Some(TableAction {
            r#type: Some(table_action::Type::Action(Action {
                action_id: id_of(info, "FwdIngress.forward"),
                params: vec![action::Param {
                    param_id: 1,
                    value: port.to_vec(),
                }],
            })),
        }),
        ..Default::default()
    }
}

fn update(t: update::Type, e: entity::Entity) -> Update {
    Update {
        r#type: t as i32,
        entity: Some(Entity { entity: Some(e) }),
    }
}

fn write_req(election: u64, updates: Vec<Update>) -> WriteRequest {
    WriteRequest {
        device_id: DEVICE,
        election_id: eid(election),
        updates,
        ..Default::default()
    }
}

async fn read_tables(c: &mut P4RuntimeClient<Channel>, table_id: u32) -> Vec<TableEntry> {
    let mut s = c
        .read(ReadRequest {
            device_id: DEVICE,
            entities: vec![Entity {
                entity: Some(entity::Entity::TableEntry(TableEntry {
                    table_id,
                    ..Default::default()
                })),
            }],
            ..Default::default()
        })
        .await
        .expect("read")
        .into_inner();
    let mut out = vec![];
    while let Some(r) = s.next().await {
        for e in r.expect("read response").entities {
            if let Some(entity::Entity::TableEntry(t)) = e.entity {
                out.push(t);
            }
        }
    }
    out
}

/// The per-update error codes of a failed batch (from the status details).
fn batch_codes(s: &tonic::Status) -> Vec<Code> {
    assert_eq!(s.code(), Code::Unknown, "{s:?}");
    let st = rpc::Status::decode(s.details()).expect("google.rpc.Status details");
    st.details
        .iter()
        .map(|a| {
            assert_eq!(a.type_url, "type.googleapis.com/p4.v1.Error");
            Code::from(Error::decode(a.value.as_slice()).expect("p4.v1.Error").canonical_code)
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn p4runtime_error_paths_and_round_trips() {
    let dir = std::env::temp_dir().join(format!("p4dp-p4rt-test-{}", std::process::id()));
    let (info_text, device_config) = build(&dir);
    let info = p4info(&info_text);
    let sw = start();
    let mut c = connect(&sw.addr).await;

    let caps = c
        .capabilities(CapabilitiesRequest::default())
        .await
        .expect("capabilities")
        .into_inner();
    assert_eq!(caps.p4runtime_api_version, "1.5.0");

    // arbitration: an unknown device ends the stream with NOT_FOUND
    let (_t0, r0, _) = arbitrate(&mut c, 7, eid(1)).await;
    assert_eq!(arb_code(&r0), Code::NotFound);
    let (_t1, r1, _in1) = arbitrate(&mut c, DEVICE, eid(10)).await;
    assert_eq!(arb_code(&r1), Code::Ok, "the first controller is primary");
    let (_t2, r2, _in2) = arbitrate(&mut c, DEVICE, eid(5)).await;
    assert_eq!(arb_code(&r2), Code::AlreadyExists, "a lower id is a backup");
    let (_t3, r3, _) = arbitrate(&mut c, DEVICE, eid(10)).await;
    assert_eq!(arb_code(&r3), Code::InvalidArgument, "a live id cannot be reused");

    // no pipeline yet
    let e = c.write(write_req(10, vec![])).await.unwrap_err();
    assert_eq!(e.code(), Code::FailedPrecondition);
    let e = c
        .read(ReadRequest {
            device_id: DEVICE,
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::FailedPrecondition);

    let set = |election: u64, device: u64, action: set_forwarding_pipeline_config_request::Action, p4i, dc: Vec<u8>| {
        SetForwardingPipelineConfigRequest {
            device_id: device,
            election_id: eid(election),
            action: action as i32,
            config: Some(ForwardingPipelineConfig {
                p4info: Some(p4i),
                p4_device_config: dc,
                cookie: Some(forwarding_pipeline_config::Cookie { cookie: 77 }),
            }),
            ..Default::default()
        }
    };
    use set_forwarding_pipeline_config_request::Action as A;
    let e = c
        .set_forwarding_pipeline_config(set(10, 9, A::VerifyAndCommit, info.clone(), device_config.clone()))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::NotFound, "unknown device");
    let e = c
        .set_forwarding_pipeline_config(set(5, DEVICE, A::VerifyAndCommit, info.clone(), device_config.clone()))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::PermissionDenied, "a backup may not set the pipeline");
    let e = c
        .set_forwarding_pipeline_config(set(10, DEVICE, A::VerifyAndCommit, info.clone(), b"\x7fELF".to_vec()))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument, "not a device config: {e:?}");
    let mut other = info.clone();
    other.tables.pop();
    let e = c
        .set_forwarding_pipeline_config(set(10, DEVICE, A::VerifyAndCommit, other, device_config.clone()))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument, "a P4Info of another program");
    let e = c
        .set_forwarding_pipeline_config(SetForwardingPipelineConfigRequest {
            device_id: DEVICE,
            election_id: eid(10),
            action: A::Commit as i32,
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::FailedPrecondition, "COMMIT with nothing saved");
    c.set_forwarding_pipeline_config(set(10, DEVICE, A::Verify, info.clone(), device_config.clone()))
        .await
        .expect("VERIFY");
    let got = c
        .get_forwarding_pipeline_config(GetForwardingPipelineConfigRequest {
            device_id: DEVICE,
            response_type: 0,
        })
        .await
        .expect("get")
        .into_inner();
    assert!(
        got.config.unwrap_or_default().p4info.is_none(),
        "VERIFY commits nothing"
    );
    c.set_forwarding_pipeline_config(set(10, DEVICE, A::VerifyAndCommit, info.clone(), device_config.clone()))
        .await
        .expect("VERIFY_AND_COMMIT");
    for (t, want_info, want_dc) in [(0, true, true), (1, false, false), (2, true, false), (3, false, true)] {
        let got = c
            .get_forwarding_pipeline_config(GetForwardingPipelineConfigRequest {
                device_id: DEVICE,
                response_type: t,
            })
            .await
            .expect("get")
            .into_inner()
            .config
            .expect("config");
        assert_eq!(got.cookie.map(|c| c.cookie), Some(77), "response type {t}");
        assert_eq!(got.p4info.is_some(), want_info, "response type {t}");
        assert_eq!(got.p4_device_config == device_config, want_dc, "response type {t}");
    }

    let dmac = id_of(&info, "FwdIngress.dmac");
    // a backup's write is refused and changes nothing
    let e = c
        .write(write_req(
            5,
            vec![update(
                update::Type::Insert,
                entity::Entity::TableEntry(dmac_entry(&info, &[2, 0, 0, 0, 0, 1], &[1])),
            )],
        ))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::PermissionDenied);
    assert!(read_tables(&mut c, dmac).await.is_empty());

    // non-canonical input accepted, canonical output returned
    c.write(write_req(
        10,
        vec![update(
            update::Type::Insert,
            entity::Entity::TableEntry(dmac_entry(&info, &[0, 0, 0, 0, 0, 0, 0, 0, 0, 1], &[0, 0, 3])),
        )],
    ))
    .await
    .expect("insert");
    let got = read_tables(&mut c, dmac).await;
    assert_eq!(got.len(), 1);
    assert_eq!(got[0], dmac_entry(&info, &[1], &[3]), "shortest bytestrings on read");

    // a batch: good insert, duplicate, unknown table, value too wide, bad action: one error each,
    // in order, and only the good update applied
    let mut unknown_table = dmac_entry(&info, &[9], &[1]);
    unknown_table.table_id = 0x0200_0001;
    let e = c
        .write(write_req(
            10,
            vec![
                update(
                    update::Type::Insert,
                    entity::Entity::TableEntry(dmac_entry(&info, &[2], &[2])),
                ),
                update(
                    update::Type::Insert,
                    entity::Entity::TableEntry(dmac_entry(&info, &[1], &[3])),
                ),
                update(update::Type::Insert, entity::Entity::TableEntry(unknown_table)),
                update(
                    update::Type::Insert,
                    entity::Entity::TableEntry(dmac_entry(&info, &[1, 0, 0, 0, 0, 0, 0], &[1])),
                ),
                update(
                    update::Type::Insert,
                    entity::Entity::TableEntry(dmac_entry(&info, &[4], &[2, 0])),
                ),
            ],
        ))
        .await
        .unwrap_err();
    assert_eq!(
        batch_codes(&e),
        vec![
            Code::Ok,
            Code::AlreadyExists,
            Code::NotFound,
            Code::InvalidArgument,
            Code::InvalidArgument
        ]
    );
    let mut got = read_tables(&mut c, dmac).await;
    got.sort_by(|a, b| a.r#match[0].encode_to_vec().cmp(&b.r#match[0].encode_to_vec()));
    assert_eq!(got, vec![dmac_entry(&info, &[1], &[3]), dmac_entry(&info, &[2], &[2])]);

    // consecutive inserts go to the runtime together: a duplicate inside such a run, a delete
    // between runs and an invalid insert in one still give each update its own result, in order
    let ins = |mac: u8, port: &[u8]| {
        update(
            update::Type::Insert,
            entity::Entity::TableEntry(dmac_entry(&info, &[mac], port)),
        )
    };
    let del = |mac: u8| {
        update(
            update::Type::Delete,
            entity::Entity::TableEntry(dmac_entry(&info, &[mac], &[1])),
        )
    };
    let e = c
        .write(write_req(
            10,
            vec![
                ins(0x15, &[5]),
                ins(0x16, &[6]),
                ins(0x15, &[7]),
                del(0x15),
                ins(0x15, &[8]),
                ins(0x17, &[2, 0]),
                ins(0x16, &[9]),
                ins(0x18, &[4]),
            ],
        ))
        .await
        .unwrap_err();
    assert_eq!(
        batch_codes(&e),
        vec![
            Code::Ok,
            Code::Ok,
            Code::AlreadyExists,
            Code::Ok,
            Code::Ok,
            Code::InvalidArgument,
            Code::AlreadyExists,
            Code::Ok
        ]
    );
    let mut got = read_tables(&mut c, dmac).await;
    got.sort_by(|a, b| a.r#match[0].encode_to_vec().cmp(&b.r#match[0].encode_to_vec()));
    assert_eq!(
        got,
        vec![
            dmac_entry(&info, &[1], &[3]),
            dmac_entry(&info, &[2], &[2]),
            dmac_entry(&info, &[0x15], &[8]),
            dmac_entry(&info, &[0x16], &[6]),
            dmac_entry(&info, &[0x18], &[4]),
        ]
    );
    c.write(write_req(10, vec![del(0x15), del(0x16), del(0x18)]))
        .await
        .expect("delete the run's entries");

    // modify, delete of a missing entry, delete
    c.write(write_req(
        10,
        vec![update(
            update::Type::Modify,
            entity::Entity::TableEntry(dmac_entry(&info, &[1], &[7])),
        )],
    ))
    .await
    .expect("modify");
    let e = c
        .write(write_req(
            10,
            vec![update(
                update::Type::Delete,
                entity::Entity::TableEntry(dmac_entry(&info, &[5], &[7])),
            )],
        ))
        .await
        .unwrap_err();
    assert_eq!(batch_codes(&e), vec![Code::NotFound]);
    c.write(write_req(
        10,
        vec![update(
            update::Type::Delete,
            entity::Entity::TableEntry(dmac_entry(&info, &[2], &[0])),
        )],
    ))
    .await
    .expect("delete");
    assert_eq!(read_tables(&mut c, dmac).await, vec![dmac_entry(&info, &[1], &[7])]);

    // ternary + range + optional with a priority; a missing priority is refused
    let acl = id_of(&info, "FwdIngress.acl");
    let acl_entry = |prio: i32| TableEntry {
        table_id: acl,
        r#match: vec![
            FieldMatch {
                field_id: 1,
                field_match_type: Some(field_match::FieldMatchType::Ternary(field_match::Ternary {
                    value: vec![8, 0],
                    mask: vec![0xff, 0],
                })),
            },
            FieldMatch {
                field_id: 3,
                field_match_type: Some(field_match::FieldMatchType::Range(field_match::Range {
                    low: vec![1],
                    high: vec![10],
                })),
            },
        ],
        priority: prio,
        action: Some(TableAction {
            r#type: Some(table_action::Type::Action(Action {
                action_id: id_of(&info, "FwdIngress.drop"),
                params: vec![],
            })),
        }),
        ..Default::default()
    };
    let e = c
        .write(write_req(
            10,
            vec![update(update::Type::Insert, entity::Entity::TableEntry(acl_entry(0)))],
        ))
        .await
        .unwrap_err();
    assert_eq!(batch_codes(&e), vec![Code::InvalidArgument]);
    c.write(write_req(
        10,
        vec![update(update::Type::Insert, entity::Entity::TableEntry(acl_entry(5)))],
    ))
    .await
    .expect("ternary insert");
    assert_eq!(read_tables(&mut c, acl).await, vec![acl_entry(5)]);

    // the default entry: INSERT refused, MODIFY sets it, MODIFY without action resets it
    let def = |action: Option<u32>| TableEntry {
        table_id: dmac,
        is_default_action: true,
        action: action.map(|a| TableAction {
            r#type: Some(table_action::Type::Action(Action {
                action_id: a,
                params: vec![action::Param {
                    param_id: 1,
                    value: vec![4],
                }],
            })),
        }),
        ..Default::default()
    };
    let e = c
        .write(write_req(
            10,
            vec![update(
                update::Type::Insert,
                entity::Entity::TableEntry(def(Some(id_of(&info, "FwdIngress.forward")))),
            )],
        ))
        .await
        .unwrap_err();
    assert_eq!(batch_codes(&e), vec![Code::InvalidArgument]);
    c.write(write_req(
        10,
        vec![update(
            update::Type::Modify,
            entity::Entity::TableEntry(def(Some(id_of(&info, "FwdIngress.forward")))),
        )],
    ))
    .await
    .expect("default modify");
    let read_default = |c: &mut P4RuntimeClient<Channel>| {
        let mut c = c.clone();
        async move {
            let mut s = c
                .read(ReadRequest {
                    device_id: DEVICE,
                    entities: vec![Entity {
                        entity: Some(entity::Entity::TableEntry(def(None))),
                    }],
                    ..Default::default()
                })
                .await
                .expect("read default")
                .into_inner();
            let r = s.next().await.expect("one response").expect("ok");
            match r.entities.into_iter().next().and_then(|e| e.entity) {
                Some(entity::Entity::TableEntry(t)) => t,
                _ => panic!("no default entry"),
            }
        }
    };
    assert_eq!(
        read_default(&mut c).await,
        def(Some(id_of(&info, "FwdIngress.forward")))
    );
    c.write(write_req(
        10,
        vec![update(update::Type::Modify, entity::Entity::TableEntry(def(None)))],
    ))
    .await
    .expect("default reset");
    let d = read_default(&mut c).await;
    assert!(
        matches!(d.action.and_then(|a| a.r#type), Some(table_action::Type::Action(Action { action_id, .. })) if action_id == id_of(&info, "FwdIngress.drop")),
        "the program's default action is back"
    );

    // registers: out-of-range index refused, a write reads back
    let reg = id_of(&info, "FwdIngress.last_len");
    let reg_entry = |i: i64, v: Vec<u8>| RegisterEntry {
        register_id: reg,
        index: Some(Index { index: i }),
        data: Some(P4Data {
            data: Some(p4_data::Data::Bitstring(v)),
        }),
    };
    let e = c
        .write(write_req(
            10,
            vec![update(
                update::Type::Modify,
                entity::Entity::RegisterEntry(reg_entry(16, vec![1])),
            )],
        ))
        .await
        .unwrap_err();
    assert_eq!(batch_codes(&e), vec![Code::OutOfRange]);
    c.write(write_req(
        10,
        vec![update(
            update::Type::Modify,
            entity::Entity::RegisterEntry(reg_entry(3, vec![0, 0, 1, 2])),
        )],
    ))
    .await
    .expect("register write");
    let mut s = c
        .read(ReadRequest {
            device_id: DEVICE,
            entities: vec![Entity {
                entity: Some(entity::Entity::RegisterEntry(RegisterEntry {
                    register_id: reg,
                    index: Some(Index { index: 3 }),
                    data: None,
                })),
            }],
            ..Default::default()
        })
        .await
        .expect("register read")
        .into_inner();
    let r = s.next().await.expect("response").expect("ok");
    assert_eq!(
        r.entities,
        vec![Entity {
            entity: Some(entity::Entity::RegisterEntry(reg_entry(3, vec![1, 2])))
        }]
    );

    // multicast groups read back as written; a duplicate insert is refused
    let grp = |ports: &[u32]| {
        entity::Entity::PacketReplicationEngineEntry(PacketReplicationEngineEntry {
            r#type: Some(packet_replication_engine_entry::Type::MulticastGroupEntry(
                MulticastGroupEntry {
                    multicast_group_id: 7,
                    replicas: ports
                        .iter()
                        .map(|p| Replica {
                            instance: 1,
                            port_kind: Some(replica::PortKind::Port(vec![*p as u8])),
                            ..Default::default()
                        })
                        .collect(),
                    metadata: vec![],
                },
            )),
        })
    };
    c.write(write_req(10, vec![update(update::Type::Insert, grp(&[1, 2]))]))
        .await
        .expect("mcast insert");
    let e = c
        .write(write_req(10, vec![update(update::Type::Insert, grp(&[3]))]))
        .await
        .unwrap_err();
    assert_eq!(batch_codes(&e), vec![Code::AlreadyExists]);
    let mut s = c
        .read(ReadRequest {
            device_id: DEVICE,
            entities: vec![Entity {
                entity: Some(entity::Entity::PacketReplicationEngineEntry(
                    PacketReplicationEngineEntry {
                        r#type: Some(packet_replication_engine_entry::Type::MulticastGroupEntry(
                            Default::default(),
                        )),
                    },
                )),
            }],
            ..Default::default()
        })
        .await
        .expect("pre read")
        .into_inner();
    let r = s.next().await.expect("response").expect("ok");
    assert_eq!(
        r.entities,
        vec![Entity {
            entity: Some(grp(&[1, 2]))
        }]
    );

    // a new primary: the old one's writes are refused
    let (_t4, r4, _in4) = arbitrate(&mut c, DEVICE, eid(20)).await;
    assert_eq!(arb_code(&r4), Code::Ok);
    let e = c
        .write(write_req(
            10,
            vec![update(
                update::Type::Delete,
                entity::Entity::TableEntry(dmac_entry(&info, &[1], &[0])),
            )],
        ))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::PermissionDenied);
    assert_eq!(read_tables(&mut c, dmac).await.len(), 1, "state unchanged");

    // VERIFY_AND_SAVE + COMMIT: writes after the save go to the saved pipeline, which starts empty
    c.set_forwarding_pipeline_config(set(20, DEVICE, A::VerifyAndSave, info.clone(), device_config.clone()))
        .await
        .expect("VERIFY_AND_SAVE");
    assert!(
        read_tables(&mut c, dmac).await.is_empty(),
        "reads see the saved pipeline"
    );
    c.write(write_req(
        20,
        vec![update(
            update::Type::Insert,
            entity::Entity::TableEntry(dmac_entry(&info, &[6], &[6])),
        )],
    ))
    .await
    .expect("insert into the saved pipeline");
    c.set_forwarding_pipeline_config(SetForwardingPipelineConfigRequest {
        device_id: DEVICE,
        election_id: eid(20),
        action: A::Commit as i32,
        ..Default::default()
    })
    .await
    .expect("COMMIT");
    assert_eq!(read_tables(&mut c, dmac).await, vec![dmac_entry(&info, &[6], &[6])]);
    let _ = std::fs::remove_dir_all(&dir);
}
