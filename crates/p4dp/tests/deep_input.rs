//! The reported deep and unbounded inputs, through the `p4dp` binary (which compiles on its main
//! thread, 8 MiB stack): each ends with one clear diagnostic and exit status 2 (errors in the input), or is accepted;
//! never a stack overflow (abort, status 134), a hang or unbounded memory.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

fn scratch(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("p4dp-deep-input-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch dir");
    let p = dir.join(name);
    std::fs::write(&p, text).expect("write program");
    p
}

/// A v1model program with `top` before the ingress control, whose apply block is `body`.
fn program(top: &str, body: &str) -> String {
    format!(
        r#"#include <core.p4>
#include <v1model.p4>
header h_t {{ bit<8> a; bit<8> b; bit<32> c; }}
struct headers_t {{ h_t h; }}
struct meta_t {{ }}
{top}
parser P(packet_in pk, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {{
    state start {{ pk.extract(hdr.h); transition accept; }}
}}
control VC(inout headers_t hdr, inout meta_t meta) {{ apply {{ }} }}
control Ing(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {{
    apply {{
{body}
    }}
}}
control EG(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {{ apply {{ }} }}
control CC(inout headers_t hdr, inout meta_t meta) {{ apply {{ }} }}
control DP(packet_out pk, in headers_t hdr) {{ apply {{ pk.emit(hdr.h); }} }}
V1Switch(P(), VC(), Ing(), EG(), CC(), DP()) main;
"#
    )
}

/// Runs `p4dp check FILE`: (exit code, stderr, time taken).
fn check(name: &str, text: &str) -> (Option<i32>, String, Duration) {
    let p = scratch(name, text);
    let start = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_p4dp"))
        .arg("check")
        .arg(&p)
        .output()
        .expect("run p4dp");
    let took = start.elapsed();
    let _ = std::fs::remove_file(&p);
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        took,
    )
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
