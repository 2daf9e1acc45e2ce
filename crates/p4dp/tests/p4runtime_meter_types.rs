//! P4Runtime meter types (MeterSpec.Type, MeterConfig.eburst) through raw tonic stubs against
//! `p4dp serve` on a pcap port, with tests/p4runtime/meter_types.p4: the P4Info gives each
//! meter the type its annotation chose; each type refuses the configurations the specification
//! rules out with INVALID_ARGUMENT and keeps its own; written configurations read back as
//! written (eburst included); PacketOuts come out coloured as RFC 2698, RFC 2697 and the
//! single-rate two-colour meter say. The rates are 0 (buckets that never refill), so the colours
//! do not depend on the time the packets take.

mod p4rt_common;

use std::time::Duration;

use p4dp_p4runtime::proto::p4::config::v1::meter_spec::Type as MeterType;
use p4dp_p4runtime::proto::p4::v1::*;
use p4rt_common::*;
use prost::Message;
use tonic::Code;

const DST: [u8; 6] = [0x02, 0, 0, 0, 0, 0x0b];
/// The low 2 bits of a packet's source MAC pick the meter (meter_types.p4).
const TWO_RATE: u8 = 0;
const SINGLE_RATE: u8 = 1;
const TWO_COLOR: u8 = 2;
const DIRECT: u8 = 3;
const GREEN: u16 = 0;
const YELLOW: u16 = 1;
const RED: u16 = 2;

fn src(which: u8) -> [u8; 6] {
    [0x02, 0, 0, 0, 0, 0x10 | which]
}

fn cfg(cir: i64, cburst: i64, pir: i64, pburst: i64, eburst: i64) -> MeterConfig {
    MeterConfig {
        cir,
        cburst,
        pir,
        pburst,
        eburst,
    }
}

fn meter(id: u32, index: i64, config: Option<MeterConfig>) -> entity::Entity {
    entity::Entity::MeterEntry(MeterEntry {
        meter_id: id,
        index: Some(Index { index }),
        config,
        counter_data: None,
    })
}

fn policer_key(table: u32) -> TableEntry {
    TableEntry {
        table_id: table,
        r#match: vec![exact(1, &src(DIRECT))],
        ..Default::default()
    }
}

fn direct(table: u32, config: Option<MeterConfig>) -> entity::Entity {
    entity::Entity::DirectMeterEntry(DirectMeterEntry {
        table_entry: Some(policer_key(table)),
        config,
        counter_data: None,
    })
}

/// The code and message of the single update of a failed one-update Write.
fn one_error(r: Result<(), tonic::Status>) -> (Code, String) {
    let s = r.expect_err("the write fails");
    assert_eq!(s.code(), Code::Unknown, "{s:?}");
    let st = p4dp_p4runtime::proto::google::rpc::Status::decode(s.details()).expect("details");
    assert_eq!(st.details.len(), 1);
    let e = Error::decode(st.details[0].value.as_slice()).expect("p4.v1.Error");
    (Code::from(e.canonical_code), e.message)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn meter_types_validate_read_back_and_colour() {
    let dir = temp_dir("p4rt-meter-types");
    let (info, dc) = build("meter_types", &dir);
    let out1 = dir.join("out1.pcap");
    let sw = start(&["--port".into(), format!("1=:{}", out1.display())]);
    let mut c = connect(&sw.addr).await;
    let s = Stream::open(&mut c, 10, Code::Ok).await;
    push(&mut c, 10, &info, &dc).await;
    let two_rate = id_of(&info, "MtIngress.two_rate");
    let single_rate = id_of(&info, "MtIngress.single_rate");
    let two_color = id_of(&info, "MtIngress.two_color");
    let policer = id_of(&info, "MtIngress.policer");
    let police = id_of(&info, "MtIngress.police");

    // the P4Info: each meter has the type its annotation chose
    let type_of = |name: &str| {
        let spec = info
            .meters
            .iter()
            .find(|m| m.preamble.as_ref().is_some_and(|p| p.name == name))
            .map(|m| m.spec.clone())
            .or_else(|| {
                info.direct_meters
                    .iter()
                    .find(|m| m.preamble.as_ref().is_some_and(|p| p.name == name))
                    .map(|m| m.spec.clone())
            })
            .flatten()
            .unwrap_or_else(|| panic!("no meter {name}"));
        MeterType::try_from(spec.r#type).expect("a MeterSpec.Type")
    };
    assert_eq!(type_of("MtIngress.two_rate"), MeterType::TwoRateThreeColor);
    assert_eq!(type_of("MtIngress.single_rate"), MeterType::SingleRateThreeColor);
    assert_eq!(type_of("MtIngress.two_color"), MeterType::SingleRateTwoColor);
    assert_eq!(type_of("MtIngress.police_meter"), MeterType::SingleRateThreeColor);

    let modi = |e| update(update::Type::Modify, e);
    let mut pol = policer_key(policer);
    pol.action = Some(action(police, &[]));
    write(
        &mut c,
        10,
        vec![update(update::Type::Insert, entity::Entity::TableEntry(pol))],
    )
    .await
    .expect("policer entry");

    // configurations the specification rules out: INVALID_ARGUMENT with its wording, and the
    // cell keeps its configuration (none)
    let refused = [
        (
            meter(two_rate, 0, Some(cfg(0, 2, 0, 5, 1))),
            "MtIngress.two_rate is a TWO_RATE_THREE_COLOR meter: its MeterConfig must have eburst == 0",
        ),
        (
            meter(single_rate, 0, Some(cfg(10, 2, 20, 2, 3))),
            "MtIngress.single_rate is a SINGLE_RATE_THREE_COLOR meter: its MeterConfig must have cir == pir && cburst == pburst",
        ),
        (
            meter(single_rate, 0, Some(cfg(10, 2, 10, 4, 3))),
            "must have cir == pir && cburst == pburst (cir 10, pir 10, cburst 2, pburst 4, eburst 3)",
        ),
        (
            meter(two_color, 0, Some(cfg(0, 2, 0, 2, 1))),
            "MtIngress.two_color is a SINGLE_RATE_TWO_COLOR meter: its MeterConfig must have eburst == 0",
        ),
        (
            meter(two_color, 0, Some(cfg(0, 2, 0, 3, 0))),
            "SINGLE_RATE_TWO_COLOR meter: its MeterConfig must have cir == pir && cburst == pburst",
        ),
        (
            direct(policer, Some(cfg(0, 1, 0, 2, 2))),
            "MtIngress.police_meter is a SINGLE_RATE_THREE_COLOR meter",
        ),
        (meter(single_rate, 0, Some(cfg(0, 2, 0, 2, -1))), "must not be negative"),
    ];
    for (e, want) in refused {
        let (code, msg) = one_error(write(&mut c, 10, vec![modi(e.clone())]).await);
        assert_eq!(code, Code::InvalidArgument, "{e:?}: {msg}");
        assert!(msg.contains(want), "{e:?}: {msg}");
    }
    for id in [two_rate, single_rate, two_color] {
        assert_eq!(
            read(&mut c, meter(id, 0, None)).await.expect("read"),
            vec![meter(id, 0, None)]
        );
    }
    match read(&mut c, direct(policer, None)).await.expect("read").as_slice() {
        [entity::Entity::DirectMeterEntry(d)] => assert_eq!(d.config, None),
        other => panic!("one direct meter entry: {other:?}"),
    }

    // valid configurations read back as written, eburst included
    let tr = cfg(0, 2, 0, 5, 0);
    let sr = cfg(0, 2, 0, 2, 3);
    let s2 = cfg(0, 2, 0, 2, 0);
    let dm = cfg(0, 1, 0, 1, 2);
    write(
        &mut c,
        10,
        vec![
            modi(meter(two_rate, 0, Some(tr))),
            modi(meter(single_rate, 0, Some(sr))),
            modi(meter(two_color, 0, Some(s2))),
            modi(direct(policer, Some(dm))),
        ],
    )
    .await
    .expect("valid configurations");
    assert_eq!(
        read(&mut c, meter(two_rate, 0, None)).await.expect("read"),
        vec![meter(two_rate, 0, Some(tr))]
    );
    assert_eq!(
        read(&mut c, meter(single_rate, 0, None)).await.expect("read"),
        vec![meter(single_rate, 0, Some(sr))]
    );
    assert_eq!(
        read(&mut c, meter(two_color, 0, None)).await.expect("read"),
        vec![meter(two_color, 0, Some(s2))]
    );
    match read(&mut c, direct(policer, None)).await.expect("read").as_slice() {
        [entity::Entity::DirectMeterEntry(d)] => assert_eq!(d.config, Some(dm)),
        other => panic!("one direct meter entry: {other:?}"),
    }
    let mut with_meter = policer_key(policer);
    with_meter.meter_config = Some(MeterConfig::default());
    match read(&mut c, entity::Entity::TableEntry(with_meter))
        .await
        .expect("read")
        .as_slice()
    {
        [entity::Entity::TableEntry(t)] => assert_eq!(t.meter_config, Some(dm)),
        other => panic!("one entry: {other:?}"),
    }

    // seven packets through each meter, one meter after the other
    const N: usize = 7;
    for which in [TWO_RATE, SINGLE_RATE, TWO_COLOR, DIRECT] {
        for i in 0..N {
            s.packet_out(frame(DST, src(which), i as u8)).await;
        }
    }
    let got = wait_pcap(&out1, Duration::from_secs(10), |f| f.len() >= 4 * N);
    assert_eq!(got.len(), 4 * N, "every packet leaves port 1");
    let colours = |which: u8| -> Vec<u16> {
        got.iter()
            .filter(|f| f[6..12] == src(which))
            .map(|f| u16::from_be_bytes([f[12], f[13]]))
            .collect()
    };
    // RFC 2698: P holds 5, C 2 -> 2 GREEN, 3 YELLOW (P only), then RED
    assert_eq!(colours(TWO_RATE), [GREEN, GREEN, YELLOW, YELLOW, YELLOW, RED, RED]);
    // RFC 2697: C holds 2, E 3 -> 2 GREEN, 3 YELLOW, then RED
    assert_eq!(colours(SINGLE_RATE), [GREEN, GREEN, YELLOW, YELLOW, YELLOW, RED, RED]);
    // single-rate two-colour: C holds 2 -> 2 GREEN, then RED
    assert_eq!(colours(TWO_COLOR), [GREEN, GREEN, RED, RED, RED, RED, RED]);
    // the direct single-rate three-colour meter: C holds 1, E 2
    assert_eq!(colours(DIRECT), [GREEN, YELLOW, YELLOW, RED, RED, RED, RED]);
    drop(s);
}
