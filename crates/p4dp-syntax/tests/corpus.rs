//! Every P4 program of the project (architecture files, the test corpus and
//! this crate's own construct tests) must preprocess and parse without a
//! single diagnostic.

use p4dp_syntax::ast::Decl;
use p4dp_syntax::preprocess::{preprocess_with, PreprocessOptions};
use p4dp_syntax::{parse_program, render_all};
use p4dp_testutil::{p4_files, repo_root};
use std::path::PathBuf;

#[test]
fn corpus_parses_without_errors() {
    let root = repo_root();
    let mut files: Vec<PathBuf> = Vec::new();
    for dir in ["p4include", "tests/programs", "crates/p4dp-syntax/tests/p4"] {
        files.extend(p4_files(&root.join(dir)));
    }
    assert!(files.len() >= 2, "no corpus found under {}", root.display());
    let opts = PreprocessOptions {
        include_dirs: vec![root.join("p4include")],
        cwd: Some(root.clone()),
        ..Default::default()
    };
    let mut failures = String::new();
    for f in &files {
        let rel = f.strip_prefix(&root).unwrap_or(f);
        match preprocess_with(rel, &opts) {
            Err(d) => failures.push_str(&render_all(&Default::default(), &[d])),
            Ok((mut sm, id)) => {
                let (prog, diags) = parse_program(&mut sm, id);
                // Warnings (p4c-compatibility W01xx) are expected in a few programs.
                if diags.iter().any(|d| d.is_error()) {
                    failures.push_str(&render_all(&sm, &diags));
                }
                assert!(!prog.decls.is_empty(), "{}: empty AST", rel.display());
                if let Err(e) = disjoint_spans(&prog.decls) {
                    failures.push_str(&format!("{}: {e}\n", rel.display()));
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} files checked; diagnostics:\n{failures}",
        files.len()
    );
}

/// The declarations of one list (and, recursively, the locals of each parser and control) have
/// non-empty spans in source order that do not overlap, so a span identifies a declaration
/// (`ast::NodeId`).
fn disjoint_spans(decls: &[Decl]) -> Result<(), String> {
    let mut prev: Option<&Decl> = None;
    for d in decls {
        let s = d.span();
        if s.is_empty() {
            return Err(format!("`{}` has an empty span", d.name().name));
        }
        if let Some(p) = prev {
            let ps = p.span();
            if ps.file == s.file && ps.hi > s.lo {
                return Err(format!("`{}` and `{}` overlap", p.name().name, d.name().name));
            }
        }
        let locals = match d {
            Decl::Parser(p) => &p.locals[..],
            Decl::Control(c) => &c.locals[..],
            _ => &[],
        };
        for l in locals {
            let ls = l.span();
            if !(ls.lo >= s.lo && ls.hi <= s.hi && ls.len() < s.len()) {
                return Err(format!(
                    "`{}` is not strictly inside `{}`",
                    l.name().name,
                    d.name().name
                ));
            }
        }
        disjoint_spans(locals)?;
        prev = Some(d);
    }
    Ok(())
}
