//! Corpus, snapshot and unit tests of semantic analysis.

use std::path::{Path, PathBuf};

use p4dp_ir as ir;
use p4dp_syntax::{render_all, SourceMap};

use crate::{analyze, compile_file};

fn root() -> PathBuf {
    let r = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    r.canonicalize().unwrap_or(r)
}

fn include() -> Vec<PathBuf> {
    vec![root().join("p4include")]
}

/// `.p4` files of a directory, sorted (empty if the directory does not exist yet).
fn p4_files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "p4"))
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

/// Compiles source text that includes core.p4/v1model.p4 (through cpp, as users do).
#[allow(dead_code)]
pub(crate) fn compile_text(name: &str, text: &str) -> Result<ir::ValidProgram, String> {
    let dir = std::env::temp_dir().join(format!("p4dp-sema-test-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let path = dir.join(name);
    std::fs::write(&path, text).map_err(|e| e.to_string())?;
    let r = compile_file(&path, &include(), &[]);
    let _ = std::fs::remove_file(&path);
    r.map(|c| c.program).map_err(|(sm, d)| render_all(&sm, &d))
}

pub(crate) fn ok(name: &str, text: &str) -> ir::ValidProgram {
    match compile_text(name, text) {
        Ok(p) => p,
        Err(e) => panic!("{name} failed:\n{e}"),
    }
}

pub(crate) fn rejected(name: &str, text: &str) -> String {
    match compile_text(name, text) {
        Ok(_) => panic!("{name} was accepted"),
        Err(e) => e,
    }
}

#[test]
fn corpus_programs_compile() {
    let mut files = p4_files(&root().join("tests/programs"));
    files.extend(p4_files(&root().join("tests/programs/compile_only")));
    let mut failures = Vec::new();
    for f in &files {
        if let Err((sm, d)) = compile_file(f, &include(), &[]) {
            let first: Vec<_> = d.iter().filter(|x| x.is_error()).take(3).cloned().collect();
            failures.push(format!(
                "== {} ({} errors)\n{}",
                f.display(),
                d.len(),
                render_all(&sm, &first)
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} programs failed:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
}

#[test]
fn p4include_files_analyze() {
    for name in ["core.p4", "v1model.p4", "pna.p4"] {
        let path = root().join("p4include").join(name);
        if !path.exists() {
            continue;
        }
        let mut sm = SourceMap::new();
        let (ast, mut diags) = p4dp_syntax::frontend::load_and_parse(&mut sm, &path, &include(), &[]);
        let (_, d2) = analyze(&ast, &sm);
        diags.extend(d2);
        assert!(
            diags.iter().all(|d| !d.is_error()),
            "{name}:\n{}",
            render_all(&sm, &diags)
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Unit tests on small programs

/// A v1model program whose ingress has `locals` and `apply { body }`; `top` goes before it.
pub(crate) fn v1(top: &str, locals: &str, body: &str) -> String {
    v1_with(
        "header h_t { bit<8> a; bit<8> b; bit<16> c; bit<32> d; }\n\
         struct headers_t { h_t h; h_t[3] s; }\n\
         struct meta_t { bit<8> x; bit<32> y; int<8> z; bool f; }",
        top,
        locals,
        body,
    )
}

/// A v1model program with the declarations `types` (three lines: a header type `h_t`, the
/// struct `headers_t` with a field `h` of it, and the struct `meta_t`), then `top`, then the
/// blocks; its ingress `MyIngress` has `locals` and `apply { body }`. Lines 3-5 are `types`.
pub(crate) fn v1_with(types: &str, top: &str, locals: &str, body: &str) -> String {
    format!(
        r#"#include <core.p4>
#include <v1model.p4>
{types}
{top}
parser P(packet_in pk, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {{
    state start {{ pk.extract(hdr.h); transition accept; }}
}}
control VC(inout headers_t hdr, inout meta_t meta) {{ apply {{ }} }}
control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {{
{locals}
    apply {{
{body}
    }}
}}
control EG(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {{ apply {{ }} }}
control CC(inout headers_t hdr, inout meta_t meta) {{ apply {{ }} }}
control DP(packet_out pk, in headers_t hdr) {{ apply {{ pk.emit(hdr.h); }} }}
V1Switch(P(), VC(), MyIngress(), EG(), CC(), DP()) main;
"#
    )
}

pub(crate) fn ingress(p: &ir::Program) -> &ir::Control {
    p.controls
        .iter()
        .map(|(_, c)| c)
        .find(|c| c.type_name == "MyIngress")
        .expect("ingress")
}

/// The source values of the ingress apply body's assignments, printed.
fn assigned(p: &ir::Program) -> Vec<String> {
    ingress(p)
        .body
        .iter()
        .filter_map(|s| match s {
            ir::Stmt::Assign { src, .. } => Some(match &src.kind {
                ir::ExprKind::Const(v) => ir::print::value(v),
                _ => format!("{:?}", src.kind),
            }),
            _ => None,
        })
        .collect()
}

#[test]
fn constant_folding() {
    let p = ok(
        "fold.p4",
        &v1(
            "const bit<8> K = 3; const int N = 2 * 8 + 1; enum bit<8> E { A = 7, B = N }",
            "",
            "meta.x = K + 1; meta.x = (bit<8>)(N << 2); meta.y = (bit<32>)E.B + 1; meta.x = 8w200 + 8w100; \
             meta.x = 8w3 |+| 8w255; meta.z = -1; meta.x = ~0; meta.y = 32w0xABCD[11:4] ++ 24w0; meta.f = 1 < 2 && K == 3;",
        ),
    );
    assert_eq!(
        assigned(&p),
        vec![
            "8w4",
            "8w68",
            "32w0x12",
            "8w44",
            "8w255",
            "8s255",
            "8w255",
            "32w0xbc000000",
            "true"
        ]
    );
}

#[test]
fn literal_width_inference_and_fit() {
    let p = ok(
        "w.p4",
        &v1("", "", "hdr.h.c = 0xFFFF; meta.y = meta.y + 5; meta.z = -128;"),
    );
    let body = &ingress(&p).body;
    let ir::Stmt::Assign { src, .. } = &body[1] else {
        panic!("expected assign")
    };
    let ir::ExprKind::Binary(ir::BinOp::Add, _, r) = &src.kind else {
        panic!("expected add")
    };
    assert_eq!(p.types.get(r.ty), &ir::Type::Bit(32));
    // An int value that does not fit the type it is implicitly converted to keeps its low bits
    // (W0303, a warning as in p4c); a sized literal that does not fit its own width is an error.
    let p = ok(
        "w2.p4",
        &v1(
            "",
            "",
            "hdr.h.a = 256; meta.z = 128; meta.x = (bit<8>)(4 / 1w1); meta.x = 8w255 + 300;",
        ),
    );
    assert_eq!(assigned(&p), vec!["8w0", "8s128", "8w0", "8w43"]);
    let e = rejected("w3.p4", &v1("", "", "hdr.h.a = 8w256;"));
    assert!(e.contains("E0302"), "{e}");
    let e = rejected("w4.p4", &v1("", "", "hdr.h.a = (bit<8>)(1 ++ 2);"));
    assert!(e.contains("E0303"), "{e}");
}

#[test]
fn cast_rules() {
    ok("c1.p4", &v1("", "", "meta.z = (int<8>)hdr.h.a; hdr.h.c = (bit<16>)hdr.h.a; meta.f = (bool)hdr.h.a[0:0]; hdr.h.a = (bit<8>)(int<8>)meta.z;"));
    for (i, bad) in [
        "hdr.h.c = (bit<16>)meta.z;",
        "meta.f = (bool)hdr.h.a;",
        "meta.z = (int<8>)meta.f;",
    ]
    .iter()
    .enumerate()
    {
        let e = rejected(&format!("c{i}.p4"), &v1("", "", bad));
        assert!(e.contains("E0305"), "{bad}: {e}");
    }
    // a serializable enum converts implicitly to its underlying type, a plain int does not become an enum
    ok(
        "c5.p4",
        &v1(
            "enum bit<8> E { A = 1 }",
            "",
            "hdr.h.a = E.A; if (hdr.h.a == E.A) { meta.x = 1; }",
        ),
    );
    let e = rejected("c6.p4", &v1("enum bit<8> E { A = 1 }", "E e;", "e = 1;"));
    assert!(e.contains("E0301"), "{e}");
}

#[test]
fn control_plane_names() {
    use crate::types::control_plane_name;
    assert_eq!(control_plane_name("MyIngress", "t", None), "MyIngress.t");
    assert_eq!(control_plane_name("MyIngress", "t", Some("tbl")), "MyIngress.tbl");
    assert_eq!(control_plane_name("MyIngress", "t", Some(".tbl")), "tbl");
    assert_eq!(control_plane_name("", "NoAction", None), "NoAction");
    let p = ok(
        "n.p4",
        &v1(
            "action top_a() {} control Inner(inout bit<8> v) { table ti { key = { v : exact; } actions = { NoAction; } } apply { ti.apply(); } }",
            "Inner() c; @name(\".global_cnt\") counter<bit<32>>(8, CounterType.packets) cnt; @name(\"renamed\") action a(bit<8> v) { meta.x = v; } \
             table t { key = { hdr.h.a : exact; meta.x[3:0] : ternary @name(\"low\"); hdr.h.isValid() : exact; } actions = { a; top_a; } }",
            "t.apply(); c.apply(meta.x); cnt.count(1);",
        ),
    );
    let names: Vec<&str> = p.tables.iter().map(|(_, t)| t.fq_name.as_str()).collect();
    assert!(
        names.contains(&"MyIngress.t") && names.contains(&"MyIngress.c.ti"),
        "{names:?}"
    );
    let t = p.tables.iter().map(|(_, t)| t).find(|t| t.name == "t").expect("t");
    let keys: Vec<&str> = t.keys.iter().map(|k| k.name.as_str()).collect();
    assert_eq!(keys, vec!["hdr.h.a", "low", "hdr.h.isValid()"]);
    let acts: Vec<&str> = t.actions.iter().map(|a| p.actions[a.action].fq_name.as_str()).collect();
    assert_eq!(acts, vec!["MyIngress.renamed", "top_a", "NoAction"]);
    assert!(p.externs.iter().any(|(_, x)| x.fq_name == "global_cnt"));
    assert!(p
        .controls
        .iter()
        .any(|(_, c)| c.path == "MyIngress.c" && c.type_name == "Inner"));
}

#[test]
fn const_entry_priorities() {
    use crate::table::entry_priorities;
    assert_eq!(entry_priorities(&[None, None, None], true, 1), vec![3, 2, 1]);
    assert_eq!(entry_priorities(&[Some(10), None, Some(3)], true, 1), vec![10, 9, 3]);
    assert_eq!(entry_priorities(&[None, None], true, 10), vec![20, 10]);
    // smallest-wins programs are mapped to the IR's larger-wins convention, first entry still wins
    assert_eq!(entry_priorities(&[None, None, None], false, 1), vec![3, 2, 1]);
    let p = ok(
        "prio.p4",
        &v1(
            "",
            "action s(bit<8> v) { meta.x = v; } table t { key = { hdr.h.a : ternary; hdr.h.b : range; } actions = { s; } \
             const entries = { (0x10 &&& 0xF0, 1..5) : s(1); priority = 100 : (_, _) : s(2); (8w3, 7) : s(3); } }",
            "t.apply();",
        ),
    );
    let t = p.tables.iter().map(|(_, t)| t).next().expect("table");
    let pr: Vec<Option<i64>> = t.entries.iter().map(|e| e.priority).collect();
    assert_eq!(pr, vec![Some(3), Some(100), Some(99)]);
    assert!(matches!(t.entries[0].keys[1], ir::KeySet::Range(_, _)));
    assert!(matches!(t.entries[1].keys[0], ir::KeySet::Any));
    assert!(t.entries_const);
}

#[test]
fn hoisting_order() {
    let p = ok(
        "h.p4",
        &v1(
            "bit<8> g(in bit<8> a) { return a + 1; } bit<8> hh(in bit<8> a) { return a + 2; } bit<8> f(in bit<8> a, in bit<8> b) { return a - b; }",
            "",
            "meta.x = f(g(hdr.h.a), hh(hdr.h.b)); meta.f = meta.f && g(1) == 2;",
        ),
    );
    let body = &ingress(&p).body;
    let calls: Vec<String> = body
        .iter()
        .filter_map(|s| match s {
            ir::Stmt::Call(c) => match c.target {
                ir::CallTarget::Function(f) => Some(p.functions[f].name.clone()),
                _ => None,
            },
            _ => None,
        })
        .collect();
    assert_eq!(calls, vec!["g", "hh", "f"]);
    // `&&` with a call on the right becomes an `if`
    assert!(body
        .iter()
        .any(|s| matches!(s, ir::Stmt::If { then_, .. } if then_.iter().any(|x| matches!(x, ir::Stmt::Call(_))))));
}

#[test]
fn stack_next_in_parser_and_dont_care() {
    let top =
        "parser Q(packet_in pk, out headers_t hdr) { state start { pk.extract(hdr.s.next); transition accept; } }";
    let src = v1(
        top,
        "register<bit<8>, bit<32>>(4) r;",
        "r.read(meta.x, 0); hash(_, HashAlgorithm.crc16, 16w0, { hdr.h.a, hdr.h.b }, 32w100); ",
    );
    let e = rejected("sn.p4", &src);
    // `_` for hash's `out O` cannot be typed: O is only determined by the result
    assert!(e.contains("E0308"), "{e}");
    let src = v1(
        top,
        "register<bit<8>, bit<32>>(4) r;",
        "r.read(meta.x, 0); hash(hdr.h.c, HashAlgorithm.crc16, 16w0, { hdr.h.a, hdr.h.b }, 32w100);",
    );
    let p = ok("sn2.p4", &src);
    let c = ingress(&p);
    let ir::Stmt::Call(call) = &c.body[0] else {
        panic!("call")
    };
    assert!(matches!(&call.args[0], ir::Arg::Out(_)) && matches!(&call.args[1], ir::Arg::In(_)));
}

#[test]
fn rejects_common_mistakes() {
    let cases = [
        ("undeclared", "meta.x = nope;", "E0201"),
        ("widths", "meta.x = hdr.h.c;", "E0301"),
        ("cond", "if (meta.x) { }", "E0311"),
        ("lvalue", "meta.x + 1 = 2;", "E0307"),
        ("field", "meta.nope = 1;", "E0205"),
        ("stackidx", "hdr.s[3].a = 1;", "E0310"),
        ("next_in_control", "hdr.s.next.a = 1;", "E0402"),
        ("exit_ok_return_value", "return 1;", "E0301"),
    ];
    for (n, body, code) in cases {
        let e = rejected(&format!("{n}.p4"), &v1("", "", body));
        assert!(e.contains(code), "{n}: expected {code}:\n{e}");
    }
}

#[test]
fn never_panics_on_garbage() {
    let samples = [
        "control C() { apply { x = ; } }",
        "header h { bit<(1/0)> a; }",
        "const bit<8> a = a;",
        "struct S { S s; }",
        "control C(inout bit<8> x)(bit<8> k) { apply { x = k[9:0]; } } C(1) main;",
        "parser P() { state start { transition select(1) { 1: start; } } }",
        "typedef T T; extern E<T> { E(); void m<U>(out U u); } control C() { E<bit<8>>() e; apply { e.m(_); } }",
        "action a() { a(); } control C() { apply { a(); } }",
        "bit<8> f() { return f(); } control C() { apply { f(); } }",
        "control C() { C() c; C() d; apply { c.apply(); } } control D() { D() x; apply {} } C() main;",
        "control C() { table t { actions = { } default_action = zz; } apply { switch (t.apply().action_run) { q: {} } } }",
    ];
    for s in samples {
        let mut sm = SourceMap::new();
        let (_, ast, _) = p4dp_syntax::parse_str(&mut sm, "g.p4", s);
        let _ = analyze(&ast, &sm);
    }
}

#[test]
fn entries_must_suit_match_kinds_and_unreached_blocks_are_checked() {
    let e = rejected(
        "mk.p4",
        &v1("", "action s() {} table t { key = { hdr.h.a : exact; } actions = { s; } const entries = { 0x10 &&& 0xF0 : s(); } }", "t.apply();"),
    );
    assert!(e.contains("E0409") && e.contains("match kind `exact`"), "{e}");
    let e = rejected("lpm.p4", &v1("", "action s() {} table t { key = { hdr.h.a : lpm; } actions = { s; } const entries = { 0x10 &&& 0x0F : s(); } }", "t.apply();"));
    assert!(e.contains("E0409"), "{e}");
    ok("lpm_ok.p4", &v1("", "action s() {} table t { key = { hdr.h.a : lpm; } actions = { s; } const entries = { 0x10 &&& 0xF0 : s(); _ : s(); } }", "t.apply();"));
    // a control that `main` never instantiates is still checked
    let e = rejected(
        "unreached.p4",
        &v1(
            "control Unused(inout bit<8> v) { apply { v = undefined_thing; } }",
            "",
            "",
        ),
    );
    assert!(e.contains("E0201") && e.contains("undefined_thing"), "{e}");
}
