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
        s.send(stream_message_request::Update::Packet(PacketOut {
            payload: frame(HOST_B, SRC, i as u8),
            metadata: vec![],
        }))
        .await;
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
        }
        other => panic!("one direct meter entry: {other:?}"),
    }
    let _ = std::fs::remove_dir_all(&dir);
}
