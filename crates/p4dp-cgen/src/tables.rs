//! Tables (apply functions: native key, lookup, default, action dispatch) and the program
//! metadata `p4dp_program` (tables, actions, externs, errors) of abi.h.

use std::fmt::Write as _;

use num_bigint::BigUint;
use p4dp_ir::*;

use crate::ctype::{be_bytes, c_string, le_bytes, native_layout};
use crate::externs::const_u64;
use crate::{unsupported_as, Gen, Owner, UnsupportedKind, R};

/// An entry's value, mask and (range tables) hi buffers in the native key layout.
type EntryBufs = (Vec<u8>, Vec<u8>, Option<Vec<u8>>);

/// Default number of entries of a table without `size` (abi.h P4DP_TABLE_DEFAULT_SIZE).
pub const DEFAULT_TABLE_SIZE: u64 = p4dp_ir::DEFAULT_TABLE_SIZE;

/// The cell of a table's direct counter and meter that its default entry uses (a miss): the one
/// after the entries' slots, as the runtime sizes them (its capacity: the declared size, or
/// P4DP_TABLE_DEFAULT_SIZE when none or 0 is declared).
pub fn direct_default_cell(t: &p4dp_ir::Table) -> u64 {
    t.size
        .filter(|&s| s > 0)
        .unwrap_or(DEFAULT_TABLE_SIZE)
        .min(u32::MAX as u64 - 1)
}

/// The runtime's `P4DP_MATCH_*` of a match kind it implements.
pub(crate) fn match_kind_c(k: &MatchKind) -> Option<&'static str> {
    Some(match k {
        MatchKind::Key(KeyMatch::Exact) => "P4DP_MATCH_EXACT",
        MatchKind::Key(KeyMatch::Lpm) => "P4DP_MATCH_LPM",
        MatchKind::Key(KeyMatch::Ternary) => "P4DP_MATCH_TERNARY",
        MatchKind::Key(KeyMatch::Range) => "P4DP_MATCH_RANGE",
        MatchKind::Key(KeyMatch::Optional) => "P4DP_MATCH_OPTIONAL",
        MatchKind::Selector | MatchKind::Other(_) => return None,
    })
}

fn bytes_lit(b: &[u8]) -> String {
    let v: Vec<String> = b.iter().map(|x| format!("0x{x:02x}")).collect();
    format!("{{ {} }}", v.join(", "))
}

fn has_ann(anns: &[Annotation], name: &str) -> bool {
    anns.iter().any(|a| a.name == name)
}

impl Gen<'_> {
    /// Whether table `t` is an rtc.p4 `@linear` table (its row is its key; sema's E0424 makes
    /// its key one exact field of at most 32 bits).
    pub(crate) fn is_linear(&self, t: &p4dp_ir::Table) -> bool {
        self.is_rtc() && t.annotations.iter().any(|a| a.name == "linear")
    }

    /// Width of a table key / action parameter value type (scalars; error/enum are 32 bits).
    pub fn value_width(&self, t: TypeId) -> Option<u32> {
        match self.scalar(t) {
            Some(s) => Some(s.w.max(1)),
            None if self.is_cint(t) => Some(32),
            None => None,
        }
    }

    /// Key field widths of a table's match keys.
    fn key_widths(&self, keys: &[&TableKey]) -> R<Vec<u32>> {
        keys.iter()
            .map(|k| match self.value_width(k.expr.ty) {
                Some(w) => Ok(w),
                None => unsupported_as(
                    UnsupportedKind::Type,
                    k.expr.span,
                    format!("table key `{}` of a non-scalar type", k.name),
                ),
            })
            .collect()
    }

    /// Directionless parameters of an action: (var, width).
    pub fn data_params(&self, a: ActionId) -> R<Vec<(VarId, u32)>> {
        let p = self.p;
        let act = &p.actions[a];
        let vars = &p.controls[act.owner].vars;
        let mut out = Vec::new();
        if act.loop_body {
            // a Foreach loop body is no control-plane action: the loop fills its parameters
            return Ok(out);
        }
        for v in &act.params {
            if let VarKind::ActionParam(_, Direction::None) = vars[*v].kind {
                match self.value_width(vars[*v].ty) {
                    Some(w) => out.push((*v, w)),
                    None => {
                        return unsupported_as(
                            UnsupportedKind::Type,
                            act.span,
                            format!(
                                "action `{}`: parameter `{}` of a non-scalar type",
                                act.fq_name, vars[*v].name
                            ),
                        )
                    }
                }
            }
        }
        Ok(out)
    }

    /// Native layout of an action's data: ((offset, size) per data param, data_len).
    pub(crate) fn data_layout(&self, a: ActionId) -> R<(Vec<(u32, u32)>, u32)> {
        let ws: Vec<u32> = self.data_params(a)?.iter().map(|(_, w)| *w).collect();
        Ok(native_layout(&ws))
    }

    /// Bytes of a scalar constant in the native layout.
    fn native_bytes(v: &Value, w: u32, size: u32) -> Vec<u8> {
        let n = match v {
            Value::Bool(b) => BigUint::from(u8::from(*b)),
            Value::Bits { bits, .. } => bits.clone(),
            Value::Error(i) | Value::Enum(i) => BigUint::from(*i),
            _ => BigUint::from(0u8),
        };
        if w > 128 {
            be_bytes(&n, size as usize)
        } else {
            le_bytes(&n, size as usize)
        }
    }

    fn action_data_bytes(&self, a: ActionId, data: &[Value], span: Span) -> R<Vec<u8>> {
        let params = self.data_params(a)?;
        let (lay, len) = self.data_layout(a)?;
        if data.len() != params.len() {
            return unsupported_as(
                UnsupportedKind::Table,
                span,
                format!(
                    "action `{}` given {} data values for {} parameters",
                    self.p.actions[a].fq_name,
                    data.len(),
                    params.len()
                ),
            );
        }
        let mut buf = vec![0u8; len as usize];
        for ((v, (_, w)), (off, size)) in data.iter().zip(&params).zip(&lay) {
            let b = Self::native_bytes(v, *w, *size);
            buf[*off as usize..(*off + *size) as usize].copy_from_slice(&b);
        }
        Ok(buf)
    }

    /// Statements invoking action `ta` of a table: data params from `e->data` (or constants),
    /// bound arguments with copy-in/copy-out; result in `_rc`.
    fn invoke_table_action(
        &mut self,
        ta: &TableAction,
        consts: Option<&[Value]>,
        lock: bool,
        out: &mut String,
    ) -> R<()> {
        let p = self.p;
        let a = ta.action;
        let act = &p.actions[a];
        let o = Owner::Control(act.owner);
        let (lay, _) = self.data_layout(a)?;
        let mut di = 0usize;
        let mut copy_out = Vec::new();
        for (k, v) in act.params.iter().enumerate() {
            let slot = self.var_ref(o, *v);
            match ta.bound.get(k).cloned().flatten() {
                None => {
                    let (off, size) = lay.get(di).copied().unwrap_or((0, 0));
                    let is_ref = self.is_ref_var(o, *v);
                    match consts {
                        None if is_ref => {
                            let b = self.ref_bind(o, *v, off, act.span)?;
                            let _ = writeln!(out, "{b}");
                        }
                        None => {
                            let _ = writeln!(out, "\t\tmemcpy(&{slot}, e->data + {off}, {size});");
                        }
                        Some(vals) => {
                            let Some(val) = vals.get(di) else {
                                return unsupported_as(UnsupportedKind::Table, act.span, "default action without data");
                            };
                            let vt = self.vars(o)[*v].ty;
                            let x = self.value(val, vt, act.span)?;
                            if is_ref {
                                let b = self.ref_bind_scratch(o, *v, &x, act.span)?;
                                let _ = writeln!(out, "{b}");
                            } else {
                                let _ = writeln!(out, "\t\t{slot} = {x};");
                            }
                        }
                    }
                    di += 1;
                }
                Some(Arg::In(e)) => {
                    let x = self.expr(&e)?;
                    let _ = writeln!(out, "\t\t{slot} = {x};");
                }
                Some(Arg::InOut(e)) => {
                    let x = self.expr(&e)?;
                    let _ = writeln!(out, "\t\t{slot} = {x};");
                    copy_out.push((e, slot));
                }
                Some(Arg::Out(e)) => {
                    let _ = writeln!(out, "\t\tmemset(&{slot}, 0, sizeof {slot});");
                    copy_out.push((e, slot));
                }
            }
        }
        if lock && consts.is_none() {
            // @entry_lock: the entry's lock (biased to the worker using it) is held while the action
            // runs (abi.h, dpwrite.h).
            let _ = writeln!(
                out,
                "\t\t*run = {}u;\n\t\t{{\n\t\t\tconst int _lk = p4dp_entry_lock(R->ctx, _me);\n\t\t\t_rc = {}(R);\n\t\t\tp4dp_entry_unlock(_me, _lk);\n\t\t}}",
                a.index(),
                self.act_fns[a.index()]
            );
        } else {
            let _ = writeln!(
                out,
                "\t\t*run = {}u;\n\t\t_rc = {}(R);",
                a.index(),
                self.act_fns[a.index()]
            );
        }
        for (e, slot) in copy_out {
            let st = self.store(&e, &slot, 2)?;
            out.push_str(&st);
        }
        Ok(())
    }

    pub fn emit_table(&mut self, tid: TableId) -> R<()> {
        let p = self.p;
        let t = &p.tables[tid];
        self.owner = Owner::Control(t.owner);
        self.reject_label = None;
        // action profiles/selectors (actprof.rs): the key has only the match (non-selector) keys
        self.check_indirect(tid)?;
        let keys = self.match_keys(tid);
        let name = self.tbl_fns[tid.index()].clone();
        let widths = self.key_widths(&keys)?;
        let (_, key_len) = native_layout(&widths);
        for k in &keys {
            if match_kind_c(&k.match_kind).is_none() {
                return unsupported_as(
                    UnsupportedKind::Table,
                    k.expr.span,
                    format!("match kind `{}`", k.match_kind),
                );
            }
        }
        let (mut body, _) = self.key_code(&keys)?;
        let ti = tid.index();
        // Data-plane writes: a mutable view of the entry (@__ref, @entry_lock, idle timeouts) and
        // the table context add_entry/expire-timer calls act on.
        let lock = t.entry_lock;
        let idle = t.idle_timeout.any();
        let dp_ctx = !crate::dpwrite::table_flags(t).is_empty();
        let has_ref = self.table_has_ref(t);
        let _ = writeln!(body, "{}\n\tint _rc = 0;\n\tp4dp_table_count(R->ctx, {ti}u, _hit);\n\t*hit = (uint8_t)_hit;\n\tR->entry_hit = (uint32_t)_hit;", self.lookup_code(tid, key_len) + &self.actprof_resolve(tid)?);
        if lock || idle || dp_ctx || has_ref {
            let _ = writeln!(body, "\tstruct p4dp_entry *_me = (struct p4dp_entry *)(uintptr_t)e; /* written in place (abi.h) */\n\t(void)_me;");
        }
        if dp_ctx {
            let _ = writeln!(
                body,
                "\tR->dp_entry = _hit ? _me : NULL;\n\tR->dp_key = key;\n\tR->dp_table = {ti}u;"
            );
        }
        let _ = writeln!(body, "\tif (_hit) {{\n\t\tR->entry_index = e->index;");
        if idle {
            let _ = writeln!(body, "\t\tp4dp_entry_touch(R->ctx, _me);");
        }
        // A direct counter and meter have a cell per entry slot and, after them, the default
        // entry's (cell `n`, abi.h): a miss counts into it and its direct meter reads meter it.
        let n = direct_default_cell(t);
        if let Some(dc) = t.direct_counter {
            let _ = writeln!(
                body,
                "\t\tp4dp_counter_count(R->ctx, {}u, e->index, {n}u, R->pkt->len);",
                dc.index()
            );
        }
        if t.direct_counter.is_some() || t.direct_meter.is_some() {
            let _ = writeln!(
                body,
                "\t}} else {{\n\t\tR->entry_index = {n}u; /* the default entry's cell */"
            );
            if let Some(dc) = t.direct_counter {
                let _ = writeln!(
                    body,
                    "\t\tp4dp_counter_count(R->ctx, {}u, {n}u, {}u, R->pkt->len);",
                    dc.index(),
                    n + 1
                );
            }
        }
        let _ = writeln!(
            body,
            "\t}}\n\tif (!e) {{\n\t\t/* defensive: no runtime default, run the program's own default action */"
        );
        let def = t
            .actions
            .iter()
            .find(|ta| ta.action == t.default_action.action)
            .cloned()
            .unwrap_or(TableAction {
                action: t.default_action.action,
                bound: vec![None; p.actions[t.default_action.action].params.len()],
                annotations: vec![],
            });
        self.invoke_table_action(&def, Some(&t.default_action.data), false, &mut body)?;
        if dp_ctx {
            let _ = writeln!(body, "\t\tR->dp_entry = NULL;\n\t\tR->dp_key = NULL;");
        }
        let _ = writeln!(body, "\t\treturn _rc;\n\t}}\n\tswitch (e->action) {{");
        let mut seen = Vec::new();
        let mut all = t.actions.clone();
        if !all.iter().any(|ta| ta.action == def.action) {
            all.push(def.clone());
        }
        for ta in &all {
            let abi = self.abi_action_of[ta.action.index()];
            if seen.contains(&abi) {
                continue;
            }
            seen.push(abi);
            let _ = writeln!(body, "\tcase {abi}u: /* {} */", p.actions[ta.action].fq_name);
            self.invoke_table_action(ta, None, lock, &mut body)?;
            let _ = writeln!(body, "\t\tbreak;");
        }
        let _ = writeln!(
            body,
            "\tdefault:\n\t\tp4dp_count_unsupported(R->ctx, {});\n\t\tbreak;\n\t}}",
            c_string(&format!(
                "table {}: entry with an action the table does not have",
                t.fq_name
            ))
        );
        if dp_ctx {
            // The key buffer dies with this function: no later call may use the context.
            let _ = writeln!(body, "\tR->dp_entry = NULL;\n\tR->dp_key = NULL;");
        }
        let _ = writeln!(body, "\treturn _rc;");
        let _ = writeln!(
            self.protos,
            "static inline __attribute__((always_inline)) int {name}(struct gst *R, uint8_t *hit, uint32_t *run);"
        );
        let _ = writeln!(
            self.funcs,
            "/* table {} */\nstatic inline __attribute__((always_inline)) int {name}(struct gst *R, uint8_t *hit, uint32_t *run)\n{{\n{body}}}\n",
            t.fq_name
        );
        Ok(())
    }

    fn entry_buffers(
        &self,
        keys: &[&TableKey],
        e: &ConstEntry,
        widths: &[u32],
        lay: &[(u32, u32)],
        key_len: u32,
    ) -> R<EntryBufs> {
        let n = key_len as usize;
        let (mut val, mut mask, mut hi) = (vec![0u8; n], vec![0u8; n], vec![0u8; n]);
        let has_range = keys.iter().any(|k| k.match_kind == MatchKind::Key(KeyMatch::Range));
        if e.keys.len() != keys.len() {
            return unsupported_as(UnsupportedKind::Table, e.span, "entry with a wrong number of keys");
        }
        for (((k, ks), w), (off, size)) in keys.iter().zip(&e.keys).zip(widths).zip(lay) {
            let (o, s, w) = (*off as usize, *size, *w);
            let ones = Value::Bits {
                width: w,
                signed: false,
                bits: (BigUint::from(1u8) << w) - 1u8,
            };
            let put = |buf: &mut Vec<u8>, v: &Value| {
                let b = Self::native_bytes(v, w, s);
                buf[o..o + s as usize].copy_from_slice(&b);
            };
            let and = |a: &Value, m: &Value| -> Value {
                match (a, m) {
                    (Value::Bits { bits: x, width, signed }, Value::Bits { bits: y, .. }) => Value::Bits {
                        width: *width,
                        signed: *signed,
                        bits: x & y,
                    },
                    _ => a.clone(),
                }
            };
            match (&k.match_kind, ks) {
                (MatchKind::Key(KeyMatch::Range), KeySet::Range(lo, h)) => {
                    put(&mut val, lo);
                    put(&mut hi, h);
                }
                (MatchKind::Key(KeyMatch::Range), KeySet::Value(v)) => {
                    put(&mut val, v);
                    put(&mut hi, v);
                }
                (MatchKind::Key(KeyMatch::Range), KeySet::Any) => put(&mut hi, &ones),
                (_, KeySet::Any) if k.match_kind != MatchKind::Key(KeyMatch::Exact) => {}
                (_, KeySet::Value(v)) => {
                    put(&mut val, v);
                    put(&mut mask, &ones);
                }
                (MatchKind::Key(KeyMatch::Ternary | KeyMatch::Lpm), KeySet::Mask(v, m)) => {
                    put(&mut val, &and(v, m));
                    put(&mut mask, m);
                }
                (mk, _) => {
                    return unsupported_as(
                        UnsupportedKind::Table,
                        e.span,
                        format!("this keyset for a `{mk}` key in a table entry"),
                    )
                }
            }
        }
        Ok((val, mask, if has_range { Some(hi) } else { None }))
    }

    /// Emit all metadata arrays and `p4dp_program`.
    pub fn emit_metadata(&mut self) -> R<String> {
        let p = self.p;
        let mut o = String::new();
        // actions
        let mut act_rows = Vec::new();
        for (k, a) in self.abi_actions.clone().iter().enumerate() {
            let act = &p.actions[*a];
            let params = self.data_params(*a)?;
            let (lay, len) = self.data_layout(*a)?;
            let vars = &p.controls[act.owner].vars;
            let parr = if params.is_empty() {
                "NULL".to_string()
            } else {
                let rows: Vec<String> = params
                    .iter()
                    .zip(&lay)
                    .enumerate()
                    .map(|(i, ((v, w), (off, size)))| {
                        format!(
                            "\t{{ {}, {}u, {w}u, {off}u, {size}u }},",
                            c_string(&vars[*v].name),
                            i + 1
                        )
                    })
                    .collect();
                let _ = writeln!(
                    o,
                    "static const struct p4dp_param_info md_params_{k}[] = {{\n{}\n}};",
                    rows.join("\n")
                );
                format!("md_params_{k}")
            };
            let id = self.ids.actions.get(&act.fq_name).copied().unwrap_or(0);
            act_rows.push(format!(
                "\t{{ {}, {id}u, {}u, {parr}, {len}u }},",
                c_string(&act.fq_name),
                params.len()
            ));
        }
        // tables
        let mut tbl_rows = Vec::new();
        for (tid, t) in p.tables.iter() {
            let k = tid.index();
            let keys = self.match_keys(tid);
            let widths = self.key_widths(&keys)?;
            let (lay, key_len) = native_layout(&widths);
            let mut flags = Vec::new();
            if keys.iter().any(|k| k.match_kind.needs_priority()) {
                flags.push("P4DP_TABLE_F_NEEDS_PRIORITY");
            }
            if t.default_action.is_const {
                flags.push("P4DP_TABLE_F_DEFAULT_CONST");
            }
            if t.entries_const {
                flags.push("P4DP_TABLE_F_ENTRIES_CONST");
            }
            flags.extend(crate::dpwrite::table_flags(t));
            if self.shared_answers(t, &keys) {
                flags.push("P4DP_TABLE_F_SHARED_ANSWERS");
            }
            let flags = if flags.is_empty() {
                "0".to_string()
            } else {
                flags.join(" | ")
            };
            let key_rows = if keys.is_empty() {
                "NULL".to_string()
            } else {
                let mut rows = Vec::new();
                for (i, (key, ((off, size), w))) in keys.iter().zip(lay.iter().zip(&widths)).enumerate() {
                    let mk = match match_kind_c(&key.match_kind) {
                        Some(m) => m,
                        None => {
                            return unsupported_as(
                                UnsupportedKind::Table,
                                key.expr.span,
                                format!("match kind `{}`", key.match_kind),
                            )
                        }
                    };
                    rows.push(format!(
                        "\t{{ {}, {}u, {mk}, {off}u, {size}u, {w}u }},",
                        c_string(&key.name),
                        i + 1
                    ));
                }
                let _ = writeln!(
                    o,
                    "static const struct p4dp_key_info md_keys_{k}[] = {{\n{}\n}};",
                    rows.join("\n")
                );
                format!("md_keys_{k}")
            };
            let mut acts = Vec::new();
            let mut scopes = Vec::new();
            for ta in &t.actions {
                acts.push(format!("{}u", self.abi_action_of[ta.action.index()]));
                scopes.push(if has_ann(&ta.annotations, "tableonly") {
                    "P4DP_SCOPE_TABLE_ONLY"
                } else if has_ann(&ta.annotations, "defaultonly") {
                    "P4DP_SCOPE_DEFAULT_ONLY"
                } else {
                    "P4DP_SCOPE_ANY"
                });
            }
            let (acts_s, scopes_s) = if acts.is_empty() {
                ("NULL".to_string(), "NULL".to_string())
            } else {
                let _ = writeln!(o, "static const uint32_t md_tacts_{k}[] = {{ {} }};", acts.join(", "));
                let _ = writeln!(
                    o,
                    "static const uint8_t md_tscopes_{k}[] = {{ {} }};",
                    scopes.join(", ")
                );
                (format!("md_tacts_{k}"), format!("md_tscopes_{k}"))
            };
            let dd = self.action_data_bytes(t.default_action.action, &t.default_action.data, t.span)?;
            let dd_s = if dd.is_empty() {
                "NULL".to_string()
            } else {
                let _ = writeln!(o, "static const uint8_t md_tdef_{k}[] = {};", bytes_lit(&dd));
                format!("md_tdef_{k}")
            };
            let mut ent_rows = Vec::new();
            for (i, e) in t.entries.iter().enumerate() {
                let (v, m, h) = self.entry_buffers(&keys, e, &widths, &lay, key_len)?;
                let _ = writeln!(
                    o,
                    "static const uint8_t md_e{k}_{i}_v[] = {};",
                    bytes_lit(if v.is_empty() { &[0] } else { &v })
                );
                let _ = writeln!(
                    o,
                    "static const uint8_t md_e{k}_{i}_m[] = {};",
                    bytes_lit(if m.is_empty() { &[0] } else { &m })
                );
                let hs = match h {
                    Some(h) => {
                        let _ = writeln!(o, "static const uint8_t md_e{k}_{i}_h[] = {};", bytes_lit(&h));
                        format!("md_e{k}_{i}_h")
                    }
                    None => "NULL".into(),
                };
                let data = self.action_data_bytes(e.action, &e.data, e.span)?;
                let ds = if data.is_empty() {
                    "NULL".to_string()
                } else {
                    let _ = writeln!(o, "static const uint8_t md_e{k}_{i}_d[] = {};", bytes_lit(&data));
                    format!("md_e{k}_{i}_d")
                };
                // sema gives every entry its priority (explicit or from its position)
                let prio = match e.priority.map(i32::try_from) {
                    Some(Ok(p)) => p,
                    Some(Err(_)) => {
                        return unsupported_as(
                            UnsupportedKind::Table,
                            e.span,
                            format!(
                                "entry priority {} (the runtime's priorities are 32-bit signed)",
                                e.priority.unwrap_or_default()
                            ),
                        )
                    }
                    None => return unsupported_as(UnsupportedKind::Table, e.span, "entry without a priority"),
                };
                ent_rows.push(format!(
                    "\t{{ md_e{k}_{i}_v, md_e{k}_{i}_m, {hs}, {prio}, {}u, {ds} }},",
                    self.abi_action_of[e.action.index()]
                ));
            }
            let ents = if ent_rows.is_empty() {
                "NULL".to_string()
            } else {
                let _ = writeln!(
                    o,
                    "static const struct p4dp_const_entry md_ents_{k}[] = {{\n{}\n}};",
                    ent_rows.join("\n")
                );
                format!("md_ents_{k}")
            };
            let mut data_len = 0;
            for ta in &t.actions {
                data_len = data_len.max(self.data_layout(ta.action)?.1);
            }
            data_len = data_len.max(self.data_layout(t.default_action.action)?.1);
            if t.implementation.is_some() {
                data_len = data_len.max(crate::actprof::REF_LEN);
            }
            let size = t.size.unwrap_or(0);
            let dc = t.direct_counter.map(|x| x.index() as i64).unwrap_or(-1);
            let dm = t.direct_meter.map(|x| x.index() as i64).unwrap_or(-1);
            tbl_rows.push(format!(
                "\t{{ .name = {}, .id = {}u, .flags = {flags}, .key_len = {key_len}u, .n_keys = {}u, .keys = {key_rows}, .n_actions = {}u, .actions = {acts_s}, .action_scopes = {scopes_s}, .default_action = {}u, .default_data = {dd_s}, .n_entries = {}u, .entries = {ents}, .size = {size}u, .data_len = {data_len}u, .direct_counter = {dc}, .direct_meter = {dm}, .storage = {} }},",
                c_string(&t.fq_name),
                self.ids.tables[k],
                keys.len(),
                acts.len(),
                self.abi_action_of[t.default_action.action.index()],
                t.entries.len(),
                if self.is_linear(t) {
                    format!("{} | P4DP_STORAGE_F_LINEAR", crate::dpwrite::storage(t))
                } else {
                    crate::dpwrite::storage(t).to_string()
                }
            ));
        }
        // externs
        let mut ext_rows = Vec::new();
        for (xid, x) in p.externs.iter() {
            let owner_table = p
                .tables
                .iter()
                .find(|(_, t)| t.direct_counter == Some(xid) || t.direct_meter == Some(xid))
                .map(|(id, t)| (id.index() as i64, direct_default_cell(t) + 1));
            let unit_of = |v: Option<&Value>, meter: bool| match v {
                Some(Value::Enum(0)) => "P4DP_UNIT_PACKETS",
                Some(Value::Enum(1)) => "P4DP_UNIT_BYTES",
                Some(Value::Enum(2)) if !meter => "P4DP_UNIT_BOTH",
                _ => "0",
            };
            if let Some((kind, n, cs, table)) = self.rtc_extern_md(xid)? {
                ext_rows.push(format!(
                    "\t{{ {}, {}u, {kind}, 0, {}u, 0u, {cs}, {table}, 0 }},",
                    c_string(&x.fq_name),
                    self.ids.externs[xid.index()],
                    n.min(u32::MAX as u64)
                ));
                continue;
            }
            let cells = x.ctor_args.first().and_then(const_u64).unwrap_or(0);
            let (kind, unit, n_cells, bw, cs, table) = match x.kind {
                ExternKind::V1Counter | ExternKind::PnaCounter => {
                    ("P4DP_EXT_COUNTER", unit_of(x.ctor_args.get(1), false), cells, 0, 0, -1)
                }
                ExternKind::V1Meter | ExternKind::PnaMeter => {
                    ("P4DP_EXT_METER", unit_of(x.ctor_args.get(1), true), cells, 0, 0, -1)
                }
                ExternKind::V1DirectCounter | ExternKind::PnaDirectCounter => {
                    let (t, n) = owner_table.unwrap_or((-1, 0));
                    (
                        "P4DP_EXT_DIRECT_COUNTER",
                        unit_of(x.ctor_args.first(), false),
                        n,
                        0,
                        0,
                        t,
                    )
                }
                ExternKind::V1DirectMeter | ExternKind::PnaDirectMeter => {
                    let (t, n) = owner_table.unwrap_or((-1, 0));
                    ("P4DP_EXT_DIRECT_METER", unit_of(x.ctor_args.first(), true), n, 0, 0, t)
                }
                ExternKind::V1Register | ExternKind::PnaRegister => {
                    let w = x
                        .type_args
                        .first()
                        .and_then(|t| self.scalar(*t))
                        .map(|s| s.w)
                        .unwrap_or(0);
                    (
                        "P4DP_EXT_REGISTER",
                        "0",
                        cells,
                        w,
                        crate::ctype::storage_size(w.max(1)),
                        -1,
                    )
                }
                ExternKind::V1ActionProfile | ExternKind::PnaActionProfile => {
                    ("P4DP_EXT_ACTION_PROFILE", "0", cells, 0, 0, -1)
                }
                ExternKind::PnaDigest => {
                    let len = match x.type_args.first() {
                        Some(t) => {
                            let fields = self.digest_fields(*t, x.span)?;
                            native_layout(&fields.iter().map(|(_, w)| *w).collect::<Vec<_>>()).1
                        }
                        None => 0,
                    };
                    ("P4DP_EXT_DIGEST", "0", 0, len, 0, -1)
                }
                ExternKind::V1ActionSelector | ExternKind::PnaActionSelector => (
                    "P4DP_EXT_ACTION_SELECTOR",
                    "0",
                    crate::actprof::profile_size(x),
                    0,
                    0,
                    -1,
                ),
                _ => ("P4DP_EXT_OTHER", "0", 0, 0, 0, -1),
            };
            let n_cells = n_cells.min(u32::MAX as u64);
            // a meter's type (abi.h enum p4dp_meter_type); 0 for other externs
            let meter_type = match x.meter_type {
                _ if !x.kind.is_meter() => "0",
                MeterType::TwoRateThreeColor => "P4DP_METER_TWO_RATE_THREE_COLOR",
                MeterType::SingleRateThreeColor => "P4DP_METER_SINGLE_RATE_THREE_COLOR",
                MeterType::SingleRateTwoColor => "P4DP_METER_SINGLE_RATE_TWO_COLOR",
            };
            ext_rows.push(format!(
                "\t{{ {}, {}u, {kind}, {unit}, {n_cells}u, {bw}u, {cs}u, {table}, {meter_type} }},",
                c_string(&x.fq_name),
                self.ids.externs[xid.index()]
            ));
        }
        for (t, name, id) in self.ids.digests.clone() {
            let fields = self.digest_fields(t, Span::default())?;
            let (_, len) = native_layout(&fields.iter().map(|(_, w)| *w).collect::<Vec<_>>());
            ext_rows.push(format!(
                "\t{{ {}, {id}u, P4DP_EXT_DIGEST, 0, 0u, {len}u, 0u, -1, 0 }},",
                c_string(&name)
            ));
        }
        let arr = |o: &mut String, ty: &str, name: &str, rows: &[String]| -> String {
            if rows.is_empty() {
                "NULL".to_string()
            } else {
                let _ = writeln!(o, "static const struct {ty} {name}[] = {{\n{}\n}};", rows.join("\n"));
                name.to_string()
            }
        };
        let acts = arr(&mut o, "p4dp_action_info", "md_actions", &act_rows);
        let tbls = arr(&mut o, "p4dp_table_info", "md_tables", &tbl_rows);
        let exts = arr(&mut o, "p4dp_extern_info", "md_externs", &ext_rows);
        let errs = if p.errors.is_empty() {
            "NULL".to_string()
        } else {
            let e: Vec<String> = p.errors.iter().map(|e| format!("\t{},", c_string(e))).collect();
            let _ = writeln!(o, "static const char *const md_errors[] = {{\n{}\n}};", e.join("\n"));
            "md_errors".into()
        };
        let arch = p.package.as_ref().map(|k| k.arch.clone()).unwrap_or_default();
        let (timpl_decl, mut timpl_init) = self.table_impl_md();
        o.push_str(&timpl_decl);
        let (bg_decl, bg_init) = self.rtc_program_md();
        o.push_str(&bg_decl);
        timpl_init.push_str(&bg_init);
        let (vs_decl, vs_init) = self.value_set_md();
        o.push_str(&vs_decl);
        timpl_init.push_str(&vs_init);
        let _ = writeln!(
            o,
            "\nconst struct p4dp_program p4dp_program = {{\n\t.abi_version = P4DP_ABI_VERSION,\n\t.name = {},\n\t.arch = {},\n\t.n_tables = {}u,\n\t.tables = {tbls},\n\t.n_actions = {}u,\n\t.actions = {acts},\n\t.n_externs = {}u,\n\t.externs = {exts},\n\t.n_errors = {}u,\n\t.errors = {errs},\n\t.process = process,\n{}{timpl_init}{}}};",
            c_string(&self.opts.program_name),
            c_string(&arch),
            tbl_rows.len(),
            act_rows.len(),
            ext_rows.len(),
            p.errors.len(),
            if self.has_burst { "\t.process_burst = process_burst,\n" } else { "" },
            if self.has_mbufs { "\t.process_mbufs = P4DP_PROCESS_MBUFS,\n" } else { "" }
        );
        Ok(o)
    }
}
