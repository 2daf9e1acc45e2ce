//! Unit tests on hand-built IR: snapshots of generated C and P4Info (tests/cgen/*.c/.txtpb in
//! the crate; bless every snapshot of the workspace with `P4DP_BLESS=1 cargo test --release
//! --workspace`), gcc -Wall -Wextra -Werror, and error reporting for unsupported constructs. The
//! behaviour of generated code is tested on the real runtime: the corpus (crates/p4dp/tests/corpus.rs;
//! tests/programs/parser_select_keysets_wide_slice.p4 is this file's simple program in P4).

use std::path::{Path, PathBuf};
use std::process::Command;

use num_bigint::BigUint;
use p4dp_ir::*;

use crate::{generate_c, generate_p4info, CgenError, CgenOptions};

fn sp(lo: u32) -> Span {
    Span {
        file: 0,
        lo,
        hi: lo + 1,
    }
}

fn bits(w: u32, v: u64) -> Value {
    Value::Bits {
        width: w,
        signed: false,
        bits: BigUint::from(v),
    }
}

fn field(name: &str, ty: TypeId) -> Field {
    Field {
        name: name.into(),
        ty,
        annotations: vec![],
    }
}

fn st(name: &str, fields: Vec<Field>) -> StructType {
    StructType {
        name: name.into(),
        fields,
        annotations: vec![],
    }
}

fn var(name: &str, ty: TypeId, kind: VarKind) -> Var {
    Var {
        name: name.into(),
        ty,
        kind,
        entry_ref: false,
        annotations: vec![],
        span: sp(0),
    }
}

fn e(kind: ExprKind, ty: TypeId) -> Expr {
    Expr { kind, ty, span: sp(1) }
}

fn fld(b: Expr, i: u32, ty: TypeId) -> Expr {
    e(ExprKind::Field(Box::new(b), i), ty)
}

/// Types and variables shared by the test programs.
struct B {
    p: Program,
    b8: TypeId,
    b9: TypeId,
    b16: TypeId,
    b48: TypeId,
    b200: TypeId,
    eth: TypeId,
    wide: TypeId,
    hdrs: TypeId,
    meta: TypeId,
    sm: TypeId,
    pin: TypeId,
    pout: TypeId,
}

impl B {
    fn new() -> B {
        let mut p = Program::default();
        for n in [
            "NoError",
            "PacketTooShort",
            "NoMatch",
            "StackOutOfBounds",
            "HeaderTooShort",
            "ParserTimeout",
            "ParserInvalidArgument",
        ] {
            p.errors.push(n.into());
        }
        let t = &mut p.types;
        let b1 = t.intern(Type::Bit(1));
        let b8 = t.intern(Type::Bit(8));
        let b9 = t.intern(Type::Bit(9));
        let b16 = t.intern(Type::Bit(16));
        let b32 = t.intern(Type::Bit(32));
        let b48 = t.intern(Type::Bit(48));
        let b200 = t.intern(Type::Bit(200));
        let err = t.intern(Type::Error);
        let eth = t.intern(Type::Header(st(
            "ethernet_t",
            vec![field("dst", b48), field("src", b48), field("etherType", b16)],
        )));
        let wide = t.intern(Type::Header(st("wide_t", vec![field("big", b200), field("x", b8)])));
        let hdrs = t.intern(Type::Struct(st("headers_t", vec![field("eth", eth), field("w", wide)])));
        let meta = t.intern(Type::Struct(st("metadata_t", vec![])));
        let sm = t.intern(Type::Struct(st(
            "standard_metadata_t",
            vec![
                field("ingress_port", b9),
                field("egress_spec", b9),
                field("egress_port", b9),
                field("instance_type", b32),
                field("packet_length", b32),
                field("mcast_grp", b16),
                field("egress_rid", b16),
                field("checksum_error", b1),
                field("parser_error", err),
            ],
        )));
        let pin = t.intern(Type::Extern {
            name: "packet_in".into(),
            args: vec![],
        });
        let pout = t.intern(Type::Extern {
            name: "packet_out".into(),
            args: vec![],
        });
        B {
            p,
            b8,
            b9,
            b16,
            b48,
            b200,
            eth,
            wide,
            hdrs,
            meta,
            sm,
            pin,
            pout,
        }
    }

    fn control(&mut self, name: &str, params: &[(&str, TypeId, Direction)]) -> ControlId {
        let mut vars = Arena::new();
        let ps = params
            .iter()
            .map(|(n, t, d)| vars.alloc(var(n, *t, VarKind::Param(*d))))
            .collect();
        self.p.controls.alloc(Control {
            type_name: name.into(),
            path: name.into(),
            params: ps,
            vars,
            actions: vec![],
            tables: vec![],
            externs: vec![],
            body: vec![],
            annotations: vec![],
            span: sp(2),
        })
    }
}

/// A v1model program: parse Ethernet (+ a wide header when etherType is 0x88b5), an exact table
/// on dst with a const entry (dst 0x0a -> set_port(3)), default drop; etherType += 1; the wide
/// header's low byte is copied to x and big[199:192] set to 0xAB; deparse both.
fn simple_program() -> Program {
    let mut b = B::new();
    let (hdrs, meta, sm, eth, b9, b16) = (b.hdrs, b.meta, b.sm, b.eth, b.b9, b.b16);
    // parser
    let mut pvars = Arena::new();
    let pkt = pvars.alloc(var("packet", b.pin, VarKind::Param(Direction::None)));
    let ph = pvars.alloc(var("hdr", hdrs, VarKind::Param(Direction::Out)));
    let pm = pvars.alloc(var("meta", meta, VarKind::Param(Direction::InOut)));
    let ps = pvars.alloc(var("standard_metadata", sm, VarKind::Param(Direction::InOut)));
    let hv = || e(ExprKind::Var(Id::new(1)), hdrs);
    let extract = |h: Expr| {
        Stmt::Call(Call {
            target: CallTarget::ExternMethod {
                obj: ExternRef::Param(pkt),
                method: "extract".into(),
            },
            type_args: vec![h.ty],
            args: vec![Arg::Out(h)],
            ret: None,
            span: sp(3),
        })
    };
    let mut states = Arena::new();
    let parse_wide = states.alloc(ParserState {
        name: "parse_wide".into(),
        body: vec![extract(fld(hv(), 1, b.wide))],
        transition: Transition::Goto(Target::Accept),
        span: sp(4),
    });
    let start = states.alloc(ParserState {
        name: "start".into(),
        body: vec![extract(fld(hv(), 0, eth))],
        transition: Transition::Select {
            keys: vec![fld(fld(hv(), 0, eth), 2, b16)],
            cases: vec![
                SelectCase {
                    keysets: vec![KeySet::Value(bits(16, 0x88b5))],
                    next: Target::State(parse_wide),
                },
                SelectCase {
                    keysets: vec![KeySet::Mask(bits(16, 0x0800), bits(16, 0xff00))],
                    next: Target::Accept,
                },
                SelectCase {
                    keysets: vec![KeySet::Range(bits(16, 0x9000), bits(16, 0x90ff))],
                    next: Target::Reject,
                },
                SelectCase {
                    keysets: vec![KeySet::Any],
                    next: Target::Accept,
                },
            ],
            span: sp(5),
        },
        span: sp(6),
    });
    let prs = b.p.parsers.alloc(Parser {
        type_name: "P".into(),
        path: "p".into(),
        params: vec![pkt, ph, pm, ps],
        vars: pvars,
        externs: vec![],
        value_sets: vec![],
        init: vec![],
        states,
        start,
        annotations: vec![],
        span: sp(7),
    });
    let io = Direction::InOut;
    let vr = b.control("vr", &[("hdr", hdrs, io), ("meta", meta, io)]);
    let ig = b.control(
        "ingress",
        &[("hdr", hdrs, io), ("meta", meta, io), ("standard_metadata", sm, io)],
    );
    let eg = b.control(
        "egress",
        &[("hdr", hdrs, io), ("meta", meta, io), ("standard_metadata", sm, io)],
    );
    let ck = b.control("ck", &[("hdr", hdrs, io), ("meta", meta, io)]);
    let dep = b.control(
        "deparser",
        &[("packet", b.pout, Direction::None), ("hdr", hdrs, Direction::In)],
    );
    // ingress: actions set_port(bit<9> port), drop(); table t
    let port = b.p.controls[ig]
        .vars
        .alloc(var("port", b9, VarKind::ActionParam(Id::new(0), Direction::None)));
    let smv = || e(ExprKind::Var(Id::new(2)), sm);
    let ihv = || e(ExprKind::Var(Id::new(0)), hdrs);
    let set_port = b.p.actions.alloc(Action {
        name: "set_port".into(),
        fq_name: "ingress.set_port".into(),
        owner: ig,
        params: vec![port],
        body: vec![Stmt::Assign {
            dst: fld(smv(), 1, b9),
            src: e(ExprKind::Var(port), b9),
            span: sp(8),
        }],
        annotations: vec![],
        loop_body: false,
        span: sp(9),
    });
    let drop = b.p.actions.alloc(Action {
        name: "drop".into(),
        fq_name: "ingress.drop".into(),
        owner: ig,
        params: vec![],
        body: vec![Stmt::Call(Call {
            target: CallTarget::ExternFunction("mark_to_drop".into()),
            type_args: vec![],
            args: vec![Arg::InOut(smv())],
            ret: None,
            span: sp(10),
        })],
        annotations: vec![],
        loop_body: false,
        span: sp(11),
    });
    let t = b.p.tables.alloc(Table {
        name: "t".into(),
        fq_name: "ingress.t".into(),
        owner: ig,
        keys: vec![TableKey {
            expr: fld(fld(ihv(), 0, eth), 0, b.b48),
            match_kind: MatchKind::Key(KeyMatch::Exact),
            name: "hdr.eth.dst".into(),
            annotations: vec![],
        }],
        actions: vec![
            TableAction {
                action: set_port,
                bound: vec![None],
                annotations: vec![],
            },
            TableAction {
                action: drop,
                bound: vec![],
                annotations: vec![],
            },
        ],
        default_action: DefaultAction {
            action: drop,
            data: vec![],
            is_const: false,
        },
        entries: vec![ConstEntry {
            keys: vec![KeySet::Value(bits(48, 0x0a))],
            action: set_port,
            data: vec![bits(9, 3)],
            priority: Some(0),
            span: sp(12),
        }],
        entries_const: true,
        size: Some(64),
        direct_counter: None,
        direct_meter: None,
        implementation: None,
        add_on_miss: false,
        idle_timeout: IdleTimeout::default(),
        entry_lock: false,
        storage: Storage::Auto,
        other_properties: vec![],
        annotations: vec![],
        span: sp(13),
    });
    let et = fld(fld(ihv(), 0, eth), 2, b16);
    let w = || fld(ihv(), 1, b.wide);
    let big = || fld(w(), 0, b.b200);
    let b8 = b.b8;
    let c = &mut b.p.controls[ig];
    c.actions = vec![set_port, drop];
    c.tables = vec![t];
    c.body = vec![
        Stmt::ApplyTable {
            table: t,
            hit: None,
            action_run: None,
            span: sp(14),
        },
        Stmt::Assign {
            dst: et.clone(),
            src: e(
                ExprKind::Binary(BinOp::Add, Box::new(et), Box::new(e(ExprKind::Const(bits(16, 1)), b16))),
                b16,
            ),
            span: sp(15),
        },
        Stmt::If {
            cond: e(ExprKind::IsValid(Box::new(w())), b.p.types.intern(Type::Bool)),
            then_: vec![
                Stmt::Assign {
                    dst: fld(w(), 1, b8),
                    src: e(ExprKind::Slice(Box::new(big()), 7, 0), b8),
                    span: sp(16),
                },
                Stmt::Assign {
                    dst: e(ExprKind::Slice(Box::new(big()), 199, 192), b8),
                    src: e(ExprKind::Const(bits(8, 0xab)), b8),
                    span: sp(17),
                },
            ],
            else_: vec![],
            span: sp(18),
        },
    ];
    // deparser: emit(hdr.eth); emit(hdr.w)
    let dh = || e(ExprKind::Var(Id::new(1)), hdrs);
    let emit = |h: Expr| {
        Stmt::Call(Call {
            target: CallTarget::ExternMethod {
                obj: ExternRef::Param(Id::new(0)),
                method: "emit".into(),
            },
            type_args: vec![h.ty],
            args: vec![Arg::In(h)],
            ret: None,
            span: sp(19),
        })
    };
    let wt = b.wide;
    b.p.controls[dep].body = vec![emit(fld(dh(), 0, eth)), emit(fld(dh(), 1, wt))];
    let _ = b.b200;
    b.p.package = Some(Package {
        arch: "v1model".into(),
        type_name: "V1Switch".into(),
        blocks: vec![
            ("p".into(), BlockRef::Parser(prs)),
            ("vr".into(), BlockRef::Control(vr)),
            ("ig".into(), BlockRef::Control(ig)),
            ("eg".into(), BlockRef::Control(eg)),
            ("ck".into(), BlockRef::Control(ck)),
            ("dep".into(), BlockRef::Control(dep)),
        ],
    });
    b.p
}

fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn snapshot(name: &str, got: &str) {
    if let Err(e) = p4dp_testutil::snapshot::check(&crate_dir().join("tests/cgen").join(name), got) {
        p4dp_testutil::snapshot::assert_none(&[e], "1 snapshot");
    }
}

fn tmpdir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("p4dp-cgen-unit-{}-{tag}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn gcc(args: &[&str], files: &[&Path], out: &Path) {
    let r = Command::new("gcc")
        .args(args)
        .arg("-I")
        .arg(crate_dir().join("../../runtime/include"))
        .arg("-o")
        .arg(out)
        .args(files)
        .output()
        .expect("gcc");
    assert!(
        r.status.success(),
        "gcc failed:\n{}",
        String::from_utf8_lossy(&r.stderr)
    );
}

#[test]
fn simple_program_snapshot_and_compile() {
    let p = validate(simple_program()).expect("valid IR");
    let c = generate_c(
        &p,
        &CgenOptions {
            program_name: "simple".into(),
            ..Default::default()
        },
    )
    .unwrap();
    snapshot("simple.c", &c);
    snapshot("simple.p4info.txtpb", &generate_p4info(&p));
    let d = tmpdir("simple");
    let cp = d.join("simple.c");
    std::fs::write(&cp, &c).unwrap();
    // -Wall -Wextra -Werror, no -Wno-*: generated code must be warning-free
    gcc(
        &["-c", "-O2", "-Wall", "-Wextra", "-Werror"],
        &[&cp],
        &d.join("simple.o"),
    );
}

#[test]
fn unsupported_is_an_error_with_span() {
    let mut p = simple_program();
    let x = p.externs.alloc(ExternInstance {
        type_name: "my_profile".into(),
        kind: ExternKind::Other,
        name: "ap".into(),
        fq_name: "ingress.ap".into(),
        type_args: vec![],
        ctor_args: vec![bits(32, 16)],
        annotations: vec![],
        meter_type: Default::default(),
        selector: Default::default(),
        span: sp(30),
    });
    p.tables[Id::new(0)].implementation = Some(x);
    let p = validate(p).unwrap();
    match generate_c(&p, &CgenOptions::default()) {
        Err(CgenError::Unsupported { kind, message, span }) => {
            assert_eq!(kind, crate::UnsupportedKind::Table);
            assert!(message.contains("implementation"), "{message}");
            assert_eq!(span, sp(13));
        }
        other => panic!("expected Unsupported, got {:?}", other.map(|_| ())),
    }
}

#[test]
fn arithmetic_on_wide_values_is_rejected() {
    let mut p = simple_program();
    let b200 = p.types.intern(Type::Bit(200));
    let hdrs = p.controls[Id::new(1)].vars[Id::new(0)].ty;
    let wide = p
        .types
        .iter()
        .find(|(_, t)| matches!(t, Type::Header(s) if s.name == "wide_t"))
        .unwrap()
        .0;
    let big = fld(fld(e(ExprKind::Var(Id::new(0)), hdrs), 1, wide), 0, b200);
    p.controls[Id::new(1)].body.push(Stmt::Assign {
        dst: big.clone(),
        src: Expr {
            kind: ExprKind::Binary(BinOp::Add, Box::new(big.clone()), Box::new(big)),
            ty: b200,
            span: sp(40),
        },
        span: sp(41),
    });
    let p = validate(p).unwrap();
    match generate_c(&p, &CgenOptions::default()) {
        Err(CgenError::Unsupported { kind, message, span }) => {
            assert_eq!(kind, crate::UnsupportedKind::WideValue);
            assert!(message.contains("200-bit"), "{message}");
            assert_eq!(span, sp(40));
        }
        other => panic!("expected Unsupported, got {:?}", other.map(|_| ())),
    }
}

#[test]
fn p4info_ids_match_c_metadata() {
    let p = validate(simple_program()).unwrap();
    let ids = crate::assign_ids(&p);
    let c = generate_c(&p, &CgenOptions::default()).unwrap();
    let info = generate_p4info(&p);
    let tid = ids.tables[0];
    assert_eq!(tid >> 24, 0x02);
    assert!(c.contains(&format!(".id = {tid}u")), "table id in C metadata");
    assert!(info.contains(&format!("id: {tid}\n    name: \"ingress.t\"")));
    let aid = ids.actions["ingress.set_port"];
    assert!(c.contains(&format!("\"ingress.set_port\", {aid}u")));
    assert!(info.contains(&format!(
        "id: {aid}\n    name: \"ingress.set_port\"\n    alias: \"set_port\""
    )));
    assert!(info.contains("is_const_table: true"));
    assert!(info.contains("match_type: EXACT"));
}

#[test]
fn compile_so_reports_gcc_errors() {
    let d = tmpdir("so");
    let bad = d.join("bad.c");
    std::fs::write(&bad, "int f(void) { return x; }\n").unwrap();
    let inc = crate_dir().join("../../runtime/include");
    match crate::compile_so(&bad, &d.join("bad.so"), &inc, 2) {
        Err(CgenError::Compile { stderr }) => assert!(stderr.contains("undeclared"), "{stderr}"),
        other => panic!("expected a compile error, got {other:?}"),
    }
    let p = validate(simple_program()).unwrap();
    let good = d.join("simple.c");
    std::fs::write(&good, generate_c(&p, &CgenOptions::default()).unwrap()).unwrap();
    crate::compile_so(&good, &d.join("simple.so"), &inc, 2).unwrap();
    assert!(d.join("simple.so").exists());
}
