//! Diagnostics: data first, rendered with the source line.
//!
//! A [`Diagnostic`] has a severity, a stable code, a message, an optional
//! primary label (span + text), secondary labels, and `note:`/`help:` lines.
//! [`render`] turns it into plain text (no colors):
//!
//! ```text
//! error[E0101]: expected `;`, found `}`
//!   --> prog.p4:12:5
//!    |
//! 12 |     x = 1
//!    |          ^ expected `;` here
//!    = help: ...
//! ```
//!
//! # Error codes
//!
//! Codes are stable; tests snapshot them. E00xx: input and preprocessing,
//! E01xx: lexing and parsing (this crate), E02xx and above: semantic analysis
//! (`p4dp-sema`, which documents its own codes).
//!
//! | code  | meaning |
//! |-------|---------|
//! | E0001 | the C preprocessor reported an error (missing include, bad directive, ...) |
//! | E0002 | the C preprocessor could not be run |
//! | E0003 | an `#include` names something other than a regular file (a device, a FIFO) |
//! | E0004 | the preprocessor's output or run time exceeded its bound (it was stopped) |
//! | E0101 | expected a specific token, found something else |
//! | E0102 | expected a declaration |
//! | E0103 | expected an expression |
//! | E0104 | expected a type |
//! | E0105 | expected a statement |
//! | E0106 | unterminated block comment |
//! | E0107 | unterminated string literal |
//! | E0108 | unexpected character |
//! | E0109 | invalid integer literal (bad digit, missing digits, bad width) |
//! | E0110 | expected an identifier |
//! | E0111 | declaration not allowed in this context |
//! | E0112 | malformed annotation (unbalanced parentheses/brackets, bad body) |
//! | E0113 | nesting too deep (expression/statement/type nesting limit, expression height, `else if` chain length) |
//! | E0114 | malformed keyset (`select` case or table entry) |
//! | E0115 | malformed parser state (statement after `transition`, missing state) |
//! | E0116 | malformed table property |
//! | E0117 | too many syntax errors; parsing stopped |
//! | E0118 | malformed switch case |
//! | E0119 | invalid string escape sequence |
//! | W0101 | warning: `table t() { ... }` (empty parameter list, accepted for p4c compatibility) |

use crate::span::{SourceMap, Span};
use std::fmt::Write as _;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    Note,
    Warning,
    Error,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Note => "note",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

/// A span with an explanatory text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Label {
    pub span: Span,
    pub message: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub severity: Severity,
    /// Stable code from the table in this module's docs (e.g. `"E0101"`).
    pub code: &'static str,
    pub message: String,
    /// Main location. None only for diagnostics without a source location
    /// (e.g. the preprocessor could not be run).
    pub primary: Option<Label>,
    pub secondary: Vec<Label>,
    /// `= note: ...` lines.
    pub notes: Vec<String>,
    /// `= help: ...` lines.
    pub help: Vec<String>,
}

impl Diagnostic {
    /// An error at `span` with a label.
    pub fn error(code: &'static str, message: impl Into<String>, span: Span, label: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            code,
            message: message.into(),
            primary: Some(Label {
                span,
                message: label.into(),
            }),
            secondary: Vec::new(),
            notes: Vec::new(),
            help: Vec::new(),
        }
    }
    /// A warning at `span` with a label.
    pub fn warning(code: &'static str, message: impl Into<String>, span: Span, label: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(code, message, span, label)
        }
    }
    /// An error without a source location.
    pub fn error_nospan(code: &'static str, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            code,
            message: message.into(),
            primary: None,
            secondary: Vec::new(),
            notes: Vec::new(),
            help: Vec::new(),
        }
    }
    pub fn with_secondary(mut self, span: Span, label: impl Into<String>) -> Diagnostic {
        self.secondary.push(Label {
            span,
            message: label.into(),
        });
        self
    }
    pub fn with_note(mut self, note: impl Into<String>) -> Diagnostic {
        self.notes.push(note.into());
        self
    }
    pub fn with_help(mut self, help: impl Into<String>) -> Diagnostic {
        self.help.push(help.into());
        self
    }
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// A collector of diagnostics.
#[derive(Clone, Debug, Default)]
pub struct Diagnostics {
    items: Vec<Diagnostic>,
}

impl Diagnostics {
    pub fn new() -> Diagnostics {
        Diagnostics::default()
    }
    pub fn push(&mut self, d: Diagnostic) {
        self.items.push(d);
    }
    pub fn extend(&mut self, ds: impl IntoIterator<Item = Diagnostic>) {
        self.items.extend(ds);
    }
    /// Shorthand for pushing [`Diagnostic::error`].
    pub fn error(&mut self, code: &'static str, message: impl Into<String>, span: Span, label: impl Into<String>) {
        self.push(Diagnostic::error(code, message, span, label));
    }
    pub fn has_errors(&self) -> bool {
        self.items.iter().any(|d| d.is_error())
    }
    pub fn error_count(&self) -> usize {
        self.items.iter().filter(|d| d.is_error()).count()
    }
    pub fn len(&self) -> usize {
        self.items.len()
    }
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
    pub fn iter(&self) -> impl Iterator<Item = &Diagnostic> {
        self.items.iter()
    }
    pub fn into_vec(self) -> Vec<Diagnostic> {
        self.items
    }
    /// Render all diagnostics, separated by blank lines.
    pub fn render(&self, sm: &SourceMap) -> String {
        render_all(sm, &self.items)
    }
}

/// Render several diagnostics, each followed by a blank line.
pub fn render_all(sm: &SourceMap, diags: &[Diagnostic]) -> String {
    let mut out = String::new();
    for d in diags {
        out.push_str(&render(sm, d));
        out.push('\n');
    }
    out
}

/// Expand tabs to 4 spaces; returns the display string.
fn expand_tabs(s: &str) -> String {
    s.replace('\t', "    ")
}

/// Display width of the first `chars` characters of `s` (tabs count 4).
fn display_width(s: &str, chars: usize) -> usize {
    s.chars().take(chars).map(|c| if c == '\t' { 4 } else { 1 }).sum()
}

/// Render one diagnostic as plain text (ends with a newline).
pub fn render(sm: &SourceMap, d: &Diagnostic) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{}[{}]: {}", d.severity.as_str(), d.code, d.message);
    // Resolve labels.
    let mut labels: Vec<(bool, &Label)> = Vec::new();
    if let Some(p) = &d.primary {
        labels.push((true, p));
    }
    labels.extend(d.secondary.iter().map(|l| (false, l)));
    let resolved: Vec<_> = labels
        .iter()
        .filter_map(|(is_primary, l)| sm.lookup(l.span).map(|loc| (*is_primary, *l, loc)))
        .collect();
    let gutter = resolved
        .iter()
        .map(|(_, _, loc)| loc.line.to_string().len())
        .max()
        .unwrap_or(1);
    let pad = " ".repeat(gutter);
    let mut last_file: Option<String> = None;
    for (is_primary, label, loc) in &resolved {
        let arrow = if *is_primary { "-->" } else { ":::" };
        let _ = writeln!(out, "{pad}{arrow} {}:{}:{}", loc.file, loc.line, loc.col);
        let _ = writeln!(out, "{pad} |");
        let _ = writeln!(out, "{:>gutter$} | {}", loc.line, expand_tabs(&loc.line_text));
        // Caret run: from col to the end of the span, clipped to the line.
        let col0 = (loc.col as usize).saturating_sub(1);
        let span_chars = sm.snippet(label.span).chars().take_while(|&c| c != '\n').count();
        let line_chars = loc.line_text.chars().count();
        let avail = line_chars.saturating_sub(col0);
        let n = span_chars.min(avail).max(1);
        let start = display_width(&loc.line_text, col0) + col0.saturating_sub(line_chars);
        let width = display_width(&loc.line_text, col0 + n)
            .saturating_sub(display_width(&loc.line_text, col0))
            .max(1);
        let mark = if *is_primary { "^" } else { "-" };
        let text = if label.message.is_empty() {
            String::new()
        } else {
            format!(" {}", label.message)
        };
        let _ = writeln!(out, "{pad} | {}{}{}", " ".repeat(start), mark.repeat(width), text);
        if loc.expanded {
            let _ = writeln!(out, "{pad} = note: line shown after macro expansion");
        }
        last_file = Some(loc.file.clone());
    }
    let _ = last_file;
    for n in &d.notes {
        let _ = writeln!(out, "{pad} = note: {n}");
    }
    for h in &d.help {
        let _ = writeln!(out, "{pad} = help: {h}");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_caret_under_span() {
        let mut sm = SourceMap::new();
        let f = sm.add_file("prog.p4", "control C() {\n    x = 1\n}\n");
        let d = Diagnostic::error(
            "E0101",
            "expected `;`, found `}`",
            Span::new(f, 23, 23),
            "expected `;` here",
        )
        .with_help("add a semicolon");
        let text = render(&sm, &d);
        assert_eq!(
            text,
            "error[E0101]: expected `;`, found `}`\n --> prog.p4:2:10\n  |\n2 |     x = 1\n  |          ^ expected `;` here\n  = help: add a semicolon\n"
        );
    }

    #[test]
    fn renders_without_span() {
        let sm = SourceMap::new();
        let d = Diagnostic::error_nospan("E0002", "cannot run `cpp`").with_note("No such file");
        assert_eq!(
            render(&sm, &d),
            "error[E0002]: cannot run `cpp`\n  = note: No such file\n"
        );
    }
}
