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
