//! p4dp-sema: semantic analysis, from the P4_16 AST (`p4dp-syntax`) to the typed IR (`p4dp-ir`).
//!
//! # Passes
//!
//! [`passes`] lists the passes in the order they run (collect, elaborate, dp-writes, rtc,
//! unreached, validate), each with what it does and what holds afterwards; compilation runs
//! through that list, and `p4dp check --dump-after PASS` prints the state after any of them.
//!
//! # Modules, from the bottom up
//!
//! One `impl Sema` spread over modules; each uses only the modules above it in this list
//! (`tests/layers.rs` checks it on the sources), except through the recursion seams below.
//!
//! | module | does |
//! |---|---|
//! | `consts` | value arithmetic and constant folding (pure functions) |
//! | `env` | scopes, bindings, the top-level declaration table (`collect`) |
//! | `types` | type resolution, memoized per declaration; the IR type table |
//! | `dpwrite` | data-plane-write checks (`@__ref`, table annotations, `add_entry` and timers) |
//! | `rtc` | run-to-completion checks (`@tbl`/`@methods` bindings, background-only calls, queue types) |
//! | `overload` | signatures, the AST-to-IR direction conversion, argument matching, overloads, type-variable unification |
//! | `expr`, `ops`, `aggregate` | expressions: names, members, indexing, lvalues, implicit casts; operators and casts; list and struct expressions (each with an optional expected type) |
//! | `builtins`, `call` | calls hoisted into statements with temporaries in left-to-right order, arguments by direction, generic functions; header, stack and table built-ins |
//! | `loops`, `stmt` | statements |
//! | `action` | actions, and top-level actions copied into a control |
//! | `keyset` | keysets of `select` cases and table entries |
//! | `selector` | an action selector's group annotations (`@selector_size_semantics`, `@max_group_size`, `@max_member_weight`, `@weights_disallowed`) |
//! | `instance` | extern instances, sub-block instances and constructor arguments, block parameters |
//! | `table` | tables: keys, actions, default action, entries and their priorities, properties |
//! | `parser`, `control` | elaborating one parser or control instance |
//! | `elab` | the `main` package, and checking what it does not reach |
//! | `passes` | the pass list that drives the above |
//!
//! Modules of one row use each other (the grammar nests them). A lower module calls a higher
//! one only where the language nests a higher construct in a lower one: `const_eval` (a type's
//! width is a constant expression), `call_expr` and `table_apply_result` (an expression may be a
//! call), `use_global_action` and `global_extern` (a top-level action or extern instance is
//! lowered when first named), `block` (a function's body, per type arguments),
//! `direct_instance` (`C.apply()`), `elab_control` and `elab_parser` (instantiating a block
//! elaborates it).
//!
//! # Representation choices (what the IR gets)
//!
//! * `tuple<...>` types and untyped list expressions (`hash(..., {a, b}, ...)`) are interned as a
//!   [`p4dp_ir::Type::Struct`] named `tuple<...>` with fields `f0`, `f1`, ... and the annotation
//!   `@__tuple` (the IR's `Field` access applies only to structs); `Type::Tuple` is not produced.
//! * `type T N;` is treated as an alias of `T` (no distinct IR type).
//! * An extern instance whose type arguments are not all given (v1model `register<bit<32>>` of
//!   `register<T, I>`) records the given prefix in `type_args`; the missing ones are inferred per
//!   method call (they appear in that call's argument types).
//! * `switch (t.apply().action_run)` labels are `bit<32>` values of the global [`p4dp_ir::ActionId`]
//!   index, as `Stmt::ApplyTable::action_run` defines.
//! * Header union rule: `u.m.setValid()`, `extract(u.m)` and assigning a valid header to `u.m`
//!   first emit `setInvalid` on every other member of `u`.
//! * `s.next`/`s.last` (parsers only) emit a `Verify(..., error.StackOutOfBounds)` before the
//!   access; `extract(s.next)` increments `nextIndex` after the extract.
//! * A table without `default_action` gets `NoAction` (added to its actions as `@defaultonly`).
//! * Entries without `priority` get priorities so that earlier entries win (larger wins in the IR);
//!   `largest_priority_wins = false` programs are mapped to that convention.
//! * Omitted `@optional` extern arguments are left out of `Call::args`.

//! # Error codes
//!
//! | code  | meaning |
//! |-------|---------|
//! | E0201 | unknown name |
//! | E0202 | unknown type |
//! | E0203 | duplicate declaration |
//! | E0204 | a name of the wrong kind (a type where a value is needed, a value where a type is needed, ...) |
//! | E0205 | unknown field, member or method |
//! | E0206 | unknown parser state / missing `start` state |
//! | E0207 | action not usable here (not in the table's `actions`, not callable from here) |
//! | E0208 | name used before its declaration |
//! | E0209 | no overload takes these arguments / unknown or duplicate named argument |
//! | E0210 | unknown `error`, enum or `match_kind` member |
//! | E0301 | type mismatch |
//! | E0302 | a sized integer literal (`8w256`) does not fit its own width |
//! | E0303 | the width of an `int` value cannot be inferred (a width is required) |
//! | E0304 | operator not applicable to these operand types |
//! | E0305 | cast not allowed |
//! | E0306 | wrong number of arguments |
//! | E0307 | not assignable (not an lvalue, an `in` parameter, a constant) |
//! | E0308 | cannot infer a type argument |
//! | E0309 | invalid type (bad width, bad header stack element, header field type, ...) |
//! | E0310 | index or slice out of range |
//! | E0311 | condition is not `bool` |
//! | E0401 | a compile-time constant is required |
//! | E0402 | statement or declaration not allowed in this context |
//! | E0403 | no `main` package instance, or a bad package argument |
//! | E0404 | language feature not supported by p4dp |
//! | E0405 | invalid table property |
//! | E0406 | invalid switch statement (duplicate label, bad label) |
//! | E0407 | call not allowed in this context |
//! | E0408 | `static_assert` failed |
//! | E0409 | invalid keyset (select case or table entry) |
//! | E0410 | recursive declaration |
//! | E0411 | a non-`void` function does not return a value on every path |
//! | E0412 | invalid data-plane table write annotation (`@__ref` on a directional parameter, bad `@entry_lock`/`@storage`) |
//! | E0413 | a type or declaration nested too deeply (types inside types, declarations defined from declarations, more than 64 levels) |
//! | E0425 | invalid meter type annotation (two types, arguments given, not a meter) |
//! | E0426 | invalid action selector group annotation (`@selector_size_semantics` not "sum_of_weights"/"sum_of_members" or given twice differently, `@max_group_size` not in 1..4096 or above the selector's size, `@max_member_weight` not in 1..2^31-1 or without sum of members, `@weights_disallowed` with an argument) |
//! | E0499 | internal compiler error (the produced IR failed validation) |
//! | E0501-E0507 | a construct the C back end cannot translate, found by its capability check (which `p4dp check` runs too): one code per kind, listed in p4dp-cgen's crate doc |
//! | W0301 | warning: implicit widening `bit<N>` → `bit<M>` / `int<N>` → `int<M>` (M > N) in an assignment, initializer or `in` argument, accepted for p4c compatibility (not in the P4_16 spec) |
//! | W0302 | warning: a type argument omitted at an extern instantiation (`register<bit<8>>(16)` for `register<T, I>`) is only used by unsized integer-literal arguments; it is taken as `bit<32>` (p4c/BMv2 compatibility) |
//! | W0303 | warning: an integer value implicitly converted to `bit<W>`/`int<W>` (`8w1 + 300`, `hdr.f = 256`) does not fit; it is truncated to W bits, the spec's conversion (p4c also warns) |
//! | W0304 | warning: `@selector_size_semantics`, `@max_group_size`, `@max_member_weight` or `@weights_disallowed` on an extern that is not an action selector, where it means nothing (ignored; p4c also warns) |

use std::collections::{HashMap, HashSet};
use std::path::Path;

use p4dp_ir as ir;
use p4dp_syntax::ast::{self, NodeId};
use p4dp_syntax::{Diagnostic, SourceMap, Span};

mod action;
mod aggregate;
mod builtins;
mod call;
mod consts;
mod control;
mod dpwrite;
mod elab;
mod env;
mod expr;
mod instance;
mod keyset;
mod loops;
mod ops;
mod overload;
mod parser;
pub mod passes;
mod rtc;
mod selector;
mod stmt;
mod table;
mod types;

#[cfg(test)]
mod compat_tests;
#[cfg(test)]
mod limits_tests;
#[cfg(test)]
mod tests;

pub use consts::{fits, wrap_to};
pub use passes::{Pass, UnknownPass, PASSES};

use env::{Globals, Owner};

/// Runs semantic analysis. Returns the program when no error was found, and every diagnostic.
pub fn analyze(ast: &ast::Program, sm: &SourceMap) -> (Option<ir::Program>, Vec<Diagnostic>) {
    analyze_dumping(ast, sm, None)
}

/// [`analyze`], keeping the program state after `dump`'s pass in it.
fn analyze_dumping(
    ast: &ast::Program,
    sm: &SourceMap,
    dump: Option<&mut Dump>,
) -> (Option<ir::Program>, Vec<Diagnostic>) {
    let mut s = Sema::new(sm, ast);
    match dump {
        Some(d) => passes::run(&mut s, ast, Some(d.pass), &mut d.text),
        None => passes::run(&mut s, ast, None, &mut None),
    }
    // Source order (discovery order can follow elaboration order instead).
    s.diags.sort_by_key(|d| {
        d.primary
            .as_ref()
            .map(|l| (l.span.file.0, l.span.lo))
            .unwrap_or((u32::MAX, 0))
    });
    let has_err = s.diags.iter().any(|d| d.is_error());
    let prog = std::mem::take(&mut s.p);
    (if has_err { None } else { Some(prog) }, s.diags)
}

/// The program state after one pass (`p4dp check --dump-after PASS`), filled in by
/// [`compile_file_dumping`] / [`analyze_and_validate_dumping`] when that pass runs.
pub struct Dump {
    pass: &'static Pass,
    text: Option<String>,
}

impl Dump {
    /// A dump after the pass named `name` (one of [`PASSES`]).
    pub fn after(name: &str) -> Result<Dump, UnknownPass> {
        Ok(Dump {
            pass: passes::find(name)?,
            text: None,
        })
    }

    /// The dump, once the pass has run (`None` if compilation stopped before it).
    pub fn text(&self) -> Option<&str> {
        self.text.as_deref()
    }
}

/// Analyzes and validates; a validation failure becomes an `E0499` internal error.
pub fn analyze_and_validate(
    ast: &ast::Program,
    sm: &SourceMap,
) -> Result<(ir::ValidProgram, Vec<Diagnostic>), Vec<Diagnostic>> {
    analyze_and_validate_dumping(ast, sm, None)
}

/// [`analyze_and_validate`], keeping the program state after `dump`'s pass in it.
pub fn analyze_and_validate_dumping(
    ast: &ast::Program,
    sm: &SourceMap,
    mut dump: Option<&mut Dump>,
) -> Result<(ir::ValidProgram, Vec<Diagnostic>), Vec<Diagnostic>> {
    let (p, mut diags) = analyze_dumping(ast, sm, dump.as_deref_mut());
    let Some(p) = p else { return Err(diags) };
    if p.package.is_none() {
        diags.push(
            Diagnostic::error_nospan("E0403", "the program has no `main` package instance").with_help(
                "instantiate the architecture's package, e.g. `V1Switch(MyParser(), ..., MyDeparser()) main;`",
            ),
        );
        return Err(diags);
    }
    match ir::validate(p) {
        Ok(v) => {
            if let Some(d) = dump.filter(|d| d.pass.name == passes::VALIDATE.name) {
                d.text = Some(ir::print::program(v.program()));
            }
            Ok((v, diags))
        }
        Err(errs) => {
            for e in errs {
                let sp = Span::new(p4dp_syntax::FileId(e.span.file), e.span.lo, e.span.hi);
                let d = if e.span == ir::Span::default() {
                    Diagnostic::error_nospan("E0499", format!("internal error: {}", e.message))
                } else {
                    Diagnostic::error("E0499", format!("internal error: {}", e.message), sp, "here")
                };
                diags.push(d.with_note("this is a bug in p4dp; please report it"));
            }
            Err(diags)
        }
    }
}

/// A program [`compile_file`] accepted.
pub struct Compiled {
    /// The validated IR.
    pub program: ir::ValidProgram,
    /// The sources, to render diagnostics found later (the back end's errors carry IR spans).
    pub sm: SourceMap,
    /// Warnings of the syntax and semantic passes, in source order.
    pub warnings: Vec<Diagnostic>,
}

/// Preprocesses, parses, analyzes and validates the P4 file at `path`.
pub fn compile_file(
    path: &Path,
    include_dirs: &[std::path::PathBuf],
    defines: &[(String, Option<String>)],
) -> Result<Compiled, (SourceMap, Vec<Diagnostic>)> {
    compile_file_dumping(path, include_dirs, defines, None)
}

/// [`compile_file`], keeping the program state after `dump`'s pass in it.
pub fn compile_file_dumping(
    path: &Path,
    include_dirs: &[std::path::PathBuf],
    defines: &[(String, Option<String>)],
    dump: Option<&mut Dump>,
) -> Result<Compiled, (SourceMap, Vec<Diagnostic>)> {
    let mut sm = SourceMap::new();
    let (ast, mut diags) = p4dp_syntax::frontend::load_and_parse(&mut sm, path, include_dirs, defines);
    if diags.iter().any(|d| d.is_error()) {
        return Err((sm, diags));
    }
    match analyze_and_validate_dumping(&ast, &sm, dump) {
        Ok((program, mut warnings)) => {
            diags.append(&mut warnings);
            Ok(Compiled {
                program,
                sm,
                warnings: diags,
            })
        }
        Err(mut d) => {
            diags.append(&mut d);
            Err((sm, diags))
        }
    }
}

/// A value of a compile-time constant.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum CVal {
    /// An infinite-precision `int`.
    Int(num_bigint::BigInt),
    /// A typed constant.
    V(ir::Value, ir::TypeId),
}

/// The semantic analyzer's state.
pub(crate) struct Sema<'a> {
    pub sm: &'a SourceMap,
    pub diags: Vec<Diagnostic>,
    seen: HashSet<(&'static str, u32, u32, u32, String)>,
    pub p: ir::Program,
    pub g: Globals<'a>,
    /// The owner (control, parser, function) being lowered.
    pub cx: Owner,
    // Memoized queries and their in-progress sets (a key found busy is a recursive
    // declaration), keyed by the declaration's `NodeId`.
    /// Types declared by top-level declarations, per type arguments.
    pub type_cache: HashMap<(NodeId, Vec<ir::TypeId>), types::RTy>,
    pub type_busy: HashSet<NodeId>,
    /// Values of top-level constants.
    pub const_cache: HashMap<NodeId, Option<CVal>>,
    pub const_busy: HashSet<NodeId>,
    /// Functions, per type arguments.
    pub func_cache: HashMap<(NodeId, Vec<ir::TypeId>), ir::FunctionId>,
    /// Functions and top-level actions being lowered.
    pub func_busy: HashSet<NodeId>,
    /// Top-level extern instances (shared by every block that uses them).
    pub global_externs: HashMap<NodeId, ir::ExternId>,
    /// Parser/control declarations elaborated at least once.
    pub elaborated: HashSet<NodeId>,
    /// Depth of nested instantiation (guards against recursive instantiation).
    pub depth: u32,
    /// Parser/control declarations being elaborated right now (recursion check).
    pub elab_busy: HashSet<NodeId>,
    /// Parsers and controls with a parameter that failed to lower (its error is reported); applying
    /// them is not checked against the remaining parameters.
    pub incomplete_blocks: HashSet<env::OwnerKind>,
    /// Declarations (types, constants) being resolved inside one another right now.
    pub resolving: u32,
    /// Nesting depth of each interned type, by type index (see `types::MAX_TYPE_NESTING`).
    pub type_depths: Vec<u32>,
    /// E0413 was reported: one too-deep chain of declarations is reported once, not again from
    /// each way it is reached.
    pub nesting_reported: bool,
    /// The architecture of `main`'s package ([`ir::Package::arch`]; empty until `elaborate` finds
    /// it), which decides the kind of the extern types two architectures spell alike.
    pub arch: String,
}

pub(crate) fn ispan(s: Span) -> ir::Span {
    ir::Span {
        file: s.file.0,
        lo: s.lo,
        hi: s.hi,
    }
}

impl<'a> Sema<'a> {
    fn new(sm: &'a SourceMap, ast: &'a ast::Program) -> Sema<'a> {
        let _ = ast;
        Sema {
            sm,
            diags: Vec::new(),
            seen: HashSet::new(),
            p: ir::Program::default(),
            g: Globals::default(),
            cx: Owner::global(),
            type_cache: HashMap::new(),
            type_busy: HashSet::new(),
            const_cache: HashMap::new(),
            const_busy: HashSet::new(),
            func_cache: HashMap::new(),
            func_busy: HashSet::new(),
            global_externs: HashMap::new(),
            elaborated: HashSet::new(),
            depth: 0,
            elab_busy: HashSet::new(),
            incomplete_blocks: HashSet::new(),
            resolving: 0,
            type_depths: Vec::new(),
            nesting_reported: false,
            arch: String::new(),
        }
    }

    /// Reports a diagnostic once (elaborating a block twice does not duplicate its errors).
    pub fn report(&mut self, d: Diagnostic) {
        let key = match &d.primary {
            Some(l) => (d.code, l.span.file.0, l.span.lo, l.span.hi, d.message.clone()),
            None => (d.code, u32::MAX, 0, 0, d.message.clone()),
        };
        if self.seen.insert(key) {
            self.diags.push(d);
        }
    }

    pub fn err(&mut self, code: &'static str, msg: impl Into<String>, span: Span, label: impl Into<String>) {
        self.report(Diagnostic::error(code, msg, span, label));
    }

    /// Source text of a span with whitespace removed (used for key names).
    pub fn text_compact(&self, span: Span) -> String {
        self.sm.snippet(span).chars().filter(|c| !c.is_whitespace()).collect()
    }
}
