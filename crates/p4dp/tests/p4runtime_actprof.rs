//! P4Runtime action profile members and groups through raw tonic stubs against `p4dp serve` on
//! pcap ports: writes and reads with their error codes, and where the packets go (PacketOuts
//! enter the selector table from the controller port); one-shot action sets, their selection
//! modes, the selectors' size semantics (tests/p4runtime/selector_sizes.p4), and selectors whose
//! weights the switch chooses (tests/p4runtime/switch_weights.p4).

mod p4rt_common;

use std::time::Duration;

use p4dp_p4runtime::proto::p4::v1::action_profile_action_set::{ActionSelectionMode as Mode, SizeSemantics as Size};
use p4dp_p4runtime::proto::p4::v1::*;
use p4rt_common::*;
use prost::Message;
use tonic::Code;

const SEC: Duration = Duration::from_secs(1);
const HOST_B: [u8; 6] = [0x02, 0, 0, 0, 0, 0x0b];
const HOST_C: [u8; 6] = [0x02, 0, 0, 0, 0, 0x0c];

fn member(prof: u32, id: u32, fwd: u32, port: u8) -> entity::Entity {
    let Some(table_action::Type::Action(a)) = action(fwd, &[&[port]]).r#type else {
        unreachable!()
    };
    entity::Entity::ActionProfileMember(ActionProfileMember {
        action_profile_id: prof,
        member_id: id,
        action: Some(a),
    })
}

fn entry(table: u32, dst: [u8; 6], t: table_action::Type) -> entity::Entity {
    entity::Entity::TableEntry(TableEntry {
        table_id: table,
        r#match: vec![exact(1, &dst)],
        action: Some(TableAction { r#type: Some(t) }),
        ..Default::default()
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

fn one_code(r: Result<(), tonic::Status>) -> Code {
    one_error(r).0
}

/// Sends `n` frames to `dst` (sources differ) as PacketOuts; returns how many more frames
/// ports 1 and 2 wrote once all arrived.
async fn send(s: &Stream, dir: &std::path::Path, dst: [u8; 6], n: u8) -> (usize, usize) {
    let count = |p: u32| p4dp_testutil::pcap::written(&dir.join(format!("out{p}.pcap"))).len();
    let (b1, b2) = (count(1), count(2));
    for i in 0..n {
        let src = [0x02, 0, 0, 0, i, i.wrapping_mul(37)];
        s.packet_out(frame(dst, src, i)).await;
    }
    let end = std::time::Instant::now() + 10 * SEC;
    loop {
        let (a1, a2) = (count(1) - b1, count(2) - b2);
        if a1 + a2 >= n as usize || std::time::Instant::now() > end {
            tokio::time::sleep(SEC / 5).await; // nothing more arrives
            return (count(1) - b1, count(2) - b2);
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn action_profile_members_and_groups() {
    let dir = temp_dir("p4rt-actprof");
    let (info, dc) = build("profile", &dir);
    let out = |p: u32| format!("{p}=:{}", dir.join(format!("out{p}.pcap")).display());
    let sw = start(&["--port".into(), out(1), "--port".into(), out(2)]);
    let mut c = connect(&sw.addr).await;
    let s = Stream::open(&mut c, 10, Code::Ok).await;
    push(&mut c, 10, &info, &dc).await;
    let prof = info.action_profiles[0].preamble.as_ref().expect("preamble").id;
    let table = info.tables[0].preamble.as_ref().expect("preamble").id;
    let fwd = id_of(&info, "ProfIngress.forward");
    let ins = |e| update(update::Type::Insert, e);
    let modi = |e| update(update::Type::Modify, e);
    let del = |e| update(update::Type::Delete, e);

    write(
        &mut c,
        10,
        vec![ins(member(prof, 1, fwd, 1)), ins(member(prof, 2, fwd, 2))],
    )
    .await
    .expect("members");
    assert_eq!(
        one_code(write(&mut c, 10, vec![ins(member(prof, 1, fwd, 2))]).await),
        Code::AlreadyExists
    );
    assert_eq!(
        one_code(write(&mut c, 10, vec![ins(member(77, 3, fwd, 2))]).await),
        Code::NotFound
    );
    assert_eq!(
        one_code(write(&mut c, 10, vec![modi(member(prof, 9, fwd, 2))]).await),
        Code::NotFound
    );
    // a value wider than the 9-bit port parameter
    let mut wide = member(prof, 3, fwd, 0);
    if let entity::Entity::ActionProfileMember(m) = &mut wide {
        m.action.as_mut().expect("action").params[0].value = vec![0x02, 0x00];
    }
    assert_eq!(
        one_code(write(&mut c, 10, vec![ins(wide)]).await),
        Code::InvalidArgument
    );

    // groups: unknown member NOT_FOUND, weights above max_size RESOURCE_EXHAUSTED, weight 0
    assert_eq!(
        one_code(write(&mut c, 10, vec![ins(group(prof, 5, &[(9, 1)], 0))]).await),
        Code::NotFound
    );
    assert_eq!(
        one_code(write(&mut c, 10, vec![ins(group(prof, 5, &[(1, 3), (2, 2)], 4))]).await),
        Code::ResourceExhausted
    );
    assert_eq!(
        one_code(write(&mut c, 10, vec![ins(group(prof, 5, &[(1, 0)], 0))]).await),
        Code::InvalidArgument
    );
    write(&mut c, 10, vec![ins(group(prof, 5, &[(1, 1), (2, 1)], 4))])
        .await
        .expect("group");
    assert_eq!(
        one_code(write(&mut c, 10, vec![ins(group(prof, 5, &[(1, 1)], 4))]).await),
        Code::AlreadyExists
    );

    // the default entry of an indirect table takes a direct action only (the proto: "a valid
    // direct action"; the specification restricts it to one): a member, a group or a one-shot set
    // is INVALID_ARGUMENT and leaves the default entry as it was
    let default_entry = |t: Option<table_action::Type>| {
        entity::Entity::TableEntry(TableEntry {
            table_id: table,
            is_default_action: true,
            action: t.map(|t| TableAction { r#type: Some(t) }),
            ..Default::default()
        })
    };
    let before = read(&mut c, default_entry(None)).await.expect("read default");
    let Some(table_action::Type::Action(to_port2)) = action(fwd, &[&[2]]).r#type else {
        unreachable!()
    };
    let set = table_action::Type::ActionProfileActionSet(ActionProfileActionSet {
        action_profile_actions: vec![ActionProfileAction {
            action: Some(to_port2),
            weight: 1,
            watch_kind: None,
        }],
        ..Default::default()
    });
    for t in [
        table_action::Type::ActionProfileMemberId(1),
        table_action::Type::ActionProfileGroupId(5),
        set,
    ] {
        assert_eq!(
            one_code(write(&mut c, 10, vec![modi(default_entry(Some(t.clone())))]).await),
            Code::InvalidArgument,
            "{t:?}"
        );
    }
    assert_eq!(read(&mut c, default_entry(None)).await.expect("read default"), before);

    // read back as written: wildcard and by id
    let mut got = read(&mut c, any_member()).await.expect("read members");
    got.sort_by_key(|e| match e {
        entity::Entity::ActionProfileMember(m) => m.member_id,
        _ => 0,
    });
    assert_eq!(got, vec![member(prof, 1, fwd, 1), member(prof, 2, fwd, 2)]);
    let got = read(&mut c, group(prof, 5, &[], 0)).await.expect("read group");
    assert_eq!(got, vec![group(prof, 5, &[(1, 1), (2, 1)], 4)]);

    // packets: HOST_B -> member 1 (port 1); HOST_C -> group 5 (ports 1 and 2 by source hash)
    write(
        &mut c,
        10,
        vec![
            ins(entry(table, HOST_B, table_action::Type::ActionProfileMemberId(1))),
            ins(entry(table, HOST_C, table_action::Type::ActionProfileGroupId(5))),
        ],
    )
    .await
    .expect("entries");
    assert_eq!(send(&s, &dir, HOST_B, 5).await, (5, 0), "member 1 forwards to port 1");
    let (a, b) = send(&s, &dir, HOST_C, 20).await;
    assert!(
        a + b == 20 && a > 0 && b > 0,
        "the group spreads flows over ports 1 and 2: {a} + {b}"
    );
    // in use: members and groups cannot be deleted
    assert_eq!(
        one_code(write(&mut c, 10, vec![del(member(prof, 1, fwd, 1))]).await),
        Code::FailedPrecondition
    );
    assert_eq!(
        one_code(write(&mut c, 10, vec![del(group(prof, 5, &[], 0))]).await),
        Code::FailedPrecondition
    );
    // modify a member: HOST_B now leaves on port 2
    write(&mut c, 10, vec![modi(member(prof, 1, fwd, 2))])
        .await
        .expect("modify member");
    assert_eq!(send(&s, &dir, HOST_B, 5).await, (0, 5));
    // modify the group to member 1 only (which now forwards to port 2); max_size is fixed
    assert_eq!(
        one_code(write(&mut c, 10, vec![modi(group(prof, 5, &[(1, 1)], 8))]).await),
        Code::InvalidArgument
    );
    write(&mut c, 10, vec![modi(group(prof, 5, &[(1, 1)], 4))])
        .await
        .expect("modify group");
    assert_eq!(send(&s, &dir, HOST_C, 10).await, (0, 10));
    assert_eq!(
        read(&mut c, group(0, 0, &[], 0)).await.expect("read groups"),
        vec![group(prof, 5, &[(1, 1)], 4)]
    );
    // deletes once unused
    write(
        &mut c,
        10,
        vec![
            del(entry(table, HOST_B, table_action::Type::ActionProfileMemberId(1))),
            del(entry(table, HOST_C, table_action::Type::ActionProfileGroupId(5))),
            del(group(prof, 5, &[], 0)),
            del(member(prof, 1, fwd, 1)),
            del(member(prof, 2, fwd, 2)),
        ],
    )
    .await
    .expect("deletes");
    assert!(read(&mut c, group(0, 0, &[], 0)).await.expect("read").is_empty());
    assert!(read(&mut c, any_member()).await.expect("read").is_empty());
    assert_eq!(
        one_code(write(&mut c, 10, vec![del(member(prof, 1, fwd, 1))]).await),
        Code::NotFound
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A read of every member of every profile.
fn any_member() -> entity::Entity {
    entity::Entity::ActionProfileMember(ActionProfileMember::default())
}

/// A one-shot action set forwarding to `ports` (port, weight) by action `fwd`, with the
/// selector's mode and size semantics.
fn action_set(fwd: u32, ports: &[(u8, i32)]) -> table_action::Type {
    action_set_with(
        fwd,
        ports,
        Mode::DefaultModeDeterminedByActionSelector,
        Size::DefaultSizeDeterminedByActionSelector,
    )
}

/// A one-shot action set forwarding to `ports` (port, weight) by action `fwd`, picking members by
/// `mode`, its size counted by `size`.
fn action_set_with(fwd: u32, ports: &[(u8, i32)], mode: Mode, size: Size) -> table_action::Type {
    table_action::Type::ActionProfileActionSet(ActionProfileActionSet {
        action_profile_actions: ports
            .iter()
            .map(|&(port, weight)| {
                let Some(table_action::Type::Action(a)) = action(fwd, &[&[port]]).r#type else {
                    unreachable!()
                };
                ActionProfileAction {
                    action: Some(a),
                    weight,
                    watch_kind: None,
                }
            })
            .collect(),
        action_selection_mode: mode as i32,
        size_semantics: size as i32,
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_shot_action_sets() {
    let dir = temp_dir("p4rt-oneshot");
    let (info, dc) = build("profile", &dir);
    let out = |p: u32| format!("{p}=:{}", dir.join(format!("out{p}.pcap")).display());
    let sw = start(&["--port".into(), out(1), "--port".into(), out(2)]);
    let mut c = connect(&sw.addr).await;
    let s = Stream::open(&mut c, 10, Code::Ok).await;
    push(&mut c, 10, &info, &dc).await;
    let prof = info.action_profiles[0].preamble.as_ref().expect("preamble").id;
    let table = info.tables[0].preamble.as_ref().expect("preamble").id;
    let fwd = id_of(&info, "ProfIngress.forward");
    let ins = |e| update(update::Type::Insert, e);
    let modi = |e| update(update::Type::Modify, e);
    let del = |e| update(update::Type::Delete, e);

    // bad sets change nothing: weight 0, no action, a watch port the device lacks, an empty set
    let mut bad = vec![action_set(fwd, &[(1, 0)]), action_set(fwd, &[])];
    let mut no_action = action_set(fwd, &[(1, 1)]);
    if let table_action::Type::ActionProfileActionSet(s) = &mut no_action {
        s.action_profile_actions[0].action = None;
    }
    bad.push(no_action);
    for b in bad {
        assert_eq!(
            one_code(write(&mut c, 10, vec![ins(entry(table, HOST_B, b))]).await),
            Code::InvalidArgument
        );
    }
    let mut watched = action_set(fwd, &[(1, 1)]);
    if let table_action::Type::ActionProfileActionSet(s) = &mut watched {
        s.action_profile_actions[0].watch_kind = Some(action_profile_action::WatchKind::WatchPort(vec![9]));
    }
    assert_eq!(
        one_code(write(&mut c, 10, vec![ins(entry(table, HOST_B, watched))]).await),
        Code::InvalidArgument
    );
    assert!(read(&mut c, any_entry(table)).await.expect("read").is_empty());

    let spread = action_set(fwd, &[(1, 1), (2, 3)]);
    write(&mut c, 10, vec![ins(entry(table, HOST_C, spread.clone()))])
        .await
        .expect("one-shot insert");
    // read back as written, not as the members and group it became
    assert_eq!(
        read(&mut c, any_entry(table)).await.expect("read"),
        vec![entry(table, HOST_C, spread.clone())]
    );
    assert!(read(&mut c, any_member()).await.expect("read").is_empty());
    assert!(read(&mut c, group(0, 0, &[], 0)).await.expect("read").is_empty());
    let (a, b) = send(&s, &dir, HOST_C, 20).await;
    assert!(
        a + b == 20 && a > 0 && b > 0,
        "the set spreads flows over ports 1 and 2: {a} + {b}"
    );
    // members and groups cannot be mixed into a selector programmed with one-shots
    assert_eq!(
        one_code(write(&mut c, 10, vec![ins(member(prof, 1, fwd, 1))]).await),
        Code::InvalidArgument
    );
    assert_eq!(
        one_code(
            write(
                &mut c,
                10,
                vec![ins(entry(table, HOST_B, table_action::Type::ActionProfileGroupId(1)))]
            )
            .await
        ),
        Code::InvalidArgument
    );
    // the all-or-nothing modes undo one-shots: a rolled-back delete and modify leave the set
    // as written, forwarding as before
    for atomicity in [
        write_request::Atomicity::RollbackOnError,
        write_request::Atomicity::DataplaneAtomic,
    ] {
        let st = c
            .write(WriteRequest {
                device_id: DEVICE,
                election_id: eid(10),
                updates: vec![
                    del(entry(table, HOST_C, spread.clone())),
                    ins(entry(table, HOST_C, action_set(fwd, &[(2, 1)]))),
                    modi(entry(table, HOST_C, action_set(fwd, &[(1, 1)]))),
                    del(entry(table, HOST_B, action_set(fwd, &[]))),
                ],
                atomicity: atomicity as i32,
                ..Default::default()
            })
            .await
            .expect_err("the missing entry's delete fails the batch");
        assert_eq!(st.code(), Code::Unknown, "{st:?}");
        assert_eq!(
            read(&mut c, any_entry(table)).await.expect("read"),
            vec![entry(table, HOST_C, spread.clone())],
            "{atomicity:?}: rolled back"
        );
    }
    let (a, b) = send(&s, &dir, HOST_C, 20).await;
    assert!(
        a + b == 20 && a > 0 && b > 0,
        "the restored set spreads flows over ports 1 and 2: {a} + {b}"
    );
    let req = WriteRequest {
        device_id: DEVICE,
        election_id: eid(10),
        updates: vec![del(entry(table, HOST_C, spread.clone()))],
        ..Default::default()
    };
    // modify: one action on port 2
    let single = action_set(fwd, &[(2, 1)]);
    write(&mut c, 10, vec![modi(entry(table, HOST_C, single.clone()))])
        .await
        .expect("one-shot modify");
    assert_eq!(send(&s, &dir, HOST_C, 10).await, (0, 10));
    assert_eq!(
        read(&mut c, any_entry(table)).await.expect("read"),
        vec![entry(table, HOST_C, single)]
    );
    c.write(req).await.expect("delete");
    assert!(read(&mut c, any_entry(table)).await.expect("read").is_empty());
    assert_eq!(send(&s, &dir, HOST_C, 5).await, (0, 0), "no entry: dropped");
    // with no one-shot left, members may be written again
    write(&mut c, 10, vec![ins(member(prof, 1, fwd, 1))])
        .await
        .expect("member after the one-shots are gone");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A read of every entry of `table`.
fn any_entry(table: u32) -> entity::Entity {
    entity::Entity::TableEntry(TableEntry {
        table_id: table,
        ..Default::default()
    })
}

/// Frames on ports 1 and 2 after `n` PacketOuts to `dst`, all from one source (one hash).
async fn spread(s: &Stream, out: &dyn Fn(u32) -> std::path::PathBuf, dst: [u8; 6], n: usize) -> (usize, usize) {
    let count = |p: u32| {
        p4dp_testutil::pcap::written(&out(p))
            .iter()
            .filter(|fr| fr[0..6] == dst)
            .count()
    };
    for i in 0..n {
        s.packet_out(frame(dst, [0x02, 0, 0, 0, 0, 0x21], i as u8)).await;
    }
    let end = std::time::Instant::now() + Duration::from_secs(10);
    while count(1) + count(2) < n && std::time::Instant::now() < end {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    (count(1), count(2))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_shot_random_selection_follows_weights() {
    let dir = temp_dir("p4rt-oneshot-random");
    let (info, dc) = build("profile", &dir);
    let path = |p: u32| dir.join(format!("out{p}.pcap"));
    let sw = start(&[
        "--port".into(),
        format!("1=:{}", path(1).display()),
        "--port".into(),
        format!("2=:{}", path(2).display()),
    ]);
    let mut c = connect(&sw.addr).await;
    let s = Stream::open(&mut c, 10, Code::Ok).await;
    push(&mut c, 10, &info, &dc).await;
    let table = info.tables[0].preamble.as_ref().expect("preamble").id;
    let fwd = id_of(&info, "ProfIngress.forward");
    let ins = |e| update(update::Type::Insert, e);
    const BY_HASH: [u8; 6] = [0x02, 0, 0, 0, 0, 0x0b];
    const AT_RANDOM: [u8; 6] = [0x02, 0, 0, 0, 0, 0x0c];
    const N: usize = 200;

    // by hash, one source goes one way
    let hashed = action_set_with(
        fwd,
        &[(1, 1), (2, 3)],
        Mode::Hash,
        Size::DefaultSizeDeterminedByActionSelector,
    );
    write(&mut c, 10, vec![ins(entry(table, BY_HASH, hashed))])
        .await
        .expect("hash set");
    let (a, b) = spread(&s, &path, BY_HASH, N).await;
    assert!(a + b == N && (a == 0 || b == 0), "one hash, one member: {a} + {b}");

    // at random, the same source is spread over both members about as 1 : 3
    let random = action_set_with(
        fwd,
        &[(1, 1), (2, 3)],
        Mode::Random,
        Size::DefaultSizeDeterminedByActionSelector,
    );
    write(&mut c, 10, vec![ins(entry(table, AT_RANDOM, random.clone()))])
        .await
        .expect("random set");
    let key = entity::Entity::TableEntry(TableEntry {
        table_id: table,
        r#match: vec![exact(1, &AT_RANDOM)],
        ..Default::default()
    });
    assert_eq!(
        read(&mut c, key).await.expect("read"),
        vec![entry(table, AT_RANDOM, random)],
        "the set reads back as written, its mode included"
    );
    let (a, b) = spread(&s, &path, AT_RANDOM, N).await;
    assert_eq!(a + b, N, "every packet leaves by a member: {a} + {b}");
    assert!(
        a >= 20 && a <= 80 && b >= 120,
        "weights 1 : 3 over {N} packets: {a} : {b}"
    );

    drop(s);
}

const HOST_D: [u8; 6] = [0x02, 0, 0, 0, 0, 0x0d];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn selector_size_semantics() {
    use p4dp_p4runtime::proto::p4::config::v1::action_profile::{
        SelectorSizeSemantics as Sem, SumOfMembers, SumOfWeights,
    };
    let dir = temp_dir("p4rt-selector-sizes");
    let (info, dc) = build("selector_sizes", &dir);
    let out = |p: u32| format!("{p}=:{}", dir.join(format!("out{p}.pcap")).display());
    let sw = start(&["--port".into(), out(1), "--port".into(), out(2)]);
    let mut c = connect(&sw.addr).await;
    let s = Stream::open(&mut c, 10, Code::Ok).await;
    push(&mut c, 10, &info, &dc).await;
    let (wcmp, ecmp) = (id_of(&info, "SzIngress.wcmp"), id_of(&info, "SzIngress.ecmp"));
    let (lb, lb_w) = (id_of(&info, "SzIngress.lb"), id_of(&info, "SzIngress.lb_w"));
    let fwd = id_of(&info, "SzIngress.forward");
    let ins = |e| update(update::Type::Insert, e);
    let modi = |e| update(update::Type::Modify, e);

    // the P4Info: what the annotations chose; without one, sum of weights, said explicitly
    let prof = |id: u32| {
        info.action_profiles
            .iter()
            .find(|a| a.preamble.as_ref().is_some_and(|p| p.id == id))
            .expect("profile")
            .clone()
    };
    let (w, e) = (prof(wcmp), prof(ecmp));
    assert_eq!(
        (w.max_group_size, w.selector_size_semantics),
        (
            4,
            Some(Sem::SumOfMembers(SumOfMembers {
                max_member_weight: 1_000_000
            }))
        )
    );
    assert_eq!(
        (e.max_group_size, e.selector_size_semantics),
        (8, Some(Sem::SumOfWeights(SumOfWeights {})))
    );

    // wcmp counts members: weights far above what a sum of weights allows are one member each
    let members: Vec<_> = (1..=5).map(|m| ins(member(wcmp, m, fwd, 2 - (m % 2) as u8))).collect();
    write(&mut c, 10, members).await.expect("members");
    let g10 = group(wcmp, 10, &[(1, 100_000), (2, 300_000)], 0);
    write(&mut c, 10, vec![ins(g10.clone())])
        .await
        .expect("a group of large weights");
    // refused, state unchanged: a weight above max_member_weight (insert, modify), more members
    // than max_group_size, a max_size above it; more members than the group's max_size
    for (u, want) in [
        (ins(group(wcmp, 11, &[(1, 1_000_001)], 0)), Code::InvalidArgument),
        (
            modi(group(wcmp, 10, &[(1, 100_000), (2, 2_000_000)], 0)),
            Code::InvalidArgument,
        ),
        (
            ins(group(wcmp, 11, &[(1, 1), (2, 1), (3, 1), (4, 1), (5, 1)], 0)),
            Code::InvalidArgument,
        ),
        (ins(group(wcmp, 11, &[(1, 1)], 5)), Code::InvalidArgument),
        (
            ins(group(wcmp, 11, &[(1, 1), (2, 1), (3, 1)], 2)),
            Code::ResourceExhausted,
        ),
    ] {
        let (code, msg) = one_error(write(&mut c, 10, vec![u]).await);
        assert_eq!(code, want, "{msg}");
    }
    assert_eq!(
        read(&mut c, group(wcmp, 0, &[], 0)).await.expect("read"),
        vec![g10.clone()]
    );
    let (code, msg) = one_error(write(&mut c, 10, vec![ins(group(wcmp, 11, &[(1, 1_000_001)], 0))]).await);
    assert!(msg.contains("max_member_weight 1000000"), "{code:?}: {msg}");
    // at the bounds: max_group_size members of max_member_weight
    let full = group(
        wcmp,
        12,
        &[(1, 1_000_000), (2, 1_000_000), (3, 1_000_000), (4, 1_000_000)],
        4,
    );
    write(&mut c, 10, vec![ins(full)]).await.expect("a full group");
    // flows spread by weight, 1 : 3
    write(
        &mut c,
        10,
        vec![ins(entry(lb, HOST_C, table_action::Type::ActionProfileGroupId(10)))],
    )
    .await
    .expect("entry");
    let (a, b) = send(&s, &dir, HOST_C, 200).await;
    assert!(
        a + b == 200 && (25..=75).contains(&a),
        "weights 1 : 3 over 200 flows: {a} : {b}"
    );

    // ecmp counts the sum of weights (at most 8): one-shot sets on it
    for size in [Size::DefaultSizeDeterminedByActionSelector, Size::SumOfWeights] {
        let heavy = action_set_with(fwd, &[(1, 5), (2, 4)], Mode::Hash, size);
        let (code, msg) = one_error(write(&mut c, 10, vec![ins(entry(lb_w, HOST_D, heavy))]).await);
        assert_eq!(code, Code::InvalidArgument, "{size:?}: {msg}");
        assert!(msg.contains("max_group_size 8"), "{msg}");
    }
    let mut unknown = action_set(fwd, &[(1, 1)]);
    if let table_action::Type::ActionProfileActionSet(set) = &mut unknown {
        set.size_semantics = 7;
    }
    let (code, msg) = one_error(write(&mut c, 10, vec![ins(entry(lb_w, HOST_D, unknown))]).await);
    assert_eq!(code, Code::InvalidArgument, "{msg}");
    assert!(read(&mut c, any_entry(lb_w)).await.expect("read").is_empty());
    // a set's own SUM_OF_MEMBERS counts its 2 actions, whatever their weights
    let by_members = action_set_with(fwd, &[(1, 100_000), (2, 300_000)], Mode::Hash, Size::SumOfMembers);
    write(&mut c, 10, vec![ins(entry(lb_w, HOST_D, by_members.clone()))])
        .await
        .expect("a sum-of-members set on a sum-of-weights selector");
    assert_eq!(
        read(&mut c, any_entry(lb_w)).await.expect("read"),
        vec![entry(lb_w, HOST_D, by_members)]
    );
    let (a, b) = send(&s, &dir, HOST_D, 200).await;
    assert!(
        a + b == 200 && (25..=75).contains(&a),
        "weights 1 : 3 over 200 flows: {a} : {b}"
    );
    drop(s);
    let _ = std::fs::remove_dir_all(&dir);
}

const HOST_E: [u8; 6] = [0x02, 0, 0, 0, 0, 0x0e];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn weights_chosen_by_the_switch() {
    let dir = temp_dir("p4rt-switch-weights");
    let (info, dc) = build("switch_weights", &dir);
    let out = |p: u32| format!("{p}=:{}", dir.join(format!("out{p}.pcap")).display());
    let sw = start(&["--port".into(), out(1), "--port".into(), out(2)]);
    let mut c = connect(&sw.addr).await;
    let s = Stream::open(&mut c, 10, Code::Ok).await;
    push(&mut c, 10, &info, &dc).await;
    let id = |name: &str| id_of(&info, &format!("SwIngress.{name}"));
    let (dlb, dlb_sets, wcmp, members) = (id("dlb"), id("dlb_sets"), id("wcmp"), id("members"));
    let (lb, lb_sets) = (id("lb"), id("lb_sets"));
    let fwd = id("forward");
    let ins = |e| update(update::Type::Insert, e);
    let modi = |e| update(update::Type::Modify, e);

    // the P4Info the switch holds: the flag on the annotated selectors only
    let held = c
        .get_forwarding_pipeline_config(GetForwardingPipelineConfigRequest {
            device_id: DEVICE,
            response_type: 0,
        })
        .await
        .expect("get")
        .into_inner()
        .config
        .and_then(|c| c.p4info)
        .expect("the pipeline's P4Info");
    let flag = |id: u32| {
        held.action_profiles
            .iter()
            .find(|a| a.preamble.as_ref().is_some_and(|p| p.id == id))
            .expect("profile")
            .weights_disallowed
    };
    assert_eq!(
        [flag(dlb), flag(dlb_sets), flag(wcmp), flag(members)],
        [true, true, false, false]
    );

    // groups of members without weights: each member weighs the same
    let mut ms: Vec<_> = [(1, 1), (2, 2), (3, 1)]
        .into_iter()
        .map(|(m, port)| ins(member(dlb, m, fwd, port)))
        .collect();
    ms.extend([(21, 1), (22, 2)].map(|(m, port)| ins(member(wcmp, m, fwd, port))));
    write(&mut c, 10, ms).await.expect("members");
    let g10 = group(dlb, 10, &[(1, 0), (2, 0)], 0);
    write(&mut c, 10, vec![ins(g10.clone())])
        .await
        .expect("a group without weights");
    write(
        &mut c,
        10,
        vec![ins(entry(lb, HOST_B, table_action::Type::ActionProfileGroupId(10)))],
    )
    .await
    .expect("entry");
    let (a, b) = send(&s, &dir, HOST_B, 200).await;
    assert!(
        a + b == 200 && (60..=140).contains(&a),
        "equal weights over 200 flows: {a} : {b}"
    );

    // refused, state unchanged: a weight given (insert, modify, negative), and more members than
    // max_group_size 2 counts in the switch's weights (1 each)
    for (u, what) in [
        (ins(group(dlb, 11, &[(1, 1)], 0)), "weights_disallowed"),
        (ins(group(dlb, 11, &[(1, -1)], 0)), "weights_disallowed"),
        (modi(group(dlb, 10, &[(1, 0), (2, 3)], 0)), "weights_disallowed"),
        (ins(group(dlb, 11, &[(1, 0), (2, 0), (3, 0)], 0)), "max_group_size 2"),
        (modi(group(dlb, 10, &[(1, 0), (2, 0), (3, 0)], 0)), "max_group_size 2"),
    ] {
        let (code, msg) = one_error(write(&mut c, 10, vec![u]).await);
        assert_eq!(code, Code::InvalidArgument, "{msg}");
        assert!(msg.contains(what), "{msg}");
    }
    assert_eq!(
        read(&mut c, group(dlb, 0, &[], 0)).await.expect("read"),
        vec![g10],
        "the group as written: weights 0, the two members"
    );
    // a modify without weights moves the flows (members 1 and 3 both forward to port 1)
    write(&mut c, 10, vec![modi(group(dlb, 10, &[(1, 0), (3, 0)], 0))])
        .await
        .expect("modify");
    assert_eq!(send(&s, &dir, HOST_B, 50).await, (50, 0));

    // a selector without the flag keeps the controller's weights: 0 is not one
    let (code, msg) = one_error(write(&mut c, 10, vec![ins(group(wcmp, 20, &[(21, 0)], 0))]).await);
    assert_eq!(code, Code::InvalidArgument, "{msg}");
    let g20 = group(wcmp, 20, &[(21, 1), (22, 3)], 0);
    write(&mut c, 10, vec![ins(g20.clone())]).await.expect("weighted group");
    assert_eq!(read(&mut c, group(wcmp, 0, &[], 0)).await.expect("read"), vec![g20]);

    // one-shot sets: a weight refused (insert, modify: the entry keeps its set), none accepted
    let weighted = action_set(fwd, &[(1, 2), (2, 0)]);
    let (code, msg) = one_error(write(&mut c, 10, vec![ins(entry(lb_sets, HOST_C, weighted.clone()))]).await);
    assert_eq!(code, Code::InvalidArgument, "{msg}");
    assert!(msg.contains("weights_disallowed"), "{msg}");
    assert!(read(&mut c, any_entry(lb_sets)).await.expect("read").is_empty());
    let even = action_set(fwd, &[(1, 0), (2, 0)]);
    write(&mut c, 10, vec![ins(entry(lb_sets, HOST_C, even.clone()))])
        .await
        .expect("a set without weights");
    let (code, msg) = one_error(write(&mut c, 10, vec![modi(entry(lb_sets, HOST_C, weighted))]).await);
    assert_eq!(code, Code::InvalidArgument, "{msg}");
    assert_eq!(
        read(&mut c, any_entry(lb_sets)).await.expect("read"),
        vec![entry(lb_sets, HOST_C, even)],
        "the set as written"
    );
    let (a, b) = send(&s, &dir, HOST_C, 200).await;
    assert!(
        a + b == 200 && (60..=140).contains(&a),
        "equal weights over 200 flows: {a} : {b}"
    );
    // at random, one source spread evenly too
    let random = action_set_with(
        fwd,
        &[(1, 0), (2, 0)],
        Mode::Random,
        Size::DefaultSizeDeterminedByActionSelector,
    );
    write(&mut c, 10, vec![ins(entry(lb_sets, HOST_E, random))])
        .await
        .expect("a random set without weights");
    let path = |p: u32| dir.join(format!("out{p}.pcap"));
    let (a, b) = spread(&s, &path, HOST_E, 200).await;
    assert!(
        a + b == 200 && (60..=140).contains(&a),
        "equal weights over 200 packets of one source: {a} : {b}"
    );
    drop(s);
    let _ = std::fs::remove_dir_all(&dir);
}
