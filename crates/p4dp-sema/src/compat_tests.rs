//! Unit tests of the p4c-compatibility rules (implicit widening W0301, `table t()` W0101,
//! the deprecated `standard_metadata.clone_spec` and `.drop`, legacy `@priority` entry annotations,
//! serializable-enum keys with underlying-type keysets, controls as constructor arguments and
//! direct type invocation).

use std::path::{Path, PathBuf};

use p4dp_syntax::render_all;

use crate::compile_file;

fn include() -> Vec<PathBuf> {
    let r = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    vec![r.canonicalize().unwrap_or(r).join("p4include")]
}

/// Compiles a v1model program whose ingress has `locals` and `apply { body }`. Returns the
/// rendered warnings on success, the rendered diagnostics on failure.
fn compile(name: &str, top: &str, locals: &str, body: &str) -> Result<String, String> {
    let text = crate::tests::v1_with(
        "header h_t { bit<16> a; bit<16> b; bit<32> c; int<16> s; int<32> t; bit<8> n; }\n\
         struct headers_t { h_t h; }\n\
         struct meta_t { bit<32> y; }",
        top,
        locals,
        body,
    );
    let dir = std::env::temp_dir().join(format!("p4dp-sema-compat-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    // tests run in parallel in one process: a file name of its own for each call, so that two
    // tests naming the same file never remove each other's
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let path = dir.join(format!("{n}-{name}"));
    std::fs::write(&path, text).map_err(|e| e.to_string())?;
    let r = compile_file(&path, &include(), &[]);
    let _ = std::fs::remove_file(&path);
    match r {
        Ok(c) => Ok(render_all(&c.sm, &c.warnings)),
        Err((sm, d)) => Err(render_all(&sm, &d)),
    }
}

#[test]
fn widening_assignment_is_a_warning() {
    let w = compile("w1.p4", "", "", "hdr.h.c = hdr.h.a + hdr.h.b;").expect("accepted");
    assert!(w.contains("warning[W0301]"), "{w}");
    assert!(w.contains("implicit widening from `bit<16>` to `bit<32>`"), "{w}");
    // The span is the right-hand side: the rendered source line is underlined there.
    assert!(w.contains("hdr.h.c = hdr.h.a + hdr.h.b;"), "{w}");
}

#[test]
fn widening_signed_initializer_and_in_argument() {
    let w = compile(
        "w2.p4",
        "bit<32> f(in bit<32> x) { return x; }",
        "",
        "int<32> v = hdr.h.s - hdr.h.s; hdr.h.t = v; meta.y = f(hdr.h.a);",
    )
    .expect("accepted");
    assert!(w.contains("from `int<16>` to `int<32>`"), "{w}");
    assert_eq!(w.matches("warning[W0301]").count(), 2, "{w}");
}

#[test]
fn narrowing_and_sign_change_stay_errors() {
    let e = compile("n1.p4", "", "", "hdr.h.a = hdr.h.c;").expect_err("narrowing rejected");
    assert!(e.contains("error[E0301]"), "{e}");
    let e = compile("n2.p4", "", "", "hdr.h.t = hdr.h.a;").expect_err("bit to int rejected");
    assert!(e.contains("error[E0301]"), "{e}");
    let e = compile("n3.p4", "", "", "hdr.h.c = hdr.h.s;").expect_err("int to bit rejected");
    assert!(e.contains("error[E0301]"), "{e}");
}

#[test]
fn widening_is_not_applied_to_operands() {
    // `==` operands still need equal types: the rule only covers assignment-like contexts.
    let e = compile("n4.p4", "", "", "if (hdr.h.a == hdr.h.c) { hdr.h.n = 1; }").expect_err("rejected");
    assert!(e.contains("error[E0"), "{e}");
}

#[test]
fn table_with_empty_parens_is_a_warning() {
    let w = compile(
        "t1.p4",
        "",
        "action a() { } table t() { actions = { a; } default_action = a(); }",
        "t.apply();",
    )
    .expect("accepted");
    assert!(w.contains("warning[W0101]"), "{w}");
    let e = compile(
        "t2.p4",
        "",
        "action a() { } table t(bit<8> x) { actions = { a; } }",
        "t.apply();",
    )
    .expect_err("parameters rejected");
    assert!(e.contains("error["), "{e}");
}

#[test]
fn deprecated_clone_spec_field_exists() {
    let w = compile("c1.p4", "", "", "clone(CloneType.I2E, sm.clone_spec);").expect("accepted");
    assert!(!w.contains("error"), "{w}");
}

#[test]
fn deprecated_drop_field_exists() {
    let w = compile("d1.p4", "", "", "sm.drop = 1;").expect("accepted");
    assert!(!w.contains("error"), "{w}");
}

#[test]
fn legacy_priority_annotation_numbering() {
    use crate::table::legacy_entry_priorities;
    // numbers 5, 2 (position), 9, 4 (position): smallest wins -> IR (larger wins) 2, 4, 1, 3
    assert_eq!(
        legacy_entry_priorities(&[Some(5), None, Some(9), None]),
        vec![2, 4, 1, 3]
    );
    // equal numbers: the earlier entry wins; negative numbers are fine
    assert_eq!(legacy_entry_priorities(&[Some(2), None, Some(-7)]), vec![2, 1, 3]);
    assert_eq!(legacy_entry_priorities(&[]), Vec::<i64>::new());
}

#[test]
fn legacy_priority_annotation_checked() {
    let t = |entries: &str| {
        format!(
            "action s(bit<8> v) {{ hdr.h.n = v; }} table t {{ key = {{ hdr.h.a : ternary; }} actions = {{ s; }} \
             entries = {{ {entries} }} }}"
        )
    };
    let ok = compile(
        "p1.p4",
        "",
        &t("0x1 &&& 0xf : s(1) @priority(3); 0x2 &&& 0xf : s(2);"),
        "t.apply();",
    );
    assert!(ok.is_ok(), "{ok:?}");
    let e = compile(
        "p2.p4",
        "",
        &t("priority = 4 : 0x1 &&& 0xf : s(1); 0x2 &&& 0xf : s(2) @priority(1);"),
        "t.apply();",
    )
    .expect_err("mixed forms rejected");
    assert!(e.contains("cannot mix `priority = N` entries with `@priority`"), "{e}");
    let e = compile("p3.p4", "", &t("0x1 &&& 0xf : s(1) @priority(\"x\");"), "t.apply();").expect_err("bad value");
    assert!(e.contains("error["), "{e}");
}

#[test]
fn ser_enum_key_accepts_underlying_keysets() {
    let top = "enum bit<16> E { X = 0x1234, Y = 0x5678 }";
    let locals = "action s() { } table t { key = { (E)hdr.h.a : ternary; } actions = { s; } \
                  const entries = { ((bit<16>)E.X) &&& 0xff00 : s(); E.Y : s(); 0x9900 &&& 0xff00 : s(); \
                  E.X &&& 0xf0f0 : s(); } }";
    let w = compile("e1.p4", top, locals, "t.apply();");
    assert!(w.is_ok(), "{w:?}");
    // a keyset of another width is still a type error
    let bad = "action s() { } table t { key = { (E)hdr.h.a : exact; } actions = { s; } \
               const entries = { 8w3 : s(); } }";
    let e = compile("e2.p4", top, bad, "t.apply();").expect_err("bit<8> for an enum bit<16> key");
    assert!(e.contains("error["), "{e}");
}

#[test]
fn control_as_constructor_argument() {
    let top = "control ctl_t(inout bit<16> x);\n\
               control Inc(inout bit<16> x) { apply { x = x + 1; } }\n\
               control Use(inout bit<16> x)(ctl_t c) { apply { c.apply(x); } }";
    let w = compile(
        "b1.p4",
        top,
        "Inc() i; Use(i) u; Use(i) v;",
        "u.apply(hdr.h.a); v.apply(hdr.h.b);",
    );
    assert!(w.is_ok(), "{w:?}");
    let e = compile("b2.p4", top, "Use(5) u;", "u.apply(hdr.h.a);").expect_err("not an instance");
    assert!(e.contains("must name an instance"), "{e}");
    let top2 = format!("{top}\ncontrol Two(inout bit<16> x, inout bit<16> y) {{ apply {{ }} }}");
    let e = compile("b3.p4", &top2, "Two() t; Use(t) u;", "u.apply(hdr.h.a);").expect_err("wrong signature");
    assert!(e.contains("does not match the constructor parameter"), "{e}");
}

#[test]
fn direct_type_invocation() {
    let top = "control Inc(inout bit<16> x) { apply { x = x + 1; } }\n\
               control Tbl(inout bit<16> x) { action s() { x = 1; } table t { key = { x : exact; } actions = { s; } } \
               apply { t.apply(); } }";
    let w = compile(
        "d1.p4",
        top,
        "",
        "Inc.apply(hdr.h.a); Inc.apply(hdr.h.b); Tbl.apply(hdr.h.a);",
    );
    assert!(w.is_ok(), "{w:?}");
    let e = compile("d2.p4", top, "", "Tbl.apply(hdr.h.a); Tbl.apply(hdr.h.b);").expect_err("same control-plane names");
    assert!(e.contains("invoked directly more than once"), "{e}");
}
