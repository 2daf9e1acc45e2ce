//! Input whose depth or size the user controls: every case ends with a diagnostic (or is
//! accepted), never a stack overflow or an exponential blow-up. Each compilation runs on a
//! thread with the stack the CLI compiles on (its main thread: 8 MiB by default), in debug
//! builds too.

use std::fmt::Write as _;

use crate::tests::{ingress, v1};

/// The stack `p4dp` compiles on: the main thread's default (`ulimit -s`, 8 MiB).
const CLI_STACK: usize = 8 << 20;

fn on_cli_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    let h = std::thread::Builder::new()
        .stack_size(CLI_STACK)
        .spawn(f)
        .expect("spawn a compiler thread");
    match h.join() {
        Ok(v) => v,
        Err(e) => std::panic::resume_unwind(e),
    }
}

fn ok(name: &str, text: &str) -> p4dp_ir::ValidProgram {
    let (name, text) = (name.to_string(), text.to_string());
    on_cli_stack(move || crate::tests::ok(&name, &text))
}

fn rejected(name: &str, text: &str) -> String {
    let (name, text) = (name.to_string(), text.to_string());
    on_cli_stack(move || crate::tests::rejected(&name, &text))
}

/// `meta.x = hdr.h.a + hdr.h.a + ...` with `n` operands.
fn chain(n: usize) -> String {
    let mut s = String::from("meta.x = hdr.h.a");
    for i in 1..n {
        s.push_str(if i % 16 == 0 { "\n + hdr.h.a" } else { " + hdr.h.a" });
    }
    s.push(';');
    s
}

#[test]
fn long_operator_chain_is_an_error_not_a_stack_overflow() {
    let e = rejected("chain.p4", &v1("", "", &chain(10_000)));
    assert!(e.contains("error[E0113]: expression nested too deep"), "{e}");
    assert_eq!(e.matches("error[").count(), 1, "{e}");
}

#[test]
fn operator_chain_at_the_height_limit_is_accepted() {
    // `hdr.h.a` is 3 levels (name, member, member); 254 operands make a tree 256 high.
    ok("chain_ok.p4", &v1("", "", &chain(254)));
    let e = rejected("chain_over.p4", &v1("", "", &chain(255)));
    assert!(e.contains("E0113"), "{e}");
}

#[test]
fn long_member_and_index_chains_are_errors() {
    let members = format!("meta.x = hdr{}.a;", ".h".repeat(20_000));
    let e = rejected("members.p4", &v1("", "", &members));
    assert!(e.contains("E0113"), "{e}");
    let index = format!("meta.x = hdr.s{}.a;", "[0]".repeat(20_000));
    let e = rejected("index.p4", &v1("", "", &index));
    assert!(e.contains("E0113"), "{e}");
}

/// `struct s0 { bit<8> f; } struct s1 { s0 f; } ...` up to `s{n-1}`.
fn nested_structs(n: usize) -> String {
    let mut s = String::from("struct s0 { bit<8> f; }\n");
    for i in 1..n {
        let _ = writeln!(s, "struct s{i} {{ s{} f; }}", i - 1);
    }
    s
}

#[test]
fn deeply_nested_struct_types_are_an_error() {
    // Resolved from the outermost type down (one recursion 7,000 deep without the limit).
    let e = rejected("nest.p4", &v1(&nested_structs(7_000), "", "s6999 v;"));
    assert!(e.contains("error[E0413]"), "{e}");
    // Resolved innermost first: no deep recursion, but a type 200 levels deep.
    let mut uses = String::new();
    for i in 0..200 {
        let _ = write!(uses, "s{i} v{i}; ");
    }
    let e = rejected("nest_up.p4", &v1(&nested_structs(200), "", &uses));
    // s0 is 2 levels (a struct of a bit<8>), so s63 is the first beyond 64.
    assert!(e.contains("error[E0413]: type `s63` is nested too deeply"), "{e}");
    assert_eq!(e.matches("error[").count(), 1, "{e}");
    let deepest = format!("s62 v; v{}.f = 1;", ".f".repeat(62));
    ok("nest_ok.p4", &v1(&nested_structs(63), "", &deepest));
}

#[test]
fn long_typedef_and_constant_chains_are_errors() {
    let mut t = String::from("typedef bit<8> t0;\n");
    for i in 1..7_000 {
        let _ = writeln!(t, "typedef t{} t{i};", i - 1);
    }
    let e = rejected("typedefs.p4", &v1(&t, "", "t6999 v = 0;"));
    assert!(e.contains("error[E0413]"), "{e}");
    let mut c = String::from("const bit<8> c0 = 1;\n");
    for i in 1..7_000 {
        let _ = writeln!(c, "const bit<8> c{i} = c{} + 1;", i - 1);
    }
    let e = rejected("consts.p4", &v1(&c, "", "meta.x = c6999;"));
    assert!(e.contains("error[E0413]"), "{e}");
}

#[test]
fn nested_tuples_have_bounded_names() {
    // Each level doubles the spelled-out type name: 2^40 characters without the bound.
    let mut t = String::from("typedef bit<8> t0;\n");
    for i in 1..40 {
        let _ = writeln!(t, "typedef tuple<t{0}, t{0}> t{i};", i - 1);
    }
    let start = std::time::Instant::now();
    ok("tuples.p4", &v1(&t, "", "t39 v;"));
    assert!(start.elapsed() < std::time::Duration::from_secs(20));
}

/// `if (meta.x == 0) { ... } else if (meta.x == 1) { ... } ...` with `n` arms.
fn else_if_chain(n: usize) -> String {
    let arms: Vec<String> = (0..n)
        .map(|i| format!("if (meta.y == {i}) {{ meta.x = {}; }}", i % 256))
        .collect();
    arms.join("\nelse ")
}

#[test]
fn else_if_chain_is_not_nesting() {
    let p = ok("elif.p4", &v1("", "", &else_if_chain(98)));
    assert_eq!(ingress(&p).body.len(), 1);
    ok("elif_max.p4", &v1("", "", &else_if_chain(1024)));
    let e = rejected("elif_over.p4", &v1("", "", &else_if_chain(1025)));
    assert!(e.contains("error[E0113]: `else if` chain too long"), "{e}");
}

#[test]
fn a_bad_width_is_reported_once() {
    let top = "header big_t { bit<100000> f; }\nstruct bs_t { big_t b; }\n\
               parser Sub(packet_in pk, out bs_t x) { state start { pk.extract(x.b); transition accept; } }";
    let locals = "action set(bit<8> v) { meta.x = v; }\n\
                  table t { key = { hdr.h.a : exact; meta.x : exact; } actions = { set; } \
                  const entries = { (1, 2) : set(3); } }";
    let text = v1(top, locals, "t.apply();").replace(
        "state start { pk.extract(hdr.h); transition accept; }",
        "bs_t bs; Sub() sub; state start { pk.extract(hdr.h); sub.apply(pk, bs); transition accept; }",
    );
    let e = rejected("width.p4", &text);
    assert_eq!(e.matches("error[").count(), 1, "{e}");
    assert!(e.contains("invalid width 100000"), "{e}");
}

/// A table with `n` constant entries on a `bit<32>` key and the property `size`.
fn table(n: usize, size: &str) -> String {
    let mut ents = String::new();
    for i in 0..n {
        let _ = writeln!(ents, "{i} : set({});", i % 256);
    }
    format!(
        "action set(bit<8> v) {{ meta.x = v; }}\n\
         table t {{ key = {{ meta.y : exact; }} actions = {{ set; NoAction; }} {size}\n\
         const entries = {{ {ents} }} }}"
    )
}

#[test]
fn table_size_fits_its_initial_entries() {
    let size_of = |p: &p4dp_ir::ValidProgram| p.tables.iter().next().map(|(_, t)| t.size).unwrap_or_default();
    let p = ok("ents_default.p4", &v1("", &table(1024, ""), "t.apply();"));
    assert_eq!(size_of(&p), None);
    let p = ok("ents_many.p4", &v1("", &table(10_000, ""), "t.apply();"));
    assert_eq!(size_of(&p), Some(10_000));
    let e = rejected("ents_small.p4", &v1("", &table(300, "size = 100;"), "t.apply();"));
    assert!(e.contains("table `t` has 300 initial entries but `size = 100`"), "{e}");
    for (size, msg) in [
        ("0", "table size 0"),
        ("4294967296", "table size 4294967296 is too large"),
        ("1 << 40", "table size 1099511627776 is too large"),
    ] {
        let e = rejected("size.p4", &v1("", &table(1, &format!("size = {size};")), "t.apply();"));
        assert!(e.contains(msg), "{size}: {e}");
    }
    let p = ok("size_max.p4", &v1("", &table(1, "size = 4294967295;"), "t.apply();"));
    assert_eq!(size_of(&p), Some(u64::from(u32::MAX)));
}
