//! `preprocess` runs cpp and maps diagnostics back to the original files.
use p4dp_syntax::preprocess::{preprocess_with, PreprocessOptions};
use p4dp_syntax::{parse_program, preprocess, render_all};
use std::path::PathBuf;

/// A fresh directory with an empty `inc/` in it.
fn temp_dir(name: &str) -> PathBuf {
    let d = p4dp_testutil::scratch_dir(&format!("syntax-{name}"));
    std::fs::create_dir_all(d.join("inc")).expect("mkdir");
    d
}

#[test]
fn error_in_included_file_points_at_that_file() {
    let d = temp_dir("inc");
    std::fs::write(
        d.join("inc/defs.p4"),
        "// header\nconst bit<8> A = 1;\nconst bit<8> B = ;\n",
    )
    .unwrap();
    std::fs::write(
        d.join("main.p4"),
        "#include <defs.p4>\n#include \"local.p4\"\n\n/* comment */ const bit<8> C = A + VAL;\nconst bit<8> D = 1\n",
    )
    .unwrap();
    std::fs::write(d.join("local.p4"), "const bit<8> L = 2;\n").unwrap();
    let opts = PreprocessOptions {
        include_dirs: vec![d.join("inc")],
        defines: vec!["VAL=7".into()],
        cwd: Some(d.clone()),
        ..Default::default()
    };
    let (mut sm, id) = preprocess_with(std::path::Path::new("main.p4"), &opts).expect("cpp ok");
    let (prog, diags) = parse_program(&mut sm, id);
    let text = render_all(&sm, &diags);
    assert_eq!(diags.len(), 2, "{text}");
    assert_eq!(prog.decls.len(), 3, "{prog:#?}"); // A, L, C (B and D are errors)
    assert!(text.contains("inc/defs.p4:3:18\n"), "{text}");
    assert!(text.contains("3 | const bit<8> B = ;\n"), "{text}");
    assert!(text.contains("--> main.p4:5:19\n"), "{text}");
    assert!(text.contains("5 | const bit<8> D = 1\n"), "{text}");
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn missing_file_and_missing_include_are_diagnostics() {
    let e = preprocess(std::path::Path::new("/nonexistent/x.p4"), &[], &[]).unwrap_err();
    assert_eq!(e.code, "E0001");
    let d = temp_dir("missing");
    std::fs::write(d.join("m.p4"), "#include <nope.p4>\n").unwrap();
    let e = preprocess(&d.join("m.p4"), &[], &[]).unwrap_err();
    assert_eq!(e.code, "E0001");
    assert!(e.message.contains("nope.p4"), "{e:?}");
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn missing_cpp_binary_is_a_diagnostic() {
    let d = temp_dir("nocpp");
    std::fs::write(d.join("m.p4"), "const bit<8> A = 1;\n").unwrap();
    let opts = PreprocessOptions {
        cpp: Some("/nonexistent/cpp".into()),
        ..Default::default()
    };
    let e = preprocess_with(&d.join("m.p4"), &opts).unwrap_err();
    assert_eq!(e.code, "E0002");
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn load_and_parse_with_defines() {
    let d = temp_dir("frontend");
    std::fs::write(d.join("m.p4"), "#ifdef WANT\nconst bit<8> A = VAL;\n#endif\n").unwrap();
    let mut sm = p4dp_syntax::SourceMap::new();
    let (prog, diags) = p4dp_syntax::frontend::load_and_parse(
        &mut sm,
        &d.join("m.p4"),
        &[],
        &[("WANT".into(), None), ("VAL".into(), Some("3".into()))],
    );
    assert!(diags.is_empty(), "{}", render_all(&sm, &diags));
    assert_eq!(prog.decls.len(), 1);
    let (prog, diags) = p4dp_syntax::frontend::load_and_parse(&mut sm, &d.join("missing.p4"), &[], &[]);
    assert!(prog.decls.is_empty());
    assert_eq!(diags[0].code, "E0001");
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn include_of_a_device_is_refused_before_cpp_runs() {
    let d = temp_dir("device");
    std::fs::write(d.join("zero.p4"), "const bit<8> A = 1;\n#include \"/dev/zero\"\n").unwrap();
    std::fs::write(d.join("rand.p4"), "#include </dev/urandom>\n").unwrap();
    // An included file that includes a device: the directive is named where it is.
    std::fs::write(d.join("inc/bad.p4"), "// bad\n#include \"/dev/zero\"\n").unwrap();
    std::fs::write(d.join("outer.p4"), "#include <bad.p4>\n").unwrap();
    let opts = PreprocessOptions {
        include_dirs: vec![d.join("inc")],
        cwd: Some(d.clone()),
        ..Default::default()
    };
    let start = std::time::Instant::now();
    let e = preprocess_with(std::path::Path::new("zero.p4"), &opts).unwrap_err();
    assert_eq!(e.code, "E0003");
    assert!(
        e.message
            .contains("`#include \"/dev/zero\"` at zero.p4:2: `/dev/zero` is not a regular file"),
        "{}",
        e.message
    );
    let e = preprocess_with(std::path::Path::new("rand.p4"), &opts).unwrap_err();
    assert_eq!(e.code, "E0003");
    assert!(
        e.message.contains("`#include </dev/urandom>` at rand.p4:1"),
        "{}",
        e.message
    );
    let e = preprocess_with(std::path::Path::new("outer.p4"), &opts).unwrap_err();
    assert_eq!(e.code, "E0003");
    assert!(e.message.contains("inc/bad.p4:2"), "{}", e.message);
    assert!(start.elapsed() < std::time::Duration::from_secs(10));
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn preprocessor_run_time_is_bounded() {
    let d = temp_dir("timeout");
    std::fs::write(d.join("m.p4"), "const bit<8> A = 1;\n").unwrap();
    let opts = PreprocessOptions {
        cwd: Some(d.clone()),
        timeout: Some(std::time::Duration::ZERO),
        ..Default::default()
    };
    let e = preprocess_with(std::path::Path::new("m.p4"), &opts).unwrap_err();
    assert_eq!(e.code, "E0004");
    assert!(e.message.contains("did not finish within"), "{}", e.message);
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn macro_named_device_include_is_stopped() {
    // The include's name comes from a macro, so it cannot be checked before cpp runs: cpp's
    // address-space cap (or the time bound) stops it instead of letting it grow without end.
    let d = temp_dir("macro-dev");
    std::fs::write(d.join("m.p4"), "#define DEV \"/dev/zero\"\n#include DEV\n").unwrap();
    let opts = PreprocessOptions {
        cwd: Some(d.clone()),
        timeout: Some(std::time::Duration::from_secs(15)),
        ..Default::default()
    };
    let start = std::time::Instant::now();
    let e = preprocess_with(std::path::Path::new("m.p4"), &opts).unwrap_err();
    assert!(e.code == "E0001" || e.code == "E0004", "{e:?}");
    assert!(start.elapsed() < std::time::Duration::from_secs(30));
    let _ = std::fs::remove_dir_all(&d);
}
