//! The run-to-completion architecture (`p4include/rtc.p4`, docs/rtc.md): checks of how a program
//! uses its externs, once over the elaborated IR ([`Sema::check_rtc`]), for programs whose
//! package is one of rtc.p4's:
//!
//! * `Foreach` is bound: to a table with `@tbl("t")` (and its `@methods(act="body", ...)` name
//!   actions of `t` and loop-body actions of the Foreach's control), or, without `@tbl`, to a
//!   range-loop body with `@methods(index="body")` (E0420);
//! * `TableOperation` is bound with `@tbl("t")` to a table with exact keys only (E0420);
//! * `Sleep`, `Queue.popWait`, `TableOperation.entryDel` and a `Foreach` bound to a table are used
//!   only in background pipelines (E0421): a foreground core must never stop processing packets
//!   (entryDel and a sweep's snapshot take the table's writer mutex, which a control-plane writer
//!   may hold across an RCU grace period);
//! * a Foreach loop body (an action its `@methods` names; `break;`/`continue;` end the loop or the
//!   iteration in it, see [`Sema::foreach_loop_bodies`]) runs only as the loop's body: it is not
//!   called, not listed by a table and does not apply its own Foreach (E0423);
//! * `Queue<T>` carries serializable messages: `T` is a `bit<W>`, `int<W>`, `bool`, serializable
//!   enum, or a header or struct of them (E0422).

use std::collections::{HashMap, HashSet};

use p4dp_ir as ir;
use p4dp_ir::{AnnotationArg, BlockRef, CallTarget, ExternKind, ExternRef, MatchKind, Type};
use p4dp_syntax::{ast, Diagnostic, FileId, Span};

use crate::Sema;

/// The annotations binding a table (`@tbl`) and naming loop bodies (`@methods`).
const TBL: &str = "tbl";
const METHODS: &str = "methods";
/// The `@methods` key naming a range loop's body.
const INDEX_KEY: &str = "index";
/// The table annotation making the key the row.
const LINEAR: &str = "linear";
/// rtc.p4's loop extern.
const FOREACH: &str = "Foreach";

fn sspan(s: ir::Span) -> Span {
    Span::new(FileId(s.file), s.lo, s.hi)
}

/// The text of an annotation argument that names something (`"t"` or `t`).
fn arg_name(a: &AnnotationArg) -> Option<String> {
    match a {
        AnnotationArg::String(s) => Some(s.clone()),
        AnnotationArg::Raw(s) => Some(s.trim().trim_matches('"').to_string()),
        _ => None,
    }
}

/// `@tbl(...)`: `None` if absent, `Some(None)` if present but not one name.
fn tbl_of(x: &ir::ExternInstance) -> Option<Option<String>> {
    let a = x.annotations.iter().find(|a| a.name == TBL)?;
    Some(match a.args.as_slice() {
        [one] => arg_name(one),
        _ => None,
    })
}

/// `@methods(k="v", ...)` (kept as raw text: `k = "v"` is no expression) or the structured
/// `@methods[k="v", ...]`: the pairs, or `Err` if an argument is not `key = name`.
fn methods_of(x: &ir::ExternInstance) -> Option<Result<Vec<(String, String)>, ()>> {
    methods_in(&x.annotations)
}

/// [`methods_of`] over an annotation list.
fn methods_in(annotations: &[ir::Annotation]) -> Option<Result<Vec<(String, String)>, ()>> {
    let a = annotations.iter().find(|a| a.name == METHODS)?;
    let mut out = Vec::new();
    for arg in &a.args {
        match arg {
            AnnotationArg::Kv(k, v) => match arg_name(v) {
                Some(v) => out.push((k.clone(), v)),
                None => return Some(Err(())),
            },
            AnnotationArg::Raw(text) => {
                for pair in text.split(',') {
                    let Some((k, v)) = pair.split_once('=') else {
                        return Some(Err(()));
                    };
                    let (k, v) = (k.trim(), v.trim().trim_matches('"'));
                    let ident = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
                    if !ident(k) || !ident(v) {
                        return Some(Err(()));
                    }
                    out.push((k.to_string(), v.to_string()));
                }
            }
            _ => return Some(Err(())),
        }
    }
    Some(Ok(out))
}

/// Whether values of `t` can travel through a Queue (a flat copy of bits).
fn serializable(types: &ir::TypeTable, t: ir::TypeId, depth: u32) -> bool {
    if depth > 16 {
        return false;
    }
    match types.get(t) {
        Type::Bool | Type::Bit(_) | Type::Int(_) | Type::SerEnum { .. } => true,
        Type::Header(s) | Type::Struct(s) => s.fields.iter().all(|f| serializable(types, f.ty, depth + 1)),
        _ => false,
    }
}

impl<'a> Sema<'a> {
    /// The loop bodies that the `Foreach` instances among a control's local declarations name
    /// with `@methods` (read before the control's actions are lowered, so that `break;` and
    /// `continue;` in them are known to end the Foreach loop).
    pub(crate) fn foreach_loop_bodies(&self, locals: &'a [ast::Decl]) -> HashSet<String> {
        let mut out = HashSet::new();
        for d in locals {
            let ast::Decl::Instantiation(i) = d else { continue };
            let ast::TypeKind::Named(n) = &i.ty.kind else { continue };
            if n.name.name != FOREACH {
                continue;
            }
            if let Some(Ok(pairs)) = methods_in(&self.annotations(&i.annotations)) {
                out.extend(pairs.into_iter().map(|(_, body)| body));
            }
        }
        out
    }

    pub(crate) fn check_rtc(&mut self) {
        let Some(pkg) = &self.p.package else { return };
        if pkg.arch != "rtc" {
            return;
        }
        // Each control's pipeline role: background when a `bg*` package block reaches it.
        let mut background: HashMap<ir::ControlId, bool> = HashMap::new();
        let mut work: Vec<(ir::ControlId, bool)> = pkg
            .blocks
            .iter()
            .filter_map(|(name, b)| match b {
                BlockRef::Control(c) => Some((*c, name.starts_with("bg"))),
                BlockRef::Parser(_) => None,
            })
            .collect();
        while let Some((c, bg)) = work.pop() {
            if background.insert(c, bg).is_some() {
                continue;
            }
            let ctl = &self.p.controls[c];
            let mut subs = Vec::new();
            let mut visit = |call: &ir::Call| {
                if let CallTarget::Control(s) = call.target {
                    subs.push(s);
                }
            };
            ir::for_each_call(&ctl.body, &mut visit);
            for &a in &ctl.actions {
                ir::for_each_call(&self.p.actions[a].body, &mut visit);
            }
            work.extend(subs.into_iter().map(|s| (s, bg)));
        }
        self.check_rtc_foreground(&background);
        self.check_rtc_bindings();
        self.check_rtc_loop_bodies();
        self.check_rtc_linear();
    }

    /// E0424: a `@linear` table (the key is the row) has one exact key of at most 32 bits and no
    /// `const entries` beyond its size.
    fn check_rtc_linear(&mut self) {
        let mut errs = Vec::new();
        for (_, t) in self.p.tables.iter() {
            if !t.annotations.iter().any(|a| a.name == LINEAR) {
                continue;
            }
            let width = match t.keys.as_slice() {
                [k] if k.match_kind == MatchKind::Key(ir::KeyMatch::Exact) => match self.p.types.get(k.expr.ty) {
                    Type::Bit(w) => Some(*w),
                    _ => None,
                },
                _ => None,
            };
            if !width.is_some_and(|w| w <= 32) {
                errs.push(
                    Diagnostic::error(
                        "E0424",
                        format!("`@linear` table `{}`: the key is the row, so it must be one exact `bit<W>` key with W <= 32", t.name),
                        sspan(t.span),
                        "not a linear table",
                    )
                    .with_help("drop `@linear` (an exact table looks any key up by hashing)"),
                );
            }
        }
        for d in errs {
            self.report(d);
        }
    }

    /// E0423: a Foreach loop body runs only as the Foreach's body: it is not called directly, not
    /// listed by a table, and does not apply its own Foreach (which would restart the loop).
    fn check_rtc_loop_bodies(&mut self) {
        let mut errs: Vec<Diagnostic> = Vec::new();
        for (_, c) in self.p.controls.iter() {
            let mut visit = |call: &ir::Call, inside: Option<ir::ActionId>| match &call.target {
                CallTarget::Action(a) if self.p.actions[*a].loop_body => errs.push(
                    Diagnostic::error(
                        "E0423",
                        format!(
                            "`{}` is a Foreach loop body: it runs only as the loop's body",
                            self.p.actions[*a].name
                        ),
                        sspan(call.span),
                        "called directly",
                    )
                    .with_help("move the shared code into another action and call that one"),
                ),
                CallTarget::ExternMethod {
                    obj: ExternRef::Instance(x),
                    ..
                } if self.p.externs[*x].kind == ExternKind::RtcForeach => {
                    let Some(a) = inside else { return };
                    let own = matches!(methods_of(&self.p.externs[*x]), Some(Ok(m)) if m.iter().any(|(_, b)| *b == self.p.actions[a].name));
                    if own {
                        errs.push(Diagnostic::error(
                            "E0423",
                            format!(
                                "loop body `{}` applies its own Foreach `{}`",
                                self.p.actions[a].name, self.p.externs[*x].name
                            ),
                            sspan(call.span),
                            "the loop would restart inside itself",
                        ));
                    }
                }
                _ => {}
            };
            ir::for_each_call(&c.body, &mut |call| visit(call, None));
            for &a in &c.actions {
                let inside = self.p.actions[a].loop_body.then_some(a);
                ir::for_each_call(&self.p.actions[a].body, &mut |call| visit(call, inside));
            }
        }
        for (_, t) in self.p.tables.iter() {
            for ta in &t.actions {
                if self.p.actions[ta.action].loop_body {
                    errs.push(Diagnostic::error(
                        "E0423",
                        format!(
                            "table `{}` lists `{}`, a Foreach loop body",
                            t.name, self.p.actions[ta.action].name
                        ),
                        sspan(t.span),
                        "a loop body is no table action",
                    ));
                }
            }
        }
        for d in errs {
            self.report(d);
        }
    }

    /// E0421: `Sleep`, `popWait` and `entryDel` in a foreground control (apply block or actions).
    fn check_rtc_foreground(&mut self, background: &HashMap<ir::ControlId, bool>) {
        let mut bad: Vec<(String, ir::Span)> = Vec::new();
        for (&c, &bg) in background {
            if bg {
                continue;
            }
            let ctl = &self.p.controls[c];
            let externs = &self.p.externs;
            let mut visit = |call: &ir::Call| {
                let CallTarget::ExternMethod {
                    obj: ExternRef::Instance(x),
                    method,
                } = &call.target
                else {
                    return;
                };
                let x = &externs[*x];
                let stops = match x.kind {
                    ExternKind::RtcSleep => true,
                    // a table sweep snapshots the keys under the table's writer mutex
                    ExternKind::RtcForeach => tbl_of(x).is_some(),
                    ExternKind::RtcQueue => method == "popWait",
                    ExternKind::RtcTableOperation => method == "entryDel",
                    _ => false,
                };
                if stops {
                    bad.push((format!("{}.{method}", x.type_name), call.span));
                }
            };
            ir::for_each_call(&ctl.body, &mut visit);
            for &a in &ctl.actions {
                ir::for_each_call(&self.p.actions[a].body, &mut visit);
            }
        }
        bad.sort_by_key(|(_, s)| (s.file, s.lo));
        for (what, span) in bad {
            self.report(
                Diagnostic::error(
                    "E0421",
                    format!("`{what}` in the foreground pipeline"),
                    sspan(span),
                    "it may stop a core that processes packets",
                )
                .with_help("call it in a background pipeline (a `bg*_ingress` block of the package)"),
            );
        }
    }

    /// E0420 (`@tbl`/`@methods` bindings) and E0422 (Queue message types).
    fn check_rtc_bindings(&mut self) {
        let mut errs: Vec<Diagnostic> = Vec::new();
        for (xid, x) in self.p.externs.iter() {
            let span = sspan(x.span);
            match x.kind {
                ExternKind::RtcQueue => {
                    if let Some(&t) = x.type_args.first() {
                        if !serializable(&self.p.types, t, 0) {
                            errs.push(
                                Diagnostic::error(
                                    "E0422",
                                    format!(
                                        "`Queue<{}>`: a queue carries serializable messages only",
                                        ir::print::type_name(&self.p.types, t)
                                    ),
                                    span,
                                    "message type not serializable",
                                )
                                .with_help("use bit<W>, int<W>, bool, serializable enums, or headers/structs of them"),
                            );
                        }
                    }
                }
                ExternKind::RtcTableOperation | ExternKind::RtcForeach => {
                    if let Some(d) = self.rtc_binding(xid, x) {
                        errs.push(d);
                    }
                }
                _ => {}
            }
        }
        for d in errs {
            self.report(d);
        }
    }

    /// The first binding error of a `TableOperation` or `Foreach` instance, if any.
    fn rtc_binding(&self, xid: ir::ExternId, x: &ir::ExternInstance) -> Option<Diagnostic> {
        let span = sspan(x.span);
        let is_foreach = x.kind == ExternKind::RtcForeach;
        let methods = methods_of(x);
        if let Some(Err(())) = methods {
            return Some(
                Diagnostic::error("E0420", format!("`{}`: malformed `@methods`", x.name), span, "here")
                    .with_help("write `@methods(action=\"loop_body\", ...)`"),
            );
        }
        let methods = methods.and_then(Result::ok);
        let table = match tbl_of(x) {
            None if is_foreach => {
                // A range loop: @methods(index="body") names its body.
                let body = methods.as_ref().and_then(|m| m.iter().find(|(k, _)| k == INDEX_KEY));
                return match body {
                    Some((_, b)) => self.missing_body(xid, x, b),
                    None => Some(
                        Diagnostic::error("E0420", format!("Foreach `{}` is bound to no table", x.name), span, "no `@tbl`")
                            .with_help("bind a table with `@tbl(\"t\")` and its loop bodies with `@methods(act=\"body\")`, or a range-loop body with `@methods(index=\"body\")`"),
                    ),
                };
            }
            None => {
                return Some(
                    Diagnostic::error(
                        "E0420",
                        format!("TableOperation `{}` is bound to no table", x.name),
                        span,
                        "no `@tbl`",
                    )
                    .with_help("bind the table it writes with `@tbl(\"t\")`"),
                )
            }
            Some(None) => {
                return Some(Diagnostic::error(
                    "E0420",
                    format!("`{}`: `@tbl` takes one table name", x.name),
                    span,
                    "here",
                ))
            }
            Some(Some(name)) => {
                let found = self.p.tables.iter().find(|(_, t)| t.name == name || t.fq_name == name);
                match found {
                    Some((_, t)) => t,
                    None => {
                        return Some(Diagnostic::error(
                            "E0420",
                            format!("`@tbl(\"{name}\")` of `{}`: no table `{name}`", x.name),
                            span,
                            "no such table",
                        ))
                    }
                }
            }
        };
        if table.keys.is_empty()
            || table
                .keys
                .iter()
                .any(|k| k.match_kind != MatchKind::Key(ir::KeyMatch::Exact))
        {
            return Some(
                Diagnostic::error(
                    "E0420",
                    format!(
                        "`{}` binds table `{}`, whose keys are not all exact",
                        x.name, table.name
                    ),
                    span,
                    "bound here",
                )
                .with_help("TableOperation and Foreach address entries by their whole key"),
            );
        }
        if !is_foreach {
            return None;
        }
        let Some(methods) = methods else {
            return Some(
                Diagnostic::error(
                    "E0420",
                    format!("Foreach `{}` names no loop body", x.name),
                    span,
                    "no `@methods`",
                )
                .with_help(format!(
                    "name one per action of `{}`: `@methods(act=\"loop_body\")`",
                    table.name
                )),
            );
        };
        for (act, body) in &methods {
            if !table.actions.iter().any(|ta| self.p.actions[ta.action].name == *act) {
                return Some(Diagnostic::error(
                    "E0420",
                    format!(
                        "`@methods` of `{}`: table `{}` has no action `{act}`",
                        x.name, table.name
                    ),
                    span,
                    "bound here",
                ));
            }
            if let Some(d) = self.missing_body(xid, x, body) {
                return Some(d);
            }
        }
        None
    }

    /// E0420 if no control using extern `xid` declares an action named `body`.
    fn missing_body(&self, xid: ir::ExternId, x: &ir::ExternInstance, body: &str) -> Option<Diagnostic> {
        let found = self
            .p
            .controls
            .iter()
            .any(|(_, c)| c.externs.contains(&xid) && c.actions.iter().any(|&a| self.p.actions[a].name == body));
        if found {
            return None;
        }
        Some(Diagnostic::error(
            "E0420",
            format!("`@methods` of `{}`: no action `{body}` in its control", x.name),
            sspan(x.span),
            "loop body not found",
        ))
    }
}
