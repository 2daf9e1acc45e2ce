//! `p4dp serve --p4runtime-busy-poll`: the P4Runtime server on one thread that never sleeps.
//! A controller arbitrates, pushes a pipeline, writes (CONTINUE_ON_ERROR and DATAPLANE_ATOMIC,
//! one of them timed) and reads back through it; and the server's thread is seen running while
//! no request comes (the default server's threads sleep then).

use std::time::Duration;

use p4dp_p4runtime::proto::p4::v1::*;
use tonic::Code;

mod p4rt_common;
use p4rt_common::{build, connect, exact, id_of, push, read, start, temp_dir, update, Stream, Switch, DEVICE};

const ELECTION: u64 = 10;

/// The states (stat(5) field 3: R running or runnable, S sleeping, ...) of the switch's threads
/// named `p4dp-p4runtime` now.
fn p4runtime_thread_states(sw: &Switch) -> Vec<char> {
    let mut out = Vec::new();
    let Ok(dir) = std::fs::read_dir(format!("/proc/{}/task", sw.pid())) else {
        return out;
    };
    for t in dir.flatten() {
        let Ok(stat) = std::fs::read_to_string(t.path().join("stat")) else {
            continue;
        };
        let (Some(a), Some(b)) = (stat.find('('), stat.rfind(')')) else {
            continue;
        };
        if &stat[a + 1..b] == "p4dp-p4runtime" {
            out.extend(stat[b + 1..].trim_start().chars().next());
        }
    }
    out
}

/// Of `n` looks at the idle switch 10 ms apart, how many found one of its P4Runtime threads
/// running or runnable.
fn looks_running(sw: &Switch, n: usize) -> usize {
    (0..n)
        .filter(|_| {
            std::thread::sleep(Duration::from_millis(10));
            p4runtime_thread_states(sw).contains(&'R')
        })
        .count()
}

fn dmac(info: &p4dp_p4runtime::proto::p4::config::v1::P4Info, mac: &[u8], port: u8) -> entity::Entity {
    entity::Entity::TableEntry(TableEntry {
        table_id: id_of(info, "FwdIngress.dmac"),
        r#match: vec![exact(1, mac)],
        action: Some(TableAction {
            r#type: Some(table_action::Type::Action(Action {
                action_id: id_of(info, "FwdIngress.forward"),
                params: vec![action::Param {
                    param_id: 1,
                    value: vec![port],
                }],
            })),
        }),
        ..Default::default()
    })
}

/// The port of each dmac entry read back, by MAC.
async fn ports(
    c: &mut p4dp_p4runtime::proto::p4::v1::p4_runtime_client::P4RuntimeClient<tonic::transport::Channel>,
    table: u32,
) -> Vec<(Vec<u8>, Vec<u8>)> {
    let got = read(
        c,
        entity::Entity::TableEntry(TableEntry {
            table_id: table,
            ..Default::default()
        }),
    )
    .await
    .expect("read");
    let mut out: Vec<(Vec<u8>, Vec<u8>)> = got
        .into_iter()
        .filter_map(|e| match e {
            entity::Entity::TableEntry(t) => {
                let key = match t.r#match.first().and_then(|m| m.field_match_type.clone()) {
                    Some(field_match::FieldMatchType::Exact(x)) => x.value,
                    _ => return None,
                };
                let port = match t.action.and_then(|a| a.r#type) {
                    Some(table_action::Type::Action(a)) => a.params.first().map(|p| p.value.clone())?,
                    _ => return None,
                };
                Some((key, port))
            }
            _ => None,
        })
        .collect();
    out.sort();
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_busy_polling_server_takes_writes_and_reads_and_its_thread_never_sleeps() {
    let dir = temp_dir("p4rt-busy-poll");
    let (info, dc) = build("fwd", &dir);
    let sw = start(&["--p4runtime-busy-poll".to_string()]);
    let mut c = connect(&sw.addr).await;
    let _stream = Stream::open(&mut c, ELECTION, Code::Ok).await;
    push(&mut c, ELECTION, &info, &dc).await;
    let table = id_of(&info, "FwdIngress.dmac");
    let (a, b) = ([2u8, 0, 0, 0, 0, 1], [2u8, 0, 0, 0, 0, 2]);

    let w = |updates: Vec<Update>, atomicity: write_request::Atomicity| WriteRequest {
        device_id: DEVICE,
        election_id: p4rt_common::eid(ELECTION),
        updates,
        atomicity: atomicity as i32,
        ..Default::default()
    };
    use update::Type::{Insert, Modify};
    use write_request::Atomicity::{ContinueOnError, DataplaneAtomic};
    c.write(w(
        vec![update(Insert, dmac(&info, &a, 1)), update(Insert, dmac(&info, &b, 2))],
        ContinueOnError,
    ))
    .await
    .expect("inserts");
    assert_eq!(
        ports(&mut c, table).await,
        vec![(a.to_vec(), vec![1]), (b.to_vec(), vec![2])]
    );
    // a timed DATAPLANE_ATOMIC modify: the handler ran and says where its time went
    let mut req = tonic::Request::new(w(
        vec![update(Modify, dmac(&info, &a, 3)), update(Modify, dmac(&info, &b, 4))],
        DataplaneAtomic,
    ));
    req.metadata_mut().insert(
        p4dp_p4runtime::timing::REQUEST_KEY,
        tonic::metadata::MetadataValue::from_static("1"),
    );
    let resp = c.write(req).await.expect("atomic modifies");
    let control = resp
        .metadata()
        .get(p4dp_p4runtime::timing::CONTROL_NS_KEY)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    assert!(
        control.is_some_and(|ns| ns > 0),
        "d_control in the response: {:?}",
        resp.metadata()
    );
    assert_eq!(
        ports(&mut c, table).await,
        vec![(a.to_vec(), vec![3]), (b.to_vec(), vec![4])]
    );
    // a bad update is refused and changes nothing, as without busy polling
    let e = c
        .write(w(vec![update(Insert, dmac(&info, &a, 5))], ContinueOnError))
        .await
        .expect_err("a duplicate insert");
    assert_eq!(e.code(), Code::Unknown);
    assert_eq!(
        ports(&mut c, table).await,
        vec![(a.to_vec(), vec![3]), (b.to_vec(), vec![4])]
    );

    // idle now: the busy-polling thread is always running or waiting for a CPU, never asleep;
    // the default server's threads sleep until a request comes
    let busy = looks_running(&sw, 20);
    assert!(
        busy >= 15,
        "the busy-polling thread was seen running in {busy} of 20 looks"
    );
    let plain = start(&[]);
    let mut c2 = connect(&plain.addr).await;
    c2.capabilities(CapabilitiesRequest::default())
        .await
        .expect("capabilities");
    tokio::time::sleep(Duration::from_millis(200)).await;
    let idle = looks_running(&plain, 20);
    assert!(
        idle <= 5,
        "the default server's threads were seen running in {idle} of 20 looks"
    );
}
