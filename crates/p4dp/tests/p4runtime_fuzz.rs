//! Fuzzing of the P4Runtime request path: random and mutated Write and Read requests against
//! `p4dp serve` running `tests/p4runtime/externs.p4` (tables with direct counters and meters,
//! counters, meters, registers) over raw tonic stubs.
//!
//! The requests are generated from a seeded generator (splitmix64; `P4DP_P4RT_FUZZ_SEED`, printed,
//! replays a run) for `P4DP_P4RT_FUZZ_SECS` seconds (default 4): entities of every kind with ids
//! taken from the P4Info or random, match fields of random kinds and widths, random actions,
//! parameters, priorities, extras (idle timeouts, metadata, meter and counter data), update types
//! and atomicities (also values outside the enums), wrong device and election ids; one request in
//! four is a valid request's encoding with random bytes changed (when it still decodes). Checked:
//! the switch answers every request (no crash: the process stays up, Capabilities answers at the
//! end), and a rejected write changes nothing: after a write that fails as a whole (wrong device,
//! not the primary, an all-or-nothing batch or a batch of one update), a Read of every table entry,
//! counter, meter and register returns what it returned before.

// the fuzzer sends deprecated fields too (replica egress_port, role_id)
#![allow(deprecated)]

mod p4rt_common;

use std::time::{Duration, Instant};

use p4dp_p4runtime::proto::p4::config::v1::P4Info;
use p4dp_p4runtime::proto::p4::v1::p4_runtime_client::P4RuntimeClient;
use p4dp_p4runtime::proto::p4::v1::*;
use p4dp_testutil::rng::Rng;
use p4rt_common::*;
use prost::Message;
use tonic::transport::Channel;
use tonic::Code;

/// The seeded generator (splitmix64) with the request fuzzer's own draws.
struct Gen(Rng);

impl std::ops::Deref for Gen {
    type Target = Rng;
    fn deref(&self) -> &Rng {
        &self.0
    }
}

impl std::ops::DerefMut for Gen {
    fn deref_mut(&mut self) -> &mut Rng {
        &mut self.0
    }
}

impl Gen {
    /// One of `ids`, or (one time in `wild`) any id.
    fn id(&mut self, ids: &[u32], wild: u64) -> u32 {
        if ids.is_empty() || self.chance(wild) {
            match self.upto(3) {
                0 => 0,
                1 => self.next() as u32,
                _ => ids.first().copied().unwrap_or(1).wrapping_add(self.upto(4) as u32),
            }
        } else {
            ids[self.upto(ids.len() as u64) as usize]
        }
    }
    fn bytes(&mut self, max: u64) -> Vec<u8> {
        let n = match self.upto(8) {
            0 => 0,
            1 => self.upto(max * 4 + 1),
            _ => self.upto(max + 1),
        };
        (0..n)
            .map(|_| if self.chance(3) { 0 } else { self.next() as u8 })
            .collect()
    }
    fn int(&mut self) -> i64 {
        match self.upto(5) {
            0 => 0,
            1 => -(self.upto(1000) as i64),
            2 => self.next() as i64,
            _ => self.upto(5000) as i64,
        }
    }
}

/// The ids a generated request draws from.
struct Ids {
    tables: Vec<u32>,
    actions: Vec<u32>,
    counters: Vec<u32>,
    meters: Vec<u32>,
    registers: Vec<u32>,
    direct_counters: Vec<u32>,
}

impl Ids {
    fn of(info: &P4Info) -> Ids {
        let ids = |v: Vec<Option<u32>>| v.into_iter().flatten().collect::<Vec<_>>();
        Ids {
            tables: ids(info.tables.iter().map(|t| t.preamble.as_ref().map(|p| p.id)).collect()),
            actions: ids(info.actions.iter().map(|t| t.preamble.as_ref().map(|p| p.id)).collect()),
            counters: ids(info
                .counters
                .iter()
                .map(|t| t.preamble.as_ref().map(|p| p.id))
                .collect()),
            meters: ids(info.meters.iter().map(|t| t.preamble.as_ref().map(|p| p.id)).collect()),
            registers: ids(info
                .registers
                .iter()
                .map(|t| t.preamble.as_ref().map(|p| p.id))
                .collect()),
            direct_counters: ids(info
                .direct_counters
                .iter()
                .map(|t| t.preamble.as_ref().map(|p| p.id))
                .collect()),
        }
    }
}

fn field_match(g: &mut Gen) -> FieldMatch {
    use field_match::FieldMatchType as K;
    let kind = match g.upto(6) {
        0 => None,
        1 => Some(K::Lpm(field_match::Lpm {
            value: g.bytes(8),
            prefix_len: g.upto(70) as i32 - 2,
        })),
        2 => Some(K::Ternary(field_match::Ternary {
            value: g.bytes(8),
            mask: g.bytes(8),
        })),
        3 => Some(K::Range(field_match::Range {
            low: g.bytes(8),
            high: g.bytes(8),
        })),
        4 => Some(K::Optional(field_match::Optional { value: g.bytes(8) })),
        _ => Some(K::Exact(field_match::Exact { value: g.bytes(8) })),
    };
    FieldMatch {
        field_id: if g.chance(8) { g.upto(5) as u32 } else { 1 },
        field_match_type: kind,
    }
}

fn table_entry(g: &mut Gen, ids: &Ids) -> TableEntry {
    let n_match = match g.upto(6) {
        0 => 0,
        1 => 2,
        _ => 1,
    };
    let action = match g.upto(8) {
        0 => None,
        1 => Some(TableAction {
            r#type: Some(table_action::Type::ActionProfileMemberId(g.upto(4) as u32)),
        }),
        _ => Some(TableAction {
            r#type: Some(table_action::Type::Action(Action {
                action_id: g.id(&ids.actions, 6),
                params: (0..g.upto(3))
                    .map(|i| action::Param {
                        param_id: if g.chance(6) { g.upto(4) as u32 } else { i as u32 + 1 },
                        value: g.bytes(3),
                    })
                    .collect(),
            })),
        }),
    };
    TableEntry {
        table_id: g.id(&ids.tables, 8),
        r#match: (0..n_match).map(|_| field_match(g)).collect(),
        action,
        priority: if g.chance(3) { g.int() as i32 } else { 0 },
        is_default_action: g.chance(10),
        idle_timeout_ns: if g.chance(6) { g.int() } else { 0 },
        metadata: if g.chance(5) { g.bytes(16) } else { vec![] },
        counter_data: g.chance(5).then(|| CounterData {
            byte_count: g.int(),
            packet_count: g.int(),
        }),
        meter_config: g.chance(6).then(|| meter_config(g)),
        meter_counter_data: g.chance(6).then(|| meter_counts(g)),
        time_since_last_hit: g.chance(20).then(table_entry::IdleTimeout::default),
        ..Default::default()
    }
}

fn meter_config(g: &mut Gen) -> MeterConfig {
    MeterConfig {
        cir: g.int(),
        cburst: g.int(),
        pir: g.int(),
        pburst: g.int(),
        eburst: if g.chance(6) { g.int() } else { 0 },
    }
}

/// Per-colour meter counts (a colour may be left out; negative values are refused).
fn meter_counts(g: &mut Gen) -> MeterCounterData {
    let c = |g: &mut Gen| {
        (!g.chance(6)).then(|| CounterData {
            byte_count: g.int(),
            packet_count: g.int(),
        })
    };
    MeterCounterData {
        green: c(g),
        yellow: c(g),
        red: c(g),
    }
}

fn index(g: &mut Gen) -> Option<Index> {
    (!g.chance(4)).then(|| Index {
        index: if g.chance(5) { g.int() } else { g.upto(10) as i64 },
    })
}

fn entity(g: &mut Gen, ids: &Ids) -> entity::Entity {
    use entity::Entity as E;
    match g.upto(10) {
        0 => E::CounterEntry(CounterEntry {
            counter_id: g.id(&ids.counters, 5),
            index: index(g),
            data: g.chance(2).then(|| CounterData {
                byte_count: g.int(),
                packet_count: g.int(),
            }),
        }),
        1 => E::MeterEntry(MeterEntry {
            meter_id: g.id(&ids.meters, 5),
            index: index(g),
            config: g.chance(2).then(|| meter_config(g)),
            counter_data: g.chance(3).then(|| meter_counts(g)),
        }),
        2 => E::RegisterEntry(RegisterEntry {
            register_id: g.id(&ids.registers, 5),
            index: index(g),
            data: g.chance(2).then(|| P4Data {
                data: Some(p4_data::Data::Bitstring(g.bytes(6))),
            }),
        }),
        3 => E::DirectCounterEntry(DirectCounterEntry {
            table_entry: Some(table_entry(g, ids)),
            data: g.chance(2).then(|| CounterData {
                byte_count: g.int(),
                packet_count: g.int(),
            }),
        }),
        4 => E::DirectMeterEntry(DirectMeterEntry {
            table_entry: Some(table_entry(g, ids)),
            config: g.chance(2).then(|| meter_config(g)),
            counter_data: g.chance(3).then(|| meter_counts(g)),
        }),
        5 => E::PacketReplicationEngineEntry(PacketReplicationEngineEntry {
            r#type: Some(if g.chance(2) {
                packet_replication_engine_entry::Type::MulticastGroupEntry(MulticastGroupEntry {
                    multicast_group_id: g.upto(5) as u32,
                    replicas: replicas(g),
                    metadata: g.bytes(4),
                })
            } else {
                packet_replication_engine_entry::Type::CloneSessionEntry(CloneSessionEntry {
                    session_id: g.upto(5) as u32,
                    replicas: replicas(g),
                    class_of_service: if g.chance(5) { 1 } else { 0 },
                    packet_length_bytes: if g.chance(5) { g.int() as i32 } else { 0 },
                })
            }),
        }),
        6 => E::ActionProfileMember(ActionProfileMember {
            action_profile_id: g.next() as u32,
            member_id: g.upto(4) as u32,
            action: None,
        }),
        7 => E::DirectCounterEntry(DirectCounterEntry {
            table_entry: Some(TableEntry {
                table_id: g.id(&ids.direct_counters, 2),
                ..Default::default()
            }),
            data: None,
        }),
        _ => E::TableEntry(table_entry(g, ids)),
    }
}

fn replicas(g: &mut Gen) -> Vec<Replica> {
    (0..g.upto(4))
        .map(|_| Replica {
            instance: g.upto(3) as u32,
            port_kind: Some(if g.chance(2) {
                replica::PortKind::EgressPort(g.upto(600) as u32)
            } else {
                replica::PortKind::Port(g.bytes(3))
            }),
            ..Default::default()
        })
        .collect()
}

fn write_request(g: &mut Gen, ids: &Ids, primary: u64) -> WriteRequest {
    let updates = (0..match g.upto(8) {
        0 => 0,
        1 => 2 + g.upto(6),
        _ => 1,
    })
        .map(|_| Update {
            r#type: if g.chance(15) {
                g.upto(7) as i32 - 1
            } else {
                1 + g.upto(3) as i32
            },
            entity: (!g.chance(30)).then(|| Entity {
                entity: Some(entity(g, ids)),
            }),
        })
        .collect();
    WriteRequest {
        device_id: if g.chance(15) { g.upto(3) } else { DEVICE },
        role_id: 0,
        role: String::new(),
        election_id: if g.chance(15) {
            eid(g.upto(primary + 2))
        } else {
            eid(primary)
        },
        updates,
        atomicity: if g.chance(10) {
            g.upto(6) as i32 - 1
        } else {
            g.upto(3) as i32
        },
    }
}

/// `m`'s encoding with a few random bytes changed, if it still decodes.
fn mutate<M: Message + Default>(g: &mut Gen, m: &M) -> Option<M> {
    let mut b = m.encode_to_vec();
    if b.is_empty() {
        return None;
    }
    for _ in 0..1 + g.upto(4) {
        let i = g.upto(b.len() as u64) as usize;
        b[i] = g.next() as u8;
    }
    M::decode(b.as_slice()).ok()
}

/// Every table entry, counter, meter and register, in a comparable form.
async fn state(c: &mut P4RuntimeClient<Channel>) -> Vec<String> {
    use entity::Entity as E;
    let mut all = Vec::new();
    let asks = [
        E::TableEntry(TableEntry {
            counter_data: Some(CounterData::default()),
            meter_config: Some(MeterConfig::default()),
            meter_counter_data: Some(MeterCounterData::default()),
            ..Default::default()
        }),
        E::CounterEntry(CounterEntry::default()),
        E::MeterEntry(MeterEntry {
            counter_data: Some(MeterCounterData::default()),
            ..Default::default()
        }),
        E::RegisterEntry(RegisterEntry::default()),
    ];
    for e in asks {
        let got = read(c, e).await.expect("wildcard read");
        all.extend(got.iter().map(|x| format!("{x:?}")));
    }
    all.sort();
    all
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn random_and_mutated_requests_neither_crash_nor_half_apply() {
    let secs: u64 = std::env::var("P4DP_P4RT_FUZZ_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(4);
    let seed: u64 = std::env::var("P4DP_P4RT_FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x5eed_0f_f022);
    println!("P4Runtime fuzz: seed {seed} (P4DP_P4RT_FUZZ_SEED), {secs} s");
    let dir = temp_dir("p4rt-fuzz");
    let (info, dc) = build("externs", &dir);
    let ids = Ids::of(&info);
    // the switch outlives the run (a long P4DP_P4RT_FUZZ_SECS too)
    let sw = start_for(&[], secs + 120);
    let mut c = connect(&sw.addr).await;
    let _s = Stream::open(&mut c, 10, Code::Ok).await;
    push(&mut c, 10, &info, &dc).await;

    let mut g = Gen(Rng::new(seed));
    let mut before = state(&mut c).await;
    let end = Instant::now() + Duration::from_secs(secs);
    let (mut writes, mut applied, mut rejected, mut reads) = (0u64, 0u64, 0u64, 0u64);
    while Instant::now() < end {
        if g.chance(4) {
            let req = ReadRequest {
                device_id: if g.chance(15) { g.upto(3) } else { DEVICE },
                entities: (0..1 + g.upto(3))
                    .map(|_| Entity {
                        entity: Some(entity(&mut g, &ids)),
                    })
                    .collect(),
                ..Default::default()
            };
            let req = if g.chance(4) {
                mutate(&mut g, &req).unwrap_or(req)
            } else {
                req
            };
            reads += 1;
            if let Ok(r) = c.read(req).await {
                let mut s = r.into_inner();
                while let Ok(Some(_)) = s.message().await {}
            }
            continue;
        }
        let req = write_request(&mut g, &ids, 10);
        let req = if g.chance(4) {
            mutate(&mut g, &req).unwrap_or(req)
        } else {
            req
        };
        let whole = req.device_id != DEVICE
            || req.election_id != eid(10)
            || req.role_id != 0
            || !req.role.is_empty()
            || req.updates.len() <= 1
            || req.atomicity == write_request::Atomicity::RollbackOnError as i32
            || req.atomicity == write_request::Atomicity::DataplaneAtomic as i32
            || req.atomicity > 2
            || req.atomicity < 0;
        writes += 1;
        let failed = c.write(req.clone()).await.is_err();
        let now = state(&mut c).await;
        if failed && whole {
            rejected += 1;
            assert_eq!(
                now, before,
                "a rejected write changed the state (seed {seed}, request {req:?})"
            );
        } else if !failed {
            applied += 1;
        }
        before = now;
    }
    println!("{writes} writes ({applied} applied, {rejected} rejected as a whole), {reads} reads");
    assert!(
        writes > 0 && applied > 0 && rejected > 0,
        "the generator reaches both outcomes"
    );
    c.capabilities(CapabilitiesRequest { device_id: DEVICE })
        .await
        .expect("the switch still answers");
}
