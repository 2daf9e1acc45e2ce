//! Positions and diagnostics for STF scripts.
//!
//! STF is line-oriented, so a position is a (line, column, length) triple in
//! one script. A [`Diagnostic`] carries a copy of the offending source line so
//! it can be rendered on its own, in the usual compiler style:
//!
//! ```text
//! test.stf:3:5: error: unknown table `foo`
//!     3 | add foo 0 a:1 b()
//!       |     ^^^
//! ```

use std::fmt;

/// A place in an STF script: 1-based line, 1-based column (in characters) and
/// a length in characters (at least 1 when rendered).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Span {
    pub line: u32,
    pub col: u32,
    pub len: u32,
}

impl Span {
    pub fn new(line: u32, col: u32, len: u32) -> Span {
        Span { line, col, len }
    }

    /// The smallest span covering `self` and `other` (both on the same line;
    /// if they are on different lines, `self` is returned).
    pub fn to(self, other: Span) -> Span {
        if self.line != other.line {
            return self;
        }
        let lo = self.col.min(other.col);
        let hi = (self.col + self.len).max(other.col + other.len);
        Span {
            line: self.line,
            col: lo,
            len: hi - lo,
        }
    }
}

/// How serious a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    Error,
    Warning,
}

/// One message about an STF script, with its location and source line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub severity: Severity,
    /// Script file name as given by the user.
    pub file: String,
    pub span: Span,
    pub message: String,
    /// The text of line `span.line` (without the line terminator).
    pub source_line: String,
    /// Optional extra explanation, rendered as `= note: ...`.
    pub note: Option<String>,
}

impl Diagnostic {
    /// The message with its `file:line:col: error:` prefix, without the source
    /// excerpt.
    pub fn headline(&self) -> String {
        let sev = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        format!(
            "{}:{}:{}: {}: {}",
            self.file, self.span.line, self.span.col, sev, self.message
        )
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{}", self.headline())?;
        let num = self.span.line.to_string();
        let pad = " ".repeat(num.len());
        // Tabs are shown as one space so that the caret column stays right.
        let shown: String = self
            .source_line
            .chars()
            .map(|c| if c == '\t' { ' ' } else { c })
            .collect();
        writeln!(f, " {num} | {shown}")?;
        let col = self.span.col.max(1) as usize - 1;
        let len = self.span.len.max(1) as usize;
        write!(f, " {pad} | {}{}", " ".repeat(col), "^".repeat(len))?;
        if let Some(note) = &self.note {
            write!(f, "\n {pad} = note: {note}")?;
        }
        Ok(())
    }
}

/// All diagnostics of one failed step (parse or compile), in line order.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct Diagnostics(pub Vec<Diagnostic>);

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, d) in self.0.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            writeln!(f, "{d}")?;
        }
        let n = self.0.iter().filter(|d| d.severity == Severity::Error).count();
        if n > 0 {
            write!(f, "{n} error{}", if n == 1 { "" } else { "s" })?;
        }
        Ok(())
    }
}

/// Builds diagnostics for one script (knows its name and lines).
#[derive(Clone, Debug)]
pub(crate) struct Reporter<'a> {
    pub file: &'a str,
    pub lines: &'a [String],
    pub diags: Vec<Diagnostic>,
}

impl<'a> Reporter<'a> {
    pub fn new(file: &'a str, lines: &'a [String]) -> Reporter<'a> {
        Reporter {
            file,
            lines,
            diags: Vec::new(),
        }
    }

    pub fn make(&self, span: Span, message: impl Into<String>) -> Diagnostic {
        let source_line = self
            .lines
            .get((span.line as usize).wrapping_sub(1))
            .cloned()
            .unwrap_or_default();
        Diagnostic {
            severity: Severity::Error,
            file: self.file.to_string(),
            span,
            message: message.into(),
            source_line,
            note: None,
        }
    }

    pub fn push(&mut self, d: Diagnostic) {
        self.diags.push(d);
    }

    pub fn error(&mut self, span: Span, message: impl Into<String>) {
        let d = self.make(span, message);
        self.diags.push(d);
    }

    pub fn has_errors(&self) -> bool {
        self.diags.iter().any(|d| d.severity == Severity::Error)
    }
}
