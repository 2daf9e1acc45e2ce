//! `p4dp serve --p4runtime-rt-priority N`: P4Runtime's gRPC thread runs under SCHED_FIFO at
//! priority N, the threads it starts (a pipeline push and a Read run on them) at normal
//! priority, and every other thread of the switch (the workers first) at normal priority. The
//! option is refused without a --control-cpus list, and a switch running with it takes Writes
//! and Reads as any other.

use std::time::Duration;

use p4dp_p4runtime::proto::p4::v1::*;
use tonic::Code;

mod p4rt_common;
use p4rt_common::{
    action, build, connect, exact, id_of, push, read, refused, start, temp_dir, update, write, Stream, Switch,
};

const ELECTION: u64 = 10;
const PRIORITY: u32 = 7;

/// (name, scheduling policy, real-time priority) of every thread of the switch: stat(5) fields
/// 2, 41 and 40.
fn threads(sw: &Switch) -> Vec<(String, u32, u32)> {
    let mut out = Vec::new();
    for t in std::fs::read_dir(format!("/proc/{}/task", sw.pid()))
        .expect("the switch's threads")
        .flatten()
    {
        let Ok(stat) = std::fs::read_to_string(t.path().join("stat")) else {
            continue;
        };
        let (Some(a), Some(b)) = (stat.find('('), stat.rfind(')')) else {
            continue;
        };
        // the fields after the name, from field 3 (state) on
        let rest: Vec<&str> = stat[b + 1..].split_whitespace().collect();
        let field = |n: usize| rest[n - 3].parse::<u32>().expect("a number");
        out.push((stat[a + 1..b].to_string(), field(41), field(40)));
    }
    out.sort();
    out
}

#[test]
fn without_a_control_cpu_list_the_option_is_refused() {
    let err = refused(&["--p4runtime-rt-priority", &PRIORITY.to_string()]);
    assert!(
        err.contains("--p4runtime-rt-priority 7 needs --control-cpus with a CPU list"),
        "the error says why: {err}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_grpc_thread_alone_runs_at_real_time_priority() {
    let dir = temp_dir("p4rt-rt-priority");
    let (info, dc) = build("fwd", &dir);
    let sw = start(&[
        "--control-cpus".to_string(),
        "0".to_string(),
        "--p4runtime-rt-priority".to_string(),
        PRIORITY.to_string(),
    ]);
    let mut c = connect(&sw.addr).await;
    let _stream = Stream::open(&mut c, ELECTION, Code::Ok).await;
    // a pipeline push and a Read run on the runtime's blocking threads
    push(&mut c, ELECTION, &info, &dc).await;
    let table = id_of(&info, "FwdIngress.dmac");
    let fwd = id_of(&info, "FwdIngress.forward");
    let entry = |port: u8| {
        entity::Entity::TableEntry(TableEntry {
            table_id: table,
            r#match: vec![exact(1, &[2, 0, 0, 0, 0, 1])],
            action: Some(action(fwd, &[&[port]])),
            ..Default::default()
        })
    };
    write(&mut c, ELECTION, vec![update(update::Type::Insert, entry(1))])
        .await
        .expect("insert");
    write(&mut c, ELECTION, vec![update(update::Type::Modify, entry(3))])
        .await
        .expect("modify");
    let got = read(
        &mut c,
        entity::Entity::TableEntry(TableEntry {
            table_id: table,
            ..Default::default()
        }),
    )
    .await
    .expect("read");
    assert_eq!(got, vec![entry(3)]);

    // SCHED_FIFO is policy 1, SCHED_OTHER 0
    tokio::time::sleep(Duration::from_millis(100)).await;
    let all = threads(&sw);
    let realtime: Vec<_> = all.iter().filter(|(_, policy, _)| *policy != 0).collect();
    assert_eq!(
        realtime,
        vec![&("p4dp-p4runtime".to_string(), 1, PRIORITY)],
        "one thread at real-time priority: {all:?}"
    );
    let grpc_named = all.iter().filter(|(name, _, _)| name == "p4dp-p4runtime").count();
    assert!(
        grpc_named >= 2,
        "the blocking threads the push and the Read ran on (normal priority) are there: {all:?}"
    );
    assert!(
        all.iter()
            .any(|(name, policy, _)| name.starts_with("rte-worker") && *policy == 0),
        "the workers run at normal priority: {all:?}"
    );
}
