//! P4_16 lexer.
//!
//! Produces the whole token vector up front (the parser backtracks over it to
//! disambiguate generic calls and casts). Never panics: unknown bytes,
//! unterminated comments/strings and malformed numbers become diagnostics and
//! lexing continues.
//!
//! Notes on the token set:
//! * `>` is always a single token. The parser joins adjacent `>` `>` into a
//!   right shift and `>` `=` into `>=`, so that `bit<8>>` closes two type
//!   argument lists (as p4c does).
//! * Contextual keywords (`apply`, `key`, `actions`, `entries`, `state`,
//!   `type`, `priority`, `list`) are lexed as identifiers; the parser checks
//!   their text where they have a special meaning.
//! * Lines whose first non-blank character is `#` (cpp line markers, leftover
//!   `#pragma`s) are skipped.

use crate::diag::Diagnostic;
use crate::span::{FileId, Span};
use num_bigint::BigUint;
use num_traits::Zero;
use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token {
    pub kind: TokenKind,
    pub span: Span,
}

/// Reserved keywords.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kw {
    Abstract,
    Action,
    Bit,
    Bool,
    Break,
    Const,
    Continue,
    Control,
    Default,
    Else,
    Enum,
    Error,
    Exit,
    Extern,
    False,
    For,
    Header,
    HeaderUnion,
    If,
    In,
    InOut,
    Int,
    MatchKind,
    Out,
    Package,
    Parser,
    Return,
    Select,
    String,
    Struct,
    Switch,
    Table,
    This,
    Transition,
    True,
    Tuple,
    Typedef,
    ValueSet,
    Varbit,
    Void,
}

const KEYWORDS: &[(&str, Kw)] = &[
    ("abstract", Kw::Abstract),
    ("action", Kw::Action),
    ("bit", Kw::Bit),
    ("bool", Kw::Bool),
    ("break", Kw::Break),
    ("const", Kw::Const),
    ("continue", Kw::Continue),
    ("control", Kw::Control),
    ("default", Kw::Default),
    ("else", Kw::Else),
    ("enum", Kw::Enum),
    ("error", Kw::Error),
    ("exit", Kw::Exit),
    ("extern", Kw::Extern),
    ("false", Kw::False),
    ("for", Kw::For),
    ("header", Kw::Header),
    ("header_union", Kw::HeaderUnion),
    ("if", Kw::If),
    ("in", Kw::In),
    ("inout", Kw::InOut),
    ("int", Kw::Int),
    ("match_kind", Kw::MatchKind),
    ("out", Kw::Out),
    ("package", Kw::Package),
    ("parser", Kw::Parser),
    ("return", Kw::Return),
    ("select", Kw::Select),
    ("string", Kw::String),
    ("struct", Kw::Struct),
    ("switch", Kw::Switch),
    ("table", Kw::Table),
    ("this", Kw::This),
    ("transition", Kw::Transition),
    ("true", Kw::True),
    ("tuple", Kw::Tuple),
    ("typedef", Kw::Typedef),
    ("value_set", Kw::ValueSet),
    ("varbit", Kw::Varbit),
    ("void", Kw::Void),
];

impl Kw {
    pub fn as_str(self) -> &'static str {
        KEYWORDS
            .iter()
            .find(|(_, k)| *k == self)
            .map(|(s, _)| *s)
            .unwrap_or("?")
    }
    pub fn from_word(s: &str) -> Option<Kw> {
        KEYWORDS.iter().find(|(t, _)| *t == s).map(|(_, k)| *k)
    }
}

/// Punctuation and operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Punct {
    LBrace,
    RBrace,
    LParen,
    RParen,
    LBracket,
    RBracket,
    Lt,
    Gt,
    Semi,
    Comma,
    Dot,
    DotDot,
    Ellipsis,
    Colon,
    Question,
    Assign,
    Not,
    Tilde,
    Plus,
    Minus,
    Star,
    Slash,
    Percent,
    Amp,
    Pipe,
    Caret,
    At,
    Hash,
    AndAnd,
    OrOr,
    Mask,
    PlusPlus,
    Shl,
    EqEq,
    Ne,
    Le,
    AddSat,
    SubSat,
    PlusAssign,
    MinusAssign,
    StarAssign,
    SlashAssign,
    PercentAssign,
    ShlAssign,
    AmpAssign,
    CaretAssign,
    PipeAssign,
    AddSatAssign,
    SubSatAssign,
}

impl Punct {
    pub fn as_str(self) -> &'static str {
        use Punct::*;
        match self {
            LBrace => "{",
            RBrace => "}",
            LParen => "(",
            RParen => ")",
            LBracket => "[",
            RBracket => "]",
            Lt => "<",
            Gt => ">",
            Semi => ";",
            Comma => ",",
            Dot => ".",
            DotDot => "..",
            Ellipsis => "...",
            Colon => ":",
            Question => "?",
            Assign => "=",
            Not => "!",
            Tilde => "~",
            Plus => "+",
            Minus => "-",
            Star => "*",
            Slash => "/",
            Percent => "%",
            Amp => "&",
            Pipe => "|",
            Caret => "^",
            At => "@",
            Hash => "#",
            AndAnd => "&&",
            OrOr => "||",
            Mask => "&&&",
            PlusPlus => "++",
            Shl => "<<",
            EqEq => "==",
            Ne => "!=",
            Le => "<=",
            AddSat => "|+|",
            SubSat => "|-|",
            PlusAssign => "+=",
            MinusAssign => "-=",
            StarAssign => "*=",
            SlashAssign => "/=",
            PercentAssign => "%=",
            ShlAssign => "<<=",
            AmpAssign => "&=",
            CaretAssign => "^=",
            PipeAssign => "|=",
            AddSatAssign => "|+|=",
            SubSatAssign => "|-|=",
        }
    }
}

/// Longest-first operator table.
const PUNCTS: &[(&str, Punct)] = &[
    ("|+|=", Punct::AddSatAssign),
    ("|-|=", Punct::SubSatAssign),
    ("...", Punct::Ellipsis),
    ("&&&", Punct::Mask),
    ("|+|", Punct::AddSat),
    ("|-|", Punct::SubSat),
    ("<<=", Punct::ShlAssign),
    ("..", Punct::DotDot),
    ("&&", Punct::AndAnd),
    ("||", Punct::OrOr),
    ("++", Punct::PlusPlus),
    ("<<", Punct::Shl),
    ("==", Punct::EqEq),
    ("!=", Punct::Ne),
    ("<=", Punct::Le),
    ("+=", Punct::PlusAssign),
    ("-=", Punct::MinusAssign),
    ("*=", Punct::StarAssign),
    ("/=", Punct::SlashAssign),
    ("%=", Punct::PercentAssign),
    ("&=", Punct::AmpAssign),
    ("^=", Punct::CaretAssign),
    ("|=", Punct::PipeAssign),
    ("{", Punct::LBrace),
    ("}", Punct::RBrace),
    ("(", Punct::LParen),
    (")", Punct::RParen),
    ("[", Punct::LBracket),
    ("]", Punct::RBracket),
    ("<", Punct::Lt),
    (">", Punct::Gt),
    (";", Punct::Semi),
    (",", Punct::Comma),
    (".", Punct::Dot),
    (":", Punct::Colon),
    ("?", Punct::Question),
    ("=", Punct::Assign),
    ("!", Punct::Not),
    ("~", Punct::Tilde),
    ("+", Punct::Plus),
    ("-", Punct::Minus),
    ("*", Punct::Star),
    ("/", Punct::Slash),
    ("%", Punct::Percent),
    ("&", Punct::Amp),
    ("|", Punct::Pipe),
    ("^", Punct::Caret),
    ("@", Punct::At),
    ("#", Punct::Hash),
];

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TokenKind {
    /// Identifier (including contextual keywords).
    Ident(String),
    Kw(Kw),
    /// `_`
    DontCare,
    /// Integer literal; see [`crate::ast::IntLit`].
    Int {
        value: BigUint,
        width: Option<u32>,
        signed: bool,
        radix: u32,
    },
    /// String literal (contents without quotes, escapes kept as written).
    Str(String),
    Punct(Punct),
    /// A byte sequence that is not a token (already diagnosed).
    Unknown,
    Eof,
}

impl fmt::Display for TokenKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TokenKind::Ident(s) => write!(f, "{s}"),
            TokenKind::Kw(k) => write!(f, "{}", k.as_str()),
            TokenKind::DontCare => write!(f, "_"),
            TokenKind::Int {
                value, width, signed, ..
            } => match width {
                Some(w) => write!(f, "{w}{}{value}", if *signed { 's' } else { 'w' }),
                None => write!(f, "{value}"),
            },
            TokenKind::Str(s) => write!(f, "\"{s}\""),
            TokenKind::Punct(p) => write!(f, "{}", p.as_str()),
            TokenKind::Unknown => write!(f, "<invalid>"),
            TokenKind::Eof => write!(f, "<end of file>"),
        }
    }
}

impl TokenKind {
    /// Human description used in "found ..." messages.
    pub fn describe(&self) -> String {
        match self {
            TokenKind::Eof => "end of file".to_string(),
            TokenKind::Ident(s) => format!("identifier `{s}`"),
            TokenKind::Kw(k) => format!("keyword `{}`", k.as_str()),
            TokenKind::Int { .. } => format!("integer `{self}`"),
            TokenKind::Str(_) => "string literal".to_string(),
            TokenKind::Unknown => "invalid token".to_string(),
            _ => format!("`{self}`"),
        }
    }
}

/// Maximum accepted literal width (`Nw...`); larger widths are diagnosed.
pub const MAX_LITERAL_WIDTH: u64 = 1 << 20;

struct Lexer<'a> {
    src: &'a [u8],
    text: &'a str,
    pos: usize,
    file: FileId,
    tokens: Vec<Token>,
    diags: Vec<Diagnostic>,
    at_line_start: bool,
}

/// Tokenize `text` (file `file`). Always ends with an `Eof` token.
pub fn lex(file: FileId, text: &str) -> (Vec<Token>, Vec<Diagnostic>) {
    let mut lx = Lexer {
        src: text.as_bytes(),
        text,
        pos: 0,
        file,
        tokens: Vec::new(),
        diags: Vec::new(),
        at_line_start: true,
    };
    lx.run();
    let end = text.len() as u32;
    lx.tokens.push(Token {
        kind: TokenKind::Eof,
        span: Span::new(file, end, end),
    });
    (lx.tokens, lx.diags)
}

fn is_ident_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_'
}
fn is_ident_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

impl<'a> Lexer<'a> {
    fn span(&self, lo: usize, hi: usize) -> Span {
        Span::new(self.file, lo as u32, hi as u32)
    }
    fn peek(&self, off: usize) -> u8 {
        self.src.get(self.pos + off).copied().unwrap_or(0)
    }
    fn push(&mut self, kind: TokenKind, lo: usize) {
        let sp = self.span(lo, self.pos);
        self.tokens.push(Token { kind, span: sp });
    }

    fn run(&mut self) {
        while self.pos < self.src.len() {
            let start = self.pos;
            let b = self.src[self.pos];
            match b {
                b'\n' => {
                    self.pos += 1;
                    self.at_line_start = true;
                    continue;
                }
                b' ' | b'\t' | b'\r' | 0x0b | 0x0c => {
                    self.pos += 1;
                    continue;
                }
                b'#' if self.at_line_start => {
                    while self.pos < self.src.len() && self.src[self.pos] != b'\n' {
                        self.pos += 1;
                    }
                    continue;
                }
                b'/' if self.peek(1) == b'/' => {
                    while self.pos < self.src.len() && self.src[self.pos] != b'\n' {
                        self.pos += 1;
                    }
                    continue;
                }
                b'/' if self.peek(1) == b'*' => {
                    self.block_comment();
                    continue;
                }
                _ => {}
            }
            self.at_line_start = false;
            if is_ident_start(b) {
                while self.pos < self.src.len() && is_ident_char(self.src[self.pos]) {
                    self.pos += 1;
                }
                let word = &self.text[start..self.pos];
                let kind = if word == "_" {
                    TokenKind::DontCare
                } else if let Some(k) = Kw::from_word(word) {
                    TokenKind::Kw(k)
                } else {
                    TokenKind::Ident(word.to_string())
                };
                self.push(kind, start);
            } else if b.is_ascii_digit() {
                self.number();
            } else if b == b'"' {
                self.string();
            } else if let Some((s, p)) = PUNCTS
                .iter()
                .find(|(s, _)| self.src[self.pos..].starts_with(s.as_bytes()))
            {
                self.pos += s.len();
                self.push(TokenKind::Punct(*p), start);
            } else {
                // Unknown character: consume one whole UTF-8 scalar.
                let ch = self.text[start..].chars().next().unwrap_or('\u{fffd}');
                self.pos += ch.len_utf8().max(1);
                let sp = self.span(start, self.pos);
                self.diags.push(Diagnostic::error(
                    "E0108",
                    format!("unexpected character `{}`", ch.escape_debug()),
                    sp,
                    "not valid in P4",
                ));
                self.push(TokenKind::Unknown, start);
            }
        }
    }

    fn block_comment(&mut self) {
        let start = self.pos;
        self.pos += 2;
        loop {
            if self.pos >= self.src.len() {
                let sp = self.span(start, start + 2);
                self.diags.push(Diagnostic::error(
                    "E0106",
                    "unterminated block comment",
                    sp,
                    "comment starts here",
                ));
                return;
            }
            if self.src[self.pos] == b'*' && self.peek(1) == b'/' {
                self.pos += 2;
                return;
            }
            self.pos += 1;
        }
    }

    fn string(&mut self) {
        let start = self.pos;
        self.pos += 1;
        loop {
            match self.src.get(self.pos) {
                None | Some(b'\n') => {
                    let sp = self.span(start, self.pos);
                    self.diags.push(Diagnostic::error(
                        "E0107",
                        "unterminated string literal",
                        sp.to(self.span(start, start + 1)),
                        "string starts here",
                    ));
                    let s = self.text[start + 1..self.pos].to_string();
                    self.push(TokenKind::Str(s), start);
                    return;
                }
                Some(b'"') => {
                    let s = self.text[start + 1..self.pos].to_string();
                    self.pos += 1;
                    self.push(TokenKind::Str(s), start);
                    return;
                }
                Some(b'\\') => {
                    let esc = self.peek(1);
                    if !matches!(esc, b'"' | b'\\' | b'n' | b't' | b'r' | b'0' | b'\'') {
                        let hi = if esc == 0 || esc == b'\n' || !esc.is_ascii() {
                            self.pos + 1
                        } else {
                            self.pos + 2
                        };
                        let sp = self.span(self.pos, hi);
                        self.diags.push(
                            Diagnostic::error(
                                "E0119",
                                "invalid escape sequence in string literal",
                                sp,
                                "unknown escape",
                            )
                            .with_help("valid escapes are \\\" \\\\ \\n \\t \\r \\0 \\'"),
                        );
                    }
                    if esc == 0 || esc == b'\n' || !esc.is_ascii() {
                        self.pos += 1;
                    } else {
                        self.pos += 2;
                    }
                }
                Some(_) => {
                    // Advance one UTF-8 scalar (text is valid UTF-8).
                    let ch_len = self.text[self.pos..].chars().next().map(|c| c.len_utf8()).unwrap_or(1);
                    self.pos += ch_len;
                }
            }
        }
    }

    /// Integer literal: `[width ('w'|'s')] [0x|0o|0d|0b] digits`, `_` allowed
    /// between digits.
    fn number(&mut self) {
        let start = self.pos;
        // Scan the maximal alphanumeric/underscore run: the whole literal.
        while self.pos < self.src.len() && is_ident_char(self.src[self.pos]) {
            self.pos += 1;
        }
        let text = &self.text[start..self.pos];
        let sp = self.span(start, self.pos);
        match parse_int_literal(text) {
            Ok((value, width, signed, radix)) => self.push(
                TokenKind::Int {
                    value,
                    width,
                    signed,
                    radix,
                },
                start,
            ),
            Err(msg) => {
                self.diags.push(Diagnostic::error(
                    "E0109",
                    format!("invalid integer literal `{text}`"),
                    sp,
                    msg,
                ));
                self.push(
                    TokenKind::Int {
                        value: BigUint::zero(),
                        width: None,
                        signed: false,
                        radix: 10,
                    },
                    start,
                );
            }
        }
    }
}

/// Parse the text of an integer literal. Returns (value, width, signed, radix)
/// or a message describing the problem.
pub fn parse_int_literal(text: &str) -> Result<(BigUint, Option<u32>, bool, u32), String> {
    let bytes = text.as_bytes();
    // Width prefix: decimal digits followed by `w` or `s`.
    let mut i = 0;
    while i < bytes.len() && bytes[i].is_ascii_digit() {
        i += 1;
    }
    let (width, signed, rest) = if i < bytes.len() && (bytes[i] == b'w' || bytes[i] == b's') {
        let w: u64 = text[..i].parse().map_err(|_| "width is too large".to_string())?;
        if w == 0 && bytes[i] == b's' {
            return Err("a signed literal needs a width of at least 1".to_string());
        }
        if w > MAX_LITERAL_WIDTH {
            return Err(format!("width {w} is too large (at most {MAX_LITERAL_WIDTH})"));
        }
        (Some(w as u32), bytes[i] == b's', &text[i + 1..])
    } else {
        (None, false, text)
    };
    let rb = rest.as_bytes();
    let (radix, digits) = if rb.len() >= 2 && rb[0] == b'0' {
        match rb[1] {
            b'x' | b'X' => (16, &rest[2..]),
            b'o' | b'O' => (8, &rest[2..]),
            b'd' | b'D' => (10, &rest[2..]),
            b'b' | b'B' => (2, &rest[2..]),
            _ => (10, rest),
        }
    } else {
        (10, rest)
    };
    let clean: String = digits.chars().filter(|&c| c != '_').collect();
    if clean.is_empty() {
        return Err("missing digits".to_string());
    }
    if let Some(bad) = clean.chars().find(|c| !c.is_digit(radix)) {
        return Err(format!("`{bad}` is not a base-{radix} digit"));
    }
    let value = BigUint::parse_bytes(clean.as_bytes(), radix).ok_or_else(|| "malformed digits".to_string())?;
    Ok((value, width, signed, radix))
}

/// Debug dump of the token stream (`--show-tokens`).
pub fn dump_tokens(tokens: &[Token]) -> String {
    let mut out = String::new();
    for t in tokens {
        out.push_str(&format!("{}..{} {:?}\n", t.span.lo, t.span.hi, t.kind));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(s: &str) -> Vec<TokenKind> {
        let (t, d) = lex(FileId(0), s);
        assert!(d.is_empty(), "{d:?}");
        t.into_iter().map(|t| t.kind).collect()
    }
    fn int(v: u64, width: Option<u32>, signed: bool, radix: u32) -> TokenKind {
        TokenKind::Int {
            value: BigUint::from(v),
            width,
            signed,
            radix,
        }
    }

    #[test]
    fn literals() {
        assert_eq!(kinds("8w5")[0], int(5, Some(8), false, 10));
        assert_eq!(kinds("4s3")[0], int(3, Some(4), true, 10));
        assert_eq!(kinds("0xFF_FF")[0], int(0xffff, None, false, 16));
        assert_eq!(kinds("16w0x0800")[0], int(0x800, Some(16), false, 16));
        assert_eq!(kinds("0b1010")[0], int(10, None, false, 2));
        assert_eq!(kinds("0o17")[0], int(15, None, false, 8));
        assert_eq!(kinds("0d99")[0], int(99, None, false, 10));
        assert_eq!(kinds("1_000")[0], int(1000, None, false, 10));
        let big = kinds("128w0xffffffffffffffffffffffffffffffff");
        assert!(matches!(&big[0], TokenKind::Int { width: Some(128), .. }));
    }

    #[test]
    fn bad_literals_are_diagnosed() {
        for s in ["0x", "8w0xZZ", "0b102", "99999999999999999999999w1", "0s1"] {
            let (t, d) = lex(FileId(0), s);
            assert_eq!(d.len(), 1, "{s}");
            assert_eq!(d[0].code, "E0109");
            assert!(matches!(t[0].kind, TokenKind::Int { .. }));
        }
    }

    #[test]
    fn operators() {
        use Punct::*;
        let k = kinds("&&& .. ... ++ |+| |-| << >> >= <= == != && || |+|= -=");
        let p: Vec<_> = k
            .iter()
            .filter_map(|k| if let TokenKind::Punct(p) = k { Some(*p) } else { None })
            .collect();
        assert_eq!(
            p,
            vec![
                Mask,
                DotDot,
                Ellipsis,
                PlusPlus,
                AddSat,
                SubSat,
                Shl,
                Gt,
                Gt,
                Gt,
                Assign,
                Le,
                EqEq,
                Ne,
                AndAnd,
                OrOr,
                AddSatAssign,
                MinusAssign
            ]
        );
    }

    #[test]
    fn keywords_identifiers_comments_markers() {
        let k = kinds("# 1 \"x.p4\"\ncontrol /* c */ apply // x\n _ _a header_union\n  #pragma foo\n{#}");
        assert_eq!(
            k,
            vec![
                TokenKind::Kw(Kw::Control),
                TokenKind::Ident("apply".into()),
                TokenKind::DontCare,
                TokenKind::Ident("_a".into()),
                TokenKind::Kw(Kw::HeaderUnion),
                TokenKind::Punct(Punct::LBrace),
                TokenKind::Punct(Punct::Hash),
                TokenKind::Punct(Punct::RBrace),
                TokenKind::Eof
            ]
        );
    }

    #[test]
    fn strings_and_errors() {
        assert_eq!(kinds(r#""a\"b""#)[0], TokenKind::Str(r#"a\"b"#.into()));
        let (_, d) = lex(FileId(0), "\"abc");
        assert_eq!(d[0].code, "E0107");
        let (_, d) = lex(FileId(0), "/* abc");
        assert_eq!(d[0].code, "E0106");
        let (t, d) = lex(FileId(0), "a $ é b");
        assert_eq!(d.len(), 2);
        assert_eq!(t.len(), 5);
    }

    #[test]
    fn never_panics_on_garbage() {
        let inputs = ["\"\\", "0x_", "9w", "1s", "/*", "\"\\é", "#", "@", "\u{0}", "8w0b_"];
        for s in inputs {
            let _ = lex(FileId(0), s);
        }
    }
}
