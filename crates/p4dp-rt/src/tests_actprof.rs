//! Action profile / selector bindings, against `runtime/tests/rt_prog_ap.c` (layout described
//! there: [0] table, [1] key, [2] selector hash, output [3] tag, [4] hit).

use std::process::Command;

use super::{errno_of, setup};
use crate::*;

const T_PROF: u32 = 0;
const T_SEL: u32 = 1;
const T_PLAIN: u32 = 2;
const A_SET: u32 = 0;
const A_DEF_ONLY: u32 = 2;

fn load_ap() -> Runtime {
    let tiny = setup(); // EAL init (once per process)
    let so = tiny.with_file_name("ap.so");
    if !so.exists() {
        // the source tree's copy (build.rs snapshots only rt_prog_tiny.c); headers from the snapshot
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../runtime/tests/rt_prog_ap.c");
        let tmp = tiny.with_file_name(format!("ap-{:?}.so", std::thread::current().id()).replace(['(', ')'], ""));
        let st = Command::new("cc")
            .args(["-shared", "-fPIC", "-O2", "-Wall", "-Werror", "-I"])
            .arg(include_dir())
            .arg("-o")
            .arg(&tmp)
            .arg(&src)
            .status()
            .expect("run cc");
        assert!(st.success(), "building {} failed", src.display());
        std::fs::rename(&tmp, &so).expect("rename");
    }
    Runtime::load(&so, RuntimeOptions::default()).expect("load")
}

fn set(port: u8, tag: u8) -> Vec<Vec<u8>> {
    vec![vec![0, port], vec![tag]]
}

/// (port, tag, hit) of the output, None if dropped.
fn send(rt: &Runtime, table: u32, key: u8, hash: u8) -> Option<(u32, u8, u8)> {
    let out = rt.inject(0, &[table as u8, key, hash, 0, 0, 0, 0, 0]).expect("inject");
    out.first().map(|(p, d)| (*p, d[3], d[4]))
}

#[test]
fn members_groups_and_entries() {
    let rt = load_ap();
    let prof = rt.table_implementation(T_PROF).expect("t_prof has a profile");
    let sel = rt.table_implementation(T_SEL).expect("t_sel has a selector");
    assert_eq!(rt.table_implementation(T_PLAIN), None);
    assert_eq!(rt.program().externs[sel as usize].kind, ExternKind::ActionSelector);

    // member errors
    assert_eq!(
        errno_of(rt.actprof_member_add(prof, 1, A_DEF_ONLY, &[vec![1]])).0,
        errno::EINVAL
    );
    let (e, msg) = errno_of(rt.actprof_member_add(prof, 1, A_SET, &[vec![1]]));
    assert_eq!(e, errno::EINVAL);
    assert!(msg.contains("takes 2 parameters, 1 given"), "{msg}");
    rt.actprof_member_add(prof, 1, A_SET, &set(2, 0x22)).unwrap();
    assert_eq!(
        errno_of(rt.actprof_member_add(prof, 1, A_SET, &set(2, 0x22))).0,
        errno::EEXIST
    );
    assert_eq!(rt.actprof_member_get(prof, 1).unwrap(), (A_SET, set(2, 0x22)));
    assert_eq!(errno_of(rt.actprof_group_create(prof, 1)).0, errno::EINVAL);

    // entries
    let k = |v: u8| vec![MatchField::Exact(vec![v])];
    let direct = TableEntry {
        matches: k(1),
        priority: 0,
        action: A_SET,
        params: set(2, 0x22),
    };
    let (e, msg) = errno_of(rt.entry_add(T_PROF, &direct));
    assert_eq!(e, errno::EINVAL);
    assert!(msg.contains("implemented by action profile"), "{msg}");
    assert_eq!(
        errno_of(rt.indirect_add(T_PROF, &k(1), 0, ProfileRef::Member(9))).0,
        errno::ENOENT
    );
    rt.indirect_add(T_PROF, &k(1), 0, ProfileRef::Member(1)).unwrap();
    assert_eq!(send(&rt, T_PROF, 1, 0), Some((2, 0x22, 1)));
    assert_eq!(send(&rt, T_PROF, 2, 0), None);
    let es = rt.entries(T_PROF).unwrap();
    assert_eq!(es.len(), 1);
    assert_eq!(ProfileRef::of_entry(&es[0]), Some(ProfileRef::Member(1)));
    assert_eq!(errno_of(rt.actprof_member_delete(prof, 1)).0, errno::EBUSY);
    rt.actprof_member_modify(prof, 1, A_SET, &set(3, 0x33)).unwrap();
    assert_eq!(send(&rt, T_PROF, 1, 0), Some((3, 0x33, 1)));
    rt.entry_delete(T_PROF, &k(1), 0).unwrap();
    rt.actprof_member_delete(prof, 1).unwrap();

    // selector group: hash % 2 over members ordered by id
    rt.actprof_member_add(sel, 20, A_SET, &set(4, 0x44)).unwrap();
    rt.actprof_member_add(sel, 10, A_SET, &set(5, 0x55)).unwrap();
    rt.actprof_group_create(sel, 1).unwrap();
    rt.actprof_group_add_member(sel, 1, 20, 1).unwrap();
    rt.actprof_group_add_member(sel, 1, 10, 1).unwrap();
    assert_eq!(rt.actprof_group_members(sel, 1).unwrap(), vec![(10, 1), (20, 1)]);
    rt.indirect_add(T_SEL, &k(7), 0, ProfileRef::Group(1)).unwrap();
    assert_eq!(send(&rt, T_SEL, 7, 0), Some((5, 0x55, 1)));
    assert_eq!(send(&rt, T_SEL, 7, 1), Some((4, 0x44, 1)));
    assert_eq!(
        ProfileRef::of_entry(&rt.entries(T_SEL).unwrap()[0]),
        Some(ProfileRef::Group(1))
    );
    assert_eq!(errno_of(rt.actprof_group_delete(sel, 1)).0, errno::EBUSY);
    assert_eq!(errno_of(rt.actprof_group_remove_member(sel, 1, 99)).0, errno::ENOENT);
    rt.actprof_group_remove_member(sel, 1, 10).unwrap();
    rt.actprof_group_remove_member(sel, 1, 20).unwrap();
    assert_eq!(send(&rt, T_SEL, 7, 0), None, "empty group runs the default action");
    rt.indirect_modify(T_SEL, &k(7), 0, ProfileRef::Member(20)).unwrap();
    assert_eq!(send(&rt, T_SEL, 7, 0), Some((4, 0x44, 1)));
    rt.actprof_group_delete(sel, 1).unwrap();
}
