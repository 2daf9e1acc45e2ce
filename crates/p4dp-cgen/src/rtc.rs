//! The run-to-completion architecture (`p4include/rtc.p4`, docs/rtc.md): the foreground glue
//! (`process`: ForegroundParser -> ForegroundIngress -> ForegroundDeparser) and the calls of
//! rtc.p4's externs into the runtime's (`runtime/include/p4dp/rtc.h`).
//!
//! * `Counter`, `Lock`, `Queue<T>` declared anywhere are one runtime object each
//!   (`P4DP_EXT_RTC_*`), created by the runtime and shared by every core: `R->ctx->ext[x]`.
//! * `TableOperation` bound with `@tbl("t")`: the key argument (a struct of t's key fields in
//!   order, or the field when t has one key) is packed into t's native key, the data argument
//!   into the native data of the action at position `act` of t's `actions` list.
//! * `lastRowIndex()` is `R->entry_index`: the row of the entry the packet's last table apply
//!   hit, or its last `entryAdd`/`entryGet` wrote or found.
//! * `send_to_port`/`drop_packet` are PNA's (pna.rs): the packet leaves only after `send_to_port`.
//! * `Foreach` bound with `@tbl("t")`: a sweep object of the runtime (`P4DP_EXT_RTC_FOREACH`,
//!   rtc.h `p4dp_rtc_sweep_*`) snapshots t's keys; for each entry still installed whose row is in
//!   `[start, end)` the loop body bound to the entry's action gets the key and the action data.
//!   Without `@tbl` it is a C `for` over `[start, end)` calling the `index` body. A loop body
//!   is an action function like any other; a `break;`/`continue;` outside every `for` of the
//!   body returns [`FOREACH_BREAK`]/[`FOREACH_CONTINUE`] from it (stmt.rs), `exit` returns 1.

use std::fmt::Write as _;

use p4dp_ir::*;

use crate::ctype::{c_string, native_layout};
use crate::externs::in_arg;
use crate::glue::Bind;
use crate::stmt::ind;
use crate::{unsupported_as, Gen, Owner, UnsupportedKind, R};

/// Largest Queue message the runtime takes (p4dp_rtc_queue_create).
const MAX_MESSAGE_BYTES: u64 = 1024;
/// What a Foreach loop body's action function returns for `break;` and `continue;` (0 is its
/// normal end, 1 an `exit`).
pub(crate) const FOREACH_BREAK: u32 = 2;
pub(crate) const FOREACH_CONTINUE: u32 = 3;

/// `@methods(k="v", ...)` of an extern instance (sema checked its form): the (key, body) pairs.
fn methods(x: &ExternInstance) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let Some(a) = x.annotations.iter().find(|a| a.name == "methods") else {
        return out;
    };
    for arg in &a.args {
        match arg {
            AnnotationArg::Kv(k, v) => {
                if let AnnotationArg::String(v) | AnnotationArg::Raw(v) = v.as_ref() {
                    out.push((k.clone(), v.trim().trim_matches('"').to_string()));
                }
            }
            AnnotationArg::Raw(text) => {
                for pair in text.split(',') {
                    if let Some((k, v)) = pair.split_once('=') {
                        out.push((k.trim().to_string(), v.trim().trim_matches('"').to_string()));
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// The table named by `@tbl("t")` / `@tbl(t)` of an extern instance (sema checked it exists).
fn bound_table(p: &Program, x: &ExternInstance) -> Option<TableId> {
    let a = x.annotations.iter().find(|a| a.name == "tbl")?;
    let name = match a.args.as_slice() {
        [AnnotationArg::String(s)] => s.clone(),
        [AnnotationArg::Raw(s)] => s.trim().trim_matches('"').to_string(),
        _ => return None,
    };
    p.tables
        .iter()
        .find(|(_, t)| t.name == name || t.fq_name == name)
        .map(|(id, _)| id)
}

impl Gen<'_> {
    /// Whether the program's package is one of rtc.p4's.
    pub(crate) fn is_rtc(&self) -> bool {
        self.p.package.as_ref().is_some_and(|k| k.arch == "rtc")
    }

    /// The C expression of extern instance `x`'s runtime object, as a `T *`.
    fn rtc_obj(&self, x: ExternId, t: &str) -> String {
        format!("((struct {t} *)R->ctx->ext[{}])", x.index())
    }

    /// `p4dp_extern_info` kind, cells and cell size of an rtc.p4 extern with runtime state
    /// (`Counter`, `Lock`, `Queue<T>`); None for the others (`P4DP_EXT_OTHER`).
    /// Also the table of a Foreach's sweep (-1 for the others).
    pub(crate) fn rtc_extern_md(&mut self, x: ExternId) -> R<Option<(&'static str, u64, String, i64)>> {
        if !self.is_rtc() {
            return Ok(None);
        }
        let inst = &self.p.externs[x];
        let n = inst.ctor_args.first().and_then(crate::externs::const_u64).unwrap_or(0);
        Ok(match inst.kind {
            ExternKind::RtcCounter => Some(("P4DP_EXT_RTC_COUNTER", n, "0".into(), -1)),
            ExternKind::RtcLock => Some(("P4DP_EXT_RTC_LOCK", n, "0".into(), -1)),
            ExternKind::RtcQueue => {
                let (ct, _) = self.queue_message(x, inst.span)?;
                Some((
                    "P4DP_EXT_RTC_QUEUE",
                    n,
                    format!("(uint32_t)((sizeof({ct}) + 3u) & ~3u)"),
                    -1,
                ))
            }
            ExternKind::RtcForeach => {
                bound_table(self.p, inst).map(|t| ("P4DP_EXT_RTC_FOREACH", 0, "0".into(), t.index() as i64))
            }
            _ => None,
        })
    }

    /// The C type of a Queue's messages and the bytes of a message buffer (`sizeof` rounded up
    /// to 4, as the runtime's cells are).
    fn queue_message(&mut self, x: ExternId, span: Span) -> R<(String, String)> {
        let Some(&t) = self.p.externs[x].type_args.first() else {
            return unsupported_as(UnsupportedKind::Type, span, "Queue without a message type");
        };
        let ct = self.ctype(t, span)?;
        if self.type_bytes.get(&t).copied().unwrap_or(u64::MAX) > MAX_MESSAGE_BYTES {
            return unsupported_as(
                UnsupportedKind::Type,
                span,
                format!("Queue messages of more than {MAX_MESSAGE_BYTES} bytes (the runtime's limit)"),
            );
        }
        let len = format!("((sizeof({ct}) + 3u) & ~3u)");
        Ok((ct, len))
    }

    /// rtc.p4 extern functions (`getPktLength`, `lastRowIndex`); Ok(false) if not one.
    pub(crate) fn rtc_function(&mut self, name: &str, c: &Call, level: usize, out: &mut String) -> R<bool> {
        let v = match name {
            "getPktLength" => "(uint32_t)R->pkt->len",
            "lastRowIndex" => "R->entry_index",
            _ => return Ok(false),
        };
        if let Some(r) = &c.ret {
            out.push_str(&self.store(r, v, level)?);
        }
        Ok(true)
    }

    /// rtc.p4 extern methods; Ok(false) if `x` is no rtc.p4 extern with this method.
    pub(crate) fn rtc_method(
        &mut self,
        x: ExternId,
        method: &str,
        c: &Call,
        level: usize,
        out: &mut String,
    ) -> R<bool> {
        let i = ind(level);
        let kind = self.p.externs[x].kind;
        let tn = self.p.externs[x].type_name.clone();
        let mut result: Option<String> = None;
        match (kind, method) {
            (ExternKind::RtcCounter, "count") => {
                let (idx, v) = (self.expr(in_arg(c, 0)?)?, self.expr(in_arg(c, 1)?)?);
                let o = self.rtc_obj(x, "p4dp_rtc_counter");
                let _ = writeln!(
                    out,
                    "{i}p4dp_rtc_counter_count({o}, (uint32_t)({idx}), (uint64_t)({v}));"
                );
            }
            (ExternKind::RtcCounter, "get") => {
                let idx = self.expr(in_arg(c, 0)?)?;
                let o = self.rtc_obj(x, "p4dp_rtc_counter");
                result = Some(format!("p4dp_rtc_counter_get({o}, (uint32_t)({idx}))"));
            }
            (ExternKind::RtcCounter, "set") => {
                let (idx, v) = (self.expr(in_arg(c, 0)?)?, self.expr(in_arg(c, 1)?)?);
                let o = self.rtc_obj(x, "p4dp_rtc_counter");
                let _ = writeln!(out, "{i}p4dp_rtc_counter_set({o}, (uint32_t)({idx}), (uint64_t)({v}));");
            }
            (ExternKind::RtcLock, "acquire") => {
                let (idx, b) = (self.expr(in_arg(c, 0)?)?, self.expr(in_arg(c, 1)?)?);
                let o = self.rtc_obj(x, "p4dp_rtc_lock");
                result = Some(format!(
                    "(uint8_t)p4dp_rtc_lock_acquire_bg({o}, (uint32_t)({idx}), ({b}) != 0, R->bg)"
                ));
            }
            (ExternKind::RtcLock, "release") => {
                let idx = self.expr(in_arg(c, 0)?)?;
                let o = self.rtc_obj(x, "p4dp_rtc_lock");
                result = Some(format!(
                    "(uint8_t)p4dp_rtc_lock_release_bg({o}, (uint32_t)({idx}), R->bg)"
                ));
            }
            (ExternKind::RtcQueue, "push") => {
                let (ct, len) = self.queue_message(x, c.span)?;
                let v = self.expr(in_arg(c, 0)?)?;
                let o = self.rtc_obj(x, "p4dp_rtc_queue");
                let _ = writeln!(
                    out,
                    "{i}{{\n{i}\tuint8_t _m[{len}] __attribute__((aligned(8)));\n{i}\tconst {ct} _v = {v};\n{i}\tmemset(_m, 0, sizeof _m);\n{i}\tmemcpy(_m, &_v, sizeof _v);\n{i}\tuint8_t _ok = (uint8_t)p4dp_rtc_queue_push_sized({o}, _m, sizeof _m);"
                );
                self.rtc_close(c, "_ok", level, out)?;
            }
            (ExternKind::RtcQueue, "pop") => {
                let (ct, len) = self.queue_message(x, c.span)?;
                let dst = in_arg(c, 0)?;
                let o = self.rtc_obj(x, "p4dp_rtc_queue");
                let _ = writeln!(
                    out,
                    "{i}{{\n{i}\tuint8_t _m[{len}] __attribute__((aligned(8)));\n{i}\tuint8_t _ok = (uint8_t)p4dp_rtc_queue_pop_sized({o}, _m, sizeof _m);\n{i}\tif (_ok) {{\n{i}\t\t{ct} _v;\n{i}\t\tmemcpy(&_v, _m, sizeof _v);"
                );
                out.push_str(&self.store(dst, "_v", level + 2)?);
                let _ = writeln!(out, "{i}\t}}");
                self.rtc_close(c, "_ok", level, out)?;
            }
            (ExternKind::RtcTableOperation, "entryAdd") => self.entry_add(x, c, level, out)?,
            (ExternKind::RtcTableOperation, "entryGet") => self.entry_get(x, c, level, out)?,
            (ExternKind::RtcSleep, "us" | "ms") => {
                let v = self.expr(in_arg(c, 0)?)?;
                let mult = if method == "us" { "1000ull" } else { "1000000ull" };
                let _ = writeln!(
                    out,
                    "{i}if (R->bg != NULL)\n{i}\tR->bg->sleep_ns = (uint64_t)({v}) * {mult};"
                );
            }
            (ExternKind::RtcQueue, "popWait") => {
                let (ct, len) = self.queue_message(x, c.span)?;
                let dst = in_arg(c, 0)?;
                let o = self.rtc_obj(x, "p4dp_rtc_queue");
                let _ = writeln!(
                    out,
                    "{i}{{\n{i}\tuint8_t _m[{len}] __attribute__((aligned(8)));\n{i}\tuint8_t _ok = (uint8_t)p4dp_rtc_queue_pop_wait({o}, _m, R->bg);\n{i}\tif (_ok) {{\n{i}\t\t{ct} _v;\n{i}\t\tmemcpy(&_v, _m, sizeof _v);"
                );
                out.push_str(&self.store(dst, "_v", level + 2)?);
                let _ = writeln!(out, "{i}\t}}");
                self.rtc_close(c, "_ok", level, out)?;
            }
            (ExternKind::RtcTableOperation, "entryDel") => {
                let (t, _) = self.op_table(x, c.span)?;
                let _ = writeln!(
                    out,
                    "{i}{{ /* {}.entryDel */",
                    self.p.externs[x].name.replace("*/", "* /")
                );
                self.pack_key(t, in_arg(c, 0)?, level + 1, out)?;
                let _ = writeln!(
                    out,
                    "{i}\tuint8_t _ok = (uint8_t)(p4dp_rtc_table_del(R->ctx, {}u, _k, R->bg != NULL ? R->bg->rcu : NULL, R->bg != NULL ? R->bg->rcu_thread : 0u) == 0);",
                    t.index()
                );
                self.rtc_close(c, "_ok", level, out)?;
            }
            (ExternKind::RtcForeach, "apply") => self.foreach_apply(x, c, level, out)?,
            (ExternKind::RtcForeach, _) => {
                return unsupported_as(
                    UnsupportedKind::ExternMethod,
                    c.span,
                    format!("`{tn}.{method}`: no such Foreach method"),
                )
            }
            _ => return Ok(false),
        }
        if let (Some(v), Some(r)) = (result, &c.ret) {
            out.push_str(&self.store(r, &v, level)?);
        }
        Ok(true)
    }

    /// `Foreach.apply()` / `apply(start, end)`: the table sweep or the range loop (module doc).
    fn foreach_apply(&mut self, x: ExternId, c: &Call, level: usize, out: &mut String) -> R<()> {
        let i = ind(level);
        let inst = &self.p.externs[x];
        let range = match c.args.len() {
            0 => None,
            2 => Some((self.expr(in_arg(c, 0)?)?, self.expr(in_arg(c, 1)?)?)),
            n => {
                return unsupported_as(
                    UnsupportedKind::ExternMethod,
                    c.span,
                    format!("`Foreach.apply` with {n} arguments"),
                )
            }
        };
        let _ = writeln!(out, "{i}{{ /* {}.apply */", inst.name.replace("*/", "* /"));
        // what the loop does with the body's return code
        let leave = match self.owner {
            Owner::Control(_) => "return _fr;",
            _ => "break;",
        };
        let after_body =
            format!("{i}\t\tif (_fr == {FOREACH_BREAK})\n{i}\t\t\tbreak;\n{i}\t\tif (_fr == 1)\n{i}\t\t\t{leave}\n");
        // Yield points (rtc.h p4dp_rtc_yield, docs/rtc.md "Background threads"): only in a
        // control's apply block, where no table entry and no entry lock is held; an action may
        // run as a table's action under its @entry_lock.
        let may_yield = matches!(self.owner, Owner::Control(_)) && !self.in_action;
        let Some(t) = bound_table(self.p, inst) else {
            // a range loop: @methods(index="body")
            let Some((lo, hi)) = range else {
                return unsupported_as(
                    UnsupportedKind::ExternMethod,
                    c.span,
                    format!(
                        "range loop `{}`: `apply()` needs `apply(start, end)` (it has no table)",
                        inst.name
                    ),
                );
            };
            let body = self.loop_body(x, "index", c.span)?;
            let Some(&v) = self.p.actions[body].params.first() else {
                return unsupported_as(
                    UnsupportedKind::ExternMethod,
                    self.p.actions[body].span,
                    "a range loop body takes the index as its parameter",
                );
            };
            let owner = Owner::Control(self.p.actions[body].owner);
            let slot = self.var_ref(owner, v);
            let vt = self.vars(owner)[v].ty;
            let ct = self.ctype(vt, c.span)?;
            // every 1,024 indices a yield point of a background iteration (R->bg is NULL in
            // the foreground)
            let yield_point = if may_yield {
                format!("{i}\t\tif (((_ix - _lo) & 1023u) == 1023u)\n{i}\t\t\tp4dp_rtc_yield(R->bg);\n")
            } else {
                String::new()
            };
            let _ = write!(
                out,
                "{i}\tconst uint32_t _lo = (uint32_t)({lo}), _hi = (uint32_t)({hi});\n{i}\tfor (uint32_t _ix = _lo; _ix < _hi; _ix++) {{\n{yield_point}{i}\t\t{slot} = ({ct})_ix;\n{i}\t\tconst int _fr = {}(R);\n{after_body}{i}\t}}\n{i}}}\n",
                self.act_fns[body.index()]
            );
            return Ok(());
        };
        let keys = self.match_keys(t);
        let widths: Vec<u32> = keys.iter().filter_map(|k| self.value_width(k.expr.ty)).collect();
        let (key_lay, key_len) = native_layout(&widths);
        let all = range.is_none();
        let begin = if may_yield {
            "p4dp_rtc_sweep_begin_bg(_sw, R->bg)"
        } else {
            "p4dp_rtc_sweep_begin(_sw, R->bg != NULL ? R->bg->rcu : NULL, R->bg != NULL ? R->bg->rcu_thread : 0u)"
        };
        let (lo, hi) = range.unwrap_or_else(|| ("0u".into(), "UINT32_MAX".into()));
        let _ = writeln!(
            out,
            "{i}\tstruct p4dp_rtc_sweep *_sw = (struct p4dp_rtc_sweep *)R->ctx->ext[{}];\n{i}\tconst uint32_t _lo = (uint32_t)({lo}), _hi = (uint32_t)({hi});\n{i}\tconst int _all = {};\n{i}\tuint8_t _k[{}] __attribute__((aligned(16)));\n{i}\tconst struct p4dp_entry *_e;\n{i}\t(void){begin};\n{i}\twhile ((_e = p4dp_rtc_sweep_next(_sw, _k)) != NULL) {{\n{i}\t\tif (!_all && (_e->index < _lo || _e->index >= _hi))\n{i}\t\t\tcontinue;\n{i}\t\tint _fr = 0;\n{i}\t\tR->entry_index = _e->index;\n{i}\t\tswitch (_e->action) {{",
            x.index(),
            u8::from(all),
            key_len.max(1)
        );
        let mut seen = Vec::new();
        for (act, body_name) in methods(inst) {
            let Some(ta) = self.p.tables[t]
                .actions
                .iter()
                .find(|ta| self.p.actions[ta.action].name == act)
            else {
                continue;
            };
            let a = ta.action;
            let abi = self.abi_action_of[a.index()];
            if seen.contains(&abi) {
                continue;
            }
            seen.push(abi);
            let body = self.named_body(x, &body_name, c.span)?;
            let owner = Owner::Control(self.p.actions[body].owner);
            let params = self.p.actions[body].params.clone();
            let Some((&kv, data_vars)) = params.split_first() else {
                return unsupported_as(
                    UnsupportedKind::ExternMethod,
                    self.p.actions[body].span,
                    format!("loop body `{body_name}` takes no key parameter"),
                );
            };
            let _ = writeln!(out, "{i}\t\tcase {abi}u: /* {act} -> {body_name} */",);
            // the key, field by field from the table's native key
            let kt = self.vars(owner)[kv].ty;
            let kleaves = self.leaves(kt, self.p.actions[body].span, "Foreach loop body key")?;
            let lw: Vec<u32> = kleaves.iter().map(|(_, w)| *w).collect();
            if lw != widths {
                return unsupported_as(
                    UnsupportedKind::ExternMethod,
                    self.p.actions[body].span,
                    format!(
                        "loop body `{body_name}`: its key parameter's fields ({lw:?} bits) are not the key fields of table `{}` ({widths:?} bits, in order)",
                        self.p.tables[t].name
                    ),
                );
            }
            let kslot = self.var_ref(owner, kv);
            for ((f, _), (off, size)) in kleaves.iter().zip(&key_lay) {
                let _ = writeln!(out, "{i}\t\t\tmemcpy(&({kslot}){f}, _k + {off}, {size});");
            }
            // the action data: the remaining parameters' fields are the action's parameters
            if !data_vars.is_empty() {
                let mut dleaves = Vec::new();
                for v in data_vars {
                    let slot = self.var_ref(owner, *v);
                    let vt = self.vars(owner)[*v].ty;
                    for (f, w) in self.leaves(vt, self.p.actions[body].span, "Foreach loop body data")? {
                        dleaves.push((format!("({slot}){f}"), w));
                    }
                }
                let (dlay, _) = self.data_layout(a)?;
                let dw: Vec<u32> = self.data_params(a)?.iter().map(|(_, w)| *w).collect();
                let got: Vec<u32> = dleaves.iter().map(|(_, w)| *w).collect();
                if got != dw {
                    return unsupported_as(
                        UnsupportedKind::ExternMethod,
                        self.p.actions[body].span,
                        format!(
                            "loop body `{body_name}`: its data parameters ({got:?} bits) are not the parameters of action `{act}` ({dw:?} bits, in order)"
                        ),
                    );
                }
                for ((lv, _), (off, size)) in dleaves.iter().zip(&dlay) {
                    let _ = writeln!(out, "{i}\t\t\tmemcpy(&{lv}, _e->data + {off}, {size});");
                }
            }
            let _ = writeln!(
                out,
                "{i}\t\t\t_fr = {}(R);\n{i}\t\t\tbreak;",
                self.act_fns[body.index()]
            );
        }
        let _ = write!(
            out,
            "{i}\t\tdefault:\n{i}\t\t\tbreak;\n{i}\t\t}}\n{after_body}{i}\t}}\n{i}}}\n"
        );
        Ok(())
    }

    /// The loop body a Foreach's `@methods` binds to `key`.
    fn loop_body(&self, x: ExternId, key: &str, span: Span) -> R<ActionId> {
        let inst = &self.p.externs[x];
        match methods(inst).into_iter().find(|(k, _)| k == key) {
            Some((_, body)) => self.named_body(x, &body, span),
            None => unsupported_as(
                UnsupportedKind::ExternMethod,
                span,
                format!("`{}` names no `{key}` loop body in `@methods`", inst.name),
            ),
        }
    }

    /// The loop-body action `name` of the control that declares Foreach `x`.
    fn named_body(&self, x: ExternId, name: &str, span: Span) -> R<ActionId> {
        let p = self.p;
        let found = p
            .controls
            .iter()
            .filter(|(_, c)| c.externs.contains(&x))
            .flat_map(|(_, c)| c.actions.iter())
            .find(|&&a| p.actions[a].name == name && p.actions[a].loop_body);
        match found {
            Some(&a) => Ok(a),
            None => unsupported_as(
                UnsupportedKind::ExternMethod,
                span,
                format!("`{}`: no loop body `{name}`", p.externs[x].name),
            ),
        }
    }

    /// Stores the block's `bool` result `ok` into the call's result, if it has one, and closes
    /// the block the caller opened.
    fn rtc_close(&mut self, c: &Call, ok: &str, level: usize, out: &mut String) -> R<()> {
        match &c.ret {
            Some(r) => out.push_str(&self.store(r, ok, level + 1)?),
            None => {
                let _ = writeln!(out, "{}\t(void){ok};", ind(level));
            }
        }
        let _ = writeln!(out, "{}}}", ind(level));
        Ok(())
    }

    /// The table a TableOperation is bound to, with the index into `p4dp_program.actions` of
    /// each action of its `actions` list (`act` is a position in that list).
    fn op_table(&self, x: ExternId, span: Span) -> R<(TableId, Vec<ActionId>)> {
        let p = self.p;
        let Some(t) = bound_table(p, &p.externs[x]) else {
            return unsupported_as(
                UnsupportedKind::ExternMethod,
                span,
                format!("`{}` is bound to no table (`@tbl`)", p.externs[x].name),
            );
        };
        Ok((t, p.tables[t].actions.iter().map(|ta| ta.action).collect()))
    }

    /// Scalar leaves of a key or data argument of type `t`: (C member path, width). A struct or
    /// header gives its fields in order; a scalar gives itself (path "").
    fn leaves(&self, t: TypeId, span: Span, what: &str) -> R<Vec<(String, u32)>> {
        if let Some(w) = self.value_width(t) {
            return Ok(vec![(String::new(), w)]);
        }
        let mut out = Vec::new();
        for (f, ft) in self.fields(t) {
            match self.value_width(ft) {
                Some(w) => out.push((format!(".{f}"), w)),
                None => {
                    return unsupported_as(
                        UnsupportedKind::Type,
                        span,
                        format!("{what}: field `{f}` is not a bit string"),
                    )
                }
            }
        }
        Ok(out)
    }

    /// Code packing the key argument `k` of a TableOperation on `t` into `uint8_t _k[]` (the
    /// table's native key layout).
    fn pack_key(&mut self, t: TableId, k: &Expr, level: usize, out: &mut String) -> R<()> {
        let i = ind(level);
        let keys = self.match_keys(t);
        let widths: Vec<u32> = keys.iter().filter_map(|k| self.value_width(k.expr.ty)).collect();
        let leaves = self.leaves(k.ty, k.span, "TableOperation key")?;
        let lw: Vec<u32> = leaves.iter().map(|(_, w)| *w).collect();
        if widths.len() != keys.len() || lw != widths {
            return unsupported_as(
                UnsupportedKind::ExternMethod,
                k.span,
                format!(
                    "TableOperation key: its fields ({lw:?} bits) are not the key fields of table `{}` ({widths:?} bits, in order)",
                    self.p.tables[t].name
                ),
            );
        }
        let (lay, key_len) = native_layout(&widths);
        let ct = self.ctype(k.ty, k.span)?;
        let kx = self.expr(k)?;
        let _ = writeln!(
            out,
            "{i}uint8_t _k[{}] __attribute__((aligned(16)));\n{i}memset(_k, 0, sizeof _k);\n{i}const {ct} _kv = {kx};",
            key_len.max(1)
        );
        for ((f, _), (off, size)) in leaves.iter().zip(&lay) {
            let _ = writeln!(out, "{i}memcpy(_k + {off}, &_kv{f}, {size});");
        }
        Ok(())
    }

    /// Whether data of `leaves` fits action `a`: an action without data takes anything (and
    /// ignores it); otherwise the widths agree one to one. The action's layout when it does.
    fn data_fit(&self, a: ActionId, leaves: &[(String, u32)]) -> R<Option<Vec<(u32, u32)>>> {
        let params: Vec<u32> = self.data_params(a)?.iter().map(|(_, w)| *w).collect();
        if params.is_empty() {
            return Ok(Some(Vec::new()));
        }
        let lw: Vec<u32> = leaves.iter().map(|(_, w)| *w).collect();
        Ok((lw == params).then(|| native_layout(&params).0))
    }

    /// `entryAdd(k, act, data)`: the data-plane insertion path, `false` on any failure (key
    /// present, table full, an `act` out of range or whose action's parameters are not the
    /// data's fields).
    fn entry_add(&mut self, x: ExternId, c: &Call, level: usize, out: &mut String) -> R<()> {
        let i = ind(level);
        let (t, acts) = self.op_table(x, c.span)?;
        let (k, act, data) = (in_arg(c, 0)?, in_arg(c, 1)?, in_arg(c, 2)?);
        let _ = writeln!(
            out,
            "{i}{{ /* {}.entryAdd */",
            self.p.externs[x].name.replace("*/", "* /")
        );
        self.pack_key(t, k, level + 1, out)?;
        let leaves = self.leaves(data.ty, data.span, "TableOperation data")?;
        let dct = self.ctype(data.ty, data.span)?;
        let (dx, ax) = (self.expr(data)?, self.expr(act)?);
        let buf = self.data_buf_len()?;
        let _ = writeln!(
            out,
            "{i}\tuint8_t _d[{}] __attribute__((aligned(8)));\n{i}\tmemset(_d, 0, sizeof _d);\n{i}\tconst {dct} _dv = {dx};\n{i}\t(void)_dv;\n{i}\tint _r = -1; /* -1: no action at this position, or not of this data */\n{i}\tuint32_t _a = 0;\n{i}\tswitch ((uint32_t)({ax})) {{",
            buf.max(1)
        );
        for (pos, a) in acts.iter().enumerate() {
            let Some(lay) = self.data_fit(*a, &leaves)? else {
                continue;
            };
            let _ = writeln!(
                out,
                "{i}\tcase {pos}u: /* {} */",
                self.p.actions[*a].fq_name.replace("*/", "* /")
            );
            for ((f, _), (off, size)) in leaves.iter().zip(&lay) {
                let _ = writeln!(out, "{i}\t\tmemcpy(_d + {off}, &_dv{f}, {size});");
            }
            let _ = writeln!(
                out,
                "{i}\t\t_a = {}u;\n{i}\t\t_r = 0;\n{i}\t\tbreak;",
                self.abi_action_of[a.index()]
            );
        }
        let _ = writeln!(
            out,
            "{i}\tdefault:\n{i}\t\tbreak;\n{i}\t}}\n{i}\tif (_r == 0) {{\n{i}\t\tuint32_t _row = 0;\n{i}\t\t_r = p4dp_rtc_table_add(R->ctx, {}u, _k, _a, _d, &_row);\n{i}\t\tif (_r == 0)\n{i}\t\t\tR->entry_index = _row;\n{i}\t}}\n{i}\tuint8_t _ok = (uint8_t)(_r == 0);",
            t.index()
        );
        self.rtc_close(c, "_ok", level, out)
    }

    /// `entryGet(k, out act, out data)`: a lock-free lookup; on success `act` is the position of
    /// the entry's action in the table's `actions` list and `data` its data (when the action's
    /// parameters are the data's fields; else `data` is zero).
    fn entry_get(&mut self, x: ExternId, c: &Call, level: usize, out: &mut String) -> R<()> {
        let i = ind(level);
        let (t, acts) = self.op_table(x, c.span)?;
        let (k, act, data) = (in_arg(c, 0)?, in_arg(c, 1)?, in_arg(c, 2)?);
        let _ = writeln!(
            out,
            "{i}{{ /* {}.entryGet */",
            self.p.externs[x].name.replace("*/", "* /")
        );
        self.pack_key(t, k, level + 1, out)?;
        let leaves = self.leaves(data.ty, data.span, "TableOperation data")?;
        let dct = self.ctype(data.ty, data.span)?;
        let buf = self.data_buf_len()?;
        let _ = writeln!(
            out,
            "{i}\tuint8_t _d[{}] __attribute__((aligned(8)));\n{i}\tuint32_t _ai = 0, _row = 0;\n{i}\tint _r = p4dp_rtc_table_get(R->ctx, {}u, _k, &_ai, _d, &_row);\n{i}\tif (_r == 0) {{\n{i}\t\t{dct} _dv;\n{i}\t\tmemset(&_dv, 0, sizeof _dv);\n{i}\t\tuint32_t _pos = 0;\n{i}\t\tR->entry_index = _row;\n{i}\t\tswitch (_ai) {{",
            buf.max(1),
            t.index()
        );
        let mut seen = Vec::new();
        for (pos, a) in acts.iter().enumerate() {
            let abi = self.abi_action_of[a.index()];
            if seen.contains(&abi) {
                continue;
            }
            seen.push(abi);
            let _ = writeln!(
                out,
                "{i}\t\tcase {abi}u: /* {} */\n{i}\t\t\t_pos = {pos}u;",
                self.p.actions[*a].fq_name.replace("*/", "* /")
            );
            if let Some(lay) = self.data_fit(*a, &leaves)? {
                for ((f, _), (off, size)) in leaves.iter().zip(&lay) {
                    let _ = writeln!(out, "{i}\t\t\tmemcpy(&_dv{f}, _d + {off}, {size});");
                }
            }
            let _ = writeln!(out, "{i}\t\t\tbreak;");
        }
        let _ = writeln!(out, "{i}\t\tdefault:\n{i}\t\t\tbreak;\n{i}\t\t}}");
        out.push_str(&self.store(act, "(uint8_t)_pos", level + 2)?);
        out.push_str(&self.store(data, "_dv", level + 2)?);
        let _ = writeln!(out, "{i}\t}}\n{i}\tuint8_t _ok = (uint8_t)(_r == 0);");
        self.rtc_close(c, "_ok", level, out)
    }

    /// The glue of an rtc.p4 package: `process` runs the foreground pipeline on one packet.
    pub(crate) fn glue_rtc(&mut self, pkg: &Package) -> R<String> {
        let p = self.p;
        if pkg.blocks.len() < 3 || pkg.blocks.len() % 2 == 0 {
            return unsupported_as(
                UnsupportedKind::Architecture,
                Span::default(),
                format!("package `{}` with {} blocks", pkg.type_name, pkg.blocks.len()),
            );
        }
        let b: Vec<BlockRef> = pkg.blocks.iter().map(|(_, b)| *b).collect();
        let (BlockRef::Parser(fp), BlockRef::Control(fi), BlockRef::Control(fd)) = (b[0], b[1], b[2]) else {
            return unsupported_as(
                UnsupportedKind::Architecture,
                Span::default(),
                "package `RTC` with blocks of unexpected kinds",
            );
        };
        let (pr, ic, dc) = (&p.parsers[fp], &p.controls[fi], &p.controls[fd]);
        if pr.params.len() != 4 || ic.params.len() != 3 || dc.params.len() != 3 {
            return unsupported_as(
                UnsupportedKind::Architecture,
                pr.span,
                "rtc.p4 foreground blocks with unexpected parameter lists",
            );
        }
        let pty = |i: usize| pr.vars[pr.params[i]].ty;
        let mut o = String::from(
            "/* rtc.p4: the foreground pipeline's headers, metadata and input metadata. */\nstruct rtcst {\n",
        );
        for (n, t) in [("h", pty(1)), ("m", pty(2)), ("istd", pty(3))] {
            let ct = self.ctype(t, pr.span)?;
            let _ = writeln!(o, "\t{ct} {n};");
        }
        o.push_str("};\n\n");
        let mut istd = String::new();
        for (f, val) in [("f_ingress_port", "pkt->in_port"), ("f_timestamp_ns", "ctx->now_ns")] {
            if self.fields(pty(3)).iter().any(|(n, _)| n == f) {
                let _ = writeln!(istd, "\tS->istd.{f} = {val};");
            }
        }
        let _ = write!(
            o,
            "/* One packet through the foreground pipeline. A packet the parser rejects is dropped; so is one\n * the ingress did not send_to_port (or called drop_packet after it). */\nstatic void process(struct p4dp_ctx *ctx, struct p4dp_pkt *pkt)\n{{\n\tstruct gst G;\n\tstruct gst *R = &G;\n\tgst_init(R, ctx, pkt);\n\tR->bg = NULL;\n\tR->pna_drop = 1;\n\tR->pna_port = 0;\n\tpkt->out_port = P4DP_PORT_DROP;\n\tstruct rtcst S0, *S = &S0;\n\t*S = (struct rtcst){{}};\n{istd}\tR->cur = 0;\n\tR->perr = 0;\n\tR->steps = 0;\n\tR->pkt_bits = pkt->len * 8u;\n\tint rej = 0;\n"
        );
        o.push_str(&self.glue_call(
            Owner::Parser(fp),
            &pr.params,
            &[Bind::None, Bind::Lv("S->h"), Bind::Lv("S->m"), Bind::Lv("S->istd")],
            Some("rej"),
            "\t",
            true,
        ));
        o.push_str("\tif (rej)\n\t\treturn;\n\tR->payload_off = (R->cur + 7u) / 8u;\n");
        o.push_str(&self.glue_call(
            Owner::Control(fi),
            &ic.params,
            &[Bind::Lv("S->h"), Bind::Lv("S->m"), Bind::Lv("S->istd")],
            None,
            "\t",
            false,
        ));
        o.push_str("\tif (R->drop || R->pna_drop)\n\t\treturn;\n");
        o.push_str(crate::pna::DEPARSE_IN_PLACE);
        o.push_str(&self.glue_call(
            Owner::Control(fd),
            &dc.params,
            &[Bind::None, Bind::Lv("S->h"), Bind::Lv("S->m")],
            None,
            "\t",
            false,
        ));
        o.push_str(crate::pna::DEPARSE_FINISH);
        o.push_str("}\n");
        o.push_str(&self.glue_background(&b[3..])?);
        Ok(o)
    }

    /// The background pipelines (ingress, deparser pairs): one function per pipeline running one
    /// iteration, and `background` (abi.h) choosing among them. Empty without any.
    fn glue_background(&mut self, blocks: &[BlockRef]) -> R<String> {
        let p = self.p;
        if blocks.is_empty() {
            return Ok(String::new());
        }
        let mut o = String::new();
        let mut cases = String::new();
        for (k, pair) in blocks.chunks(2).enumerate() {
            let [BlockRef::Control(bi), BlockRef::Control(bd)] = *pair else {
                return unsupported_as(
                    UnsupportedKind::Architecture,
                    Span::default(),
                    "a background pipeline whose blocks are not two controls",
                );
            };
            let (ic, dc) = (&p.controls[bi], &p.controls[bd]);
            if ic.params.len() != 3 || dc.params.len() != 3 {
                return unsupported_as(
                    UnsupportedKind::Architecture,
                    ic.span,
                    "rtc.p4 background blocks with unexpected parameter lists",
                );
            }
            let _ = writeln!(
                o,
                "\n/* background pipeline {k}: {} -> {} */\nstruct rtcbg{k} {{",
                ic.path, dc.path
            );
            let mut bstd_t = None;
            for (n, v) in ["h", "m", "bstd"].iter().zip(&ic.params) {
                let t = ic.vars[*v].ty;
                let ct = self.ctype(t, ic.span)?;
                let _ = writeln!(o, "\t{ct} {n};");
                bstd_t = Some(t);
            }
            o.push_str("};\n\n");
            let mut bstd = String::new();
            if let Some(t) = bstd_t {
                for (f, val) in [
                    ("f_timestamp_ns", "ctx->now_ns"),
                    ("f_iteration", "(uint32_t)env->iteration"),
                ] {
                    if self.fields(t).iter().any(|(n, _)| n == f) {
                        let _ = writeln!(bstd, "\tS->bstd.{f} = {val};");
                    }
                }
            }
            let _ = write!(
                o,
                "/* One iteration: every header invalid, the ingress, and the deparser if it called send_to_port. */\nstatic void rtc_bg{k}(struct p4dp_ctx *ctx, struct p4dp_pkt *pkt, struct p4dp_bg_env *env)\n{{\n\tstruct gst G;\n\tstruct gst *R = &G;\n\tgst_init(R, ctx, pkt);\n\tR->bg = env;\n\tR->pna_drop = 1;\n\tR->pna_port = 0;\n\tpkt->out_port = P4DP_PORT_DROP;\n\tR->payload_off = 0;\n\tstruct rtcbg{k} S0, *S = &S0;\n\t*S = (struct rtcbg{k}){{}};\n{bstd}"
            );
            o.push_str(&self.glue_call(
                Owner::Control(bi),
                &ic.params,
                &[Bind::Lv("S->h"), Bind::Lv("S->m"), Bind::Lv("S->bstd")],
                None,
                "\t",
                false,
            ));
            o.push_str("\tif (R->drop || R->pna_drop)\n\t\treturn;\n\tR->emit_bits = 0;\n\tR->emit_overflow = 0;\n\tR->emit_base = ctx->emit_buf; /* a new packet: nothing to write over */\n\tR->emit_cap = P4DP_EMIT_MAX * 8u;\n");
            o.push_str(&self.glue_call(
                Owner::Control(bd),
                &dc.params,
                &[Bind::None, Bind::Lv("S->h"), Bind::Lv("S->m")],
                None,
                "\t",
                false,
            ));
            o.push_str(crate::pna::DEPARSE_FINISH);
            o.push_str("}\n");
            let _ = writeln!(cases, "\tcase {k}u:\n\t\trtc_bg{k}(ctx, pkt, env);\n\t\tbreak;");
        }
        let _ = write!(
            o,
            "\n/* abi.h p4dp_background_fn */\nstatic void background(struct p4dp_ctx *ctx, uint32_t pipeline, struct p4dp_pkt *pkt, struct p4dp_bg_env *env)\n{{\n\tswitch (pipeline) {{\n{cases}\tdefault:\n\t\tbreak;\n\t}}\n}}\n"
        );
        Ok(o)
    }

    /// The `p4dp_program` members of the background pipelines (declarations before the struct,
    /// initializers in it); empty without any.
    pub(crate) fn rtc_program_md(&self) -> (String, String) {
        let Some(pkg) = self
            .p
            .package
            .as_ref()
            .filter(|k| k.arch == "rtc" && k.blocks.len() > 3)
        else {
            return (String::new(), String::new());
        };
        let names: Vec<String> = pkg.blocks[3..]
            .iter()
            .step_by(2)
            .filter_map(|(_, b)| match b {
                BlockRef::Control(c) => Some(format!("\t{},", c_string(&self.p.controls[*c].path))),
                BlockRef::Parser(_) => None,
            })
            .collect();
        (
            format!(
                "static const char *const md_background[] = {{\n{}\n}};\n",
                names.join("\n")
            ),
            format!(
                "\t.n_background = {}u,\n\t.background_names = md_background,\n\t.background = background,\n",
                names.len()
            ),
        )
    }
}
