//! The parsed form of an STF script: one [`Stmt`] per non-empty line, names
//! and numbers as written (resolution against the program happens in
//! [`crate::compile`]).

use crate::diag::Span;
pub use crate::lexer::{Num, Radix};

/// A parsed script.
#[derive(Clone, Debug, PartialEq)]
pub struct Script {
    /// File name used in diagnostics.
    pub file: String,
    /// The source lines (without terminators), for rendering diagnostics.
    pub lines: Vec<String>,
    pub stmts: Vec<Stmt>,
}

/// One statement and the line it is on.
#[derive(Clone, Debug, PartialEq)]
pub struct Stmt {
    pub line: u32,
    /// Span of the statement keyword.
    pub span: Span,
    pub kind: StmtKind,
}

/// A (possibly qualified) name as written, e.g. `hdr.vlan[1].vid`,
/// `extra$0.h`, `ingress.setb1`. Quoted components appear without quotes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Name {
    pub text: String,
    pub span: Span,
}

/// A decimal integer operand (port, session, index, ...).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Int {
    pub value: u64,
    pub span: Span,
}

/// The value of one key in an `add`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KeyValue {
    /// A number, optionally with an lpm prefix length (`0x0a000000/8`).
    Num { num: Num, prefix_len: Option<Int> },
    /// p4dp extension: `lo..hi` for range keys.
    Range { lo: Num, hi: Num },
    /// p4dp extension: a lone `*` (don't care: optional, range, ternary, lpm).
    Wildcard(Span),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyMatch {
    pub name: Name,
    pub value: KeyValue,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Arg {
    pub name: Name,
    pub value: Num,
}

/// `name(arg:value, ...)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ActionCall {
    pub name: Name,
    pub args: Vec<Arg>,
    /// Span of the whole call, name to `)`.
    pub span: Span,
}

/// The cell operand of `check_counter`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CounterCell {
    Index(Int),
    /// `$NAME`: the direct-counter cell of the entry labelled `NAME`.
    Label(Name),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CounterUnitSel {
    Packets,
    Bytes,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl CmpOp {
    pub fn text(self) -> &'static str {
        match self {
            CmpOp::Eq => "==",
            CmpOp::Ne => "!=",
            CmpOp::Lt => "<",
            CmpOp::Le => "<=",
            CmpOp::Gt => ">",
            CmpOp::Ge => ">=",
        }
    }

    pub fn holds(self, a: u64, b: u64) -> bool {
        match self {
            CmpOp::Eq => a == b,
            CmpOp::Ne => a != b,
            CmpOp::Lt => a < b,
            CmpOp::Le => a <= b,
            CmpOp::Gt => a > b,
            CmpOp::Ge => a >= b,
        }
    }
}

/// `packets == 3` in a `check_counter`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Condition {
    pub unit: CounterUnitSel,
    pub op: CmpOp,
    pub value: u64,
    pub span: Span,
}

/// One `RATE:BURST` pair of a meter command. Rates are in units per
/// microsecond; bursts in units.
#[derive(Clone, Debug, PartialEq)]
pub struct RateBurst {
    pub rate: f64,
    pub rate_text: String,
    pub burst: u64,
    pub span: Span,
}

/// An `expect` pattern: one entry per nibble (`None` = `*`), and whether it
/// ended in `$` (exact length).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pattern {
    pub nibbles: Vec<Option<u8>>,
    pub exact_len: bool,
}

impl Pattern {
    /// The pattern as uppercase text without whitespace (`$` included).
    pub fn text(&self) -> String {
        let mut s: String = self
            .nibbles
            .iter()
            .map(|n| match n {
                Some(v) => char::from_digit(u32::from(*v), 16).unwrap_or('?').to_ascii_uppercase(),
                None => '*',
            })
            .collect();
        if self.exact_len {
            s.push('$');
        }
        s
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum StmtKind {
    /// `packet PORT HEX`
    Packet {
        port: Int,
        data: Vec<u8>,
    },
    /// `expect PORT [PATTERN]`; `None` accepts any packet.
    Expect {
        port: Int,
        pattern: Option<Pattern>,
    },
    /// `add TABLE [PRIO] KEY:VALUE... ACTION(ARGS) [= LABEL]`
    Add {
        table: Name,
        priority: Option<Int>,
        keys: Vec<KeyMatch>,
        action: ActionCall,
        label: Option<Name>,
    },
    /// `setdefault TABLE ACTION(ARGS)`
    SetDefault {
        table: Name,
        action: ActionCall,
    },
    /// `remove all`
    RemoveAll,
    /// `check_counter NAME(INDEX | $LABEL) [packets|bytes OP N]`
    CheckCounter {
        counter: Name,
        cell: CounterCell,
        cond: Option<Condition>,
    },
    Wait,
    NoPacket,
    MirroringAdd {
        session: Int,
        port: Int,
    },
    MirroringAddMc {
        session: Int,
        mgrp: Int,
    },
    MirroringDelete {
        session: Int,
    },
    MirroringGet {
        session: Int,
    },
    McMgrpCreate {
        mgrp: Int,
    },
    McNodeCreate {
        rid: Int,
        ports: Vec<Int>,
    },
    McNodeUpdate {
        node: Int,
        ports: Vec<Int>,
    },
    McNodeAssociate {
        mgrp: Int,
        node: Int,
    },
    CounterRead {
        name: Name,
        index: Int,
    },
    CounterWrite {
        name: Name,
        index: Int,
        packets: Int,
        bytes: Int,
    },
    RegisterRead {
        name: Name,
        index: Int,
    },
    RegisterWrite {
        name: Name,
        index: Int,
        value: Num,
    },
    RegisterReset {
        name: Name,
    },
    MeterGetRates {
        name: Name,
        index: Int,
    },
    MeterSetRates {
        name: Name,
        index: Int,
        rates: Vec<RateBurst>,
    },
    MeterArraySetRates {
        name: Name,
        rates: Vec<RateBurst>,
    },
    /// p4dp extension: `advance_time N(ns|us|ms|s)`, in nanoseconds.
    AdvanceTime {
        ns: u64,
    },
    /// p4dp extension (rtc.p4): `background NAME [N]`, run background pipeline NAME N times
    /// (default 1).
    Background {
        name: Name,
        n: u32,
    },
    /// p4dp extension (BMv2 CLI): `act_prof_create_member PROFILE ACTION(ARGS)`; members are
    /// numbered 0, 1, 2, ... per profile in statement order.
    ActProfCreateMember {
        profile: Name,
        action: ActionCall,
    },
    /// `act_prof_create_group PROFILE`; groups are numbered 0, 1, 2, ... per profile.
    ActProfCreateGroup {
        profile: Name,
    },
    /// `act_prof_add_member_to_group PROFILE MEMBER GROUP`
    ActProfAddMemberToGroup {
        profile: Name,
        member: Int,
        group: Int,
    },
    /// `table_indirect_add TABLE [PRIO] KEY:VALUE... MEMBER` and
    /// `table_indirect_add_with_group TABLE [PRIO] KEY:VALUE... GROUP`
    AddIndirect {
        table: Name,
        priority: Option<Int>,
        keys: Vec<KeyMatch>,
        group: bool,
        handle: Int,
    },
}
