//! P4Runtime role configurations (p4dp.v1.RoleConfig in MasterArbitrationUpdate.role.config)
//! through raw tonic stubs against `p4dp serve`: writes outside a role refused with
//! PERMISSION_DENIED (alone, in CONTINUE_ON_ERROR and in all-or-nothing batches), reads that
//! name a role filtered, the pipeline and the replication engine kept from roles not allowed
//! them, bad configs refused; on a pcap port: PacketIns, DigestLists and PacketOuts per role.

mod p4rt_common;

use std::time::Duration;

use p4dp_p4runtime::proto::p4::v1::*;
use p4dp_p4runtime::proto::p4dp::v1::RoleConfig;
use p4dp_p4runtime::roles::{to_any, ROLE_CONFIG_TYPE};
use p4rt_common::*;
use prost::Message;
use tokio_stream::StreamExt;
use tonic::transport::Channel;
use tonic::Code;

type Client = p4_runtime_client::P4RuntimeClient<Channel>;

const SEC: Duration = Duration::from_secs(1);
const HOST_A: [u8; 6] = [0x02, 0, 0, 0, 0, 0x0a];
const UNKNOWN: [u8; 6] = [0x02, 0, 0, 0, 0, 0x99];

#[allow(deprecated)]
fn role(name: &str, cfg: Option<RoleConfig>) -> Option<Role> {
    Some(Role {
        id: 0,
        name: name.into(),
        config: cfg.map(|c| to_any(&c)),
    })
}

async fn write_role(
    c: &mut Client,
    role: &str,
    election: u64,
    atomicity: write_request::Atomicity,
    updates: Vec<Update>,
) -> Result<(), tonic::Status> {
    c.write(WriteRequest {
        device_id: DEVICE,
        role: role.into(),
        election_id: eid(election),
        updates,
        atomicity: atomicity as i32,
        ..Default::default()
    })
    .await
    .map(|_| ())
}

/// The per-update codes of a failed Write.
fn codes(r: Result<(), tonic::Status>) -> Vec<Code> {
    let s = r.expect_err("the write fails");
    assert_eq!(s.code(), Code::Unknown, "{s:?}");
    let st = p4dp_p4runtime::proto::google::rpc::Status::decode(s.details()).expect("details");
    st.details
        .iter()
        .map(|d| Code::from(Error::decode(d.value.as_slice()).expect("p4.v1.Error").canonical_code))
        .collect()
}

async fn read_role(c: &mut Client, role: &str, e: entity::Entity) -> Vec<entity::Entity> {
    let mut s = c
        .read(ReadRequest {
            device_id: DEVICE,
            role: role.into(),
            entities: vec![Entity { entity: Some(e) }],
        })
        .await
        .expect("read")
        .into_inner();
    let mut out = vec![];
    while let Some(r) = s.next().await {
        out.extend(r.expect("read").entities.into_iter().filter_map(|e| e.entity));
    }
    out
}

fn entry(table: u32, key: [u8; 6], act: TableAction) -> entity::Entity {
    entity::Entity::TableEntry(TableEntry {
        table_id: table,
        r#match: vec![exact(1, &key)],
        action: Some(act),
        ..Default::default()
    })
}

fn all_tables() -> entity::Entity {
    entity::Entity::TableEntry(TableEntry::default())
}

fn table_ids(es: &[entity::Entity]) -> Vec<u32> {
    let mut v: Vec<u32> = es
        .iter()
        .filter_map(|e| match e {
            entity::Entity::TableEntry(t) => Some(t.table_id),
            _ => None,
        })
        .collect();
    v.sort();
    v
}

fn mcast(id: u32) -> entity::Entity {
    entity::Entity::PacketReplicationEngineEntry(PacketReplicationEngineEntry {
        r#type: Some(packet_replication_engine_entry::Type::MulticastGroupEntry(
            MulticastGroupEntry {
                multicast_group_id: id,
                replicas: vec![Replica {
                    instance: 1,
                    port_kind: Some(replica::PortKind::Port(vec![1])),
                    ..Default::default()
                }],
                ..Default::default()
            },
        )),
    })
}

fn mac(last: u8) -> [u8; 6] {
    [0x02, 0, 0, 0, 1, last]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_role_writes_and_reads_only_its_entities() {
    let dir = temp_dir("p4rt-roles");
    let (info, dc) = build("stream", &dir);
    let sw = start(&[]);
    let mut c = connect(&sw.addr).await;
    let _full = Stream::open(&mut c, 10, Code::Ok).await;
    push(&mut c, 10, &info, &dc).await;
    let dmac = id_of(&info, "StreamIngress.dmac");
    let smac = id_of(&info, "StreamIngress.smac");
    let forward = id_of(&info, "StreamIngress.forward");
    let noaction = id_of(&info, "NoAction");
    let ins = update::Type::Insert;
    use write_request::Atomicity as A;

    // role "l2": the dmac table by its alias; "learn": smac by id and the replication engine
    let l2_cfg = RoleConfig {
        p4_names: vec!["dmac".into()],
        ..Default::default()
    };
    let _l2 = Stream::open_role(&mut c, role("l2", Some(l2_cfg)), 3, Code::Ok).await;
    let learn_cfg = RoleConfig {
        p4_ids: vec![smac],
        packet_replication: true,
        ..Default::default()
    };
    let _learn = Stream::open_role(&mut c, role("learn", Some(learn_cfg)), 3, Code::Ok).await;

    let fwd = |k| update(ins, entry(dmac, mac(k), action(forward, &[&[1]])));
    let src = |k| update(ins, entry(smac, mac(k), action(noaction, &[])));
    write_role(&mut c, "l2", 3, A::ContinueOnError, vec![fwd(1)])
        .await
        .expect("l2 writes dmac");
    write_role(
        &mut c,
        "learn",
        3,
        A::ContinueOnError,
        vec![src(1), update(ins, mcast(5))],
    )
    .await
    .expect("learn writes smac and a multicast group");
    // outside the role: PERMISSION_DENIED, nothing written
    assert_eq!(
        codes(write_role(&mut c, "l2", 3, A::ContinueOnError, vec![src(2)]).await),
        vec![Code::PermissionDenied]
    );
    assert_eq!(
        codes(write_role(&mut c, "l2", 3, A::ContinueOnError, vec![update(ins, mcast(6))]).await),
        vec![Code::PermissionDenied]
    );
    assert_eq!(
        codes(write_role(&mut c, "learn", 3, A::ContinueOnError, vec![fwd(2)]).await),
        vec![Code::PermissionDenied]
    );
    // CONTINUE_ON_ERROR: the update inside is applied, the one outside refused
    assert_eq!(
        codes(write_role(&mut c, "l2", 3, A::ContinueOnError, vec![fwd(3), src(3)]).await),
        vec![Code::Ok, Code::PermissionDenied]
    );
    // all or nothing: nothing written
    for a in [A::RollbackOnError, A::DataplaneAtomic] {
        assert_eq!(
            codes(write_role(&mut c, "l2", 3, a, vec![fwd(4), src(4)]).await),
            vec![Code::Aborted, Code::PermissionDenied],
            "{a:?}"
        );
    }
    // the default role (no config) writes anything
    write_role(&mut c, "", 10, A::ContinueOnError, vec![src(7), fwd(7)])
        .await
        .expect("full access");

    // reads: without a role everything, with a role only its entities
    let every = read_role(&mut c, "", all_tables()).await;
    let mut want = vec![dmac, dmac, dmac, smac, smac];
    want.sort();
    assert_eq!(table_ids(&every), want);
    assert_eq!(table_ids(&read_role(&mut c, "l2", all_tables()).await), vec![dmac; 3]);
    assert_eq!(
        table_ids(&read_role(&mut c, "learn", all_tables()).await),
        vec![smac; 2]
    );
    let pre_all = entity::Entity::PacketReplicationEngineEntry(PacketReplicationEngineEntry { r#type: None });
    assert_eq!(read_role(&mut c, "learn", pre_all.clone()).await.len(), 1);
    assert_eq!(read_role(&mut c, "l2", pre_all.clone()).await.len(), 0);
    // a role no controller announced has full access
    assert_eq!(read_role(&mut c, "nobody", all_tables()).await.len(), 5);

    // the pipeline: only a role allowed to set it
    let set = |role: &str, election| SetForwardingPipelineConfigRequest {
        device_id: DEVICE,
        role: role.into(),
        election_id: eid(election),
        action: set_forwarding_pipeline_config_request::Action::Verify as i32,
        config: Some(ForwardingPipelineConfig {
            p4info: Some(info.clone()),
            p4_device_config: dc.clone(),
            cookie: None,
        }),
        ..Default::default()
    };
    let e = c
        .set_forwarding_pipeline_config(set("l2", 3))
        .await
        .expect_err("l2 may not");
    assert_eq!(e.code(), Code::PermissionDenied, "{e:?}");
    let admin_cfg = RoleConfig {
        set_pipeline: true,
        ..Default::default()
    };
    let _admin = Stream::open_role(&mut c, role("admin", Some(admin_cfg)), 1, Code::Ok).await;
    c.set_forwarding_pipeline_config(set("admin", 1))
        .await
        .expect("a role with set_pipeline may");

    // the primary's config is the role's: a new primary with another config replaces it
    let l2b_cfg = RoleConfig {
        p4_names: vec!["StreamIngress.smac".into()],
        ..Default::default()
    };
    let _l2b = Stream::open_role(&mut c, role("l2", Some(l2b_cfg)), 4, Code::Ok).await;
    write_role(&mut c, "l2", 4, A::ContinueOnError, vec![src(8)])
        .await
        .expect("the new primary's config lists smac");
    assert_eq!(
        codes(write_role(&mut c, "l2", 4, A::ContinueOnError, vec![fwd(8)]).await),
        vec![Code::PermissionDenied]
    );

    // configs p4dp cannot use end the stream with INVALID_ARGUMENT
    #[allow(deprecated)]
    for (type_url, value, why) in [
        (
            "type.googleapis.com/p4.v1.Role".to_string(),
            vec![],
            "another message type",
        ),
        (
            format!("type.googleapis.com/{ROLE_CONFIG_TYPE}"),
            vec![0x0a, 0x09, 0x01],
            "bytes that do not decode",
        ),
    ] {
        let mut any = to_any(&RoleConfig::default());
        any.type_url = type_url;
        any.value = value;
        let (tx, rx) = tokio::sync::mpsc::channel(4);
        tx.send(StreamMessageRequest {
            update: Some(stream_message_request::Update::Arbitration(MasterArbitrationUpdate {
                device_id: DEVICE,
                election_id: eid(20),
                role: Some(Role {
                    id: 0,
                    name: "bad".into(),
                    config: Some(any),
                }),
                ..Default::default()
            })),
        })
        .await
        .expect("send");
        let mut s = c
            .stream_channel(tokio_stream::wrappers::ReceiverStream::new(rx))
            .await
            .expect("stream")
            .into_inner();
        match tokio::time::timeout(10 * SEC, s.next()).await {
            Ok(Some(Err(e))) => assert_eq!(e.code(), Code::InvalidArgument, "{why}: {e:?}"),
            other => panic!("{why}: the stream must end with INVALID_ARGUMENT, got {other:?}"),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn notifications_and_packet_outs_follow_the_role() {
    let dir = temp_dir("p4rt-roles-io");
    let (info, dc) = build("stream", &dir);
    // frames to an unknown destination: the program sends them to the controller port
    let input: Vec<Vec<u8>> = (0..3).map(|i| frame(UNKNOWN, HOST_A, i)).collect();
    p4dp_testutil::pcap::write(&dir.join("in0.pcap"), &input);
    let out0 = dir.join("out0.pcap");
    let sw = start(&[
        "--port".into(),
        format!("0={}:{}", dir.join("in0.pcap").display(), out0.display()),
    ]);
    let mut c = connect(&sw.addr).await;
    let learn_id = id_of(&info, "learn_t");
    // "cpu" gets PacketIns and may send PacketOuts; "learn" gets the digest; "l2" neither
    let cpu_cfg = RoleConfig {
        receive_packet_in: true,
        send_packet_out: true,
        set_pipeline: true,
        ..Default::default()
    };
    let mut cpu = Stream::open_role(&mut c, role("cpu", Some(cpu_cfg)), 1, Code::Ok).await;
    let learn_cfg = RoleConfig {
        p4_names: vec!["learn_t".into()],
        ..Default::default()
    };
    let mut learn = Stream::open_role(&mut c, role("learn", Some(learn_cfg)), 1, Code::Ok).await;
    let l2_cfg = RoleConfig {
        p4_names: vec!["dmac".into()],
        ..Default::default()
    };
    let mut l2 = Stream::open_role(&mut c, role("l2", Some(l2_cfg)), 1, Code::Ok).await;
    c.set_forwarding_pipeline_config(SetForwardingPipelineConfigRequest {
        device_id: DEVICE,
        role: "cpu".into(),
        election_id: eid(1),
        action: set_forwarding_pipeline_config_request::Action::VerifyAndCommit as i32,
        config: Some(ForwardingPipelineConfig {
            p4info: Some(info.clone()),
            p4_device_config: dc.clone(),
            cookie: None,
        }),
        ..Default::default()
    })
    .await
    .expect("cpu pushes the pipeline");
    // the digest, configured by its role; a PacketOut below has a source smac does not know
    write_role(
        &mut c,
        "learn",
        1,
        write_request::Atomicity::ContinueOnError,
        vec![update(
            update::Type::Insert,
            entity::Entity::DigestEntry(DigestEntry {
                digest_id: learn_id,
                config: Some(digest_entry::Config {
                    max_timeout_ns: 0,
                    max_list_size: 1,
                    ack_timeout_ns: 0,
                }),
            }),
        )],
    )
    .await
    .expect("learn configures its digest");

    for (i, f) in input.iter().enumerate() {
        let pi = cpu
            .packet_in(10 * SEC)
            .await
            .unwrap_or_else(|| panic!("PacketIn {i} to cpu"));
        assert_eq!(&pi.payload, f);
    }
    assert!(
        l2.packet_in(SEC).await.is_none(),
        "no PacketIn to a role without receive_packet_in"
    );
    assert!(learn.packet_in(SEC / 4).await.is_none(), "no PacketIn to learn either");

    // PacketOut: refused for l2, sent for cpu (and its source learned: a DigestList to learn only)
    let out = frame(UNKNOWN, [0x02, 0, 0, 0, 0, 0x77], 0x55);
    let po = || {
        stream_message_request::Update::Packet(PacketOut {
            payload: out.clone(),
            metadata: vec![PacketMetadata {
                metadata_id: 1,
                value: vec![0],
            }],
        })
    };
    l2.send(po()).await;
    let e = l2
        .stream_error(5 * SEC)
        .await
        .expect("a StreamError for l2's PacketOut");
    assert_eq!(Code::from(e.canonical_code), Code::PermissionDenied, "{e:?}");
    cpu.send(po()).await;
    let got = wait_pcap(&out0, 10 * SEC, |fs| fs.contains(&out));
    assert!(got.contains(&out), "cpu's PacketOut leaves port 0");
    let d = learn.digest(10 * SEC).await.expect("a DigestList to the learn role");
    assert_eq!(d.digest_id, learn_id);
    assert!(
        cpu.digest(SEC).await.is_none(),
        "no DigestList to a role without the digest"
    );
    assert!(l2.digest(SEC / 4).await.is_none(), "no DigestList to l2");
    // an ack of a digest outside the role is refused
    l2.send(stream_message_request::Update::DigestAck(DigestListAck {
        digest_id: learn_id,
        list_id: d.list_id,
    }))
    .await;
    let e = l2.stream_error(5 * SEC).await.expect("a StreamError for l2's ack");
    assert_eq!(Code::from(e.canonical_code), Code::PermissionDenied, "{e:?}");
}
