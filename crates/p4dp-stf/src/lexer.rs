//! Tokenizer for one STF line (everything except `packet`/`expect` data,
//! which the parser reads character by character).
//!
//! Lexical rules (docs/stf.md, "The language in one page"): identifiers are `[A-Za-z_$][A-Za-z0-9_$]*` or a
//! double-quoted string without embedded quotes; numbers are decimal
//! `[0-9]+`, hex `0x[0-9a-fA-F*]+` and binary `0b[01*]+` (`*` = don't care),
//! plus `N.M` rate literals; `#` starts a comment that runs to the end of the
//! line. There is no sign and no octal.

use crate::diag::Span;

/// Radix of a number literal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Radix {
    Dec,
    Hex,
    Bin,
}

/// A number literal as written: radix and digits (without the `0x`/`0b`
/// prefix; hex and binary digits may contain `*`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Num {
    pub radix: Radix,
    pub digits: String,
    pub span: Span,
}

impl Num {
    /// The literal as the user wrote it (prefix included).
    pub fn text(&self) -> String {
        match self.radix {
            Radix::Dec => self.digits.clone(),
            Radix::Hex => format!("0x{}", self.digits),
            Radix::Bin => format!("0b{}", self.digits),
        }
    }

    pub fn has_wildcards(&self) -> bool {
        self.digits.contains('*')
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Tok {
    /// Identifier; `quoted` when it was written as `"..."` (quotes removed).
    Ident {
        text: String,
        quoted: bool,
    },
    Num(Num),
    /// A rate literal `N.M`, as written.
    Float(String),
    Dot,
    DotDot,
    Colon,
    Comma,
    LParen,
    RParen,
    LBracket,
    RBracket,
    Slash,
    Star,
    Assign,
    EqEq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl Tok {
    /// How the token is described in error messages.
    pub fn describe(&self) -> String {
        match self {
            Tok::Ident { text, quoted: false } => format!("`{text}`"),
            Tok::Ident { text, quoted: true } => format!("`\"{text}\"`"),
            Tok::Num(n) => format!("number `{}`", n.text()),
            Tok::Float(s) => format!("number `{s}`"),
            other => format!("`{}`", other.punct_text()),
        }
    }

    fn punct_text(&self) -> &'static str {
        match self {
            Tok::Dot => ".",
            Tok::DotDot => "..",
            Tok::Colon => ":",
            Tok::Comma => ",",
            Tok::LParen => "(",
            Tok::RParen => ")",
            Tok::LBracket => "[",
            Tok::RBracket => "]",
            Tok::Slash => "/",
            Tok::Star => "*",
            Tok::Assign => "=",
            Tok::EqEq => "==",
            Tok::Ne => "!=",
            Tok::Lt => "<",
            Tok::Le => "<=",
            Tok::Gt => ">",
            Tok::Ge => ">=",
            _ => "?",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token {
    pub tok: Tok,
    pub span: Span,
}

/// A lexical error: where and what.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LexError {
    pub span: Span,
    pub message: String,
}

pub fn is_ident_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_' || c == '$'
}

pub fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '$'
}

/// Tokenize `chars[start..]` of line `line` (columns are 1-based character
/// positions in the whole line). Stops at a `#` comment.
pub fn lex_line(line: u32, chars: &[char], start: usize) -> Result<Vec<Token>, LexError> {
    let mut out = Vec::new();
    let mut i = start;
    let span = |lo: usize, hi: usize| Span::new(line, lo as u32 + 1, (hi - lo) as u32);
    while i < chars.len() {
        let c = chars[i];
        if c == ' ' || c == '\t' {
            i += 1;
            continue;
        }
        if c == '#' {
            break;
        }
        let lo = i;
        if is_ident_start(c) {
            while i < chars.len() && is_ident_char(chars[i]) {
                i += 1;
            }
            let text: String = chars[lo..i].iter().collect();
            out.push(Token {
                tok: Tok::Ident { text, quoted: false },
                span: span(lo, i),
            });
            continue;
        }
        if c == '"' {
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                i += 1;
            }
            if i >= chars.len() {
                return Err(LexError {
                    span: span(lo, i),
                    message: "unterminated quoted identifier".into(),
                });
            }
            let text: String = chars[lo + 1..i].iter().collect();
            i += 1;
            if text.is_empty() {
                return Err(LexError {
                    span: span(lo, i),
                    message: "empty quoted identifier".into(),
                });
            }
            out.push(Token {
                tok: Tok::Ident { text, quoted: true },
                span: span(lo, i),
            });
            continue;
        }
        if c.is_ascii_digit() {
            let next = chars.get(i + 1).copied();
            let (radix, ok): (Radix, fn(char) -> bool) = match (c, next) {
                ('0', Some('x' | 'X')) => (Radix::Hex, |c| c.is_ascii_hexdigit() || c == '*'),
                ('0', Some('b' | 'B')) => (Radix::Bin, |c| c == '0' || c == '1' || c == '*'),
                _ => (Radix::Dec, |c| c.is_ascii_digit()),
            };
            if radix != Radix::Dec {
                i += 2;
            }
            let dstart = i;
            while i < chars.len() && ok(chars[i]) {
                i += 1;
            }
            if i == dstart {
                let what = if radix == Radix::Hex {
                    "hex digits after `0x`"
                } else {
                    "binary digits after `0b`"
                };
                return Err(LexError {
                    span: span(lo, i),
                    message: format!("expected {what}"),
                });
            }
            // A digit or letter glued to the literal is a malformed number
            // (`0x12g`, `0b102`), except a unit suffix after a decimal number
            // (`10ms`), which the parser handles.
            if i < chars.len() && radix != Radix::Dec && is_ident_char(chars[i]) {
                let mut j = i;
                while j < chars.len() && is_ident_char(chars[j]) {
                    j += 1;
                }
                let kind = if radix == Radix::Hex { "hex" } else { "binary" };
                return Err(LexError {
                    span: span(lo, j),
                    message: format!("invalid {kind} digit `{}` in number", chars[i]),
                });
            }
            let digits: String = chars[dstart..i].iter().collect();
            // `N.M` rate literal (but not `N..M`, a range).
            if radix == Radix::Dec && chars.get(i) == Some(&'.') && chars.get(i + 1).is_some_and(|c| c.is_ascii_digit())
            {
                i += 1;
                while i < chars.len() && chars[i].is_ascii_digit() {
                    i += 1;
                }
                let text: String = chars[lo..i].iter().collect();
                out.push(Token {
                    tok: Tok::Float(text),
                    span: span(lo, i),
                });
                continue;
            }
            let num = Num {
                radix,
                digits,
                span: span(lo, i),
            };
            out.push(Token {
                tok: Tok::Num(num),
                span: span(lo, i),
            });
            continue;
        }
        let two = chars.get(i + 1).copied();
        let (tok, n) = match (c, two) {
            ('.', Some('.')) => (Tok::DotDot, 2),
            ('.', _) => (Tok::Dot, 1),
            (':', _) => (Tok::Colon, 1),
            (',', _) => (Tok::Comma, 1),
            ('(', _) => (Tok::LParen, 1),
            (')', _) => (Tok::RParen, 1),
            ('[', _) => (Tok::LBracket, 1),
            (']', _) => (Tok::RBracket, 1),
            ('/', _) => (Tok::Slash, 1),
            ('*', _) => (Tok::Star, 1),
            ('=', Some('=')) => (Tok::EqEq, 2),
            ('=', _) => (Tok::Assign, 1),
            ('!', Some('=')) => (Tok::Ne, 2),
            ('<', Some('=')) => (Tok::Le, 2),
            ('<', _) => (Tok::Lt, 1),
            ('>', Some('=')) => (Tok::Ge, 2),
            ('>', _) => (Tok::Gt, 1),
            _ => {
                return Err(LexError {
                    span: span(lo, lo + 1),
                    message: format!("unexpected character `{c}`"),
                });
            }
        };
        i += n;
        out.push(Token { tok, span: span(lo, i) });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lex(s: &str) -> Result<Vec<Tok>, LexError> {
        let chars: Vec<char> = s.chars().collect();
        lex_line(1, &chars, 0).map(|v| v.into_iter().map(|t| t.tok).collect())
    }

    fn ident(s: &str) -> Tok {
        Tok::Ident {
            text: s.into(),
            quoted: false,
        }
    }

    fn num(radix: Radix, d: &str, col: u32) -> Tok {
        Tok::Num(Num {
            radix,
            digits: d.into(),
            span: Span::new(1, col, 0),
        })
    }

    #[test]
    fn identifiers_with_dollar_and_quotes() {
        let t = lex("$valid$ extra$0 \"a.b c\"").unwrap();
        assert_eq!(t[0], ident("$valid$"));
        assert_eq!(t[1], ident("extra$0"));
        assert_eq!(
            t[2],
            Tok::Ident {
                text: "a.b c".into(),
                quoted: true
            }
        );
    }

    #[test]
    fn numbers() {
        let toks = lex("42 0x0a** 0B10*1 0.000005 1..5").unwrap();
        let strip = |t: &Tok| match t {
            Tok::Num(n) => num(n.radix, &n.digits, 0),
            o => o.clone(),
        };
        let t: Vec<Tok> = toks.iter().map(strip).collect();
        assert_eq!(t[0], num(Radix::Dec, "42", 0));
        assert_eq!(t[1], num(Radix::Hex, "0a**", 0));
        assert_eq!(t[2], num(Radix::Bin, "10*1", 0));
        assert_eq!(t[3], Tok::Float("0.000005".into()));
        assert_eq!(t[4], num(Radix::Dec, "1", 0));
        assert_eq!(t[5], Tok::DotDot);
        assert_eq!(t[6], num(Radix::Dec, "5", 0));
    }

    #[test]
    fn punctuation_and_comment() {
        let t = lex("a[1].b:0x1/8 == != <= >= < > = , ( ) # comment ( ").unwrap();
        assert_eq!(t.len(), 20);
        assert_eq!(t[1], Tok::LBracket);
        assert_eq!(
            t[9],
            Tok::Num(Num {
                radix: Radix::Dec,
                digits: "8".into(),
                span: Span::new(1, 12, 1)
            })
        );
        assert_eq!(t[10], Tok::EqEq);
        assert_eq!(t[19], Tok::RParen);
    }

    #[test]
    fn spans_are_columns() {
        let chars: Vec<char> = "add  t1 0x12".chars().collect();
        let t = lex_line(7, &chars, 0).unwrap();
        assert_eq!(t[1].span, Span::new(7, 6, 2));
        assert_eq!(t[2].span, Span::new(7, 9, 4));
    }

    #[test]
    fn errors() {
        assert_eq!(lex("0x").unwrap_err().message, "expected hex digits after `0x`");
        assert_eq!(lex("0b2").unwrap_err().message, "expected binary digits after `0b`");
        assert_eq!(lex("0x12g").unwrap_err().message, "invalid hex digit `g` in number");
        assert_eq!(lex("0b103").unwrap_err().message, "invalid binary digit `3` in number");
        assert_eq!(lex("\"abc").unwrap_err().message, "unterminated quoted identifier");
        assert_eq!(lex("\"\"").unwrap_err().message, "empty quoted identifier");
        let e = lex("a ; b").unwrap_err();
        assert_eq!(e.message, "unexpected character `;`");
        assert_eq!(e.span, Span::new(1, 3, 1));
    }
}
