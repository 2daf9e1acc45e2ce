//! p4dp-syntax: source files, spans, diagnostics, running `cpp`, the P4_16
//! lexer and parser, and the AST.
pub mod ast;
pub mod diag;
pub mod lexer;
pub mod span;

pub use diag::{render, render_all, Diagnostic, Diagnostics, Severity};
pub use span::{FileId, SourceMap, Span};
