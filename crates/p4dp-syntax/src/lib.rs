//! p4dp-syntax: source files, spans, diagnostics, running `cpp`, the P4_16
//! lexer and parser, and the AST.
//!
//! Entry points: [`preprocess`] (run `cpp`, build a [`SourceMap`]),
//! [`parse_program`] (lex + parse one file of the map), [`render`] /
//! [`render_all`] for diagnostics, [`fuzz_parse`] for fuzzers.

pub mod ast;
pub mod child;
pub mod diag;
pub mod frontend;
pub mod lexer;
mod parser;
pub mod preprocess;
pub mod span;

pub use diag::{render, render_all, Diagnostic, Diagnostics, Severity};
pub use preprocess::preprocess;
pub use span::{FileId, SourceMap, Span};

/// Lex and parse file `file` of `sm`. Returns the AST (possibly partial) and
/// all lexer and parser diagnostics, in source order. Never panics.
pub fn parse_program(sm: &mut SourceMap, file: FileId) -> (ast::Program, Vec<Diagnostic>) {
    let (tokens, mut diags) = lexer::lex(file, sm.text(file));
    let (prog, pdiags) = parser::parse_tokens(file, tokens);
    diags.extend(pdiags);
    diags.sort_by_key(|d| d.primary.as_ref().map(|l| (l.span.file, l.span.lo)).unwrap_or_default());
    (prog, diags)
}

/// Parse a source text directly (no preprocessing); convenience for tests
/// and tools. The text is registered in `sm` under `name`.
pub fn parse_str(sm: &mut SourceMap, name: &str, text: &str) -> (FileId, ast::Program, Vec<Diagnostic>) {
    let f = sm.add_file(name, text);
    let (p, d) = parse_program(sm, f);
    (f, p, d)
}

/// Parse arbitrary bytes (lossily decoded as UTF-8) and render every
/// diagnostic; for fuzzing. Must never panic or hang.
pub fn fuzz_parse(bytes: &[u8]) {
    let text = String::from_utf8_lossy(bytes);
    let mut sm = SourceMap::new();
    let (_, _prog, diags) = parse_str(&mut sm, "fuzz.p4", &text);
    let _ = render_all(&sm, &diags);
}

/// Debug dump of the tokens of a file (`--show-tokens`).
pub fn dump_tokens(sm: &SourceMap, file: FileId) -> String {
    let (toks, _) = lexer::lex(file, sm.text(file));
    lexer::dump_tokens(&toks)
}
