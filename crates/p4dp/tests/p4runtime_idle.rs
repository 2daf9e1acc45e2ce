//! P4Runtime idle timeouts through raw tonic stubs against `p4dp serve` on a pcap port, with
//! `tests/p4runtime/idle.p4`: an entry with `idle_timeout_ns` and no traffic is reported to the
//! primary (not to a backup) in IdleTimeoutNotifications, again one TTL after each report while it
//! stays idle; its `time_since_last_hit` grows until a packet hits it, which resets it; entries
//! with TTL 0 are never reported; the specification's errors. Then the other extras of a table
//! entry: `metadata`, `controller_metadata`, `meter_config` and `counter_data` read back as written,
//! rejected and rolled-back updates leaving them unchanged, a modify's rules, none after a delete.

mod p4rt_common;

use std::time::{Duration, Instant};

use p4dp_p4runtime::proto::p4::v1::*;
use p4rt_common::*;
use tonic::Code;

const IDLE_HOST: [u8; 6] = [0x02, 0, 0, 0, 0, 0x0a];
const BUSY_HOST: [u8; 6] = [0x02, 0, 0, 0, 0, 0x0b];
const SRC: [u8; 6] = [0x02, 0, 0, 0, 0, 0x01];
/// The idle entry's TTL.
const TTL: Duration = Duration::from_millis(300);

fn entry(table: u32, mac: [u8; 6]) -> TableEntry {
    TableEntry {
        table_id: table,
        r#match: vec![exact(1, &mac)],
        ..Default::default()
    }
}

/// The entry `mac` of `table` read back, with its time since the last hit.
async fn read_one(
    c: &mut p4dp_p4runtime::proto::p4::v1::p4_runtime_client::P4RuntimeClient<tonic::transport::Channel>,
    table: u32,
    mac: [u8; 6],
) -> TableEntry {
    let mut q = entry(table, mac);
    q.time_since_last_hit = Some(table_entry::IdleTimeout::default());
    match read(c, entity::Entity::TableEntry(q)).await.expect("read").as_slice() {
        [entity::Entity::TableEntry(t)] => t.clone(),
        other => panic!("one entry: {other:?}"),
    }
}

fn elapsed(t: &TableEntry) -> i64 {
    t.time_since_last_hit.as_ref().expect("time_since_last_hit").elapsed_ns
}

/// The next notification on `s` within `t`; asserts it is not empty and names only `mac`.
async fn notified(s: &mut Stream, table: u32, mac: [u8; 6], t: Duration) -> Option<(i64, Instant)> {
    let n = s.idle_notification(t).await?;
    let at = Instant::now();
    assert!(!n.table_entry.is_empty(), "never an empty notification");
    for e in &n.table_entry {
        assert_eq!((e.table_id, &e.r#match), (table, &vec![exact(1, &mac)]), "{n:?}");
        assert_eq!(e.idle_timeout_ns, TTL.as_nanos() as i64, "the TTL as written: {n:?}");
        assert_eq!(e.priority, 0);
    }
    assert!(n.timestamp > 0);
    Some((n.timestamp, at))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_entries_are_reported_and_hits_reset_their_timer() {
    let dir = temp_dir("p4rt-idle");
    let (info, dc) = build("idle", &dir);
    let hosts = id_of(&info, "IdleIngress.hosts");
    let plain = id_of(&info, "IdleIngress.plain");
    let forward = id_of(&info, "IdleIngress.forward");
    let tag = id_of(&info, "IdleIngress.tag");
    // v1model `support_timeout = true` is NOTIFY_CONTROL in the P4Info; the other table has none
    let behavior = |id| {
        info.tables
            .iter()
            .find(|t| t.preamble.as_ref().is_some_and(|p| p.id == id))
            .map(|t| t.idle_timeout_behavior)
    };
    use p4dp_p4runtime::proto::p4::config::v1::table::IdleTimeoutBehavior;
    assert_eq!(behavior(hosts), Some(IdleTimeoutBehavior::NotifyControl as i32));
    assert_eq!(behavior(plain), Some(IdleTimeoutBehavior::NoTimeout as i32));

    let out1 = dir.join("out1.pcap");
    let sw = start(&["--port".into(), format!("1=:{}", out1.display())]);
    let mut c = connect(&sw.addr).await;
    let mut s = Stream::open(&mut c, 10, Code::Ok).await;
    push(&mut c, 10, &info, &dc).await;
    let mut backup = Stream::open(&mut c, 5, Code::AlreadyExists).await;
    let ins = |e| update(update::Type::Insert, entity::Entity::TableEntry(e));
    let modi = |e| update(update::Type::Modify, entity::Entity::TableEntry(e));

    // the specification's errors, nothing written
    let refused = |st: Result<(), tonic::Status>| st.expect_err("refused");
    let mut e = entry(plain, SRC);
    e.action = Some(action(tag, &[&[1]]));
    e.idle_timeout_ns = 1_000_000;
    let st = refused(write(&mut c, 10, vec![ins(e.clone())]).await);
    assert_eq!(st.code(), Code::Unknown, "{st:?}"); // one p4.v1.Error: INVALID_ARGUMENT
    let mut idle = entry(hosts, IDLE_HOST);
    idle.action = Some(action(forward, &[&[1]]));
    let mut bad = idle.clone();
    bad.time_since_last_hit = Some(table_entry::IdleTimeout { elapsed_ns: 0 });
    refused(write(&mut c, 10, vec![ins(bad)]).await);
    let mut bad = idle.clone();
    bad.idle_timeout_ns = -1;
    refused(write(&mut c, 10, vec![ins(bad)]).await);
    let default_ttl = TableEntry {
        table_id: hosts,
        is_default_action: true,
        idle_timeout_ns: 1_000_000,
        ..Default::default()
    };
    refused(write(&mut c, 10, vec![modi(default_ttl)]).await);
    let mut q = entry(plain, SRC);
    q.r#match.clear();
    q.time_since_last_hit = Some(table_entry::IdleTimeout::default());
    let st = read(&mut c, entity::Entity::TableEntry(q))
        .await
        .expect_err("no idle timeout");
    assert_eq!(st.code(), Code::InvalidArgument, "{st:?}");
    let all = read(
        &mut c,
        entity::Entity::TableEntry(TableEntry {
            table_id: 0,
            ..Default::default()
        }),
    )
    .await
    .expect("read all");
    assert!(all.is_empty(), "rejected writes left nothing: {all:?}");

    // TTL 0 (never) for the busy host; the idle host gets a TTL and no traffic
    let mut busy = entry(hosts, BUSY_HOST);
    busy.action = Some(action(forward, &[&[1]]));
    idle.idle_timeout_ns = 10 * TTL.as_nanos() as i64;
    let inserted = Instant::now();
    write(&mut c, 10, vec![ins(idle.clone()), ins(busy.clone())])
        .await
        .expect("insert");
    // a modify sets the TTL: read back as written
    idle.idle_timeout_ns = TTL.as_nanos() as i64;
    write(&mut c, 10, vec![modi(idle.clone())]).await.expect("modify");
    let r = read_one(&mut c, hosts, IDLE_HOST).await;
    assert_eq!(r.idle_timeout_ns, TTL.as_nanos() as i64);
    assert_eq!(read_one(&mut c, hosts, BUSY_HOST).await.idle_timeout_ns, 0);
    // without asking for it, no time_since_last_hit
    match read(&mut c, entity::Entity::TableEntry(entry(hosts, IDLE_HOST)))
        .await
        .expect("read")
        .as_slice()
    {
        [entity::Entity::TableEntry(t)] => assert_eq!(t.time_since_last_hit, None),
        other => panic!("one entry: {other:?}"),
    }

    // the first report: not before the TTL, names only the idle entry
    let (t1, at1) = notified(&mut s, hosts, IDLE_HOST, Duration::from_secs(10))
        .await
        .expect("an idle-timeout notification");
    assert!(at1.duration_since(inserted) >= TTL, "not before the TTL");
    // reset after the report: the next one about a TTL later, not one per scan
    let (t2, _) = notified(&mut s, hosts, IDLE_HOST, Duration::from_secs(10))
        .await
        .expect("a second notification while the entry stays idle");
    let gap = Duration::from_nanos((t2 - t1) as u64);
    assert!(
        gap >= TTL - Duration::from_millis(20),
        "one TTL between reports: {gap:?}"
    );

    // time_since_last_hit grows while no packet hits the entry
    let a = elapsed(&read_one(&mut c, hosts, IDLE_HOST).await);
    tokio::time::sleep(Duration::from_millis(200)).await;
    let b = elapsed(&read_one(&mut c, hosts, IDLE_HOST).await);
    assert!(b >= a + 200_000_000, "time since the last hit grows: {a} then {b}");
    assert!(b as u128 >= 2 * TTL.as_nanos(), "not reset by the reports: {b}");

    // a packet hits it: the time since the last hit starts again
    let sent = Instant::now();
    s.packet_out(frame(IDLE_HOST, SRC, 1)).await;
    let got = wait_pcap(&out1, Duration::from_secs(10), |f| !f.is_empty());
    assert_eq!(got.len(), 1, "the packet leaves port 1");
    let after = elapsed(&read_one(&mut c, hosts, IDLE_HOST).await);
    // no earlier than the hit (by the read's latency)
    let hit_at = Instant::now() - Duration::from_nanos(after as u64);
    // (the switch's clock and this one may differ by a little: 5 ms of slack)
    assert!(
        after < b && (after as u128) <= sent.elapsed().as_nanos() + 5_000_000,
        "reset by the hit: {after} ns, the packet was sent {:?} ago",
        sent.elapsed()
    );
    // reports queued before the hit are dropped, then the next one comes a TTL after the hit
    while s.idle_notification(Duration::from_millis(50)).await.is_some() {}
    let (_, at3) = notified(&mut s, hosts, IDLE_HOST, Duration::from_secs(10))
        .await
        .expect("a notification one TTL after the hit");
    let since_hit = at3.duration_since(hit_at);
    assert!(
        since_hit >= TTL - Duration::from_millis(20),
        "not before a TTL after the hit: {since_hit:?}"
    );

    // the backup got none; the busy host (TTL 0) was never reported (checked in `notified`)
    assert!(backup.idle_notification(Duration::from_millis(200)).await.is_none());
    // deleted: no more reports
    write(
        &mut c,
        10,
        vec![update(update::Type::Delete, entity::Entity::TableEntry(idle))],
    )
    .await
    .expect("delete");
    while s.idle_notification(Duration::from_millis(50)).await.is_some() {}
    assert!(s.idle_notification(3 * TTL).await.is_none(), "nothing after the delete");
}

fn meter_cfg(cir: i64) -> MeterConfig {
    MeterConfig {
        cir,
        cburst: 100,
        pir: 2 * cir,
        pburst: 200,
        eburst: 0,
    }
}

/// Reads the entry `mac` of `table` asking for its direct meter and counter.
async fn read_full(
    c: &mut p4dp_p4runtime::proto::p4::v1::p4_runtime_client::P4RuntimeClient<tonic::transport::Channel>,
    table: u32,
    mac: [u8; 6],
) -> Vec<TableEntry> {
    let mut q = entry(table, mac);
    q.meter_config = Some(MeterConfig::default());
    q.counter_data = Some(CounterData::default());
    read(c, entity::Entity::TableEntry(q))
        .await
        .expect("read")
        .into_iter()
        .filter_map(|e| match e {
            entity::Entity::TableEntry(t) => Some(t),
            _ => None,
        })
        .collect()
}

async fn write_mode(
    c: &mut p4dp_p4runtime::proto::p4::v1::p4_runtime_client::P4RuntimeClient<tonic::transport::Channel>,
    atomicity: write_request::Atomicity,
    updates: Vec<Update>,
) -> Result<(), tonic::Status> {
    c.write(WriteRequest {
        device_id: DEVICE,
        election_id: eid(10),
        updates,
        atomicity: atomicity as i32,
        ..Default::default()
    })
    .await
    .map(|_| ())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[allow(deprecated)] // controller_metadata
async fn entry_metadata_meter_and_counter_read_back_as_written() {
    let dir = temp_dir("p4rt-extras");
    let (info, dc) = build("idle", &dir);
    let hosts = id_of(&info, "IdleIngress.hosts");
    let plain = id_of(&info, "IdleIngress.plain");
    let forward = id_of(&info, "IdleIngress.forward");
    let tag = id_of(&info, "IdleIngress.tag");
    let sw = start(&[]);
    let mut c = connect(&sw.addr).await;
    let _s = Stream::open(&mut c, 10, Code::Ok).await;
    push(&mut c, 10, &info, &dc).await;
    let ins = |e| update(update::Type::Insert, entity::Entity::TableEntry(e));
    let modi = |e| update(update::Type::Modify, entity::Entity::TableEntry(e));
    let del = |e| update(update::Type::Delete, entity::Entity::TableEntry(e));

    let mut a = entry(hosts, IDLE_HOST);
    a.action = Some(action(forward, &[&[1]]));
    a.metadata = vec![0, 1, b'a', b'b', b'c'];
    a.controller_metadata = 42;
    a.meter_config = Some(meter_cfg(1000));
    a.counter_data = Some(CounterData {
        packet_count: 5,
        byte_count: 500,
    });
    let mut b = entry(hosts, BUSY_HOST);
    b.action = Some(action(forward, &[&[2]]));
    b.metadata = b"other".to_vec();
    write(&mut c, 10, vec![ins(a.clone()), ins(b.clone())])
        .await
        .expect("insert");
    assert_eq!(
        read_full(&mut c, hosts, IDLE_HOST).await,
        vec![a.clone()],
        "read back as written"
    );
    // without asking: no meter or counter, the metadata always
    match read(&mut c, entity::Entity::TableEntry(entry(hosts, IDLE_HOST)))
        .await
        .expect("read")
        .as_slice()
    {
        [entity::Entity::TableEntry(t)] => {
            assert_eq!((t.meter_config, t.counter_data), (None, None));
            assert_eq!((&t.metadata, t.controller_metadata), (&a.metadata, 42));
        }
        other => panic!("one entry: {other:?}"),
    }
    // a wildcard read filtered by metadata
    let mut q = TableEntry {
        table_id: hosts,
        metadata: b"other".to_vec(),
        ..Default::default()
    };
    let got = read(&mut c, entity::Entity::TableEntry(q.clone())).await.expect("read");
    assert_eq!(got.len(), 1, "{got:?}");
    q.metadata.clear();
    assert_eq!(
        read(&mut c, entity::Entity::TableEntry(q)).await.expect("read").len(),
        2
    );

    // rejected updates change nothing
    let mut bad = a.clone();
    bad.metadata = b"new".to_vec();
    bad.meter_config = Some(meter_cfg(-1));
    assert!(write(&mut c, 10, vec![modi(bad)]).await.is_err());
    let mut bad = entry(plain, SRC);
    bad.action = Some(action(tag, &[&[1]]));
    bad.meter_config = Some(meter_cfg(1));
    assert!(write(&mut c, 10, vec![ins(bad)]).await.is_err());
    let mut bad = a.clone();
    bad.metadata = b"new".to_vec();
    bad.meter_counter_data = Some(MeterCounterData {
        green: Some(CounterData {
            packet_count: -1,
            byte_count: 0,
        }),
        ..Default::default()
    });
    let st = write_mode(&mut c, write_request::Atomicity::RollbackOnError, vec![modi(bad)])
        .await
        .expect_err("negative per-colour counts");
    assert_eq!(st.code(), Code::Unknown, "{st:?}");
    // all-or-nothing batches: a modify and a delete undone when a later update fails
    for atomicity in [
        write_request::Atomicity::RollbackOnError,
        write_request::Atomicity::DataplaneAtomic,
    ] {
        let mut m = a.clone();
        m.metadata = b"rolled back".to_vec();
        m.meter_config = Some(meter_cfg(7));
        let st = write_mode(&mut c, atomicity, vec![modi(m), ins(b.clone())])
            .await
            .expect_err("the insert of an existing entry fails");
        assert_eq!(st.code(), Code::Unknown, "{st:?}");
        let st = write_mode(&mut c, atomicity, vec![del(entry(hosts, IDLE_HOST)), ins(b.clone())])
            .await
            .expect_err("the insert of an existing entry fails");
        assert_eq!(st.code(), Code::Unknown, "{st:?}");
        assert_eq!(
            read_full(&mut c, hosts, IDLE_HOST).await,
            vec![a.clone()],
            "{atomicity:?}"
        );
    }

    // a modify without meter_config restores the default meter; the counter is kept
    let mut m = a.clone();
    m.metadata = b"modified".to_vec();
    m.controller_metadata = 0;
    m.meter_config = None;
    m.counter_data = None;
    write(&mut c, 10, vec![modi(m.clone())]).await.expect("modify");
    let mut want = m.clone();
    want.counter_data = a.counter_data;
    assert_eq!(read_full(&mut c, hosts, IDLE_HOST).await, vec![want]);
    // gone with the delete: inserted again without them, it has none
    write(&mut c, 10, vec![del(entry(hosts, IDLE_HOST))])
        .await
        .expect("delete");
    let mut again = entry(hosts, IDLE_HOST);
    again.action = Some(action(forward, &[&[1]]));
    write(&mut c, 10, vec![ins(again.clone())]).await.expect("insert again");
    again.counter_data = Some(CounterData::default());
    assert_eq!(read_full(&mut c, hosts, IDLE_HOST).await, vec![again]);
}

/// A MODIFY that gives no metadata clears the entry's, in a table without direct resources (the
/// path of a single rule's modify), whether other entries of the table have metadata or none
/// has; an all-or-nothing batch that fails after such a modify puts the metadata back.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_plain_modify_clears_the_metadata_and_a_rollback_restores_it() {
    let dir = temp_dir("p4rt-modify-meta");
    let (info, dc) = build("idle", &dir);
    let plain = id_of(&info, "IdleIngress.plain");
    let tag = id_of(&info, "IdleIngress.tag");
    let sw = start(&[]);
    let mut c = connect(&sw.addr).await;
    let _s = Stream::open(&mut c, 10, Code::Ok).await;
    push(&mut c, 10, &info, &dc).await;
    let ins = |e| update(update::Type::Insert, entity::Entity::TableEntry(e));
    let modi = |e| update(update::Type::Modify, entity::Entity::TableEntry(e));
    let tagged = |mac, t: u8, meta: &[u8]| TableEntry {
        action: Some(action(tag, &[&[t]])),
        metadata: meta.to_vec(),
        ..entry(plain, mac)
    };

    // SRC has metadata, BUSY_HOST has none: modifies without metadata leave both without
    write(
        &mut c,
        10,
        vec![ins(tagged(SRC, 1, b"cookie")), ins(tagged(BUSY_HOST, 1, b""))],
    )
    .await
    .expect("insert");
    assert_eq!(read_entry(&mut c, plain, SRC).await, tagged(SRC, 1, b"cookie"));
    write(&mut c, 10, vec![modi(tagged(SRC, 2, b""))])
        .await
        .expect("modify");
    assert_eq!(
        read_entry(&mut c, plain, SRC).await,
        tagged(SRC, 2, b""),
        "metadata cleared"
    );
    // no entry of the table has metadata now
    write(&mut c, 10, vec![modi(tagged(BUSY_HOST, 3, b""))])
        .await
        .expect("modify");
    assert_eq!(read_entry(&mut c, plain, BUSY_HOST).await, tagged(BUSY_HOST, 3, b""));

    // rolled back: the metadata of SRC comes back, and BUSY_HOST (none in the table but SRC's)
    // keeps having none
    write(&mut c, 10, vec![modi(tagged(SRC, 4, b"again"))])
        .await
        .expect("modify with metadata");
    for atomicity in [
        write_request::Atomicity::RollbackOnError,
        write_request::Atomicity::DataplaneAtomic,
    ] {
        let st = write_mode(
            &mut c,
            atomicity,
            vec![
                modi(tagged(SRC, 5, b"")),
                modi(tagged(BUSY_HOST, 5, b"")),
                ins(tagged(BUSY_HOST, 6, b"")),
            ],
        )
        .await
        .expect_err("the insert of an existing entry fails");
        assert_eq!(st.code(), Code::Unknown, "{st:?}");
        assert_eq!(
            read_entry(&mut c, plain, SRC).await,
            tagged(SRC, 4, b"again"),
            "{atomicity:?}"
        );
        assert_eq!(
            read_entry(&mut c, plain, BUSY_HOST).await,
            tagged(BUSY_HOST, 3, b""),
            "{atomicity:?}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The one entry `mac` of `table` as a read returns it.
async fn read_entry(
    c: &mut p4dp_p4runtime::proto::p4::v1::p4_runtime_client::P4RuntimeClient<tonic::transport::Channel>,
    table: u32,
    mac: [u8; 6],
) -> TableEntry {
    let mut v = read(c, entity::Entity::TableEntry(entry(table, mac)))
        .await
        .expect("read");
    match (v.pop(), v.is_empty()) {
        (Some(entity::Entity::TableEntry(t)), true) => t,
        other => panic!("one entry: {other:?}"),
    }
}
