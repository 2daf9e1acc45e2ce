//! Tables: keys, `actions`, default action, const entries (keysets per match kind, priorities),
//! extern-valued properties.

use std::collections::HashMap;

use num_traits::ToPrimitive;

use p4dp_ir as ir;
use p4dp_ir::{Arg, KeySet, Type, Value};
use p4dp_syntax::ast;
use p4dp_syntax::Span;

use crate::expr::Val;
use crate::types::{control_plane_name, name_annotation};
use crate::{ispan, CVal, Sema};

/// Priorities of table entries: explicit ones are kept, missing ones continue from the previous
/// entry by `delta` so that earlier entries win; the first entry without one starts at
/// `n * delta`. The result is in the IR's convention (larger wins); for
/// `largest_priority_wins = false` the order is reversed.
pub fn entry_priorities(explicit: &[Option<i64>], largest_wins: bool, delta: i64) -> Vec<i64> {
    let n = explicit.len() as i64;
    let mut out = Vec::with_capacity(explicit.len());
    let mut prev: Option<i64> = None;
    for (i, e) in explicit.iter().enumerate() {
        let p = match (e, prev) {
            (Some(p), _) => *p,
            (None, None) => {
                if largest_wins {
                    (n - i as i64).saturating_mul(delta)
                } else {
                    (i as i64 + 1).saturating_mul(delta)
                }
            }
            (None, Some(q)) => {
                if largest_wins {
                    q.saturating_sub(delta)
                } else {
                    q.saturating_add(delta)
                }
            }
        };
        prev = Some(p);
        out.push(p);
    }
    if !largest_wins {
        let (lo, hi) = (
            out.iter().copied().min().unwrap_or(0),
            out.iter().copied().max().unwrap_or(0),
        );
        for p in &mut out {
            *p = hi.saturating_add(lo).saturating_sub(*p);
        }
    }
    out
}

impl<'a> Sema<'a> {
    // ----------------------------------------------------------------------------------------
    // tables

    /// The initial entries must fit the table: a declared `size` smaller than their number is
    /// E0405 (the runtime would refuse them at load); without `size`, a table with more than
    /// [`ir::DEFAULT_TABLE_SIZE`] entries gets exactly as many.
    fn size_for_entries(&mut self, table: &mut ir::Table, size_span: Option<Span>) {
        let n = table.entries.len() as u64;
        match (table.size, size_span) {
            (Some(size), Some(sp)) if size < n => self.err(
                "E0405",
                format!("table `{}` has {n} initial entries but `size = {size}`", table.name),
                sp,
                format!("make it at least {n}"),
            ),
            (None, _) if n > ir::DEFAULT_TABLE_SIZE => table.size = Some(n),
            _ => {}
        }
    }

    pub(crate) fn lower_table(&mut self, td: &'a ast::TableDecl) -> Option<ir::TableId> {
        let cid = self.cx.control()?;
        let fq = control_plane_name(
            &self.cx.path,
            &td.name.name,
            name_annotation(&td.annotations).as_deref(),
        );
        let mut keys: Vec<ir::TableKey> = Vec::new();
        let mut actions: Vec<ir::TableAction> = Vec::new();
        let mut seen_props: HashMap<String, Span> = HashMap::new();
        let mut ok = true;
        // False when a key was reported: entries and key-dependent checks are then skipped (they
        // would count the keys that did lower and report follow-on errors).
        let mut keys_ok = true;
        // Pass 1: keys and actions.
        for p in &td.properties {
            let pname = match &p.kind {
                ast::TablePropertyKind::Key(_) => "key".to_string(),
                ast::TablePropertyKind::Actions(_) => "actions".to_string(),
                ast::TablePropertyKind::Entries(_) => "entries".to_string(),
                ast::TablePropertyKind::Other { name, .. } => name.name.clone(),
            };
            if let Some(prev) = seen_props.insert(pname.clone(), p.span) {
                self.report(
                    p4dp_syntax::Diagnostic::error(
                        "E0405",
                        format!("table property `{pname}` given twice"),
                        p.span,
                        "duplicate property",
                    )
                    .with_secondary(prev, "first given here"),
                );
                continue;
            }
            match &p.kind {
                ast::TablePropertyKind::Key(ks) => {
                    for k in ks {
                        match self.table_key(k) {
                            Some(k) => keys.push(k),
                            None => {
                                ok = false;
                                keys_ok = false;
                            }
                        }
                    }
                }
                ast::TablePropertyKind::Actions(refs) => {
                    for r in refs {
                        if let Some(ta) = self.table_action(r) {
                            if actions.iter().any(|a| a.action == ta.action) {
                                self.err(
                                    "E0203",
                                    format!("action `{}` is listed twice", r.name.name.name),
                                    r.span,
                                    "duplicate action",
                                );
                            } else {
                                actions.push(ta);
                            }
                        } else {
                            ok = false;
                        }
                    }
                }
                _ => {}
            }
        }
        if !seen_props.contains_key("actions") {
            self.err(
                "E0405",
                format!("table `{}` has no `actions` property", td.name.name),
                td.name.span,
                "add `actions = { ... }`",
            );
        }
        let mut table = ir::Table {
            name: td.name.name.clone(),
            fq_name: fq,
            owner: cid,
            keys,
            actions,
            default_action: ir::DefaultAction {
                action: ir::Id::new(0),
                data: Vec::new(),
                is_const: false,
            },
            entries: Vec::new(),
            entries_const: false,
            size: None,
            direct_counter: None,
            direct_meter: None,
            implementation: None,
            add_on_miss: false,
            idle_timeout: ir::IdleTimeout::default(),
            entry_lock: false,
            storage: ir::Storage::Auto,
            other_properties: Vec::new(),
            annotations: self.annotations(&td.annotations),
            span: ispan(td.span),
        };
        // Pass 2: everything else.
        let mut size_span: Option<Span> = None;
        let mut default = None;
        let mut entries_prop = None;
        for p in &td.properties {
            match &p.kind {
                ast::TablePropertyKind::Entries(es) => entries_prop = Some((es, p.is_const)),
                ast::TablePropertyKind::Other { name, value } => match name.name.as_str() {
                    "default_action" => default = self.default_action(&table, value, p.is_const),
                    "size" => {
                        if let Some(v) = self.const_int(value) {
                            match v.to_u64() {
                                Some(0) => self.err(
                                    "E0405",
                                    "table size 0: a table holds at least one entry",
                                    value.span,
                                    "omit `size` for the default capacity",
                                ),
                                Some(n) if n <= u64::from(u32::MAX) => {
                                    table.size = Some(n);
                                    size_span = Some(value.span);
                                }
                                Some(n) => self.err(
                                    "E0405",
                                    format!("table size {n} is too large (at most {})", u32::MAX),
                                    value.span,
                                    "too large",
                                ),
                                None => self.err(
                                    "E0405",
                                    "table size must be a non-negative integer",
                                    value.span,
                                    "bad size",
                                ),
                            }
                        }
                    }
                    "counters" | "pna_direct_counter" | "psa_direct_counter" => {
                        table.direct_counter = self.prop_extern(value, &table.fq_name)
                    }
                    "meters" | "pna_direct_meter" | "psa_direct_meter" => {
                        table.direct_meter = self.prop_extern(value, &table.fq_name)
                    }
                    "implementation" | "pna_implementation" | "psa_implementation" => {
                        table.implementation = self.prop_extern(value, &table.fq_name)
                    }
                    other => {
                        if let Some(v) = self.const_eval(value, None) {
                            if let Some(checked) = self.dp_property(other, &v, value.span) {
                                if let Some(v) = checked {
                                    crate::dpwrite::set_dp_property(&mut table, other, v);
                                }
                                continue;
                            }
                            let v = match v {
                                CVal::V(v, _) => v,
                                CVal::Int(i) => crate::consts::bits(&i, 64, true),
                            };
                            table.other_properties.push((other.to_string(), v));
                        }
                    }
                },
                _ => {}
            }
        }
        table.default_action = match default {
            Some(d) => d,
            None => self.implicit_default(&mut table, td.name.span)?,
        };
        if !keys_ok {
            return None;
        }
        if let Some((es, is_const)) = entries_prop {
            table.entries_const = is_const;
            table.entries = self.entries(&table, es);
        }
        self.size_for_entries(&mut table, size_span);
        self.check_dp_table(td, &mut table);
        if !ok {
            return None;
        }
        let tid = self.p.tables.alloc(table);
        self.cx.tables.push(tid);
        Some(tid)
    }

    pub(crate) fn table_key(&mut self, k: &'a ast::KeyElement) -> Option<ir::TableKey> {
        let mut pre = Vec::new();
        let e = self.rexpr(&k.expr, &mut pre);
        if !pre.is_empty() {
            self.err(
                "E0405",
                "table keys cannot contain calls",
                k.expr.span,
                "compute it into a variable before `apply`",
            );
            return None;
        }
        let e = e?;
        if !matches!(
            self.ty(e.ty),
            Type::Bit(_) | Type::Int(_) | Type::Bool | Type::SerEnum { .. } | Type::Enum { .. } | Type::Error
        ) {
            let tn = self.tname(e.ty);
            self.err(
                "E0405",
                format!("a table key cannot have type `{tn}`"),
                k.expr.span,
                "bad key type",
            );
            return None;
        }
        let mk = &k.match_kind.name.name;
        if !self.p.match_kinds.contains(mk) {
            self.err(
                "E0210",
                format!("unknown match kind `{mk}`"),
                k.match_kind.span,
                "not declared in any `match_kind { ... }`",
            );
            return None;
        }
        let name = name_annotation(&k.annotations).unwrap_or_else(|| self.text_compact(k.expr.span));
        Some(ir::TableKey {
            expr: e,
            match_kind: ir::MatchKind::from_name(mk),
            name,
            annotations: self.annotations(&k.annotations),
        })
    }

    pub(crate) fn resolve_action(&mut self, p: &'a ast::PathName) -> Option<ir::ActionId> {
        match self.name_val(p) {
            Val::Action(a) => Some(a),
            Val::Err => None,
            other => {
                let what = self.val_kind(&other);
                self.err(
                    "E0207",
                    format!("{what} is not an action"),
                    p.span,
                    "expected an action",
                );
                None
            }
        }
    }

    pub(crate) fn action_params(&self, a: ir::ActionId) -> Vec<(String, ir::Direction, ir::TypeId)> {
        self.p.actions[a]
            .params
            .iter()
            .map(|v| {
                let var = &self.cx.vars[*v];
                let d = match var.kind {
                    ir::VarKind::ActionParam(_, d) => d,
                    _ => ir::Direction::None,
                };
                (var.name.clone(), d, var.ty)
            })
            .collect()
    }

    pub(crate) fn table_action(&mut self, r: &'a ast::ActionRef) -> Option<ir::TableAction> {
        let a = self.resolve_action(&r.name)?;
        let ps = self.action_params(a);
        let args = r.args.as_deref().unwrap_or(&[]);
        let ndir = ps.iter().filter(|p| p.1 != ir::Direction::None).count();
        if args.len() != ndir && !(r.args.is_none() && ndir == 0) {
            self.err(
                "E0306",
                format!(
                    "action `{}` has {ndir} directional parameters; the `actions` list must bind exactly those",
                    r.name.name.name
                ),
                r.span,
                "wrong number of arguments",
            );
            return None;
        }
        let mut bound = Vec::new();
        let mut ai = 0;
        for (_, d, t) in &ps {
            if *d == ir::Direction::None {
                bound.push(None);
                continue;
            }
            let a = &args[ai].value;
            ai += 1;
            let mut pre = Vec::new();
            let arg = match d {
                ir::Direction::In => self.expr_as(a, *t, &mut pre).map(Arg::In),
                d => self.lvalue(a, &mut pre).map(|x| crate::overload::lvalue_arg(*d, x)),
            };
            if !pre.is_empty() {
                self.err(
                    "E0405",
                    "arguments in an `actions` list cannot contain calls or dynamic indices",
                    a.span,
                    "not allowed here",
                );
                return None;
            }
            if let Some(Arg::Out(x) | Arg::InOut(x)) = &arg {
                if x.ty != *t {
                    let (tn, an) = (self.tname(*t), self.tname(x.ty));
                    self.err(
                        "E0301",
                        format!("type mismatch: expected `{tn}`, found `{an}`"),
                        a.span,
                        "wrong type",
                    );
                    return None;
                }
            }
            bound.push(Some(arg?));
        }
        Some(ir::TableAction {
            action: a,
            bound,
            annotations: self.annotations(&r.annotations),
        })
    }

    /// Constant action data for an action call in `default_action` or an entry.
    pub(crate) fn action_data(
        &mut self,
        table: &ir::Table,
        p: &'a ast::PathName,
        args: &'a [ast::Argument],
        span: Span,
    ) -> Option<(ir::ActionId, Vec<Value>)> {
        let e_span = span;
        let a = self.resolve_action(p)?;
        if !table.actions.iter().any(|x| x.action == a) {
            self.err(
                "E0207",
                format!(
                    "action `{}` is not in the actions of table `{}`",
                    p.name.name, table.name
                ),
                p.span,
                "not listed in `actions`",
            );
            return None;
        }
        let ps = self.action_params(a);
        let mut data = Vec::new();
        let ndir = ps.iter().filter(|p| p.1 != ir::Direction::None).count();
        let nless = ps.len() - ndir;
        let given: Vec<&'a ast::Argument> = if args.len() == ps.len() {
            args[ndir..].iter().collect()
        } else {
            args.iter().collect()
        };
        if given.len() != nless {
            self.err(
                "E0306",
                format!(
                    "action `{}` needs {nless} arguments for its directionless parameters",
                    p.name.name
                ),
                e_span,
                "wrong number of arguments",
            );
            return None;
        }
        for ((_, _, t), a) in ps.iter().filter(|p| p.1 == ir::Direction::None).zip(given) {
            data.push(self.const_value(&a.value, *t)?);
        }
        Some((a, data))
    }

    pub(crate) fn default_action(
        &mut self,
        table: &ir::Table,
        e: &'a ast::Expr,
        is_const: bool,
    ) -> Option<ir::DefaultAction> {
        let (p, args): (&'a ast::PathName, &'a [ast::Argument]) = match &e.kind {
            ast::ExprKind::Name(p) => (p, &[]),
            ast::ExprKind::Call { callee, args, .. } => match &callee.kind {
                ast::ExprKind::Name(p) => (p, &args[..]),
                _ => {
                    self.err("E0405", "expected an action call", e.span, "not an action");
                    return None;
                }
            },
            _ => {
                self.err("E0405", "expected an action call", e.span, "not an action");
                return None;
            }
        };
        let (a, data) = self.action_data(table, p, args, e.span)?;
        if table
            .actions
            .iter()
            .any(|x| x.action == a && x.annotations.iter().any(|n| n.name == "tableonly"))
        {
            self.err(
                "E0405",
                "a `@tableonly` action cannot be the default action",
                e.span,
                "annotated @tableonly",
            );
        }
        Some(ir::DefaultAction {
            action: a,
            data,
            is_const,
        })
    }

    /// No `default_action`: `NoAction`, added to the table's actions as `@defaultonly` if missing.
    pub(crate) fn implicit_default(&mut self, table: &mut ir::Table, span: Span) -> Option<ir::DefaultAction> {
        let d = self.g.map.get("NoAction").and_then(|v| v.first().copied());
        let Some(d @ ast::Decl::Action(ad)) = d else {
            self.err(
                "E0405",
                format!(
                    "table `{}` has no `default_action` and `NoAction` is not declared",
                    table.name
                ),
                span,
                "add a `default_action`",
            );
            return None;
        };
        let a = self.use_global_action(d, ad)?;
        if !table.actions.iter().any(|x| x.action == a) {
            table.actions.push(ir::TableAction {
                action: a,
                bound: Vec::new(),
                annotations: vec![ir::Annotation {
                    name: "defaultonly".into(),
                    args: Vec::new(),
                }],
            });
        }
        Some(ir::DefaultAction {
            action: a,
            data: Vec::new(),
            is_const: false,
        })
    }

    pub(crate) fn prop_extern(&mut self, e: &'a ast::Expr, table_fq: &str) -> Option<ir::ExternId> {
        match &e.kind {
            ast::ExprKind::Call {
                callee,
                type_args,
                args,
            } => {
                let ast::ExprKind::Name(p) = &callee.kind else {
                    self.err("E0405", "expected an extern instance", e.span, "not an extern");
                    return None;
                };
                let local = table_fq.rsplit('.').next().unwrap_or(table_fq).to_string();
                let id = self.new_extern(
                    p,
                    type_args,
                    args,
                    &local,
                    Some(&format!(".{table_fq}")),
                    Vec::new(),
                    "",
                    e.span,
                )?;
                self.cx.externs.push(id);
                Some(id)
            }
            _ => match self.expr(e, None, &mut Vec::new()) {
                Val::Extern(ir::ExternRef::Instance(x), _, _) => Some(x),
                Val::Err => None,
                _ => {
                    self.err("E0405", "expected an extern instance", e.span, "not an extern");
                    None
                }
            },
        }
    }

    /// Entry keysets must suit each key's match kind (`exact`: values; `ternary`: values, masks,
    /// `_`; `lpm`: values, prefix masks, `_`; `range`: values, ranges, `_`; `optional`: values, `_`).
    pub(crate) fn keysets_fit_match_kinds(&mut self, table: &ir::Table, ks: &[KeySet], span: Span) -> bool {
        let mut ok = true;
        for (k, key) in ks.iter().zip(&table.keys) {
            let fits = match (key.match_kind.as_str(), k) {
                (_, KeySet::Value(_)) => true,
                ("exact", _) => false,
                ("ternary", KeySet::Mask(..) | KeySet::Any) => true,
                ("lpm", KeySet::Any) => true,
                ("lpm", KeySet::Mask(_, m)) => is_prefix_mask(m),
                ("range", KeySet::Range(..) | KeySet::Any) => true,
                ("optional", KeySet::Any) => true,
                ("ternary" | "lpm" | "range" | "optional", _) => false,
                _ => true,
            };
            if !fits {
                self.err(
                    "E0409",
                    format!(
                        "this entry's keyset for key `{}` does not suit match kind `{}`",
                        key.name, key.match_kind
                    ),
                    span,
                    "invalid keyset for the match kind",
                );
                ok = false;
            }
        }
        ok
    }

    /// The legacy `@priority(N)` annotation of a table entry: `None` without one, `Some(None)`
    /// when it is malformed (reported).
    fn entry_priority_annotation(&mut self, e: &'a ast::Entry) -> Option<Option<i64>> {
        let a = e.annotations.iter().find(|a| a.name.name == "priority")?;
        let x = match &a.body {
            ast::AnnotationBody::Unstructured { exprs: Some(es), .. } if es.len() == 1 => &es[0],
            _ => {
                self.err(
                    "E0409",
                    "`@priority` needs one integer constant",
                    a.span,
                    "malformed annotation",
                );
                return Some(None);
            }
        };
        match self.const_int(x).map(|v| v.to_i32()) {
            Some(Some(v)) => Some(Some(i64::from(v))),
            Some(None) => {
                self.err("E0409", "entry priority out of range", x.span, "does not fit 32 bits");
                Some(None)
            }
            None => Some(None),
        }
    }

    pub(crate) fn entries(&mut self, table: &ir::Table, es: &'a [ast::Entry]) -> Vec<ir::ConstEntry> {
        let tys: Vec<ir::TypeId> = table.keys.iter().map(|k| k.expr.ty).collect();
        let mut rows = Vec::new();
        let mut explicit = Vec::new();
        let mut legacy = Vec::new();
        for e in es {
            let ks = self.keysets(&e.keyset, &tys, false, e.span);
            let ks = ks.filter(|ks| self.keysets_fit_match_kinds(table, ks, e.span));
            let act = self.action_data(
                table,
                &e.action.name,
                e.action.args.as_deref().unwrap_or(&[]),
                e.action.span,
            );
            let prio = match &e.priority {
                Some(p) => match self.const_int(p).map(|v| v.to_i64()) {
                    Some(Some(v)) => Some(v),
                    Some(None) => {
                        self.err("E0409", "entry priority out of range", p.span, "too large");
                        None
                    }
                    None => None,
                },
                None => None,
            };
            let ann = self.entry_priority_annotation(e);
            if let (Some(p), Some(Some(_))) = (&e.priority, &ann) {
                self.err(
                    "E0409",
                    "an entry cannot have both `priority = N` and a `@priority` annotation",
                    p.span,
                    "two priorities",
                );
            }
            if let (Some(ks), Some((a, data))) = (ks, act) {
                rows.push((ks, a, data, e.span));
                explicit.push(prio);
                legacy.push(ann.flatten());
            }
        }
        if legacy.iter().any(Option::is_some) {
            if explicit.iter().any(Option::is_some) {
                self.err(
                    "E0409",
                    "a table cannot mix `priority = N` entries with `@priority` annotations",
                    es.first().map(|e| e.span).unwrap_or_default(),
                    "mixed priority forms",
                );
            }
            let prios = legacy_entry_priorities(&legacy);
            return rows
                .into_iter()
                .zip(prios)
                .map(|((keys, action, data, span), p)| ir::ConstEntry {
                    keys,
                    action,
                    data,
                    priority: Some(p),
                    span: ispan(span),
                })
                .collect();
        }
        let largest = !table
            .other_properties
            .iter()
            .any(|(n, v)| n == "largest_priority_wins" && *v == Value::Bool(false));
        let delta = table
            .other_properties
            .iter()
            .find(|(n, _)| n == "priority_delta")
            .and_then(|(_, v)| crate::consts::to_int(v))
            .and_then(|v| v.to_i64())
            .unwrap_or(1);
        let prios = entry_priorities(&explicit, largest, delta);
        rows.into_iter()
            .zip(prios)
            .map(|((keys, action, data, span), p)| ir::ConstEntry {
                keys,
                action,
                data,
                priority: Some(p),
                span: ispan(span),
            })
            .collect()
    }
}

/// Priorities of entries of a table that uses the legacy `@priority(N)` entry annotation
/// (BMv2/p4c convention): an annotated entry has priority N, any other entry its position
/// (1, 2, ...), and the *smallest* number wins; equal numbers go to the earlier entry. The
/// result is in the IR's convention (larger wins, positive, fits `int32_t`).
pub fn legacy_entry_priorities(ann: &[Option<i64>]) -> Vec<i64> {
    let n = ann.len() as i64;
    let nums: Vec<i64> = ann.iter().enumerate().map(|(i, a)| a.unwrap_or(i as i64 + 1)).collect();
    // Rank by (number, position): rank 0 wins, so it gets the largest IR priority n.
    let mut order: Vec<usize> = (0..nums.len()).collect();
    order.sort_by_key(|&i| (nums[i], i));
    let mut out = vec![0; nums.len()];
    for (rank, i) in order.into_iter().enumerate() {
        out[i] = n - rank as i64;
    }
    out
}

/// Is `m` a prefix mask (ones followed by zeros)?
fn is_prefix_mask(m: &Value) -> bool {
    let Value::Bits { width, bits, .. } = m else {
        return false;
    };
    let ones = bits.count_ones() as u32;
    let full = (num_bigint::BigUint::from(1u8) << (*width as usize)) - num_bigint::BigUint::from(1u8);
    let want = if ones == 0 {
        num_bigint::BigUint::from(0u8)
    } else {
        (full.clone() >> ((*width - ones) as usize)) << ((*width - ones) as usize)
    };
    *bits == want
}
