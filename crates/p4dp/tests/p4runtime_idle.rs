//! P4Runtime idle timeouts through raw tonic stubs against `p4dp serve` on a pcap port, with
//! `tests/p4runtime/idle.p4`: an entry with `idle_timeout_ns` and no traffic is reported to the
//! primary (not to a backup) in IdleTimeoutNotifications, again one TTL after each report while it
//! stays idle; its `time_since_last_hit` grows until a packet hits it, which resets it; entries
//! with TTL 0 are never reported; the specification's errors.

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
    s.send(stream_message_request::Update::Packet(PacketOut {
        payload: frame(IDLE_HOST, SRC, 1),
        metadata: vec![],
    }))
    .await;
    let sent = Instant::now();
    let got = wait_pcap(&out1, Duration::from_secs(10), |f| !f.is_empty());
    assert_eq!(got.len(), 1, "the packet leaves port 1");
    let after = elapsed(&read_one(&mut c, hosts, IDLE_HOST).await);
    // no earlier than the hit (by the read's latency)
    let hit_at = Instant::now() - Duration::from_nanos(after as u64);
    assert!(
        (after as u128) <= sent.elapsed().as_nanos(),
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
