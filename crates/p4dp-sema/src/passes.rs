//! The passes of semantic analysis, in the order they run: [`PASSES`] is the one list, and
//! `run` drives compilation through it.
//!
//! Each pass reports every error it finds and goes on (a later pass still runs after an error,
//! so one compile reports as much as it can); only [`VALIDATE`] needs an error-free program.
//! `p4dp check --dump-after PASS` prints the program state after any of them (`Pass::dump`):
//! the declaration table after `collect`, the IR (`p4dp_ir::print`) after the others.
//!
//! Types and constants are not passes of their own: elaboration resolves them on demand,
//! memoized per declaration (`types`, `consts`), because a type is interned into the IR's type
//! table when first used and its `TypeId` (which the IR printer shows) follows that order; the
//! `unreached` pass then resolves the declarations nothing used.

use std::fmt::Write as _;

use p4dp_ir as ir;
use p4dp_syntax::ast;

use crate::Sema;

/// One pass: its name (what `--dump-after` takes), a one-line summary and what it runs.
pub struct Pass {
    /// The name `--dump-after` takes.
    pub name: &'static str,
    /// What the pass does, in one line.
    pub summary: &'static str,
    run: Option<for<'a> fn(&mut Sema<'a>, &'a ast::Program)>,
    shows: Shows,
}

/// What [`Pass::dump`] prints.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Shows {
    /// The declaration table (there is no IR yet).
    Declarations,
    /// The IR.
    Ir,
}

/// The semantic passes in order. The last, [`VALIDATE`], runs in [`crate::analyze_and_validate`]
/// on the finished program (it consumes it into a `ValidProgram`).
pub const PASSES: &[Pass] = &[
    Pass {
        name: "collect",
        summary: "top-level declarations by name, `error` and `match_kind` members; duplicates",
        run: Some(collect),
        shows: Shows::Declarations,
    },
    Pass {
        name: "elaborate",
        summary: "instantiate `main` and lower each reached parser/control instance to IR",
        run: Some(elaborate),
        shows: Shows::Ir,
    },
    Pass {
        name: "dp-writes",
        summary: "check data-plane table writes against the tables that run each action",
        run: Some(dp_writes),
        shows: Shows::Ir,
    },
    Pass {
        name: "rtc",
        summary: "check run-to-completion extern bindings (@tbl, @methods), background-only calls, queue types",
        run: Some(rtc),
        shows: Shows::Ir,
    },
    Pass {
        name: "unreached",
        summary: "check the declarations `main` does not reach (their IR is dropped)",
        run: Some(unreached),
        shows: Shows::Ir,
    },
    VALIDATE,
];

/// The IR validator (`p4dp_ir::validate`): a failure is an internal error (E0499).
pub const VALIDATE: Pass = Pass {
    name: "validate",
    summary: "check the IR's invariants; the result is a `ValidProgram` (a failure is E0499)",
    run: None,
    shows: Shows::Ir,
};

/// **collect** (`env`). Enters every top-level declaration into the declaration table by name
/// (functions and extern functions with different numbers of parameters as overloads), and the
/// `error` and `match_kind` members into the program. Afterwards: every top-level name resolves
/// to its declarations; a duplicate was reported (E0203) and the first declaration kept.
fn collect<'a>(s: &mut Sema<'a>, ast: &'a ast::Program) {
    s.collect(ast);
}

/// **elaborate** (`elab`, `control`, `parser`, lowering in `expr`, `ops`, `aggregate`, `call`,
/// `stmt`, `table`). Finds the `main` package instance, binds each block argument, and
/// instantiates each parser and control once per instance path, resolving names, checking
/// types and lowering bodies to IR for that instance (constructor parameters bound as
/// constants). Types, constants and generic functions are resolved on demand and memoized.
/// Afterwards: `Program::package` names the elaborated blocks, and every reached block,
/// action, table, extern instance and function is in the IR, fully typed, with calls hoisted
/// into statements in left-to-right order and copy-in/copy-out made explicit.
fn elaborate<'a>(s: &mut Sema<'a>, ast: &'a ast::Program) {
    s.elaborate_main(ast);
}

/// **dp-writes** (`dpwrite`). Checks every call of `add_entry`, `set_entry_expire_time` and
/// `restart_expire_timer` against the tables that run the calling action (it needs every
/// table, so it runs on the elaborated program), and rewrites `add_entry`'s action name to the
/// action's control-plane name. Afterwards: each such call is made from an action that only
/// tables with the needed properties run.
fn dp_writes<'a>(s: &mut Sema<'a>, _ast: &'a ast::Program) {
    s.check_dp_writes();
}

/// **rtc** (`rtc`). For programs of the run-to-completion architecture (p4include/rtc.p4):
/// checks that each `Foreach` and `TableOperation` is bound with `@tbl` to an existing exact
/// table and `@methods` names that table's actions and declared loop bodies (E0420), that
/// `Sleep`, `popWait` and `entryDel` are called only from background pipelines (E0421), and
/// that `Queue` messages are serializable (E0422). Afterwards: every run-to-completion extern
/// the program instantiates is bound as the runtime needs. Other programs are unchanged.
fn rtc<'a>(s: &mut Sema<'a>, _ast: &'a ast::Program) {
    s.check_rtc();
}

/// **unreached** (`elab`). Resolves the top-level types and constants nothing used, and checks
/// the parsers, controls, actions, functions and extern instances `main` does not reach in a
/// scratch copy of the program that is dropped (only their diagnostics and types remain);
/// reports top-level variables, tables and value sets. Afterwards: every declaration of the
/// program was checked, so its errors are reported whether or not `main` uses it.
fn unreached<'a>(s: &mut Sema<'a>, ast: &'a ast::Program) {
    s.check_unreached(ast);
}

/// An unknown `--dump-after` name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown pass `{given}`; the passes are: {}", pass_names().join(", "))]
pub struct UnknownPass {
    pub given: String,
}

/// The names of the passes, in order.
pub fn pass_names() -> Vec<&'static str> {
    PASSES.iter().map(|p| p.name).collect()
}

/// The pass named `name`.
pub fn find(name: &str) -> Result<&'static Pass, UnknownPass> {
    PASSES.iter().find(|p| p.name == name).ok_or_else(|| UnknownPass {
        given: name.to_string(),
    })
}

/// Runs the semantic passes (all but [`VALIDATE`]) in order; after the pass named `dump_after`,
/// its dump is stored in `dump`.
pub(crate) fn run<'a>(s: &mut Sema<'a>, ast: &'a ast::Program, dump_after: Option<&Pass>, dump: &mut Option<String>) {
    for p in PASSES {
        let Some(f) = p.run else { continue };
        f(s, ast);
        if dump_after.is_some_and(|d| d.name == p.name) {
            *dump = Some(p.dump(s));
        }
    }
}

impl Pass {
    /// The program state after this pass: the declaration table after `collect`, else the IR.
    pub(crate) fn dump(&self, s: &Sema) -> String {
        match self.shows {
            Shows::Declarations => dump_declarations(s),
            Shows::Ir => ir::print::program(&s.p),
        }
    }
}

/// The declaration table `collect` produced: each top-level name with the kinds of its
/// declarations, in source order, then the `error` and `match_kind` members.
fn dump_declarations(s: &Sema) -> String {
    let mut decls: Vec<&ast::Decl> = s.g.map.values().flatten().copied().collect();
    decls.sort_by_key(|d| {
        let sp = d.span();
        (sp.file.0, sp.lo)
    });
    let mut out = String::new();
    for d in decls {
        let _ = writeln!(out, "{} {}", decl_kind(d), d.name().name);
    }
    let _ = writeln!(out, "errors: {}", s.p.errors.join(", "));
    let _ = writeln!(out, "match_kinds: {}", s.p.match_kinds.join(", "));
    out
}

/// The keyword a declaration kind is written with.
fn decl_kind(d: &ast::Decl) -> &'static str {
    match d {
        ast::Decl::Const(_) => "const",
        ast::Decl::Var(_) => "var",
        ast::Decl::Header(_) => "header",
        ast::Decl::HeaderUnion(_) => "header_union",
        ast::Decl::Struct(_) => "struct",
        ast::Decl::Enum(_) => "enum",
        ast::Decl::Typedef(_) => "typedef",
        ast::Decl::Error(_) => "error",
        ast::Decl::MatchKind(_) => "match_kind",
        ast::Decl::ExternObject(_) => "extern",
        ast::Decl::ExternFunction(_) => "extern function",
        ast::Decl::ParserType(_) => "parser type",
        ast::Decl::ControlType(_) => "control type",
        ast::Decl::PackageType(_) => "package",
        ast::Decl::Parser(_) => "parser",
        ast::Decl::Control(_) => "control",
        ast::Decl::Instantiation(_) => "instance",
        ast::Decl::Function(_) => "function",
        ast::Decl::Action(_) => "action",
        ast::Decl::Table(_) => "table",
        ast::Decl::ValueSet(_) => "value_set",
    }
}
