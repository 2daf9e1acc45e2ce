//! The reported deep and unbounded inputs, through the `p4dp` binary (which compiles on its main
//! thread, 8 MiB stack): each ends with one clear diagnostic and exit status 2 (errors in the input), or is accepted;
//! never a stack overflow (abort, status 134), a hang or unbounded memory.

use std::fmt::Write as _;
use std::path::Path;
use std::time::Duration;

use p4dp_testutil::cli;

/// A v1model program with `top` before the ingress control, whose apply block is `body`.
fn program(top: &str, body: &str) -> String {
    cli::v1model_program(top, "", body)
}

/// Runs `p4dp check FILE`: (exit code, stderr, time taken).
fn check(name: &str, text: &str) -> (Option<i32>, String, Duration) {
    let p = cli::scratch_file(&format!("deep-input-{name}"), name, text);
    let r = cli::run(
        Path::new(env!("CARGO_BIN_EXE_p4dp")),
        &[Path::new("check"), p.as_path()],
    );
    let _ = std::fs::remove_file(&p);
    (r.status, r.stderr, r.took)
}

fn one_error(name: &str, text: &str, code: &str) {
    let (status, err, _) = check(name, text);
    assert_eq!(status, Some(2), "{name}: {err}");
    assert_eq!(err.matches("error[").count(), 1, "{name}: {err}");
    assert!(err.contains(&format!("error[{code}]")), "{name}: {err}");
}

#[test]
fn ten_thousand_operators_in_one_expression() {
    let chain = vec!["hdr.h.a"; 10_001].join(" + ");
    one_error("chain.p4", &program("", &format!("hdr.h.b = {chain};")), "E0113");
}

#[test]
fn struct_types_nested_seven_thousand_deep() {
    let mut top = String::from("struct s0 { bit<8> f; }\n");
    for i in 1..7_000 {
        let _ = writeln!(top, "struct s{i} {{ s{} f; }}", i - 1);
    }
    one_error("nested.p4", &program(&top, "s6999 v;"), "E0413");
}

#[test]
fn else_if_chain_of_98_arms_is_accepted() {
    let arms: Vec<String> = (0..98)
        .map(|i| format!("if (hdr.h.c == {i}) {{ hdr.h.b = {}; }}", i % 256))
        .collect();
    let (status, err, _) = check("elif.p4", &program("", &arms.join(" else ")));
    assert_eq!(status, Some(0), "{err}");
}

#[test]
fn one_bad_width_is_one_error() {
    let text = program("", "").replace("bit<32> c;", "bit<100000> c;");
    one_error("width.p4", &text, "E0309");
}

#[test]
fn include_of_dev_zero_and_dev_urandom_is_refused() {
    for dev in ["/dev/zero", "/dev/urandom"] {
        let (status, err, took) = check("dev.p4", &format!("#include <core.p4>\n#include \"{dev}\"\n"));
        assert_eq!(status, Some(2), "{err}");
        assert!(
            err.contains(&format!("error[E0003]: `#include \"{dev}\"` at ")) && err.contains("is not a regular file"),
            "{err}"
        );
        assert!(took < Duration::from_secs(20), "{dev}: {took:?}");
    }
}
