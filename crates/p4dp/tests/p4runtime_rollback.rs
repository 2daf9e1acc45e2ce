//! All-or-nothing Write batches over every entity a Write can carry, through raw tonic stubs
//! against `p4dp serve` with `tests/p4runtime/every_entity.p4`: table entries with direct
//! counters and meters, default entries, counters, meters, registers, direct counter and meter
//! entries, action-profile members and groups, entries of selector tables by member, group and
//! one-shot action set, multicast groups, clone sessions, a value set and a digest
//! configuration. A ROLLBACK_ON_ERROR or DATAPLANE_ATOMIC batch changing all of them with one
//! failing update at the end leaves every entity as it was (read back), with UNKNOWN and one
//! p4.v1.Error per update; without the failing update it writes exactly what the same updates
//! write one by one (CONTINUE_ON_ERROR).

mod p4rt_common;

use p4dp_p4runtime::proto::google::rpc;
use p4dp_p4runtime::proto::p4::config::v1::P4Info;
use p4dp_p4runtime::proto::p4::v1::p4_runtime_client::P4RuntimeClient;
use p4dp_p4runtime::proto::p4::v1::*;
use p4rt_common::*;
use prost::Message;
use tonic::transport::Channel;
use tonic::Code;

use entity::Entity as E;
use packet_replication_engine_entry::Type as P;
use update::Type::{Delete, Insert, Modify};
use write_request::Atomicity::{ContinueOnError, DataplaneAtomic, RollbackOnError};

const ELECTION: u64 = 10;

/// The P4Info ids the test uses.
struct Ids {
    dmac: u32,
    policer: u32,
    lb: u32,
    lb_sets: u32,
    forward: u32,
    drop: u32,
    police: u32,
    lb_prof: u32,
    counter: u32,
    meter: u32,
    register: u32,
    vset: u32,
    digest: u32,
}

impl Ids {
    fn of(info: &P4Info) -> Ids {
        let prof = |name: &str| {
            info.action_profiles
                .iter()
                .filter_map(|a| a.preamble.as_ref())
                .find(|p| p.name == name)
                .unwrap_or_else(|| panic!("no action profile {name}"))
                .id
        };
        Ids {
            dmac: id_of(info, "AllIngress.dmac"),
            policer: id_of(info, "AllIngress.policer"),
            lb: id_of(info, "AllIngress.lb"),
            lb_sets: id_of(info, "AllIngress.lb_sets"),
            forward: id_of(info, "AllIngress.forward"),
            drop: id_of(info, "AllIngress.drop"),
            police: id_of(info, "AllIngress.police"),
            lb_prof: prof("AllIngress.lb"),
            counter: id_of(info, "AllIngress.per_src"),
            meter: id_of(info, "AllIngress.rate"),
            register: id_of(info, "AllIngress.last_type"),
            vset: info.value_sets[0].preamble.as_ref().expect("preamble").id,
            digest: id_of(info, "learn_t"),
        }
    }

    fn fwd(&self, port: u8) -> Action {
        Action {
            action_id: self.forward,
            params: vec![action::Param {
                param_id: 1,
                value: vec![port],
            }],
        }
    }

    fn entry(&self, table: u32, key: &[u8], a: table_action::Type) -> TableEntry {
        TableEntry {
            table_id: table,
            r#match: vec![exact(1, key)],
            action: Some(TableAction { r#type: Some(a) }),
            ..Default::default()
        }
    }

    fn dmac(&self, key: u8, a: Action, packets: i64) -> E {
        E::TableEntry(TableEntry {
            counter_data: Some(CounterData {
                packet_count: packets,
                byte_count: packets * 100,
            }),
            ..self.entry(self.dmac, &[key], table_action::Type::Action(a))
        })
    }

    fn default_dmac(&self, a: Action) -> E {
        E::TableEntry(TableEntry {
            table_id: self.dmac,
            is_default_action: true,
            action: Some(TableAction {
                r#type: Some(table_action::Type::Action(a)),
            }),
            ..Default::default()
        })
    }

    /// The default entry of dmac with its own direct counter cell and its metadata.
    fn default_dmac_with(&self, a: Action, packets: i64, metadata: &[u8]) -> E {
        match self.default_dmac(a) {
            E::TableEntry(t) => E::TableEntry(TableEntry {
                counter_data: Some(CounterData {
                    packet_count: packets,
                    byte_count: packets * 64,
                }),
                metadata: metadata.to_vec(),
                ..t
            }),
            _ => unreachable!(),
        }
    }

    /// The default entry of policer (polices the misses) with its own direct meter cell.
    fn default_policer(&self, cfg: Option<MeterConfig>) -> E {
        E::TableEntry(TableEntry {
            table_id: self.policer,
            is_default_action: true,
            action: Some(TableAction {
                r#type: Some(table_action::Type::Action(Action {
                    action_id: self.police,
                    params: vec![],
                })),
            }),
            meter_config: cfg,
            ..Default::default()
        })
    }

    /// The default entry of `table`, as DirectCounterEntry and DirectMeterEntry name it.
    fn default_key(&self, table: u32) -> TableEntry {
        TableEntry {
            table_id: table,
            is_default_action: true,
            ..Default::default()
        }
    }

    fn policer(&self, key: u8, cfg: Option<MeterConfig>) -> E {
        let police = Action {
            action_id: self.police,
            params: vec![],
        };
        E::TableEntry(TableEntry {
            meter_config: cfg,
            ..self.entry(self.policer, &[key], table_action::Type::Action(police))
        })
    }

    fn member(&self, id: u32, port: u8) -> E {
        E::ActionProfileMember(ActionProfileMember {
            action_profile_id: self.lb_prof,
            member_id: id,
            action: Some(self.fwd(port)),
        })
    }

    fn group(&self, id: u32, members: &[(u32, i32)]) -> E {
        group(self.lb_prof, id, members, 8)
    }

    fn one_shot(&self, etype: u16, ports: &[(u8, i32)]) -> E {
        let set = ActionProfileActionSet {
            action_profile_actions: ports
                .iter()
                .map(|&(port, weight)| ActionProfileAction {
                    action: Some(self.fwd(port)),
                    weight,
                    watch_kind: None,
                })
                .collect(),
            ..Default::default()
        };
        E::TableEntry(self.entry(
            self.lb_sets,
            &etype.to_be_bytes(),
            table_action::Type::ActionProfileActionSet(set),
        ))
    }

    fn counter(&self, index: i64, packets: i64) -> E {
        E::CounterEntry(CounterEntry {
            counter_id: self.counter,
            index: Some(Index { index }),
            data: Some(CounterData {
                packet_count: packets,
                byte_count: packets * 64,
            }),
        })
    }

    fn meter(&self, index: i64, cir: i64) -> E {
        E::MeterEntry(MeterEntry {
            meter_id: self.meter,
            index: Some(Index { index }),
            config: Some(rates(cir)),
            counter_data: None,
        })
    }

    fn register(&self, index: Option<i64>, v: u16) -> E {
        E::RegisterEntry(RegisterEntry {
            register_id: self.register,
            index: index.map(|index| Index { index }),
            data: Some(P4Data {
                data: Some(p4_data::Data::Bitstring(v.to_be_bytes().to_vec())),
            }),
        })
    }

    fn value_set(&self, etypes: &[u16]) -> E {
        E::ValueSetEntry(ValueSetEntry {
            value_set_id: self.vset,
            members: etypes
                .iter()
                .map(|t| ValueSetMember {
                    r#match: vec![exact(1, &t.to_be_bytes())],
                })
                .collect(),
        })
    }

    fn digest(&self, max_list_size: i32) -> E {
        E::DigestEntry(DigestEntry {
            digest_id: self.digest,
            config: Some(digest_entry::Config {
                max_timeout_ns: 1_000_000,
                max_list_size,
                ack_timeout_ns: 0,
            }),
        })
    }
}

/// Per-colour meter counts: `n` green, `2n` yellow, `3n` red packets of 64 bytes.
fn colours(n: i64) -> MeterCounterData {
    let c = |p: i64| CounterData {
        packet_count: p,
        byte_count: p * 64,
    };
    MeterCounterData {
        green: Some(c(n)),
        yellow: Some(c(2 * n)),
        red: Some(c(3 * n)),
    }
}

fn rates(cir: i64) -> MeterConfig {
    MeterConfig {
        cir,
        cburst: 10,
        pir: cir * 2,
        pburst: 20,
        eburst: 0,
    }
}

fn mcast(id: u32, ports: &[u8]) -> E {
    E::PacketReplicationEngineEntry(PacketReplicationEngineEntry {
        r#type: Some(P::MulticastGroupEntry(MulticastGroupEntry {
            multicast_group_id: id,
            replicas: ports
                .iter()
                .map(|p| Replica {
                    port_kind: Some(replica::PortKind::Port(vec![*p])),
                    instance: 1,
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        })),
    })
}

fn clone_session(id: u32, port: u8, len: i32) -> E {
    E::PacketReplicationEngineEntry(PacketReplicationEngineEntry {
        r#type: Some(P::CloneSessionEntry(CloneSessionEntry {
            session_id: id,
            replicas: vec![Replica {
                port_kind: Some(replica::PortKind::Port(vec![port])),
                instance: 1,
                ..Default::default()
            }],
            packet_length_bytes: len,
            ..Default::default()
        })),
    })
}

fn req(atomicity: write_request::Atomicity, updates: Vec<Update>) -> WriteRequest {
    WriteRequest {
        device_id: DEVICE,
        election_id: eid(ELECTION),
        updates,
        atomicity: atomicity as i32,
        ..Default::default()
    }
}

/// Every entity of the program, read back in one request, in a canonical order (sorted
/// encodings): all entries with their direct counters and meters, the default entries, every
/// extern cell, direct counter and meter, member, group, replication entry, value set and
/// digest configuration.
async fn everything(c: &mut P4RuntimeClient<Channel>, ids: &Ids) -> Vec<Vec<u8>> {
    let mut what = vec![E::TableEntry(TableEntry {
        counter_data: Some(CounterData::default()),
        meter_config: Some(MeterConfig::default()),
        meter_counter_data: Some(MeterCounterData::default()),
        ..Default::default()
    })];
    for t in [ids.dmac, ids.policer, ids.lb] {
        what.push(E::TableEntry(TableEntry {
            table_id: t,
            is_default_action: true,
            counter_data: Some(CounterData::default()),
            meter_config: Some(MeterConfig::default()),
            meter_counter_data: Some(MeterCounterData::default()),
            ..Default::default()
        }));
    }
    // the default entries' direct counter and meter cells
    what.push(E::DirectCounterEntry(DirectCounterEntry {
        table_entry: Some(ids.default_key(ids.dmac)),
        data: None,
    }));
    what.push(E::DirectMeterEntry(DirectMeterEntry {
        table_entry: Some(ids.default_key(ids.policer)),
        config: None,
        counter_data: Some(MeterCounterData::default()),
    }));
    what.extend([
        E::CounterEntry(CounterEntry::default()),
        E::MeterEntry(MeterEntry {
            counter_data: Some(MeterCounterData::default()),
            ..Default::default()
        }),
        E::RegisterEntry(RegisterEntry::default()),
        E::DirectCounterEntry(DirectCounterEntry::default()),
        E::DirectMeterEntry(DirectMeterEntry {
            counter_data: Some(MeterCounterData::default()),
            ..Default::default()
        }),
        E::ActionProfileMember(ActionProfileMember::default()),
        E::ActionProfileGroup(ActionProfileGroup::default()),
        E::PacketReplicationEngineEntry(PacketReplicationEngineEntry::default()),
        E::ValueSetEntry(ValueSetEntry::default()),
        E::DigestEntry(DigestEntry::default()),
    ]);
    read_sorted(c, what).await
}

/// A table entry with per-colour counts of its direct meter.
fn with_colours(e: E, n: i64) -> E {
    match e {
        E::TableEntry(t) => E::TableEntry(TableEntry {
            meter_counter_data: Some(colours(n)),
            ..t
        }),
        other => other,
    }
}

/// A meter cell write with per-colour counts.
fn meter_colours(e: E, n: i64) -> E {
    match e {
        E::MeterEntry(m) => E::MeterEntry(MeterEntry {
            counter_data: Some(colours(n)),
            ..m
        }),
        other => other,
    }
}

/// The state every batch starts from.
fn before(ids: &Ids) -> Vec<Update> {
    let up = update;
    vec![
        up(Insert, ids.dmac(1, ids.fwd(1), 5)),
        up(Insert, with_colours(ids.policer(1, Some(rates(1000))), 5)),
        up(Insert, ids.policer(2, None)),
        up(Modify, ids.default_dmac_with(ids.fwd(2), 4, b"before")),
        up(Modify, ids.default_policer(Some(rates(300)))),
        up(Modify, ids.counter(1, 3)),
        up(Modify, ids.meter(2, 500)),
        up(Modify, meter_colours(ids.meter(3, 500), 6)),
        up(
            Modify,
            E::DirectMeterEntry(DirectMeterEntry {
                table_entry: Some(ids.default_key(ids.policer)),
                config: Some(rates(300)),
                counter_data: Some(colours(4)),
            }),
        ),
        up(Modify, ids.register(Some(3), 0x0800)),
        up(Insert, ids.member(1, 1)),
        up(Insert, ids.member(2, 2)),
        up(Insert, ids.member(3, 3)),
        up(Insert, ids.group(10, &[(1, 1), (2, 2)])),
        up(
            Insert,
            E::TableEntry(ids.entry(ids.lb, &[1], table_action::Type::ActionProfileMemberId(1))),
        ),
        up(
            Insert,
            E::TableEntry(ids.entry(ids.lb, &[2], table_action::Type::ActionProfileGroupId(10))),
        ),
        up(Insert, ids.one_shot(0x0800, &[(1, 1), (2, 1)])),
        up(Insert, ids.one_shot(0x0806, &[(3, 2)])),
        up(Insert, mcast(7, &[1, 2])),
        up(Insert, clone_session(5, 3, 0)),
        up(Modify, ids.value_set(&[0x88b5])),
        up(Insert, ids.digest(10)),
    ]
}

/// One or more updates of every kind, changing every entity of [`before`]; the order matters
/// where one depends on another (a member leaves its group before it is deleted).
fn batch(ids: &Ids) -> Vec<Update> {
    let up = update;
    let drop = Action {
        action_id: ids.drop,
        params: vec![],
    };
    vec![
        up(Modify, ids.dmac(1, drop.clone(), 0)),
        up(Insert, ids.dmac(2, ids.fwd(2), 1)),
        up(Modify, ids.default_dmac_with(ids.fwd(3), 11, b"batch")),
        up(Modify, ids.default_policer(Some(rates(600)))),
        up(
            Modify,
            E::TableEntry(TableEntry {
                table_id: ids.lb,
                is_default_action: true,
                action: Some(TableAction {
                    r#type: Some(table_action::Type::Action(drop.clone())),
                }),
                ..Default::default()
            }),
        ),
        up(Modify, with_colours(ids.policer(1, Some(rates(7000))), 70)),
        up(Delete, ids.policer(2, None)),
        up(Modify, ids.counter(1, 9)),
        up(Modify, meter_colours(ids.meter(2, 800), 8)),
        up(Modify, ids.meter(0, 100)),
        up(Modify, ids.register(Some(3), 0x86dd)),
        up(Modify, ids.register(None, 1)),
        up(
            Modify,
            E::DirectCounterEntry(DirectCounterEntry {
                table_entry: Some(ids.entry(ids.dmac, &[1], table_action::Type::Action(ids.fwd(1)))),
                data: Some(CounterData {
                    packet_count: 77,
                    byte_count: 7700,
                }),
            }),
        ),
        up(
            Modify,
            E::DirectMeterEntry(DirectMeterEntry {
                table_entry: Some(ids.entry(ids.policer, &[1], table_action::Type::Action(ids.fwd(1)))),
                config: Some(rates(9000)),
                counter_data: Some(colours(90)),
            }),
        ),
        up(
            Modify,
            E::DirectCounterEntry(DirectCounterEntry {
                table_entry: Some(ids.default_key(ids.dmac)),
                data: Some(CounterData {
                    packet_count: 88,
                    byte_count: 8800,
                }),
            }),
        ),
        up(
            Modify,
            E::DirectMeterEntry(DirectMeterEntry {
                table_entry: Some(ids.default_key(ids.policer)),
                config: Some(rates(900)),
                counter_data: Some(colours(9)),
            }),
        ),
        up(Insert, ids.member(4, 4)),
        up(Modify, ids.member(3, 5)),
        up(Modify, ids.group(10, &[(1, 1), (3, 4)])),
        up(Delete, ids.member(2, 2)),
        up(Insert, ids.group(11, &[(1, 1), (4, 1)])),
        up(
            Modify,
            E::TableEntry(ids.entry(ids.lb, &[1], table_action::Type::ActionProfileGroupId(11))),
        ),
        up(
            Insert,
            E::TableEntry(ids.entry(ids.lb, &[3], table_action::Type::ActionProfileMemberId(4))),
        ),
        up(
            Delete,
            E::TableEntry(ids.entry(ids.lb, &[2], table_action::Type::ActionProfileGroupId(10))),
        ),
        up(Modify, ids.one_shot(0x0800, &[(4, 3)])),
        up(Delete, ids.one_shot(0x0806, &[])),
        up(Insert, ids.one_shot(0x86dd, &[(1, 1), (2, 1), (3, 1)])),
        up(Modify, mcast(7, &[3])),
        up(Insert, mcast(8, &[1])),
        up(Delete, clone_session(5, 3, 0)),
        up(Insert, clone_session(6, 2, 100)),
        up(Modify, ids.value_set(&[0x88b5, 0x9000])),
        up(Modify, ids.digest(3)),
    ]
}

/// The per-update (code, message) of a failed batch, from its details.
fn batch_errors(s: &tonic::Status) -> Vec<(Code, String)> {
    assert_eq!(s.code(), Code::Unknown, "{s:?}");
    let st = rpc::Status::decode(s.details()).expect("google.rpc.Status details");
    st.details
        .iter()
        .map(|a| {
            let e = Error::decode(a.value.as_slice()).expect("p4.v1.Error");
            (Code::from(e.canonical_code), e.message)
        })
        .collect()
}

/// A fresh pipeline holding the state of [`before`]; returns that state as read back.
async fn fresh(c: &mut P4RuntimeClient<Channel>, info: &P4Info, dc: &[u8], ids: &Ids) -> Vec<Vec<u8>> {
    push(c, ELECTION, info, dc).await;
    c.write(req(ContinueOnError, before(ids)))
        .await
        .expect("the state before");
    everything(c, ids).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn all_or_nothing_over_every_entity() {
    let dir = temp_dir("p4rt-every-entity");
    let (info, dc) = build("every_entity", &dir);
    let ids = Ids::of(&info);
    let sw = start(&[]);
    let mut c = connect(&sw.addr).await;
    let _primary = Stream::open(&mut c, ELECTION, Code::Ok).await;

    // what the batch writes, applied update by update
    let start_state = fresh(&mut c, &info, &dc, &ids).await;
    c.write(req(ContinueOnError, batch(&ids)))
        .await
        .expect("every update of the batch applies on its own");
    let applied = everything(&mut c, &ids).await;
    assert_ne!(applied, start_state, "the batch changes the state");

    for mode in [RollbackOnError, DataplaneAtomic] {
        let before_state = fresh(&mut c, &info, &dc, &ids).await;
        assert_eq!(before_state, start_state, "{mode:?}: a fresh pipeline starts alike");
        // the batch, then an update that fails when it is applied (the entry exists)
        let mut bad = batch(&ids);
        let n = bad.len();
        bad.push(update(Insert, ids.dmac(1, ids.fwd(9), 0)));
        let e = c.write(req(mode, bad)).await.expect_err("the last update fails");
        let errors = batch_errors(&e);
        assert_eq!(errors.len(), n + 1, "{mode:?}: one p4.v1.Error per update");
        for (i, (code, msg)) in errors[..n].iter().enumerate() {
            assert_eq!(*code, Code::Aborted, "{mode:?}: update {i}: {msg}");
            assert!(msg.starts_with("rolled back"), "{mode:?}: update {i}: {msg}");
        }
        assert_eq!(errors[n].0, Code::AlreadyExists, "{mode:?}: {}", errors[n].1);
        assert_eq!(
            everything(&mut c, &ids).await,
            before_state,
            "{mode:?}: every entity reads back as before the batch"
        );
        // the same batch without the failing update: all of it, as applied one by one
        c.write(req(mode, batch(&ids))).await.expect("the whole batch applies");
        assert_eq!(
            everything(&mut c, &ids).await,
            applied,
            "{mode:?}: the batch wrote what its updates write one by one"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
