//! P4Runtime parser value sets through raw tonic stubs against `p4dp serve` on pcap ports: a
//! ValueSetEntry MODIFY changes the parse path of the next packets (PacketOuts parsed from the
//! controller port), members read back as written (one set and the wildcard), every error
//! leaves the sets unchanged, and ROLLBACK_ON_ERROR and DATAPLANE_ATOMIC batches restore or
//! apply them whole. A value set over a struct (`tests/p4runtime/vset_struct.p4`): its fields'
//! match kinds in the P4Info, members of every kind matching packets, read back, refused when
//! invalid and restored by a failed batch.

mod p4rt_common;

use std::time::Duration;

use p4dp_p4runtime::proto::p4::config::v1::P4Info;
use p4dp_p4runtime::proto::p4::v1::p4_runtime_client::P4RuntimeClient;
use p4dp_p4runtime::proto::p4::v1::*;
use p4rt_common::*;
use tonic::transport::Channel;
use tonic::Code;

const SEC: Duration = Duration::from_secs(1);

/// The id of the value set whose name ends with `.name`.
fn vs_id(info: &P4Info, name: &str) -> u32 {
    info.value_sets
        .iter()
        .filter_map(|v| v.preamble.as_ref())
        .find(|p| p.name.ends_with(&format!(".{name}")))
        .unwrap_or_else(|| panic!("no value set {name} in the P4Info"))
        .id
}

/// A value set entry whose members each have one exact field.
fn vset(id: u32, members: &[&[u8]]) -> entity::Entity {
    entity::Entity::ValueSetEntry(ValueSetEntry {
        value_set_id: id,
        members: members
            .iter()
            .map(|v| ValueSetMember {
                r#match: vec![exact(1, v)],
            })
            .collect(),
    })
}

/// An Ethernet frame of type `etype` whose first payload byte (the tag's kind) is `kind`.
fn frame_of(etype: u16, kind: u8, n: u8) -> Vec<u8> {
    let mut f = frame([0x02, 0, 0, 0, 0, 0x0b], [0x02, 0, 0, 0, 0, 0x0a], n);
    f[12..14].copy_from_slice(&etype.to_be_bytes());
    f[14] = kind;
    f
}

impl Ports {
    /// Sends `f` as a PacketOut and returns the port it came out of (the only one that grew).
    async fn port_of(&self, s: &Stream, f: &[u8]) -> usize {
        let before = self.counts();
        s.send(stream_message_request::Update::Packet(PacketOut {
            payload: f.to_vec(),
            metadata: vec![PacketMetadata {
                metadata_id: 1,
                value: vec![0],
            }],
        }))
        .await;
        let end = std::time::Instant::now() + 10 * SEC;
        loop {
            let now = self.counts();
            let grown: Vec<usize> = (0..now.len()).filter(|&i| now[i] > before[i]).collect();
            if !grown.is_empty() {
                // nothing else arrives late
                std::thread::sleep(Duration::from_millis(200));
                let after = self.counts();
                let total: usize = (0..after.len()).map(|i| after[i] - before[i]).sum();
                assert_eq!(total, 1, "one frame out for one PacketOut: {before:?} -> {after:?}");
                let p = grown[0];
                let frames = wait_pcap(&self.out[p], SEC, |fs| fs.len() > before[p]);
                assert_eq!(frames.last().map(|x| x.as_slice()), Some(f), "the frame itself");
                return p;
            }
            assert!(std::time::Instant::now() < end, "no frame came out");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

async fn read_sets(c: &mut P4RuntimeClient<Channel>, id: u32) -> Vec<ValueSetEntry> {
    read(c, vset(id, &[]))
        .await
        .expect("read value sets")
        .into_iter()
        .map(|e| match e {
            entity::Entity::ValueSetEntry(v) => v,
            other => panic!("not a value set entry: {other:?}"),
        })
        .collect()
}

fn entry(id: u32, members: &[&[u8]]) -> ValueSetEntry {
    match vset(id, members) {
        entity::Entity::ValueSetEntry(v) => v,
        _ => unreachable!(),
    }
}

async fn batch(
    c: &mut P4RuntimeClient<Channel>,
    updates: Vec<Update>,
    mode: write_request::Atomicity,
) -> Result<(), tonic::Status> {
    c.write(WriteRequest {
        device_id: DEVICE,
        election_id: eid(10),
        updates,
        atomicity: mode as i32,
        ..Default::default()
    })
    .await
    .map(|_| ())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn value_sets_change_the_parse_path_read_back_errors_and_rollback() {
    let dir = temp_dir("p4rt-vset");
    let (info, dc) = build("vset", &dir);
    let types = vs_id(&info, "tagged_types");
    let kinds = vs_id(&info, "marked_kinds");
    assert_eq!(types >> 24, 0x03, "value set ids have the value set prefix");
    let vsi = info
        .value_sets
        .iter()
        .find(|v| v.preamble.as_ref().unwrap().id == types)
        .unwrap();
    assert_eq!((vsi.size, vsi.r#match.len(), vsi.r#match[0].bitwidth), (4, 1, 16));
    let (sw, ports) = start_on_three_ports(&dir);
    let mut c = connect(&sw.addr).await;
    let primary = Stream::open(&mut c, 10, Code::Ok).await;
    push(&mut c, 10, &info, &dc).await;
    let modify = |e| update(update::Type::Modify, e);

    // empty sets: no packet takes the tag state
    assert_eq!(read_sets(&mut c, 0).await, vec![entry(types, &[]), entry(kinds, &[])]);
    assert_eq!(
        ports.port_of(&primary, &frame_of(0x88b5, 5, 1)).await,
        0,
        "empty set matches nothing"
    );

    // two Ethernet types tagged: both take the tag state, others do not
    write(
        &mut c,
        10,
        vec![modify(vset(types, &[&[0x88, 0xb5], &[0, 0, 0x90, 0x00]]))],
    )
    .await
    .expect("modify tagged_types");
    assert_eq!(ports.port_of(&primary, &frame_of(0x88b5, 5, 2)).await, 1);
    assert_eq!(ports.port_of(&primary, &frame_of(0x9000, 5, 3)).await, 1);
    assert_eq!(ports.port_of(&primary, &frame_of(0x0800, 5, 4)).await, 0);
    assert_eq!(ports.port_of(&primary, &frame_of(0x88b6, 5, 4)).await, 0);

    // a marked kind: the second value set on the tag
    write(&mut c, 10, vec![modify(vset(kinds, &[&[5]]))])
        .await
        .expect("modify marked_kinds");
    assert_eq!(ports.port_of(&primary, &frame_of(0x88b5, 5, 5)).await, 2);
    assert_eq!(ports.port_of(&primary, &frame_of(0x88b5, 6, 6)).await, 1);

    // read back as written, in canonical form: one set and the wildcard
    let t2 = entry(types, &[&[0x88, 0xb5], &[0x90, 0x00]]);
    let k1 = entry(kinds, &[&[5]]);
    assert_eq!(read_sets(&mut c, types).await, vec![t2.clone()]);
    assert_eq!(read_sets(&mut c, 0).await, vec![t2.clone(), k1.clone()]);

    // errors, each leaving the sets unchanged
    let ternary = entity::Entity::ValueSetEntry(ValueSetEntry {
        value_set_id: types,
        members: vec![ValueSetMember {
            r#match: vec![FieldMatch {
                field_id: 1,
                field_match_type: Some(field_match::FieldMatchType::Ternary(field_match::Ternary {
                    value: vec![0x88, 0],
                    mask: vec![0xff, 0],
                })),
            }],
        }],
    });
    let no_field = entity::Entity::ValueSetEntry(ValueSetEntry {
        value_set_id: types,
        members: vec![ValueSetMember { r#match: vec![] }],
    });
    let twice = entity::Entity::ValueSetEntry(ValueSetEntry {
        value_set_id: types,
        members: vec![ValueSetMember {
            r#match: vec![exact(1, &[1]), exact(1, &[2])],
        }],
    });
    for (e, code, why) in [
        (
            update(update::Type::Insert, vset(types, &[&[1]])),
            Code::InvalidArgument,
            "INSERT",
        ),
        (
            update(update::Type::Delete, vset(types, &[])),
            Code::InvalidArgument,
            "DELETE",
        ),
        (
            modify(vset(types, &[&[1], &[2], &[3], &[4], &[5]])),
            Code::ResourceExhausted,
            "5 members in a set of 4",
        ),
        (
            modify(vset(types, &[&[1, 0, 0]])),
            Code::InvalidArgument,
            "a value over 16 bits",
        ),
        (
            modify(vset(types, &[&[]])),
            Code::InvalidArgument,
            "an empty bytestring",
        ),
        (
            modify(ternary),
            Code::InvalidArgument,
            "a ternary match on an exact field",
        ),
        (modify(no_field), Code::InvalidArgument, "a member without its field"),
        (modify(twice), Code::InvalidArgument, "a field given twice"),
        (
            modify(entity::Entity::ValueSetEntry(ValueSetEntry {
                value_set_id: types,
                members: vec![ValueSetMember {
                    r#match: vec![exact(2, &[1])],
                }],
            })),
            Code::InvalidArgument,
            "field id 2",
        ),
        (
            modify(vset(0x0300_0fff, &[&[1]])),
            Code::NotFound,
            "an unknown value set",
        ),
    ] {
        assert_eq!(one_code(write(&mut c, 10, vec![e]).await), code, "{why}");
    }
    let r = read(&mut c, vset(types, &[&[1]])).await;
    assert_eq!(r.expect_err("a read with members").code(), Code::InvalidArgument);
    assert_eq!(
        read_sets(&mut c, 0).await,
        vec![t2.clone(), k1.clone()],
        "unchanged by errors"
    );

    // ROLLBACK_ON_ERROR: two good modifies, then a bad one: nothing changes
    let r = batch(
        &mut c,
        vec![
            modify(vset(types, &[&[0x08, 0x00]])),
            modify(vset(kinds, &[&[6]])),
            modify(vset(kinds, &[&[1], &[2], &[3]])),
        ],
        write_request::Atomicity::RollbackOnError,
    )
    .await;
    assert_eq!(r.expect_err("the batch fails").code(), Code::Unknown);
    assert_eq!(read_sets(&mut c, 0).await, vec![t2.clone(), k1.clone()], "rolled back");
    assert_eq!(ports.port_of(&primary, &frame_of(0x0800, 5, 7)).await, 0);
    assert_eq!(ports.port_of(&primary, &frame_of(0x88b5, 5, 8)).await, 2);

    // a batch that fails while it is written: both value sets are modified, then inserting a
    // clone session that exists fails; the value sets are restored
    let clone5 = entity::Entity::PacketReplicationEngineEntry(PacketReplicationEngineEntry {
        r#type: Some(packet_replication_engine_entry::Type::CloneSessionEntry(
            CloneSessionEntry {
                session_id: 5,
                ..Default::default()
            },
        )),
    });
    write(&mut c, 10, vec![update(update::Type::Insert, clone5.clone())])
        .await
        .expect("insert clone session id 5");
    let r = batch(
        &mut c,
        vec![
            modify(vset(types, &[&[0x08, 0x00]])),
            modify(vset(kinds, &[&[6]])),
            update(update::Type::Insert, clone5),
        ],
        write_request::Atomicity::RollbackOnError,
    )
    .await;
    let st = r.expect_err("the batch fails");
    assert_eq!(st.code(), Code::Unknown);
    assert_eq!(
        read_sets(&mut c, 0).await,
        vec![t2.clone(), k1.clone()],
        "rolled back after writing"
    );
    assert_eq!(ports.port_of(&primary, &frame_of(0x0800, 6, 8)).await, 0);
    assert_eq!(ports.port_of(&primary, &frame_of(0x88b5, 6, 8)).await, 1);

    // DATAPLANE_ATOMIC: both sets replaced at once
    batch(
        &mut c,
        vec![modify(vset(types, &[&[0x08, 0x00]])), modify(vset(kinds, &[&[6]]))],
        write_request::Atomicity::DataplaneAtomic,
    )
    .await
    .expect("dataplane-atomic batch");
    assert_eq!(ports.port_of(&primary, &frame_of(0x0800, 6, 9)).await, 2);
    assert_eq!(ports.port_of(&primary, &frame_of(0x0800, 5, 9)).await, 1);
    assert_eq!(ports.port_of(&primary, &frame_of(0x88b5, 6, 9)).await, 0);

    // emptied again: no packet is tagged
    write(&mut c, 10, vec![modify(vset(types, &[]))])
        .await
        .expect("empty the set");
    assert_eq!(read_sets(&mut c, types).await, vec![entry(types, &[])]);
    assert_eq!(ports.port_of(&primary, &frame_of(0x0800, 6, 10)).await, 0);
    drop(sw);
    let _ = std::fs::remove_dir_all(&dir);
}

fn fm(id: u32, t: field_match::FieldMatchType) -> FieldMatch {
    FieldMatch {
        field_id: id,
        field_match_type: Some(t),
    }
}

fn tern(id: u32, v: &[u8], m: &[u8]) -> FieldMatch {
    fm(
        id,
        field_match::FieldMatchType::Ternary(field_match::Ternary {
            value: v.to_vec(),
            mask: m.to_vec(),
        }),
    )
}

fn lpm(id: u32, v: &[u8], len: i32) -> FieldMatch {
    fm(
        id,
        field_match::FieldMatchType::Lpm(field_match::Lpm {
            value: v.to_vec(),
            prefix_len: len,
        }),
    )
}

fn opt(id: u32, v: &[u8]) -> FieldMatch {
    fm(
        id,
        field_match::FieldMatchType::Optional(field_match::Optional { value: v.to_vec() }),
    )
}

fn members(id: u32, ms: Vec<Vec<FieldMatch>>) -> ValueSetEntry {
    ValueSetEntry {
        value_set_id: id,
        members: ms.into_iter().map(|r#match| ValueSetMember { r#match }).collect(),
    }
}

/// An Ethernet frame of type `etype` whose tag is (kind, rest, extra).
fn tagged(etype: u16, kind: u8, rest: u8, extra: u8) -> Vec<u8> {
    let mut f = frame_of(etype, kind, extra);
    f[15] = rest;
    f[16] = extra;
    f
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn value_sets_over_a_struct_with_match_kinds() {
    use p4dp_p4runtime::proto::p4::config::v1::match_field::{Match, MatchType};
    let dir = temp_dir("p4rt-vset-struct");
    let (info, dc) = build("vset_struct", &dir);
    let classes = vs_id(&info, "classes");
    let vsi = info
        .value_sets
        .iter()
        .find(|v| v.preamble.as_ref().unwrap().id == classes)
        .unwrap();
    let kinds: Vec<(i32, Option<Match>)> = vsi.r#match.iter().map(|f| (f.bitwidth, f.r#match.clone())).collect();
    let mt = |t: MatchType| Some(Match::MatchType(t as i32));
    assert_eq!(
        kinds,
        vec![
            (16, mt(MatchType::Exact)),
            (8, mt(MatchType::Ternary)),
            (8, mt(MatchType::Lpm)),
            (8, mt(MatchType::Optional))
        ],
        "the P4Info has the struct's fields with their @match kinds"
    );
    let (sw, ports) = start_on_three_ports(&dir);
    let mut c = connect(&sw.addr).await;
    let primary = Stream::open(&mut c, 10, Code::Ok).await;
    push(&mut c, 10, &info, &dc).await;
    let modify = |e: ValueSetEntry| update(update::Type::Modify, entity::Entity::ValueSetEntry(e));

    assert_eq!(
        ports.port_of(&primary, &tagged(0x88b5, 0x1f, 0xa7, 1)).await,
        0,
        "empty set"
    );
    // member a: type 0x88b5, kind 0x1? (ternary), rest 0xa? (prefix 4), any extra;
    // member b: type 0x9000, extra 7, kind and rest wildcards
    let a = vec![exact(1, &[0x88, 0xb5]), tern(2, &[0x10], &[0xf0]), lpm(3, &[0xa0], 4)];
    let b = vec![exact(1, &[0x90, 0x00]), opt(4, &[7])];
    let set = members(classes, vec![a.clone(), b.clone()]);
    write(&mut c, 10, vec![modify(set.clone())])
        .await
        .expect("modify classes");
    for (f, port, why) in [
        (tagged(0x88b5, 0x1f, 0xa7, 1), 1, "a: every field matches"),
        (tagged(0x88b5, 0x10, 0xaf, 200), 1, "a: other bits under the wildcards"),
        (tagged(0x88b5, 0x2f, 0xa7, 1), 0, "a: kind outside the ternary"),
        (tagged(0x88b5, 0x1f, 0xb7, 1), 0, "a: rest outside the prefix"),
        (tagged(0x88b6, 0x1f, 0xa7, 1), 0, "a: another type"),
        (tagged(0x9000, 0x55, 0x66, 7), 1, "b: extra 7"),
        (tagged(0x9000, 0x1f, 0xa7, 8), 0, "b: extra 8"),
    ] {
        assert_eq!(ports.port_of(&primary, &f).await, port, "{why}");
    }
    // read back as written (wildcards omitted)
    assert_eq!(read_sets(&mut c, classes).await, vec![set.clone()]);

    // each kind's errors: INVALID_ARGUMENT, nothing changed
    for (m, why) in [
        (vec![exact(1, &[1]), tern(2, &[0x10], &[0])], "a ternary mask of 0"),
        (
            vec![exact(1, &[1]), tern(2, &[0x11], &[0xf0])],
            "ternary value bits outside the mask",
        ),
        (vec![exact(1, &[1]), lpm(3, &[0xa0], 0)], "an lpm prefix of 0"),
        (vec![exact(1, &[1]), lpm(3, &[0xa0], 9)], "an lpm prefix over 8 bits"),
        (
            vec![exact(1, &[1]), lpm(3, &[0xa8], 4)],
            "lpm value bits outside the prefix",
        ),
        (vec![exact(1, &[1]), opt(4, &[1, 0])], "an optional value over 8 bits"),
        (vec![tern(2, &[0x10], &[0xf0])], "the exact field missing"),
        (
            vec![exact(1, &[1]), exact(2, &[1])],
            "an exact match on a ternary field",
        ),
        (vec![opt(1, &[1])], "an optional match on the exact field"),
    ] {
        assert_eq!(
            one_code(write(&mut c, 10, vec![modify(members(classes, vec![m]))]).await),
            Code::InvalidArgument,
            "{why}"
        );
    }
    assert_eq!(
        read_sets(&mut c, classes).await,
        vec![set.clone()],
        "unchanged by errors"
    );

    // a batch that fails while it is written restores the members with their kinds
    let clone5 = entity::Entity::PacketReplicationEngineEntry(PacketReplicationEngineEntry {
        r#type: Some(packet_replication_engine_entry::Type::CloneSessionEntry(
            CloneSessionEntry {
                session_id: 5,
                ..Default::default()
            },
        )),
    });
    write(&mut c, 10, vec![update(update::Type::Insert, clone5.clone())])
        .await
        .expect("insert clone session id 5");
    for mode in [
        write_request::Atomicity::RollbackOnError,
        write_request::Atomicity::DataplaneAtomic,
    ] {
        let r = batch(
            &mut c,
            vec![
                modify(members(classes, vec![vec![exact(1, &[0x08, 0x00])]])),
                update(update::Type::Insert, clone5.clone()),
            ],
            mode,
        )
        .await;
        assert_eq!(r.expect_err("the batch fails").code(), Code::Unknown);
        assert_eq!(
            read_sets(&mut c, classes).await,
            vec![set.clone()],
            "{mode:?}: rolled back"
        );
    }
    assert_eq!(ports.port_of(&primary, &tagged(0x88b5, 0x1f, 0xa7, 2)).await, 1);
    drop(sw);
    let _ = std::fs::remove_dir_all(&dir);
}
