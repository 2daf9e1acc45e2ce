//! Data-plane table writes (docs/dataplane-writes.md): checks of
//!
//! * `@__ref` action parameters (only directionless ones; such actions are only run by tables),
//! * the table properties `add_on_miss`, `pna_idle_timeout`, `idle_timeout_with_auto_delete`,
//!   `support_timeout` (their types; add-on-miss tables have exact keys only),
//! * the table annotations `@entry_lock` and `@storage("static" | "dynamic" | "auto")`,
//! * the PNA externs `add_entry`, `set_entry_expire_time`, `restart_expire_timer`: where they may
//!   be called, and `add_entry`'s action name and parameter struct.
//!
//! The extern checks run once over the elaborated IR ([`Sema::check_dp_writes`]) because they
//! need every table of a control. `add_entry`'s action name argument is rewritten to the
//! action's control-plane name (`fq_name`), which the back end looks up among the calling
//! action's control's actions.

use p4dp_ir as ir;
use p4dp_ir::{Arg, Block, Call, CallTarget, ExprKind, Stmt, Type, Value};
use p4dp_syntax::{ast, Diagnostic, FileId, Span};

use crate::{CVal, Sema};

/// The annotation marking an action parameter as a reference into the table entry.
pub const REF_ANNOTATION: &str = "__ref";
/// The table annotation running actions under the entry's lock.
pub const ENTRY_LOCK_ANNOTATION: &str = "entry_lock";
/// The table annotation choosing the entry storage.
pub const STORAGE_ANNOTATION: &str = "storage";

/// The PNA externs this module checks.
const ADD_ENTRY: &str = "add_entry";
const SET_EXPIRE: &str = "set_entry_expire_time";
const RESTART_EXPIRE: &str = "restart_expire_timer";

/// Records a checked data-plane-write table property ([`Sema::dp_property`]) in the table's
/// typed fields.
pub(crate) fn set_dp_property(t: &mut ir::Table, name: &str, v: Value) {
    match (name, v) {
        ("add_on_miss", Value::Bool(b)) => t.add_on_miss |= b,
        ("support_timeout", Value::Bool(b)) => t.idle_timeout.notify |= b,
        ("idle_timeout_with_auto_delete", Value::Bool(b)) => t.idle_timeout.auto_delete |= b,
        // PNA_IdleTimeout_t: NO_TIMEOUT, NOTIFY_CONTROL, AUTO_DELETE
        ("pna_idle_timeout", Value::Enum(i)) => {
            t.idle_timeout.notify |= i == 1;
            t.idle_timeout.auto_delete |= i == 2;
        }
        (name, v) => t.other_properties.push((name.to_string(), v)),
    }
}

fn sspan(s: ir::Span) -> Span {
    Span::new(FileId(s.file), s.lo, s.hi)
}

/// Visits every call in a block (recursively into nested blocks, loops included).
fn visit_calls<'b>(b: &'b Block, f: &mut dyn FnMut(&'b Call)) {
    ir::for_each_call(b, f);
}

/// The name of a data-plane-write extern function called by `c`, if it is one.
fn dp_extern(c: &Call) -> Option<&'static str> {
    match &c.target {
        CallTarget::ExternFunction(n) => [ADD_ENTRY, SET_EXPIRE, RESTART_EXPIRE].into_iter().find(|x| x == n),
        _ => None,
    }
}

/// Mutable access to the `add_entry` call at `span` in a block.
fn find_call_mut(b: &mut Block, span: ir::Span) -> Option<&mut Call> {
    for s in b.iter_mut() {
        let found = match s {
            Stmt::Call(c) if c.span == span && dp_extern(c) == Some(ADD_ENTRY) => Some(c),
            Stmt::If { then_, else_, .. } => find_call_mut(then_, span).or_else(|| find_call_mut(else_, span)),
            Stmt::Switch { cases, default, .. } => {
                let mut r = None;
                for c in cases.iter_mut() {
                    if r.is_none() {
                        r = find_call_mut(&mut c.body, span);
                    }
                }
                match (r, default) {
                    (Some(c), _) => Some(c),
                    (None, Some(d)) => find_call_mut(d, span),
                    (None, None) => None,
                }
            }
            Stmt::Block(b) => find_call_mut(b, span),
            _ => None,
        };
        if found.is_some() {
            return found;
        }
    }
    None
}

impl<'a> Sema<'a> {
    /// `@__ref` on an action parameter: only directionless parameters.
    pub(crate) fn check_ref_param(&mut self, p: &'a ast::Param) {
        for a in &p.annotations {
            if a.name.name == REF_ANNOTATION && p.direction != ast::Direction::None {
                self.report(
                    Diagnostic::error(
                        "E0412",
                        format!("`@__ref` on the directional parameter `{}`", p.name.name),
                        a.span,
                        "only directionless (action data) parameters can be `@__ref`",
                    )
                    .with_help("`@__ref` makes the parameter a reference into the matched table entry's action data; remove the direction or the annotation"),
                );
            }
        }
    }

    /// A direct call of an action that has `@__ref` parameters (there is no entry to refer to).
    pub(crate) fn check_ref_direct_call(&mut self, a: ir::ActionId, span: Span) {
        let act = &self.p.actions[a];
        let refp = act
            .params
            .iter()
            .map(|v| &self.cx.vars[*v])
            .find(|v| v.entry_ref)
            .map(|v| v.name.clone());
        if let Some(pname) = refp {
            let name = act.name.clone();
            self.report(
                Diagnostic::error(
                    "E0407",
                    format!("action `{name}` has the `@__ref` parameter `{pname}` and cannot be called directly"),
                    span,
                    "direct call",
                )
                .with_help("an action with `@__ref` parameters can only be run by a table (a hit or the default action), whose entry the parameters refer to"),
            );
        }
    }

    /// Type-checks a data-plane-write table property; `None` if `name` is not one or the value is
    /// wrong (reported).
    pub(crate) fn dp_property(&mut self, name: &str, v: &CVal, span: Span) -> Option<Option<Value>> {
        let want_bool = matches!(
            name,
            "add_on_miss" | "idle_timeout_with_auto_delete" | "support_timeout"
        );
        if want_bool {
            return Some(match v {
                CVal::V(Value::Bool(b), _) => Some(Value::Bool(*b)),
                _ => {
                    self.err(
                        "E0405",
                        format!("table property `{name}` must be a `bool` constant"),
                        span,
                        "expected `true` or `false`",
                    );
                    None
                }
            });
        }
        if name == "pna_idle_timeout" {
            return Some(match v {
                CVal::V(Value::Enum(i), t) if matches!(self.p.types.get(*t), Type::Enum { name, .. } if name == "PNA_IdleTimeout_t") => {
                    Some(Value::Enum(*i))
                }
                _ => {
                    self.err(
                        "E0405",
                        "table property `pna_idle_timeout` must be a `PNA_IdleTimeout_t` member",
                        span,
                        "expected NO_TIMEOUT, NOTIFY_CONTROL or AUTO_DELETE",
                    );
                    None
                }
            });
        }
        None
    }

    /// Table-level checks: `@entry_lock`/`@storage` annotations (recorded in the table's
    /// `entry_lock` and `storage`), add-on-miss key kinds.
    pub(crate) fn check_dp_table(&mut self, td: &'a ast::TableDecl, table: &mut ir::Table) {
        for a in &td.annotations {
            match a.name.name.as_str() {
                ENTRY_LOCK_ANNOTATION
                    if !matches!(&a.body, ast::AnnotationBody::Empty)
                        && !matches!(&a.body, ast::AnnotationBody::Unstructured { tokens, .. } if tokens.is_empty()) =>
                {
                    self.err(
                        "E0412",
                        "`@entry_lock` takes no arguments",
                        a.span,
                        "remove the arguments",
                    );
                }
                ENTRY_LOCK_ANNOTATION => table.entry_lock = true,
                STORAGE_ANNOTATION => {
                    let ir_ann = self.annotations(std::slice::from_ref(a));
                    let storage = match ir_ann.first().map(|x| x.args.as_slice()) {
                        Some([ir::AnnotationArg::String(s)]) => match s.as_str() {
                            "static" => Some(ir::Storage::Static),
                            "dynamic" => Some(ir::Storage::Dynamic),
                            "auto" => Some(ir::Storage::Auto),
                            _ => None,
                        },
                        _ => None,
                    };
                    let ok = storage.is_some();
                    if let Some(st) = storage {
                        table.storage = st;
                    }
                    if !ok {
                        self.err(
                            "E0412",
                            "`@storage` needs one of \"static\", \"dynamic\" or \"auto\"",
                            a.span,
                            "bad storage",
                        );
                    } else if table
                        .keys
                        .iter()
                        .any(|k| k.match_kind != ir::MatchKind::Key(ir::KeyMatch::Exact))
                    {
                        self.report(Diagnostic::warning(
                            "E0412",
                            "`@storage` only affects tables whose keys are all `exact`",
                            a.span,
                            "ignored for this table",
                        ));
                    }
                }
                _ => {}
            }
        }
        if table.add_on_miss {
            if let Some(k) = table
                .keys
                .iter()
                .find(|k| k.match_kind != ir::MatchKind::Key(ir::KeyMatch::Exact))
            {
                self.err(
                    "E0405",
                    format!(
                        "table `{}` has `add_on_miss = true` but its key `{}` is `{}`",
                        table.name, k.name, k.match_kind
                    ),
                    sspan(k.expr.span),
                    "add-on-miss tables need only `exact` keys",
                );
            }
            if table.keys.is_empty() {
                self.err(
                    "E0405",
                    format!("table `{}` has `add_on_miss = true` but no key", table.name),
                    td.name.span,
                    "add-on-miss needs a key to insert",
                );
            }
        }
    }

    /// Checks every call of `add_entry`, `set_entry_expire_time` and `restart_expire_timer` in
    /// the elaborated program, and rewrites `add_entry`'s action name to the action's `fq_name`.
    pub(crate) fn check_dp_writes(&mut self) {
        // Calls outside actions: control apply bodies, parser states, functions.
        let mut misplaced: Vec<(&'static str, ir::Span, &'static str)> = Vec::new();
        for (_, c) in self.p.controls.iter() {
            visit_calls(&c.body, &mut |call| {
                if let Some(n) = dp_extern(call) {
                    misplaced.push((n, call.span, "in a control's apply block"));
                }
            });
        }
        for (_, x) in self.p.parsers.iter() {
            visit_calls(&x.init, &mut |call| {
                if let Some(n) = dp_extern(call) {
                    misplaced.push((n, call.span, "in a parser"));
                }
            });
            for (_, st) in x.states.iter() {
                visit_calls(&st.body, &mut |call| {
                    if let Some(n) = dp_extern(call) {
                        misplaced.push((n, call.span, "in a parser"));
                    }
                });
            }
        }
        for (_, f) in self.p.functions.iter() {
            visit_calls(&f.body, &mut |call| {
                if let Some(n) = dp_extern(call) {
                    misplaced.push((n, call.span, "in a function"));
                }
            });
        }
        for (n, sp, where_) in misplaced {
            let help = if n == ADD_ENTRY {
                "call `add_entry` in the default action of a table with `add_on_miss = true`"
            } else {
                "call it in an action of a table with `pna_idle_timeout` set"
            };
            self.report(
                Diagnostic::error(
                    "E0407",
                    format!("`{n}` called {where_}"),
                    sspan(sp),
                    "only allowed in an action",
                )
                .with_help(help),
            );
        }

        // Calls in actions. After an error a table may be missing from the program (it failed to
        // lower): "no table uses this action" would then be a follow-on error, so it is not
        // reported.
        let tables_complete = !self.diags.iter().any(|d| d.is_error());
        let mut found: Vec<(ir::ActionId, &'static str, Call)> = Vec::new();
        for (aid, a) in self.p.actions.iter() {
            visit_calls(&a.body, &mut |call| {
                if let Some(n) = dp_extern(call) {
                    found.push((aid, n, call.clone()));
                }
            });
        }
        for (aid, n, call) in found {
            let users: Vec<ir::TableId> = self
                .p
                .tables
                .iter()
                .filter(|(_, t)| t.default_action.action == aid || t.actions.iter().any(|ta| ta.action == aid))
                .map(|(id, _)| id)
                .collect();
            let aname = self.p.actions[aid].name.clone();
            if users.is_empty() {
                if !tables_complete {
                    continue;
                }
                let what = if n == ADD_ENTRY {
                    "the default action of a table with `add_on_miss = true`"
                } else {
                    "an action of a table with an idle timeout"
                };
                self.report(
                    Diagnostic::error(
                        "E0407",
                        format!("`{n}` called in action `{aname}`, which no table uses"),
                        sspan(call.span),
                        format!("only allowed in {what}"),
                    )
                    .with_note("a call outside a table's action has no entry to act on"),
                );
                continue;
            }
            if n == ADD_ENTRY {
                self.check_add_entry(aid, &call, &users);
            } else {
                for t in users {
                    let tb = &self.p.tables[t];
                    if !tb.idle_timeout.any() {
                        let tname = tb.name.clone();
                        let tsp = sspan(tb.span);
                        self.report(
                            Diagnostic::error(
                                "E0407",
                                format!("`{n}` called in action `{aname}` of table `{tname}`, which has no idle timeout"),
                                sspan(call.span),
                                "needs an idle-timeout table",
                            )
                            .with_secondary(tsp, "this table")
                            .with_help("add `pna_idle_timeout = PNA_IdleTimeout_t.NOTIFY_CONTROL;` (or `AUTO_DELETE`) to the table"),
                        );
                    }
                }
            }
        }
    }

    fn check_add_entry(&mut self, aid: ir::ActionId, call: &Call, users: &[ir::TableId]) {
        let aname = self.p.actions[aid].name.clone();
        let csp = sspan(call.span);
        let mut ok = true;
        for t in users {
            let tb = &self.p.tables[*t];
            let (tname, tsp) = (tb.name.clone(), sspan(tb.span));
            if !tb.add_on_miss {
                ok = false;
                self.report(
                    Diagnostic::error("E0407", format!("`add_entry` called in action `{aname}` of table `{tname}`, which does not have `add_on_miss = true`"), csp, "not an add-on-miss table")
                        .with_secondary(tsp, "this table")
                        .with_help("add `add_on_miss = true;` to the table"),
                );
            } else if tb.default_action.action != aid {
                ok = false;
                self.report(
                    Diagnostic::error("E0407", format!("`add_entry` called in action `{aname}`, which is not the default action of table `{tname}`"), csp, "only allowed in the default action")
                        .with_secondary(tsp, "this table")
                        .with_note("add_entry inserts the key that missed; on a hit there is nothing to insert"),
                );
            }
        }
        // Argument 1: the action name, a string constant naming an action of the table(s).
        let name = match call.args.first() {
            Some(Arg::In(e)) => match &e.kind {
                ExprKind::Const(Value::String(s)) => Some((s.clone(), sspan(e.span))),
                _ => None,
            },
            _ => None,
        };
        let Some((s, ssp)) = name else {
            self.err(
                "E0401",
                "`add_entry`'s action name must be a string literal",
                csp,
                "not a constant string",
            );
            return;
        };
        let owner = self.p.actions[aid].owner;
        let cands: Vec<ir::ActionId> = self.p.controls[owner].actions.clone();
        let target = cands
            .iter()
            .copied()
            .find(|a| self.p.actions[*a].name == s)
            .or_else(|| cands.iter().copied().find(|a| self.p.actions[*a].fq_name == s));
        let Some(target) = target else {
            self.err(
                "E0207",
                format!("`add_entry` names the action `{s}`, which does not exist"),
                ssp,
                "unknown action",
            );
            return;
        };
        for t in users {
            let tb = &self.p.tables[*t];
            let listed = tb.actions.iter().find(|ta| ta.action == target);
            if listed.is_some_and(|ta| ta.annotations.iter().any(|x| x.name == "defaultonly")) {
                ok = false;
                let (tname, tsp) = (tb.name.clone(), sspan(tb.span));
                self.report(
                    Diagnostic::error(
                        "E0207",
                        format!("`add_entry` names the action `{s}`, which is `@defaultonly` in table `{tname}`"),
                        ssp,
                        "an entry cannot have a default-only action",
                    )
                    .with_secondary(tsp, "this table"),
                );
            } else if listed.is_none() {
                ok = false;
                let (tname, tsp) = (tb.name.clone(), sspan(tb.span));
                self.report(
                    Diagnostic::error(
                        "E0207",
                        format!("`add_entry` names the action `{s}`, which is not an action of table `{tname}`"),
                        ssp,
                        "not in the table's `actions`",
                    )
                    .with_secondary(tsp, "this table"),
                );
            }
        }
        if !ok {
            return;
        }
        // Argument 2: the parameter struct must match the directionless parameters.
        let vars = &self.p.controls[owner].vars;
        let tact = &self.p.actions[target];
        let data: Vec<(String, ir::TypeId)> = tact
            .params
            .iter()
            .filter(|v| matches!(vars[**v].kind, ir::VarKind::ActionParam(_, ir::Direction::None)))
            .map(|v| (vars[*v].name.clone(), vars[*v].ty))
            .collect();
        let pty = call.type_args.first().copied();
        let psp = match call.args.get(1) {
            Some(Arg::In(e)) => sspan(e.span),
            _ => csp,
        };
        let fields: Option<Vec<ir::TypeId>> = pty.and_then(|t| match self.p.types.get(t) {
            Type::Struct(st) => Some(st.fields.iter().map(|f| f.ty).collect()),
            _ => None,
        });
        let shape = |s: &Sema, ts: &[ir::TypeId]| {
            ts.iter()
                .map(|t| p4dp_ir::print::type_name(&s.p.types, *t))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let want = shape(self, &data.iter().map(|d| d.1).collect::<Vec<_>>());
        match fields {
            None => {
                ok = false;
                self.report(
                    Diagnostic::error(
                        "E0301",
                        "`add_entry`'s action parameters must be a struct",
                        psp,
                        "not a struct",
                    )
                    .with_help(format!(
                        "pass a struct with the fields ({want}) of action `{s}`'s directionless parameters"
                    )),
                );
            }
            Some(fs) if fs != data.iter().map(|d| d.1).collect::<Vec<_>>() => {
                ok = false;
                let got = shape(self, &fs);
                self.report(Diagnostic::error(
                    "E0301",
                    format!("`add_entry`'s parameter struct does not match action `{s}`"),
                    psp,
                    format!("fields ({got}), but the action's directionless parameters are ({want})"),
                ));
            }
            Some(_) => {}
        }
        if !ok {
            return;
        }
        // Canonicalize the name for the back end.
        let fq = self.p.actions[target].fq_name.clone();
        if let Some(c) = find_call_mut(&mut self.p.actions[aid].body, call.span) {
            if let Some(Arg::In(e)) = c.args.first_mut() {
                e.kind = ExprKind::Const(Value::String(fq));
            }
        }
    }
}
