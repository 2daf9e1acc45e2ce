//! The CLI renders every diagnostic with `file:line:col` and the source line: front-end warnings
//! (p4c-compatibility W0101/W0301) and back-end (cgen) errors (E0501-E0507), which carry IR spans.

use std::path::{Path, PathBuf};

use p4dp_testutil::cli;

fn scratch(name: &str, text: &str) -> PathBuf {
    cli::scratch_file(&format!("cli-diag-{name}"), name, text)
}

/// A v1model program whose ingress has `locals` and `apply { body }`, with `top` before it.
fn program(top: &str, locals: &str, body: &str) -> String {
    cli::v1model_program(top, locals, body)
}

fn p4dp(args: &[&str]) -> (bool, String) {
    let r = cli::run(Path::new(env!("CARGO_BIN_EXE_p4dp")), args);
    (r.ok(), r.stderr)
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
    assert!(err.contains("error[E0503]"), "{err}");
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
