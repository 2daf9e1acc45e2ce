//! P4Runtime counters, meters, registers, direct counters and direct meters through raw tonic
//! stubs against `p4dp serve` on a pcap port: PacketOuts enter the program from the controller
//! port and leave on port 1; the values read back must be what those packets did or what was
//! written.

mod p4rt_common;

use std::time::Duration;

use p4dp_p4runtime::proto::p4::v1::*;
use p4rt_common::*;
use tonic::Code;

const HOST_B: [u8; 6] = [0x02, 0, 0, 0, 0, 0x0b];
/// The source MAC of the packets: its low 3 bits (3) select the indexed cells.
const SRC: [u8; 6] = [0x02, 0, 0, 0, 0, 0x13];
const N: u64 = 7;
const LEN: u64 = 64;

fn counter(id: u32, index: Option<i64>, data: Option<CounterData>) -> entity::Entity {
    entity::Entity::CounterEntry(CounterEntry {
        counter_id: id,
        index: index.map(|index| Index { index }),
        data,
    })
}

fn register(id: u32, index: Option<i64>, v: Option<&[u8]>) -> entity::Entity {
    entity::Entity::RegisterEntry(RegisterEntry {
        register_id: id,
        index: index.map(|index| Index { index }),
        data: v.map(|v| P4Data {
            data: Some(p4_data::Data::Bitstring(v.to_vec())),
        }),
    })
}

fn meter(id: u32, index: Option<i64>, config: Option<MeterConfig>) -> entity::Entity {
    entity::Entity::MeterEntry(MeterEntry {
        meter_id: id,
        index: index.map(|index| Index { index }),
        config,
        counter_data: None,
    })
}

fn key(table: u32, mac: [u8; 6]) -> TableEntry {
    TableEntry {
        table_id: table,
        r#match: vec![exact(1, &mac)],
        ..Default::default()
    }
}

fn packets(p: i64, b: i64) -> CounterData {
    CounterData {
        packet_count: p,
        byte_count: b,
    }
}

/// Per-colour meter counts: (packets, bytes) of green, yellow and red.
fn colours(g: (i64, i64), y: (i64, i64), r: (i64, i64)) -> MeterCounterData {
    MeterCounterData {
        green: Some(packets(g.0, g.1)),
        yellow: Some(packets(y.0, y.1)),
        red: Some(packets(r.0, r.1)),
    }
}

fn config(cir: i64, cburst: i64, pir: i64, pburst: i64) -> MeterConfig {
    MeterConfig {
        cir,
        cburst,
        pir,
        pburst,
        eburst: 0,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn externs_read_back_what_packets_did_and_what_was_written() {
    let dir = temp_dir("p4rt-externs");
    let (info, dc) = build("externs", &dir);
    let out1 = dir.join("out1.pcap");
    let sw = start(&["--port".into(), format!("1=:{}", out1.display())]);
    let mut c = connect(&sw.addr).await;
    let s = Stream::open(&mut c, 10, Code::Ok).await;
    push(&mut c, 10, &info, &dc).await;
    let per_src = id_of(&info, "ExtIngress.per_src");
    let rate = id_of(&info, "ExtIngress.rate");
    let last_len = id_of(&info, "ExtIngress.last_len");
    let dmac = id_of(&info, "ExtIngress.dmac");
    let policer = id_of(&info, "ExtIngress.policer");
    let forward = id_of(&info, "ExtIngress.forward");
    let police = id_of(&info, "ExtIngress.police");
    let ins = |e| update(update::Type::Insert, e);
    let modi = |e| update(update::Type::Modify, e);

    let mut fwd = key(dmac, HOST_B);
    fwd.action = Some(action(forward, &[&[1]]));
    let mut pol = key(policer, SRC);
    pol.action = Some(action(police, &[]));
    write(
        &mut c,
        10,
        vec![
            ins(entity::Entity::TableEntry(fwd.clone())),
            ins(entity::Entity::TableEntry(pol.clone())),
        ],
    )
    .await
    .expect("entries");

    for i in 0..N {
        s.packet_out(frame(HOST_B, SRC, i as u8)).await;
    }
    let got = wait_pcap(&out1, Duration::from_secs(10), |f| f.len() as u64 >= N);
    assert_eq!(got.len() as u64, N, "every packet leaves port 1");

    // the indexed counter: cell 3 counted every packet; a wildcard read gives every cell
    let all = read(&mut c, counter(per_src, None, None)).await.expect("read counter");
    assert_eq!(all.len(), 8, "{all:?}");
    for (i, e) in all.iter().enumerate() {
        let want = if i == 3 {
            packets(N as i64, (N * LEN) as i64)
        } else {
            packets(0, 0)
        };
        assert_eq!(e, &counter(per_src, Some(i as i64), Some(want)), "cell {i}");
    }
    // the register: cell 3 holds the packet length, the others 0
    let regs = read(&mut c, register(last_len, None, None))
        .await
        .expect("read register");
    assert_eq!(regs.len(), 8, "{regs:?}");
    for (i, e) in regs.iter().enumerate() {
        let want: &[u8] = if i == 3 { &[LEN as u8] } else { &[0] };
        assert_eq!(e, &register(last_len, Some(i as i64), Some(want)), "cell {i}");
    }
    // the direct counter: by DirectCounterEntry and as the entry's counter_data
    let dce = |data| {
        entity::Entity::DirectCounterEntry(DirectCounterEntry {
            table_entry: Some(key(dmac, HOST_B)),
            data,
        })
    };
    let mut want_entry = fwd.clone();
    want_entry.action = Some(action(forward, &[&[1]]));
    match read(&mut c, dce(None)).await.expect("read direct counter").as_slice() {
        [entity::Entity::DirectCounterEntry(d)] => {
            assert_eq!(d.data, Some(packets(N as i64, (N * LEN) as i64)));
            assert_eq!(d.table_entry.as_ref().map(|t| &t.r#match), Some(&fwd.r#match));
        }
        other => panic!("one direct counter entry: {other:?}"),
    }
    let mut with_counter = key(dmac, HOST_B);
    with_counter.counter_data = Some(CounterData::default());
    match read(&mut c, entity::Entity::TableEntry(with_counter))
        .await
        .expect("read entry")
        .as_slice()
    {
        [entity::Entity::TableEntry(t)] => {
            assert_eq!(t.counter_data, Some(packets(N as i64, (N * LEN) as i64)))
        }
        other => panic!("one entry: {other:?}"),
    }

    // writes read back as written
    write(
        &mut c,
        10,
        vec![
            modi(counter(per_src, Some(3), Some(packets(100, 6400)))),
            modi(register(last_len, Some(5), Some(&[0x12, 0x34]))),
            modi(dce(Some(packets(9, 900)))),
        ],
    )
    .await
    .expect("extern writes");
    assert_eq!(
        read(&mut c, counter(per_src, Some(3), None)).await.expect("read"),
        vec![counter(per_src, Some(3), Some(packets(100, 6400)))]
    );
    assert_eq!(
        read(&mut c, register(last_len, Some(5), None)).await.expect("read"),
        vec![register(last_len, Some(5), Some(&[0x12, 0x34]))]
    );
    match read(&mut c, dce(None)).await.expect("read").as_slice() {
        [entity::Entity::DirectCounterEntry(d)] => assert_eq!(d.data, Some(packets(9, 900))),
        other => panic!("one direct counter entry: {other:?}"),
    }
    // an index outside the extern
    let st = read(&mut c, counter(per_src, Some(8), None))
        .await
        .expect_err("index 8 of 8 cells");
    assert_eq!(st.code(), Code::OutOfRange, "{st:?}");
    // architecture-specific externs: the P4Info lists none, so a wildcard reads nothing and any
    // type is unknown, to reads and writes
    let ext = |t: u32| {
        entity::Entity::ExternEntry(ExternEntry {
            extern_type_id: t,
            ..Default::default()
        })
    };
    assert_eq!(read(&mut c, ext(0)).await.expect("read every extern"), vec![]);
    let st = read(&mut c, ext(0x81)).await.expect_err("an unknown extern type");
    assert_eq!(st.code(), Code::NotFound, "{st:?}");
    use update::Type as T;
    for (t, e) in [(T::Insert, ext(0x81)), (T::Modify, ext(0)), (T::Delete, ext(7))] {
        let u = update(t, e);
        assert_eq!(one_code(write(&mut c, 10, vec![u]).await), Code::NotFound, "write");
    }
    assert_eq!(
        read(&mut c, counter(per_src, Some(3), None)).await.expect("read"),
        vec![counter(per_src, Some(3), Some(packets(100, 6400)))],
        "the refused writes changed nothing"
    );
    for atomicity in [
        write_request::Atomicity::RollbackOnError,
        write_request::Atomicity::DataplaneAtomic,
    ] {
        let r = c
            .write(WriteRequest {
                device_id: DEVICE,
                election_id: eid(10),
                updates: vec![
                    modi(counter(per_src, Some(3), Some(packets(1, 1)))),
                    update(T::Insert, ext(0x81)),
                ],
                atomicity: atomicity as i32,
                ..Default::default()
            })
            .await;
        assert_eq!(r.expect_err("an extern entry fails the batch").code(), Code::Unknown);
        assert_eq!(
            read(&mut c, counter(per_src, Some(3), None)).await.expect("read"),
            vec![counter(per_src, Some(3), Some(packets(100, 6400)))],
            "{atomicity:?}: nothing written"
        );
    }

    // meters: a configuration written reads back as written; unconfigured cells have none
    let cfg = config(1000, 100, 2000, 200);
    write(&mut c, 10, vec![modi(meter(rate, Some(2), Some(cfg)))])
        .await
        .expect("meter write");
    let ms = read(&mut c, meter(rate, None, None)).await.expect("read meters");
    assert_eq!(ms.len(), 4, "{ms:?}");
    for (i, e) in ms.iter().enumerate() {
        let want = (i == 2).then_some(cfg);
        assert_eq!(e, &meter(rate, Some(i as i64), want), "cell {i}");
    }
    let dme = |config| {
        entity::Entity::DirectMeterEntry(DirectMeterEntry {
            table_entry: Some(key(policer, SRC)),
            config,
            counter_data: None,
        })
    };
    let dcfg = config(125_000, 1500, 250_000, 3000);
    write(&mut c, 10, vec![modi(dme(Some(dcfg)))])
        .await
        .expect("direct meter write");
    match read(&mut c, dme(None)).await.expect("read direct meter").as_slice() {
        [entity::Entity::DirectMeterEntry(d)] => {
            assert_eq!(d.config, Some(dcfg));
            assert_eq!(d.table_entry.as_ref().map(|t| &t.r#match), Some(&pol.r#match));
            assert_eq!(d.counter_data, None, "no counts unless the read asks for them");
        }
        other => panic!("one direct meter entry: {other:?}"),
    }

    // per-colour counts: the unconfigured meters coloured every packet green; the indexed meter's
    // cell 3 (the source MAC's low 2 bits) and the policer entry's cell counted them
    let all_green = colours((N as i64, (N * LEN) as i64), (0, 0), (0, 0));
    let none = colours((0, 0), (0, 0), (0, 0));
    let counted = |id, index| {
        entity::Entity::MeterEntry(MeterEntry {
            meter_id: id,
            index,
            config: None,
            counter_data: Some(MeterCounterData::default()),
        })
    };
    let ms = read(&mut c, counted(rate, None)).await.expect("read meter counts");
    assert_eq!(ms.len(), 4, "{ms:?}");
    for (i, e) in ms.iter().enumerate() {
        match e {
            entity::Entity::MeterEntry(m) => {
                let want = if i == 3 { &all_green } else { &none };
                assert_eq!(m.counter_data.as_ref(), Some(want), "cell {i}");
            }
            other => panic!("a meter entry: {other:?}"),
        }
    }
    let counted_dme = |counter_data| {
        entity::Entity::DirectMeterEntry(DirectMeterEntry {
            table_entry: Some(key(policer, SRC)),
            config: None,
            counter_data,
        })
    };
    match read(&mut c, counted_dme(Some(MeterCounterData::default())))
        .await
        .expect("read direct meter counts")
        .as_slice()
    {
        [entity::Entity::DirectMeterEntry(d)] => assert_eq!(d.counter_data, Some(all_green.clone())),
        other => panic!("one direct meter entry: {other:?}"),
    }
    let mut with_counts = key(policer, SRC);
    with_counts.meter_counter_data = Some(MeterCounterData::default());
    match read(&mut c, entity::Entity::TableEntry(with_counts.clone()))
        .await
        .expect("read entry")
        .as_slice()
    {
        [entity::Entity::TableEntry(t)] => assert_eq!(t.meter_counter_data, Some(all_green.clone())),
        other => panic!("one entry: {other:?}"),
    }
    // writes: MeterEntry counter_data, DirectMeterEntry counter_data, a table entry's
    // meter_counter_data (a MODIFY without it keeps the counts), read back as written
    let set3 = colours((1, 10), (2, 20), (3, 30));
    let set_entry = colours((4, 40), (5, 50), (6, 60));
    write(
        &mut c,
        10,
        vec![modi(entity::Entity::MeterEntry(MeterEntry {
            meter_id: rate,
            index: Some(Index { index: 3 }),
            config: None,
            counter_data: Some(set3.clone()),
        }))],
    )
    .await
    .expect("meter counts write");
    match read(&mut c, counted(rate, Some(Index { index: 3 })))
        .await
        .expect("read")
        .as_slice()
    {
        [entity::Entity::MeterEntry(m)] => assert_eq!(m.counter_data, Some(set3.clone())),
        other => panic!("one meter entry: {other:?}"),
    }
    let mut pol_counts = pol.clone();
    pol_counts.meter_counter_data = Some(set_entry.clone());
    write(&mut c, 10, vec![modi(entity::Entity::TableEntry(pol_counts))])
        .await
        .expect("entry modify with meter_counter_data");
    write(&mut c, 10, vec![modi(entity::Entity::TableEntry(pol.clone()))])
        .await
        .expect("entry modify without meter_counter_data");
    match read(&mut c, entity::Entity::TableEntry(with_counts.clone()))
        .await
        .expect("read entry")
        .as_slice()
    {
        [entity::Entity::TableEntry(t)] => assert_eq!(t.meter_counter_data, Some(set_entry.clone())),
        other => panic!("one entry: {other:?}"),
    }
    // what is refused changes nothing: negative counts, counts for a table without a direct meter,
    // and a batch rolled back after its counts were written
    let negative = colours((0, 0), (-1, 0), (0, 0));
    assert_eq!(
        one_code(write(&mut c, 10, vec![modi(counted_dme(Some(negative.clone())))]).await),
        Code::InvalidArgument,
        "negative counts"
    );
    let mut fwd_counts = fwd.clone();
    fwd_counts.meter_counter_data = Some(set3.clone());
    assert_eq!(
        one_code(write(&mut c, 10, vec![modi(entity::Entity::TableEntry(fwd_counts))]).await),
        Code::InvalidArgument,
        "dmac has no direct meter"
    );
    let r = c
        .write(WriteRequest {
            device_id: 1,
            election_id: eid(10),
            updates: vec![
                modi(counted_dme(Some(set3.clone()))),
                modi(entity::Entity::MeterEntry(MeterEntry {
                    meter_id: rate,
                    index: Some(Index { index: 3 }),
                    config: None,
                    counter_data: Some(set_entry.clone()),
                })),
                update(update::Type::Insert, entity::Entity::TableEntry(pol.clone())),
            ],
            atomicity: write_request::Atomicity::RollbackOnError as i32,
            ..Default::default()
        })
        .await;
    assert!(r.is_err(), "the insert of an existing entry fails the batch");
    match read(&mut c, counted_dme(Some(MeterCounterData::default())))
        .await
        .expect("read")
        .as_slice()
    {
        [entity::Entity::DirectMeterEntry(d)] => assert_eq!(d.counter_data, Some(set_entry.clone())),
        other => panic!("one direct meter entry: {other:?}"),
    }
    match read(&mut c, counted(rate, Some(Index { index: 3 })))
        .await
        .expect("read")
        .as_slice()
    {
        [entity::Entity::MeterEntry(m)] => assert_eq!(m.counter_data, Some(set3.clone())),
        other => panic!("one meter entry: {other:?}"),
    }
    // a deleted entry's counts are gone: inserted again, it starts from zero
    write(
        &mut c,
        10,
        vec![update(update::Type::Delete, entity::Entity::TableEntry(pol.clone()))],
    )
    .await
    .expect("delete");
    write(&mut c, 10, vec![ins(entity::Entity::TableEntry(pol.clone()))])
        .await
        .expect("insert again");
    match read(&mut c, entity::Entity::TableEntry(with_counts))
        .await
        .expect("read entry")
        .as_slice()
    {
        [entity::Entity::TableEntry(t)] => assert_eq!(t.meter_counter_data, Some(none)),
        other => panic!("one entry: {other:?}"),
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The default entry of a table with a direct counter or meter has cells of its own: the misses
/// count into the counter's (by DirectCounterEntry with `is_default_action` and as the default
/// entry's `counter_data`) and are metered by the meter's; a default entry's `metadata` and
/// `controller_metadata` read back as written. Naming a default entry's cell in a table without
/// that direct resource, or with a match, is refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
// controller_metadata: deprecated by the specification in favour of metadata, still served
#[allow(deprecated)]
async fn default_entry_counts_and_meters_the_misses() {
    let dir = temp_dir("p4rt-default-cells");
    let (info, dc) = build("externs", &dir);
    let out1 = dir.join("out1.pcap");
    let sw = start(&["--port".into(), format!("1=:{}", out1.display())]);
    let mut c = connect(&sw.addr).await;
    let s = Stream::open(&mut c, 10, Code::Ok).await;
    push(&mut c, 10, &info, &dc).await;
    let dmac = id_of(&info, "ExtIngress.dmac");
    let policer = id_of(&info, "ExtIngress.policer");
    let forward = id_of(&info, "ExtIngress.forward");
    let police = id_of(&info, "ExtIngress.police");
    let modi = |e| update(update::Type::Modify, e);
    let default_of = |table| TableEntry {
        table_id: table,
        is_default_action: true,
        ..Default::default()
    };
    let dce = |te: TableEntry, data| {
        entity::Entity::DirectCounterEntry(DirectCounterEntry {
            table_entry: Some(te),
            data,
        })
    };
    let dme = |te: TableEntry, config| {
        entity::Entity::DirectMeterEntry(DirectMeterEntry {
            table_entry: Some(te),
            config,
            counter_data: None,
        })
    };

    // no entries: every packet misses both tables. dmac's default forwards to port 1, with a
    // counter start value and metadata; policer's default polices with a byte meter whose buckets
    // hold one 64-byte packet (committed) and two (peak) and refill at 1 byte/s
    let mut fwd_default = default_of(dmac);
    fwd_default.action = Some(action(forward, &[&[1]]));
    fwd_default.counter_data = Some(packets(5, 50));
    fwd_default.metadata = b"default entry".to_vec();
    fwd_default.controller_metadata = 0x1234;
    let mut pol_default = default_of(policer);
    pol_default.action = Some(action(police, &[]));
    let mcfg = config(1, LEN as i64, 1, 2 * LEN as i64);
    pol_default.meter_config = Some(mcfg);
    write(
        &mut c,
        10,
        vec![
            modi(entity::Entity::TableEntry(fwd_default.clone())),
            modi(entity::Entity::TableEntry(pol_default.clone())),
        ],
    )
    .await
    .expect("default entries with counter, meter and metadata");

    for i in 0..N {
        s.packet_out(frame(HOST_B, SRC, i as u8)).await;
    }
    // GREEN, YELLOW, then RED (dropped) for the rest: the meter of the default entry ran
    let got = wait_pcap(&out1, Duration::from_secs(10), |f| f.len() >= 2);
    std::thread::sleep(Duration::from_millis(300));
    let got_all = wait_pcap(&out1, Duration::from_secs(1), |f| f.len() >= got.len());
    assert_eq!(
        got_all.len(),
        2,
        "two packets within the default entry's meter leave port 1"
    );
    // every packet counted in dmac's default cell (after the 5 written)
    let want = packets(5 + N as i64, 50 + (N * LEN) as i64);
    match read(&mut c, dce(default_of(dmac), None))
        .await
        .expect("read default cell")
        .as_slice()
    {
        [entity::Entity::DirectCounterEntry(d)] => {
            assert_eq!(d.data, Some(want));
            let te = d.table_entry.as_ref().expect("table entry");
            assert!(te.is_default_action && te.r#match.is_empty(), "{te:?}");
        }
        other => panic!("one direct counter entry: {other:?}"),
    }
    let mut q = default_of(dmac);
    q.counter_data = Some(CounterData::default());
    match read(&mut c, entity::Entity::TableEntry(q))
        .await
        .expect("read default")
        .as_slice()
    {
        [entity::Entity::TableEntry(t)] => {
            assert_eq!(t.counter_data, Some(want));
            assert_eq!(t.action, fwd_default.action);
            assert_eq!(t.metadata, b"default entry".to_vec());
            assert_eq!(t.controller_metadata, 0x1234);
        }
        other => panic!("one default entry: {other:?}"),
    }
    // a wildcard read of the direct counter does not return the default entry (none here)
    assert_eq!(
        read(
            &mut c,
            dce(
                TableEntry {
                    table_id: dmac,
                    ..Default::default()
                },
                None
            )
        )
        .await
        .expect("wildcard"),
        vec![]
    );
    // the policer's default cell coloured the misses: GREEN, YELLOW, then RED, by DirectMeterEntry
    // and as the default entry's meter_counter_data
    let misses = colours((1, LEN as i64), (1, LEN as i64), (N as i64 - 2, ((N - 2) * LEN) as i64));
    let mut q = dme(default_of(policer), None);
    if let entity::Entity::DirectMeterEntry(d) = &mut q {
        d.counter_data = Some(MeterCounterData::default());
    }
    match read(&mut c, q).await.expect("read default meter counts").as_slice() {
        [entity::Entity::DirectMeterEntry(d)] => assert_eq!(d.counter_data, Some(misses.clone())),
        other => panic!("one direct meter entry: {other:?}"),
    }
    let mut q = default_of(policer);
    q.meter_counter_data = Some(MeterCounterData::default());
    match read(&mut c, entity::Entity::TableEntry(q))
        .await
        .expect("read default")
        .as_slice()
    {
        [entity::Entity::TableEntry(t)] => assert_eq!(t.meter_counter_data, Some(misses)),
        other => panic!("one default entry: {other:?}"),
    }
    // the default meter reads back as written, by DirectMeterEntry and as meter_config
    match read(&mut c, dme(default_of(policer), None))
        .await
        .expect("read default meter")
        .as_slice()
    {
        [entity::Entity::DirectMeterEntry(d)] => assert_eq!(d.config, Some(mcfg)),
        other => panic!("one direct meter entry: {other:?}"),
    }
    let mut q = default_of(policer);
    q.meter_config = Some(MeterConfig::default());
    match read(&mut c, entity::Entity::TableEntry(q))
        .await
        .expect("read default")
        .as_slice()
    {
        [entity::Entity::TableEntry(t)] => assert_eq!(t.meter_config, Some(mcfg)),
        other => panic!("one default entry: {other:?}"),
    }

    // DirectCounterEntry / DirectMeterEntry writes of the default cells
    let wide = config(1_000_000_000, 1_000_000, 1_000_000_000, 1_000_000);
    write(
        &mut c,
        10,
        vec![
            modi(dce(default_of(dmac), Some(packets(1, 2)))),
            modi(dme(default_of(policer), Some(wide))),
        ],
    )
    .await
    .expect("default cell writes");
    match read(&mut c, dce(default_of(dmac), None))
        .await
        .expect("read")
        .as_slice()
    {
        [entity::Entity::DirectCounterEntry(d)] => assert_eq!(d.data, Some(packets(1, 2))),
        other => panic!("one direct counter entry: {other:?}"),
    }
    s.packet_out(frame(HOST_B, SRC, 99)).await;
    let got = wait_pcap(&out1, Duration::from_secs(10), |f| f.len() >= 3);
    assert_eq!(got.len(), 3, "the wider default meter lets the next miss through");

    // a default MODIFY without meter_config puts the meter back to its default (unconfigured);
    // without counter_data the counter keeps its value; without metadata there is none
    let mut no_meter = pol_default.clone();
    no_meter.meter_config = None;
    write(&mut c, 10, vec![modi(entity::Entity::TableEntry(no_meter))])
        .await
        .expect("default modify without meter_config");
    match read(&mut c, dme(default_of(policer), None))
        .await
        .expect("read")
        .as_slice()
    {
        [entity::Entity::DirectMeterEntry(d)] => assert_eq!(d.config, None),
        other => panic!("one direct meter entry: {other:?}"),
    }
    let mut plain = fwd_default.clone();
    plain.counter_data = None;
    plain.metadata = vec![];
    plain.controller_metadata = 0;
    write(&mut c, 10, vec![modi(entity::Entity::TableEntry(plain))])
        .await
        .expect("default modify without counter_data");
    let mut q = default_of(dmac);
    q.counter_data = Some(CounterData::default());
    match read(&mut c, entity::Entity::TableEntry(q))
        .await
        .expect("read")
        .as_slice()
    {
        [entity::Entity::TableEntry(t)] => {
            assert_eq!(t.counter_data, Some(packets(2, 2 + LEN as i64)));
            assert!(t.metadata.is_empty() && t.controller_metadata == 0, "{t:?}");
        }
        other => panic!("one default entry: {other:?}"),
    }

    // what names a cell the table does not have, or names the default entry with a match
    assert_eq!(
        one_code(write(&mut c, 10, vec![modi(dce(default_of(policer), Some(packets(1, 1))))]).await),
        Code::InvalidArgument,
        "policer has no direct counter"
    );
    assert_eq!(
        one_code(write(&mut c, 10, vec![modi(dme(default_of(dmac), Some(wide)))]).await),
        Code::InvalidArgument,
        "dmac has no direct meter"
    );
    let st = read(&mut c, dce(default_of(policer), None))
        .await
        .expect_err("no direct counter");
    assert_eq!(st.code(), Code::InvalidArgument, "{st:?}");
    let st = read(&mut c, dme(default_of(dmac), None))
        .await
        .expect_err("no direct meter");
    assert_eq!(st.code(), Code::InvalidArgument, "{st:?}");
    let mut with_match = default_of(dmac);
    with_match.r#match = vec![exact(1, &HOST_B)];
    assert_eq!(
        one_code(write(&mut c, 10, vec![modi(dce(with_match, Some(packets(1, 1))))]).await),
        Code::InvalidArgument,
        "a default entry has no match"
    );
    let mut bad = default_of(policer);
    bad.action = Some(action(police, &[]));
    bad.counter_data = Some(packets(1, 1));
    assert_eq!(
        one_code(write(&mut c, 10, vec![modi(entity::Entity::TableEntry(bad))]).await),
        Code::InvalidArgument,
        "counter_data on the default entry of a table without a direct counter"
    );
    // the default entry's per-colour counts are written like its meter (a default MODIFY with
    // meter_counter_data, or a DirectMeterEntry); without them they are kept
    let zeroed = colours((0, 0), (0, 0), (0, 0));
    let with_counts = entity::Entity::DirectMeterEntry(DirectMeterEntry {
        table_entry: Some(default_of(policer)),
        config: Some(wide),
        counter_data: Some(zeroed.clone()),
    });
    write(&mut c, 10, vec![modi(with_counts)])
        .await
        .expect("reset the default counts");
    let mut set = pol_default.clone();
    set.meter_counter_data = Some(colours((7, 8), (9, 10), (11, 12)));
    write(&mut c, 10, vec![modi(entity::Entity::TableEntry(set))])
        .await
        .expect("default modify with meter_counter_data");
    let mut q = default_of(policer);
    q.meter_counter_data = Some(MeterCounterData::default());
    match read(&mut c, entity::Entity::TableEntry(q))
        .await
        .expect("read")
        .as_slice()
    {
        [entity::Entity::TableEntry(t)] => {
            assert_eq!(t.meter_counter_data, Some(colours((7, 8), (9, 10), (11, 12))))
        }
        other => panic!("one default entry: {other:?}"),
    }
    let mut bad = default_of(dmac);
    bad.action = Some(action(forward, &[&[1]]));
    bad.meter_counter_data = Some(zeroed);
    assert_eq!(
        one_code(write(&mut c, 10, vec![modi(entity::Entity::TableEntry(bad))]).await),
        Code::InvalidArgument,
        "meter_counter_data on the default entry of a table without a direct meter"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
