//! The CLI renders every diagnostic with `file:line:col` and the source line: front-end warnings
//! (p4c-compatibility W0101/W0301) and back-end (cgen) errors (E0501), which carry IR spans.

use std::path::PathBuf;
use std::process::Command;

fn scratch(name: &str, text: &str) -> PathBuf {
    // one directory per file: the tests run in parallel
    let p = p4dp_testutil::scratch_dir(&format!("cli-diag-{name}")).join(name);
    std::fs::write(&p, text).expect("write program");
    p
}

/// A v1model program whose ingress has `locals` and `apply { body }`, with `top` before it.
fn program(top: &str, locals: &str, body: &str) -> String {
    format!(
        r#"#include <core.p4>
#include <v1model.p4>
header h_t {{ bit<8> a; bit<8> b; bit<16> c; }}
struct headers_t {{ h_t h; }}
struct meta_t {{ }}
{top}
parser P(packet_in pk, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {{
    state start {{ pk.extract(hdr.h); transition accept; }}
}}
control VC(inout headers_t hdr, inout meta_t meta) {{ apply {{ }} }}
control Ing(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {{
{locals}
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

fn p4dp(args: &[&str]) -> (bool, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_p4dp"))
        .args(args)
        .output()
        .expect("run p4dp");
    (out.status.success(), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn cgen_error_has_source_location() {
    let text = program(
        "extern Doubler { Doubler(); bit<8> twice(in bit<8> x); }",
        "    Doubler() dbl;",
        "        hdr.h.b = dbl.twice(hdr.h.a);",
    );
    let p = scratch("cgen_err.p4", &text);
    let out = p.with_extension("out");
    let (ok, err) = p4dp(&["build", p.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert!(!ok, "accepted:\n{err}");
    assert!(err.contains("error[E0501]"), "{err}");
    assert!(err.contains("method `twice` of extern `Doubler`"), "{err}");
    // Line 14 of the program (the apply body), and the source line itself.
    assert!(err.contains("cgen_err.p4:14:"), "{err}");
    assert!(err.contains("hdr.h.b = dbl.twice(hdr.h.a);"), "{err}");
    assert!(!err.contains("bytes"), "{err}");
    let _ = std::fs::remove_file(&p);
}

#[test]
fn compatibility_warnings_are_printed() {
    let text = program(
        "",
        "    action nop() { }\n    table t() { actions = { nop; } default_action = nop(); }",
        "        hdr.h.c = hdr.h.a + hdr.h.b;\n        t.apply();",
    );
    let p = scratch("compat_warn.p4", &text);
    let (ok, err) = p4dp(&["check", p.to_str().unwrap()]);
    assert!(ok, "rejected:\n{err}");
    assert!(
        err.contains("warning[W0101]") && err.contains("compat_warn.p4:13:"),
        "{err}"
    );
    assert!(
        err.contains("warning[W0301]") && err.contains("compat_warn.p4:15:"),
        "{err}"
    );
    let _ = std::fs::remove_file(&p);
}
