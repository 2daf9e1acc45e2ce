//! p4dp-stf: the STF (Simple Test Framework) language of p4c's packet tests,
//! and a deterministic runner for it.
//!
//! The language and what this implementation decides where p4c's reference
//! runner leaves room are described in `docs/stf.md`. The pipeline:
//!
//! 1. [`parse`] turns the text into a [`Script`] (strict: every malformed line
//!    is an error `file.stf:LINE:COL: error: ...` with the line shown).
//! 2. [`compile`] resolves every name against a [`ProgramSchema`] (docs/stf.md, names)
//!    and encodes every value (key values), giving a [`Plan`]. All errors are
//!    reported before anything runs.
//! 3. [`run`] executes the plan on a [`Target`] in file order, each packet to
//!    completion, and judges the output ("Pass or fail"), giving an [`Outcome`] whose
//!    `Display` is a readable report.
//!
//! # p4dp extensions
//!
//! * `advance_time N(ns|us|ms|s)` advances the target's simulated clock by
//!   the given duration ([`Target::advance_time`]), e.g. `advance_time 2s`.
//!   Used to test idle timeouts and meters.
//! * `background NAME [N]` (rtc.p4) runs background pipeline NAME (its ingress control's name)
//!   N times, default 1 ([`Target::background`]); the packets it sends are expected like a
//!   packet's outputs. Before each iteration the simulated clock moves to the end of the
//!   pipeline's last `Sleep`, if that is later.
//! * Range keys in `add`: `key:LO..HI` (inclusive), `key:V` (= `V..V`) or
//!   `key:*` (any value).
//! * Optional keys in `add`: `key:V` (exactly V) or `key:*` (wildcard).
//! * A lone `*` is also accepted as the full wildcard for ternary and lpm
//!   keys.
//!
//! Everything else is the reference language, with the recommendations of
//! docs/stf.md (`remove all`, `no_packet`, `/len` and decimal lpm values are
//! accepted; `wait` is a barrier; `check_counter` is an assertion).

pub mod ast;
pub mod compile;
pub mod diag;
pub mod lexer;
pub mod parser;
mod report;
mod resolve;
pub mod runner;
pub mod schema;
pub mod target;
mod value;

#[cfg(test)]
mod compile_tests;
#[cfg(test)]
mod parser_tests;

pub use ast::Script;
pub use compile::{compile, Plan};
pub use diag::{Diagnostic, Diagnostics, Severity, Span};
pub use parser::parse;
pub use report::{compare, hex};
pub use runner::{run, Failure, Outcome, PairStatus, PortFailure, ReceivedPacket, Warning};
pub use schema::*;
pub use target::*;

/// Parse and compile a script in one step.
pub fn load(file: &str, text: &str, schema: &ProgramSchema) -> Result<Plan, Diagnostics> {
    let script = parse(file, text)?;
    compile(&script, schema)
}
