//! Recursive-descent parser for P4_16.
//!
//! Organisation: this module holds the token cursor, error reporting and
//! recovery, and annotations; `decls`, `types`, `stmts` and `exprs` hold the
//! grammar for their part of the language.
//!
//! Error handling: grammar functions return `PResult<T>`; `Err(Fail)` means
//! a diagnostic has already been emitted. List parsers (declarations,
//! statements, table properties, ...) catch failures and resynchronize with
//! [`Parser::recover`], so one run reports several errors. Every list loop
//! checks that each iteration consumed a token, and nesting depth is bounded,
//! so the parser always terminates and never overflows the stack.
//!
//! Ambiguities resolved by bounded backtracking over the token vector
//! (`snapshot`/`restore`): generic calls `f<T>(x)` vs comparisons, casts
//! `(T)x` vs parenthesized expressions, declarations vs expression statements
//! in blocks, tuple keysets vs parenthesized keyset expressions.

mod decls;
mod exprs;
mod stmts;
mod tables;
mod types;

use crate::ast::*;
use crate::diag::Diagnostic;
use crate::lexer::{Kw, Punct, Token, TokenKind};
use crate::span::{FileId, Span};

/// A failure whose diagnostic has already been recorded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Fail;
pub(crate) type PResult<T> = Result<T, Fail>;

/// Maximum nesting of expressions/statements/types.
const MAX_DEPTH: u32 = 100;
/// Maximum height of one expression tree ([`Expr::height`]). Operators chained without
/// parentheses (`a + b + c ...`, `x.f.g ...`, `f(a)(b) ...`) are parsed by loops, not recursion, so
/// [`MAX_DEPTH`] does not bound them; this limit does, for every later walk over the expression.
pub(crate) const MAX_EXPR_HEIGHT: u32 = 256;
/// Maximum number of arms of one `if` / `else if` chain (each arm is one more level of
/// `If` statement in the AST and the IR, so later recursive walks need a bound).
pub(crate) const MAX_ELSE_IF_ARMS: usize = 1024;
/// Stop after this many syntax errors.
const MAX_ERRORS: usize = 100;

/// Where a declaration appears (controls which declaration kinds parse).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum DeclCtx {
    TopLevel,
    Control,
    Parser,
    /// `= { ... }` object initializer of an instantiation.
    ObjInit,
}

pub(crate) struct Parser {
    toks: Vec<Token>,
    pos: usize,
    file: FileId,
    pub(crate) diags: Vec<Diagnostic>,
    depth: u32,
    /// Token index of the last reported error (to avoid cascades).
    last_error_at: Option<usize>,
    errors: usize,
    /// Set when MAX_ERRORS was hit: every parse function fails fast.
    aborted: bool,
    /// Inside a speculative parse: errors are discarded by `restore`.
    speculating: u32,
}

/// Saved parser state for backtracking.
#[derive(Clone, Copy)]
pub(crate) struct Snapshot {
    pos: usize,
    diags: usize,
    last_error_at: Option<usize>,
    errors: usize,
    aborted: bool,
}

impl Parser {
    pub(crate) fn new(file: FileId, mut toks: Vec<Token>) -> Parser {
        if !matches!(toks.last().map(|t| &t.kind), Some(TokenKind::Eof)) {
            let end = toks.last().map(|t| t.span.hi).unwrap_or(0);
            toks.push(Token {
                kind: TokenKind::Eof,
                span: Span::new(file, end, end),
            });
        }
        Parser {
            toks,
            pos: 0,
            file,
            diags: Vec::new(),
            depth: 0,
            last_error_at: None,
            errors: 0,
            aborted: false,
            speculating: 0,
        }
    }

    // ───────────── cursor ─────────────

    pub(crate) fn tok(&self) -> &Token {
        let i = self.pos.min(self.toks.len() - 1);
        &self.toks[i]
    }
    pub(crate) fn kind(&self) -> &TokenKind {
        &self.tok().kind
    }
    pub(crate) fn nth(&self, n: usize) -> &TokenKind {
        let i = (self.pos + n).min(self.toks.len() - 1);
        &self.toks[i].kind
    }
    pub(crate) fn nth_span(&self, n: usize) -> Span {
        let i = (self.pos + n).min(self.toks.len() - 1);
        self.toks[i].span
    }
    pub(crate) fn span(&self) -> Span {
        self.tok().span
    }
    /// Span of the previously consumed token (or the current one at start).
    pub(crate) fn prev_span(&self) -> Span {
        if self.pos == 0 {
            self.span()
        } else {
            self.toks[(self.pos - 1).min(self.toks.len() - 1)].span
        }
    }
    pub(crate) fn at_eof(&self) -> bool {
        matches!(self.kind(), TokenKind::Eof)
    }
    pub(crate) fn bump(&mut self) -> Token {
        let t = self.tok().clone();
        if self.pos < self.toks.len() - 1 {
            self.pos += 1;
        }
        t
    }
    pub(crate) fn pos(&self) -> usize {
        self.pos
    }
    pub(crate) fn at_p(&self, p: Punct) -> bool {
        matches!(self.kind(), TokenKind::Punct(q) if *q == p)
    }
    pub(crate) fn nth_is_p(&self, n: usize, p: Punct) -> bool {
        matches!(self.nth(n), TokenKind::Punct(q) if *q == p)
    }
    pub(crate) fn at_kw(&self, k: Kw) -> bool {
        matches!(self.kind(), TokenKind::Kw(q) if *q == k)
    }
    pub(crate) fn nth_is_kw(&self, n: usize, k: Kw) -> bool {
        matches!(self.nth(n), TokenKind::Kw(q) if *q == k)
    }
    /// Current token is the identifier `word` (contextual keyword).
    pub(crate) fn at_word(&self, word: &str) -> bool {
        matches!(self.kind(), TokenKind::Ident(s) if s == word)
    }
    pub(crate) fn nth_is_ident(&self, n: usize) -> bool {
        matches!(self.nth(n), TokenKind::Ident(_))
    }
    pub(crate) fn eat_p(&mut self, p: Punct) -> bool {
        if self.at_p(p) {
            self.bump();
            true
        } else {
            false
        }
    }
    pub(crate) fn eat_kw(&mut self, k: Kw) -> bool {
        if self.at_kw(k) {
            self.bump();
            true
        } else {
            false
        }
    }
    /// Tokens `n` and `n+1` are directly adjacent (no whitespace).
    pub(crate) fn adjacent(&self, n: usize) -> bool {
        self.nth_span(n).hi == self.nth_span(n + 1).lo
    }

    // ───────────── errors ─────────────

    pub(crate) fn snapshot(&self) -> Snapshot {
        Snapshot {
            pos: self.pos,
            diags: self.diags.len(),
            last_error_at: self.last_error_at,
            errors: self.errors,
            aborted: self.aborted,
        }
    }
    pub(crate) fn restore(&mut self, s: Snapshot) {
        self.pos = s.pos;
        self.diags.truncate(s.diags);
        self.last_error_at = s.last_error_at;
        self.errors = s.errors;
        self.aborted = s.aborted;
    }
    /// Run `f` speculatively: on failure the position and diagnostics are
    /// restored and None is returned.
    pub(crate) fn speculate<T>(&mut self, f: impl FnOnce(&mut Parser) -> PResult<T>) -> Option<T> {
        let snap = self.snapshot();
        self.speculating += 1;
        let r = f(self);
        self.speculating -= 1;
        match r {
            Ok(v) if self.diags.len() == snap.diags => Some(v),
            _ => {
                self.restore(snap);
                None
            }
        }
    }

    /// Record an error diagnostic (unless it would cascade from the previous
    /// one at the same token). Always returns `Fail` for `?`/`Err` use.
    pub(crate) fn report(&mut self, d: Diagnostic) -> Fail {
        if self.aborted {
            return Fail;
        }
        if self.speculating > 0 {
            // The caller will restore; the content does not matter.
            self.diags.push(d);
            return Fail;
        }
        if self.last_error_at == Some(self.pos) {
            return Fail;
        }
        // An invalid token was already diagnosed by the lexer; do not add a
        // parse error on top of it.
        if matches!(self.kind(), TokenKind::Unknown) {
            self.last_error_at = Some(self.pos);
            return Fail;
        }
        self.last_error_at = Some(self.pos);
        self.errors += 1;
        if self.errors > MAX_ERRORS {
            self.aborted = true;
            self.diags.push(Diagnostic::error(
                "E0117",
                format!("too many syntax errors (more than {MAX_ERRORS}); parsing stopped"),
                self.span(),
                "stopped here",
            ));
            return Fail;
        }
        self.diags.push(d);
        Fail
    }

    /// "expected X, found Y" at the current token.
    pub(crate) fn err_expected(&mut self, code: &'static str, what: &str) -> Fail {
        let found = self.kind().describe();
        let sp = self.span();
        self.report(Diagnostic::error(
            code,
            format!("expected {what}, found {found}"),
            sp,
            format!("expected {what}"),
        ))
    }

    pub(crate) fn expect_p(&mut self, p: Punct) -> PResult<Span> {
        if self.aborted {
            return Err(Fail);
        }
        if self.at_p(p) {
            return Ok(self.bump().span);
        }
        let found = self.kind().describe();
        let what = format!("`{}`", p.as_str());
        let d = if p == Punct::Semi && self.pos > 0 {
            // Point just after the previous token, like rustc.
            let at = self.prev_span().end();
            Diagnostic::error(
                "E0101",
                format!("expected {what}, found {found}"),
                at,
                format!("expected {what} here"),
            )
        } else {
            let sp = self.span();
            Diagnostic::error(
                "E0101",
                format!("expected {what}, found {found}"),
                sp,
                format!("expected {what}"),
            )
        };
        Err(self.report(d))
    }

    pub(crate) fn expect_kw(&mut self, k: Kw) -> PResult<Span> {
        if self.at_kw(k) {
            return Ok(self.bump().span);
        }
        Err(self.err_expected("E0101", &format!("`{}`", k.as_str())))
    }

    /// `>` that closes a type-argument list (a single `>` token).
    pub(crate) fn expect_close_angle(&mut self) -> PResult<Span> {
        self.expect_p(Punct::Gt)
    }

    pub(crate) fn expect_word(&mut self, word: &str) -> PResult<Span> {
        if self.at_word(word) {
            return Ok(self.bump().span);
        }
        Err(self.err_expected("E0101", &format!("`{word}`")))
    }

    /// An identifier (contextual keywords included).
    pub(crate) fn ident(&mut self) -> PResult<Ident> {
        if self.aborted {
            return Err(Fail);
        }
        match self.kind().clone() {
            TokenKind::Ident(name) => {
                let span = self.bump().span;
                Ok(Ident { name, span })
            }
            TokenKind::Kw(k) => {
                let sp = self.span();
                let d = Diagnostic::error(
                    "E0110",
                    format!("expected an identifier, found keyword `{}`", k.as_str()),
                    sp,
                    "reserved keyword",
                );
                Err(self.report(d))
            }
            _ => Err(self.err_expected("E0110", "an identifier")),
        }
    }

    /// `name` or `.name`.
    pub(crate) fn path_name(&mut self) -> PResult<PathName> {
        let start = self.span();
        let top_level = if self.at_p(Punct::Dot) && self.nth_is_ident(1) {
            self.bump();
            true
        } else {
            false
        };
        let name = self.ident()?;
        Ok(PathName {
            top_level,
            span: start.to(name.span),
            name,
        })
    }

    /// An expression node, refused (E0113) when it is higher than [`MAX_EXPR_HEIGHT`].
    pub(crate) fn mk_expr(&mut self, kind: ExprKind, span: Span) -> PResult<Expr> {
        let e = Expr::new(kind, span);
        if e.height <= MAX_EXPR_HEIGHT {
            return Ok(e);
        }
        let at = self.prev_span();
        let d = Diagnostic::error(
            "E0113",
            format!("expression nested too deep (more than {MAX_EXPR_HEIGHT} levels of operators, calls, members or indexes)"),
            at,
            "expression limit reached here",
        );
        Err(self.report(d))
    }

    /// Depth guard; pair every successful `enter` with `leave`.
    pub(crate) fn enter(&mut self) -> PResult<()> {
        if self.aborted {
            return Err(Fail);
        }
        if self.depth >= MAX_DEPTH {
            let sp = self.span();
            let d = Diagnostic::error(
                "E0113",
                format!("nesting too deep (limit {MAX_DEPTH})"),
                sp,
                "nesting limit reached here",
            );
            return Err(self.report(d));
        }
        self.depth += 1;
        Ok(())
    }
    pub(crate) fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    /// Parse items with `item` until the `}` that closes the current list (not consumed) or EOF.
    /// A failed item is reported by `item` and skipped with [`Parser::recover`]; every iteration
    /// consumes at least one token, so the loop always ends.
    pub(crate) fn items_until_rbrace<T>(&mut self, mut item: impl FnMut(&mut Self) -> PResult<T>) -> PResult<Vec<T>> {
        let mut out = Vec::new();
        while !self.at_p(Punct::RBrace) && !self.at_eof() {
            let before = self.pos();
            match item(self) {
                Ok(x) => out.push(x),
                Err(Fail) => {
                    if self.aborted {
                        return Err(Fail);
                    }
                    self.recover();
                }
            }
            if self.pos() == before {
                self.bump();
            }
        }
        Ok(out)
    }

    /// Skip tokens to a synchronization point: just after a `;` or a
    /// balanced `{...}` block at the current nesting level, or before a `}`
    /// closing the enclosing construct, or before a token that starts a
    /// top-level declaration. Always makes progress unless at `}`/EOF.
    pub(crate) fn recover(&mut self) {
        let mut depth: i32 = 0;
        let start = self.pos;
        loop {
            match self.kind() {
                TokenKind::Eof => return,
                TokenKind::Punct(Punct::Semi) if depth == 0 => {
                    self.bump();
                    return;
                }
                TokenKind::Punct(Punct::LBrace) => {
                    depth += 1;
                    self.bump();
                }
                TokenKind::Punct(Punct::RBrace) => {
                    if depth == 0 {
                        return;
                    }
                    depth -= 1;
                    self.bump();
                    if depth == 0 {
                        // A whole block was skipped; stop after it unless a
                        // `;` or `else` continues the construct.
                        if self.at_p(Punct::Semi) {
                            self.bump();
                        }
                        return;
                    }
                }
                TokenKind::Kw(
                    Kw::Control
                    | Kw::Parser
                    | Kw::Extern
                    | Kw::Header
                    | Kw::HeaderUnion
                    | Kw::Struct
                    | Kw::Typedef
                    | Kw::Package
                    | Kw::Action
                    | Kw::Table
                    | Kw::Enum
                    | Kw::MatchKind,
                ) if depth == 0 && self.pos > start => return,
                TokenKind::Ident(s) if depth == 0 && self.pos > start && s == "state" && self.nth_is_ident(1) => return,
                _ => {
                    self.bump();
                }
            }
        }
    }

    // ───────────── annotations ─────────────

    /// Zero or more annotations.
    pub(crate) fn annotations(&mut self) -> PResult<Vec<Annotation>> {
        let mut v = Vec::new();
        while self.at_p(Punct::At) {
            v.push(self.annotation()?);
        }
        Ok(v)
    }

    fn annotation(&mut self) -> PResult<Annotation> {
        let at = self.expect_p(Punct::At)?;
        let name = match self.kind().clone() {
            TokenKind::Ident(n) => Ident {
                name: n,
                span: self.bump().span,
            },
            TokenKind::Kw(k) => Ident {
                name: k.as_str().to_string(),
                span: self.bump().span,
            },
            _ => return Err(self.err_expected("E0112", "an annotation name")),
        };
        // A `(` or `[` after the name always opens the annotation body
        // (`@name("x")`, `@name ("x")`, `@key[a=1]`): nothing that may follow
        // annotations starts with these tokens.
        let body = if self.at_p(Punct::LParen) {
            self.unstructured_body()?
        } else if self.at_p(Punct::LBracket) {
            self.structured_body()?
        } else {
            AnnotationBody::Empty
        };
        Ok(Annotation {
            span: at.to(self.prev_span()),
            name,
            body,
        })
    }

    fn unstructured_body(&mut self) -> PResult<AnnotationBody> {
        let open = self.expect_p(Punct::LParen)?;
        let mut stack: Vec<Punct> = vec![Punct::RParen];
        let mut tokens = Vec::new();
        loop {
            let t = self.tok().clone();
            match &t.kind {
                TokenKind::Eof => {
                    let d = Diagnostic::error(
                        "E0112",
                        "unterminated annotation body",
                        open,
                        "this `(` is never closed",
                    );
                    return Err(self.report(d));
                }
                TokenKind::Punct(p @ (Punct::LParen | Punct::LBracket | Punct::LBrace)) => {
                    stack.push(match p {
                        Punct::LParen => Punct::RParen,
                        Punct::LBracket => Punct::RBracket,
                        _ => Punct::RBrace,
                    });
                }
                TokenKind::Punct(p @ (Punct::RParen | Punct::RBracket | Punct::RBrace)) => {
                    if stack.last() != Some(p) {
                        let sp = t.span;
                        let d = Diagnostic::error(
                            "E0112",
                            format!("unbalanced `{}` in annotation body", p.as_str()),
                            sp,
                            "does not match the open bracket",
                        )
                        .with_secondary(open, "annotation body starts here");
                        return Err(self.report(d));
                    }
                    stack.pop();
                    if stack.is_empty() {
                        self.bump();
                        break;
                    }
                }
                _ => {}
            }
            tokens.push(self.bump());
        }
        let exprs = parse_expr_list_tokens(self.file, &tokens);
        Ok(AnnotationBody::Unstructured { tokens, exprs })
    }

    fn structured_body(&mut self) -> PResult<AnnotationBody> {
        self.expect_p(Punct::LBracket)?;
        if self.eat_p(Punct::RBracket) {
            return Ok(AnnotationBody::ExprList(Vec::new()));
        }
        let body = if self.nth_is_ident(0) && self.nth_is_p(1, Punct::Assign) {
            let mut kvs = Vec::new();
            loop {
                let name = self.ident()?;
                self.expect_p(Punct::Assign)?;
                let value = self.expr()?;
                kvs.push(NamedExpr {
                    span: name.span.to(value.span),
                    name,
                    value,
                });
                if !self.eat_p(Punct::Comma) || self.at_p(Punct::RBracket) {
                    break;
                }
            }
            AnnotationBody::KeyValueList(kvs)
        } else {
            let mut es = Vec::new();
            loop {
                es.push(self.expr()?);
                if !self.eat_p(Punct::Comma) || self.at_p(Punct::RBracket) {
                    break;
                }
            }
            AnnotationBody::ExprList(es)
        };
        self.expect_p(Punct::RBracket)?;
        Ok(body)
    }
}

/// Parse a token list as a comma-separated expression list; None if it is
/// not one. Used for unstructured annotation bodies.
fn parse_expr_list_tokens(file: FileId, tokens: &[Token]) -> Option<Vec<Expr>> {
    if tokens.is_empty() {
        return Some(Vec::new());
    }
    let mut p = Parser::new(file, tokens.to_vec());
    p.speculating = 1;
    let mut out = Vec::new();
    loop {
        out.push(p.expr().ok()?);
        if !p.eat_p(Punct::Comma) {
            break;
        }
    }
    if p.at_eof() && p.diags.is_empty() {
        Some(out)
    } else {
        None
    }
}

/// Parse a whole program from a token vector.
pub(crate) fn parse_tokens(file: FileId, toks: Vec<Token>) -> (Program, Vec<Diagnostic>) {
    let mut p = Parser::new(file, toks);
    let mut decls = Vec::new();
    while !p.at_eof() && !p.aborted {
        let before = p.pos();
        if p.eat_p(Punct::Semi) {
            continue;
        }
        match p.decl(DeclCtx::TopLevel) {
            Ok(d) => decls.push(d),
            Err(Fail) => {
                p.recover();
                if p.at_p(Punct::RBrace) {
                    // Stray `}` at top level.
                    let sp = p.span();
                    p.report(Diagnostic::error(
                        "E0102",
                        "unexpected `}` at top level",
                        sp,
                        "no open block here",
                    ));
                    p.bump();
                }
            }
        }
        if p.pos() == before {
            p.bump();
        }
    }
    (Program { decls }, p.diags)
}

#[cfg(test)]
mod tests;
