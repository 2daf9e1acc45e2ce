//! Parser for STF scripts (docs/stf.md, "The language in one page") plus the p4dp extensions.
//!
//! The language is line-oriented: every non-empty, non-comment line is one
//! statement whose first word is a case-insensitive keyword. `packet` and
//! `expect` lines are read character by character (their data is hex with
//! whitespace ignored, and for `expect` also `*` and a final `$`); all other
//! lines are tokenized by [`crate::lexer`] and parsed by recursive descent.
//!
//! Parsing is strict (docs/stf.md, "What p4dp decides") and keeps
//! going after an error, so one run reports every bad line.

use crate::ast::*;
use crate::diag::{Diagnostics, Reporter, Span};
use crate::lexer::{is_ident_char, is_ident_start, lex_line, Tok, Token};

/// Every statement keyword, for the "unknown statement" note.
const KEYWORDS: &[&str] = &[
    "packet",
    "expect",
    "add",
    "setdefault",
    "remove",
    "check_counter",
    "wait",
    "no_packet",
    "mirroring_add",
    "mirroring_add_mc",
    "mirroring_delete",
    "mirroring_get",
    "mc_mgrp_create",
    "mc_node_create",
    "mc_node_update",
    "mc_node_associate",
    "counter_read",
    "counter_write",
    "register_read",
    "register_write",
    "register_reset",
    "meter_get_rates",
    "meter_set_rates",
    "meter_array_set_rates",
    "advance_time",
    "background",
    "act_prof_create_member",
    "act_prof_create_group",
    "act_prof_add_member_to_group",
    "table_indirect_add",
    "table_indirect_add_with_group",
];

/// Parse a whole script. `file` is the name used in diagnostics.
///
/// Returns every parse error (one per bad line at most) if there is any.
pub fn parse(file: &str, text: &str) -> Result<Script, Diagnostics> {
    let lines: Vec<String> = text
        .split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l).to_string())
        .collect();
    let mut rep = Reporter::new(file, &lines);
    let mut stmts = Vec::new();
    for (idx, line) in lines.iter().enumerate() {
        let line_no = idx as u32 + 1;
        let chars: Vec<char> = line.chars().collect();
        match parse_line(line_no, &chars) {
            Ok(Some(stmt)) => stmts.push(stmt),
            Ok(None) => {}
            Err(e) => {
                let mut d = rep.make(e.span, e.message);
                d.note = e.note;
                rep.push(d);
            }
        }
    }
    if rep.has_errors() {
        return Err(Diagnostics(rep.diags));
    }
    Ok(Script {
        file: file.to_string(),
        lines,
        stmts,
    })
}

/// A parse error on one line.
#[derive(Debug)]
struct PErr {
    span: Span,
    message: String,
    note: Option<String>,
}

fn perr(span: Span, message: impl Into<String>) -> PErr {
    PErr {
        span,
        message: message.into(),
        note: None,
    }
}

fn parse_line(line: u32, chars: &[char]) -> Result<Option<Stmt>, PErr> {
    let mut i = 0;
    while i < chars.len() && (chars[i] == ' ' || chars[i] == '\t') {
        i += 1;
    }
    if i >= chars.len() || chars[i] == '#' {
        return Ok(None);
    }
    let kw_start = i;
    if !is_ident_start(chars[i]) {
        return Err(perr(
            Span::new(line, i as u32 + 1, 1),
            format!("expected a statement keyword, found `{}`", chars[i]),
        ));
    }
    while i < chars.len() && is_ident_char(chars[i]) {
        i += 1;
    }
    let word: String = chars[kw_start..i].iter().collect();
    let kw = word.to_ascii_lowercase();
    let span = Span::new(line, kw_start as u32 + 1, (i - kw_start) as u32);
    let kind = match kw.as_str() {
        "packet" => parse_packet(line, chars, i, span)?,
        "expect" => parse_expect(line, chars, i, span)?,
        _ => {
            if !KEYWORDS.contains(&kw.as_str()) {
                let mut e = perr(span, format!("unknown statement `{word}`"));
                e.note = Some(format!("statements are: {}", KEYWORDS.join(", ")));
                return Err(e);
            }
            let toks = lex_line(line, chars, i).map_err(|e| perr(e.span, e.message))?;
            let eol = Span::new(line, chars.len() as u32 + 1, 1);
            let mut p = P {
                toks: &toks,
                pos: 0,
                eol,
                kw: &kw,
            };
            let kind = p.statement(span)?;
            p.end()?;
            kind
        }
    };
    Ok(Some(Stmt { line, span, kind }))
}

/// Largest port a script can name: the runtime's ports are 0 to 510, and 511 is its drop port
/// (`P4DP_PORT_DROP`; v1model's `egress_spec` 511), so no packet enters or leaves there.
pub const MAX_PORT: u64 = 510;

/// Refuses a port the runtime does not have (instead of letting the program's port width wrap
/// it: `packet 512` would enter on v1model port 0).
fn check_port(p: Int) -> Result<(), PErr> {
    if p.value > MAX_PORT {
        return Err(perr(
            p.span,
            format!(
                "port {} is out of range: ports are 0 to {MAX_PORT} ({} is the drop port)",
                p.value,
                MAX_PORT + 1
            ),
        ));
    }
    Ok(())
}

/// Reads the port word after `packet`/`expect`; returns it and the index
/// after it.
fn port_word(line: u32, chars: &[char], mut i: usize, kw: Span, kw_text: &str) -> Result<(Int, usize), PErr> {
    while i < chars.len() && (chars[i] == ' ' || chars[i] == '\t') {
        i += 1;
    }
    let lo = i;
    while i < chars.len() && chars[i] != ' ' && chars[i] != '\t' {
        i += 1;
    }
    let span = Span::new(line, lo as u32 + 1, (i - lo).max(1) as u32);
    if lo == i {
        return Err(perr(kw.to(span), format!("expected a port number after `{kw_text}`")));
    }
    let word: String = chars[lo..i].iter().collect();
    if !word.chars().all(|c| c.is_ascii_digit()) {
        return Err(perr(
            span,
            format!("expected a decimal port number after `{kw_text}`, found `{word}`"),
        ));
    }
    let value: u32 = word
        .parse()
        .map_err(|_| perr(span, format!("port number `{word}` is too large")))?;
    let port = Int {
        value: u64::from(value),
        span,
    };
    check_port(port)?;
    Ok((port, i))
}

fn data_char_error(line: u32, chars: &[char], i: usize, kw: &str) -> PErr {
    let c = chars[i];
    let span = Span::new(line, i as u32 + 1, 1);
    if c == '#' {
        let mut e = perr(span, format!("a comment is not allowed on an `{kw}` line"));
        if kw == "packet" {
            e.message = "a comment is not allowed on a `packet` line".into();
        }
        e.note = Some("the reference STF tokenizer rejects it too; put the comment on its own line".into());
        return e;
    }
    let mut e = perr(span, format!("invalid character `{c}` in {kw} data"));
    if (c == 'x' || c == 'X') && i > 0 && chars[i - 1] == '0' {
        e.note = Some("packet data is plain hex digits, without a `0x` prefix".into());
    } else if kw == "packet" {
        e.note = Some("packet data may only contain hex digits and spaces".into());
    } else {
        e.note = Some("an expect pattern may only contain hex digits, `*`, spaces and a final `$`".into());
    }
    e
}

fn parse_packet(line: u32, chars: &[char], i: usize, kw: Span) -> Result<StmtKind, PErr> {
    let (port, mut i) = port_word(line, chars, i, kw, "packet")?;
    let mut nibbles = Vec::new();
    let (mut lo, mut hi) = (None, 0usize);
    while i < chars.len() {
        let c = chars[i];
        if let Some(d) = c.to_digit(16) {
            nibbles.push(d as u8);
            lo.get_or_insert(i);
            hi = i + 1;
        } else if c != ' ' && c != '\t' {
            return Err(data_char_error(line, chars, i, "packet"));
        }
        i += 1;
    }
    // No data at all is a zero-length packet, as in p4c's STF runner (`packet 0` alone).
    let Some(lo) = lo else {
        return Ok(StmtKind::Packet { port, data: Vec::new() });
    };
    let data_span = Span::new(line, lo as u32 + 1, (hi - lo) as u32);
    if nibbles.len() % 2 != 0 {
        return Err(perr(
            data_span,
            format!(
                "packet data has an odd number of hex digits ({}); a packet is whole bytes",
                nibbles.len()
            ),
        ));
    }
    let data = nibbles.chunks(2).map(|p| (p[0] << 4) | p[1]).collect();
    Ok(StmtKind::Packet { port, data })
}

fn parse_expect(line: u32, chars: &[char], i: usize, kw: Span) -> Result<StmtKind, PErr> {
    let (port, mut i) = port_word(line, chars, i, kw, "expect")?;
    let mut nibbles = Vec::new();
    let mut dollar: Option<usize> = None;
    let mut any = false;
    let mut lo = None;
    while i < chars.len() {
        let c = chars[i];
        if c == ' ' || c == '\t' {
            i += 1;
            continue;
        }
        if let Some(d) = dollar {
            let mut e = perr(
                Span::new(line, d as u32 + 1, 1),
                "`$` must be the last character of an expect pattern",
            );
            if c == '#' {
                e = data_char_error(line, chars, i, "expect");
            }
            return Err(e);
        }
        lo.get_or_insert(i);
        if let Some(d) = c.to_digit(16) {
            nibbles.push(Some(d as u8));
        } else if c == '*' {
            nibbles.push(None);
        } else if c == '$' {
            dollar = Some(i);
        } else {
            return Err(data_char_error(line, chars, i, "expect"));
        }
        any = true;
        i += 1;
    }
    if !any {
        return Ok(StmtKind::Expect { port, pattern: None });
    }
    if let Some(d) = dollar {
        if nibbles.len() % 2 != 0 {
            let lo = lo.unwrap_or(d);
            return Err(perr(
                Span::new(line, lo as u32 + 1, (d + 1 - lo) as u32),
                format!(
                    "pattern ends in `$` but has an odd number of nibbles ({}), so no packet can match it",
                    nibbles.len()
                ),
            ));
        }
    }
    Ok(StmtKind::Expect {
        port,
        pattern: Some(Pattern {
            nibbles,
            exact_len: dollar.is_some(),
        }),
    })
}

/// Token cursor for one line.
struct P<'a> {
    toks: &'a [Token],
    pos: usize,
    /// Span just past the end of the line (for "expected X" at the end).
    eol: Span,
    kw: &'a str,
}

impl<'a> P<'a> {
    fn peek(&self) -> Option<&'a Token> {
        self.toks.get(self.pos)
    }

    fn peek_tok(&self) -> Option<&'a Tok> {
        self.peek().map(|t| &t.tok)
    }

    fn bump(&mut self) -> Option<&'a Token> {
        let t = self.toks.get(self.pos);
        if t.is_some() {
            self.pos += 1;
        }
        t
    }

    /// "expected WHAT, found X" at the current token.
    fn expected(&self, what: &str) -> PErr {
        match self.peek() {
            Some(t) => perr(t.span, format!("expected {what}, found {}", t.tok.describe())),
            None => perr(self.eol, format!("expected {what}, found end of line")),
        }
    }

    fn eat(&mut self, tok: &Tok) -> bool {
        if self.peek_tok() == Some(tok) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn want(&mut self, tok: &Tok, what: &str) -> Result<Span, PErr> {
        if self.peek_tok() == Some(tok) {
            Ok(self.bump().map(|t| t.span).unwrap_or(self.eol))
        } else {
            Err(self.expected(what))
        }
    }

    fn end(&self) -> Result<(), PErr> {
        match self.peek() {
            None => Ok(()),
            Some(t) => Err(perr(
                t.span,
                format!(
                    "unexpected {} at the end of the `{}` statement",
                    t.tok.describe(),
                    self.kw
                ),
            )),
        }
    }

    fn ident(&mut self, what: &str) -> Result<(String, Span), PErr> {
        match self.peek() {
            Some(Token {
                tok: Tok::Ident { text, .. },
                span,
            }) => {
                self.pos += 1;
                Ok((text.clone(), *span))
            }
            _ => Err(self.expected(what)),
        }
    }

    /// True if the current token starts right where the previous one ended.
    fn glued(&self) -> bool {
        match (self.pos.checked_sub(1).and_then(|p| self.toks.get(p)), self.peek()) {
            (Some(a), Some(b)) => a.span.line == b.span.line && a.span.col + a.span.len == b.span.col,
            _ => false,
        }
    }

    /// A qualified name: `ident[N].ident...`, without spaces inside.
    fn name(&mut self, what: &str) -> Result<Name, PErr> {
        let (first, mut span) = self.ident(what)?;
        let mut text = first;
        loop {
            if self.peek_tok() == Some(&Tok::LBracket) && self.glued() {
                self.pos += 1;
                let idx = self.int("an index")?;
                let close = self.want(&Tok::RBracket, "`]`")?;
                text.push_str(&format!("[{}]", idx.value));
                span = span.to(close);
            } else if self.peek_tok() == Some(&Tok::Dot) && self.glued() {
                self.pos += 1;
                if !(matches!(self.peek_tok(), Some(Tok::Ident { .. })) && self.glued()) {
                    return Err(self.expected("a name component right after `.`"));
                }
                let (part, s) = self.ident("a name")?;
                text.push('.');
                text.push_str(&part);
                span = span.to(s);
            } else {
                break;
            }
        }
        Ok(Name { text, span })
    }

    fn num(&mut self, what: &str) -> Result<Num, PErr> {
        match self.peek() {
            Some(Token { tok: Tok::Num(n), .. }) => {
                self.pos += 1;
                Ok(n.clone())
            }
            _ => Err(self.expected(what)),
        }
    }

    /// A plain integer operand (no `*`); decimal, hex or binary.
    fn int(&mut self, what: &str) -> Result<Int, PErr> {
        let n = self.num(what)?;
        int_of(&n)
    }

    fn statement(&mut self, kw_span: Span) -> Result<StmtKind, PErr> {
        let k = match self.kw {
            "add" => self.add()?,
            "setdefault" => {
                let table = self.name("a table name")?;
                let action = self.action_call()?;
                StmtKind::SetDefault { table, action }
            }
            "remove" => match self.peek_tok() {
                Some(Tok::Ident { text, quoted: false }) if text.eq_ignore_ascii_case("all") => {
                    self.pos += 1;
                    StmtKind::RemoveAll
                }
                _ => {
                    let mut e = self.expected("`all`");
                    e.note = Some("only `remove all` exists; STF has no per-entry removal".into());
                    return Err(e);
                }
            },
            "check_counter" => self.check_counter()?,
            "wait" => StmtKind::Wait,
            "no_packet" => StmtKind::NoPacket,
            "mirroring_add" => StmtKind::MirroringAdd {
                session: self.int("a session id")?,
                port: self.port()?,
            },
            "mirroring_add_mc" => StmtKind::MirroringAddMc {
                session: self.int("a session id")?,
                mgrp: self.int("a multicast group")?,
            },
            "mirroring_delete" => StmtKind::MirroringDelete {
                session: self.int("a session id")?,
            },
            "mirroring_get" => StmtKind::MirroringGet {
                session: self.int("a session id")?,
            },
            "mc_mgrp_create" => StmtKind::McMgrpCreate {
                mgrp: self.int("a multicast group")?,
            },
            "mc_node_create" => {
                let rid = self.int("a replication id")?;
                let ports = self.port_list()?;
                StmtKind::McNodeCreate { rid, ports }
            }
            "mc_node_update" => {
                let node = self.int("a node handle")?;
                let ports = self.port_list()?;
                StmtKind::McNodeUpdate { node, ports }
            }
            "mc_node_associate" => StmtKind::McNodeAssociate {
                mgrp: self.int("a multicast group")?,
                node: self.int("a node handle")?,
            },
            "counter_read" => StmtKind::CounterRead {
                name: self.name("a counter name")?,
                index: self.int("an index")?,
            },
            "counter_write" => StmtKind::CounterWrite {
                name: self.name("a counter name")?,
                index: self.int("an index")?,
                packets: self.int("a packet count")?,
                bytes: self.int("a byte count")?,
            },
            "register_read" => StmtKind::RegisterRead {
                name: self.name("a register name")?,
                index: self.int("an index")?,
            },
            "register_write" => {
                let name = self.name("a register name")?;
                let index = self.int("an index")?;
                let value = self.num("a value")?;
                if value.has_wildcards() {
                    return Err(perr(value.span, "`*` is only allowed in ternary and lpm key values"));
                }
                StmtKind::RegisterWrite { name, index, value }
            }
            "register_reset" => StmtKind::RegisterReset {
                name: self.name("a register name")?,
            },
            "meter_get_rates" => StmtKind::MeterGetRates {
                name: self.name("a meter name")?,
                index: self.int("an index")?,
            },
            "meter_set_rates" => {
                let name = self.name("a meter name")?;
                let index = self.int("an index")?;
                let rates = self.rates()?;
                StmtKind::MeterSetRates { name, index, rates }
            }
            "meter_array_set_rates" => {
                let name = self.name("a meter name")?;
                let rates = self.rates()?;
                StmtKind::MeterArraySetRates { name, rates }
            }
            "advance_time" => self.advance_time()?,
            "background" => {
                let name = self.name("a background pipeline's name")?;
                let n = if matches!(self.peek_tok(), Some(Tok::Num(_))) {
                    let n = self.int("a number of iterations")?;
                    u32::try_from(n.value).map_err(|_| perr(n.span, "too many iterations (at most 2^32 - 1)"))?
                } else {
                    1
                };
                StmtKind::Background { name, n }
            }
            "act_prof_create_member" => StmtKind::ActProfCreateMember {
                profile: self.name("an action profile name")?,
                action: self.action_call()?,
            },
            "act_prof_create_group" => StmtKind::ActProfCreateGroup {
                profile: self.name("an action profile name")?,
            },
            "act_prof_add_member_to_group" => StmtKind::ActProfAddMemberToGroup {
                profile: self.name("an action profile name")?,
                member: self.int("a member handle")?,
                group: self.int("a group handle")?,
            },
            "table_indirect_add" => self.add_indirect(false)?,
            "table_indirect_add_with_group" => self.add_indirect(true)?,
            other => return Err(perr(kw_span, format!("unknown statement `{other}`"))),
        };
        Ok(k)
    }

    /// A port operand (range-checked like `packet`/`expect` ports).
    fn port(&mut self) -> Result<Int, PErr> {
        let p = self.int("a port")?;
        check_port(p)?;
        Ok(p)
    }

    fn port_list(&mut self) -> Result<Vec<Int>, PErr> {
        let mut v = vec![self.port()?];
        while matches!(self.peek_tok(), Some(Tok::Num(_))) {
            v.push(self.port()?);
        }
        Ok(v)
    }

    fn add(&mut self) -> Result<StmtKind, PErr> {
        let table = self.name("a table name")?;
        let priority = match self.peek_tok() {
            Some(Tok::Num(_)) => Some(self.int("a priority")?),
            _ => None,
        };
        let mut keys = Vec::new();
        let action = loop {
            let name = self.name(if keys.is_empty() {
                "a key name or an action"
            } else {
                "a key name or the action"
            })?;
            match self.peek_tok() {
                Some(Tok::Colon) => {
                    self.pos += 1;
                    let value = self.key_value()?;
                    keys.push(KeyMatch { name, value });
                }
                Some(Tok::LParen) => break self.action_rest(name)?,
                _ => return Err(self.expected(&format!("`:` (key `{}`) or `(` (action `{}`)", name.text, name.text))),
            }
        };
        let label = if self.eat(&Tok::Assign) {
            let (text, span) = self.ident("an entry label")?;
            Some(Name { text, span })
        } else {
            None
        };
        Ok(StmtKind::Add {
            table,
            priority,
            keys,
            action,
            label,
        })
    }

    /// `TABLE [PRIO] KEY:VALUE... HANDLE` of `table_indirect_add[_with_group]`.
    fn add_indirect(&mut self, group: bool) -> Result<StmtKind, PErr> {
        let table = self.name("a table name")?;
        let what = if group { "a group handle" } else { "a member handle" };
        let mut priority = None;
        if matches!(self.peek_tok(), Some(Tok::Num(_))) {
            let n = self.int(what)?;
            if self.peek().is_none() {
                return Ok(StmtKind::AddIndirect {
                    table,
                    priority: None,
                    keys: Vec::new(),
                    group,
                    handle: n,
                });
            }
            priority = Some(n);
        }
        let mut keys = Vec::new();
        while matches!(self.peek_tok(), Some(Tok::Ident { .. })) {
            let name = self.name("a key name")?;
            self.want(&Tok::Colon, &format!("`:` after key `{}`", name.text))?;
            let value = self.key_value()?;
            keys.push(KeyMatch { name, value });
        }
        let handle = self.int(what)?;
        Ok(StmtKind::AddIndirect {
            table,
            priority,
            keys,
            group,
            handle,
        })
    }

    fn key_value(&mut self) -> Result<KeyValue, PErr> {
        if let Some(Token { tok: Tok::Star, span }) = self.peek() {
            self.pos += 1;
            return Ok(KeyValue::Wildcard(*span));
        }
        let num = self.num("a key value")?;
        if self.eat(&Tok::Slash) {
            let prefix_len = self.int("a prefix length")?;
            return Ok(KeyValue::Num {
                num,
                prefix_len: Some(prefix_len),
            });
        }
        if self.eat(&Tok::DotDot) {
            let hi = self.num("the upper bound of a range")?;
            return Ok(KeyValue::Range { lo: num, hi });
        }
        Ok(KeyValue::Num { num, prefix_len: None })
    }

    fn action_call(&mut self) -> Result<ActionCall, PErr> {
        let name = self.name("an action name")?;
        if self.peek_tok() != Some(&Tok::LParen) {
            return Err(self.expected(&format!("`(` after action `{}`", name.text)));
        }
        self.action_rest(name)
    }

    /// Parses `( [arg {, arg}] )` after the action name.
    fn action_rest(&mut self, name: Name) -> Result<ActionCall, PErr> {
        self.want(&Tok::LParen, "`(`")?;
        let mut args = Vec::new();
        if self.peek_tok() != Some(&Tok::RParen) {
            loop {
                let (text, span) = self.ident("a parameter name")?;
                self.want(&Tok::Colon, &format!("`:` after parameter `{text}`"))?;
                let value = self.num(&format!("a value for parameter `{text}`"))?;
                if value.has_wildcards() {
                    return Err(perr(value.span, "`*` is only allowed in ternary and lpm key values"));
                }
                args.push(Arg {
                    name: Name { text, span },
                    value,
                });
                if !self.eat(&Tok::Comma) {
                    break;
                }
            }
        }
        let close = self.want(&Tok::RParen, "`,` or `)`")?;
        Ok(ActionCall {
            span: name.span.to(close),
            name,
            args,
        })
    }

    fn check_counter(&mut self) -> Result<StmtKind, PErr> {
        let counter = self.name("a counter name")?;
        self.want(&Tok::LParen, "`(`")?;
        let cell = match self.peek() {
            Some(Token { tok: Tok::Num(_), .. }) => CounterCell::Index(self.int("an index")?),
            Some(Token {
                tok: Tok::Ident { text, .. },
                span,
            }) if text.starts_with('$') && text.len() > 1 => {
                self.pos += 1;
                CounterCell::Label(Name {
                    text: text[1..].to_string(),
                    span: *span,
                })
            }
            _ => return Err(self.expected("a counter index or `$LABEL`")),
        };
        self.want(&Tok::RParen, "`)`")?;
        let cond = match self.peek() {
            None => None,
            Some(Token {
                tok: Tok::Ident { text, .. },
                span,
            }) => {
                let unit = match text.to_ascii_lowercase().as_str() {
                    "packets" => CounterUnitSel::Packets,
                    "bytes" => CounterUnitSel::Bytes,
                    _ => return Err(self.expected("`packets` or `bytes`")),
                };
                self.pos += 1;
                let op = match self.peek_tok() {
                    Some(Tok::EqEq) => CmpOp::Eq,
                    Some(Tok::Ne) => CmpOp::Ne,
                    Some(Tok::Lt) => CmpOp::Lt,
                    Some(Tok::Le) => CmpOp::Le,
                    Some(Tok::Gt) => CmpOp::Gt,
                    Some(Tok::Ge) => CmpOp::Ge,
                    _ => return Err(self.expected("a comparison (`==`, `!=`, `<`, `<=`, `>`, `>=`)")),
                };
                self.pos += 1;
                let value = self.int("a count")?;
                Some(Condition {
                    unit,
                    op,
                    value: value.value,
                    span: span.to(value.span),
                })
            }
            Some(_) => return Err(self.expected("`packets` or `bytes`")),
        };
        Ok(StmtKind::CheckCounter { counter, cell, cond })
    }

    fn rates(&mut self) -> Result<Vec<RateBurst>, PErr> {
        let mut v = Vec::new();
        loop {
            let (rate_text, rate_span) = match self.peek() {
                Some(Token {
                    tok: Tok::Float(s),
                    span,
                }) => (s.clone(), *span),
                Some(Token { tok: Tok::Num(n), span }) if n.radix == Radix::Dec => (n.digits.clone(), *span),
                _ if !v.is_empty() && self.peek().is_none() => break,
                _ => return Err(self.expected("a rate `RATE:BURST` (rate in units per microsecond)")),
            };
            self.pos += 1;
            let rate: f64 = rate_text
                .parse()
                .map_err(|_| perr(rate_span, format!("invalid rate `{rate_text}`")))?;
            if !rate.is_finite() {
                return Err(perr(rate_span, format!("rate `{rate_text}` is out of range")));
            }
            self.want(&Tok::Colon, "`:` between rate and burst")?;
            let burst = self.int("a burst size")?;
            v.push(RateBurst {
                rate,
                rate_text,
                burst: burst.value,
                span: rate_span.to(burst.span),
            });
        }
        Ok(v)
    }

    fn advance_time(&mut self) -> Result<StmtKind, PErr> {
        let n = self.int("a duration such as `10ms`")?;
        let unit = match self.peek() {
            Some(Token {
                tok: Tok::Ident { text, quoted: false },
                span,
            }) => (text.to_ascii_lowercase(), *span),
            _ => {
                let mut e = self.expected("a time unit (`ns`, `us`, `ms` or `s`)");
                e.note = Some("write the duration with its unit, e.g. `advance_time 1500ms`".into());
                return Err(e);
            }
        };
        let mult: u64 = match unit.0.as_str() {
            "ns" => 1,
            "us" => 1_000,
            "ms" => 1_000_000,
            "s" => 1_000_000_000,
            _ => return Err(self.expected("a time unit (`ns`, `us`, `ms` or `s`)")),
        };
        self.pos += 1;
        let ns = n
            .value
            .checked_mul(mult)
            .ok_or_else(|| perr(n.span.to(unit.1), "duration is too large (more than 2^64 nanoseconds)"))?;
        Ok(StmtKind::AdvanceTime { ns })
    }
}

/// The value of a number literal used as a plain integer.
fn int_of(n: &Num) -> Result<Int, PErr> {
    if n.has_wildcards() {
        return Err(perr(n.span, "`*` is only allowed in ternary and lpm key values"));
    }
    let radix = match n.radix {
        Radix::Dec => 10,
        Radix::Hex => 16,
        Radix::Bin => 2,
    };
    let value = u64::from_str_radix(&n.digits, radix)
        .map_err(|_| perr(n.span, format!("number `{}` is too large (maximum 2^64-1)", n.text())))?;
    Ok(Int { value, span: n.span })
}
