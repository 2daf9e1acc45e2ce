//! Data-plane table writes (abi.h "Data-plane table writes", docs/dataplane-writes.md):
//!
//! * `@__ref` action parameters are pointers into the matched entry's action data (frame member
//!   `T *v_x`, read and written as `(*R->frame.v_x)`), set by the table before the action runs;
//! * table flags (`add_on_miss`, idle timeouts, `@entry_lock`) and `@storage`;
//! * PNA `add_entry` -> `p4dp_table_dp_add`, `set_entry_expire_time` -> `p4dp_entry_set_expire`,
//!   `restart_expire_timer` -> `p4dp_entry_touch`, all on the entry/key/table of the table
//!   action that is running (`R->dp_entry`, `R->dp_key`, `R->dp_table`).

use std::fmt::Write as _;

use p4dp_ir::*;

use crate::ctype::{native_layout, storage_size};
use crate::stmt::ind;
use crate::{unsupported_as, Gen, Owner, UnsupportedKind, R};

/// The P4DP_TABLE_F_* flags of the data-plane write features of `t`.
pub fn table_flags(t: &Table) -> Vec<&'static str> {
    let mut f = Vec::new();
    if t.add_on_miss {
        f.push("P4DP_TABLE_F_ADD_ON_MISS");
    }
    if t.idle_timeout.notify {
        f.push("P4DP_TABLE_F_IDLE_NOTIFY");
    }
    if t.idle_timeout.auto_delete {
        f.push("P4DP_TABLE_F_IDLE_AUTO_DELETE");
    }
    if t.entry_lock {
        f.push("P4DP_TABLE_F_ENTRY_LOCK");
    }
    f
}

/// `p4dp_table_info.storage` of `t`.
pub fn storage(t: &Table) -> &'static str {
    match t.storage {
        Storage::Static => "P4DP_STORAGE_STATIC",
        Storage::Dynamic => "P4DP_STORAGE_DYNAMIC",
        Storage::Auto => "P4DP_STORAGE_AUTO",
    }
}

impl Gen<'_> {
    /// Whether an action of `t` (or its default action) has an `@__ref` parameter.
    pub fn table_has_ref(&self, t: &Table) -> bool {
        let p = self.p;
        t.actions
            .iter()
            .map(|ta| ta.action)
            .chain([t.default_action.action])
            .any(|a| {
                let act = &p.actions[a];
                act.params
                    .iter()
                    .any(|v| self.is_ref_var(Owner::Control(act.owner), *v))
            })
    }

    /// Whether the generated code of `t` uses only the matched entry's action and action data, never
    /// which entry it is: no direct counter or meter (they index by the entry's slot), no
    /// implementation, no `@__ref` parameter, entry lock, idle timeout or add_on_miss (they write
    /// the entry), not an rtc.p4 program (`lastRowIndex` reads the matched entry's row). Then the runtime may answer lookups of `t` with a shared read-only entry of the
    /// same action and data (`P4DP_TABLE_F_SHARED_ANSWERS`, abi.h). Only the tables the runtime's
    /// lpm kind takes (one lpm key, the others exact) carry the flag: that kind uses it.
    pub fn shared_answers(&self, t: &Table, keys: &[&TableKey]) -> bool {
        let kind = |m: KeyMatch| keys.iter().filter(|k| k.match_kind == MatchKind::Key(m)).count();
        kind(KeyMatch::Lpm) == 1
            && kind(KeyMatch::Lpm) + kind(KeyMatch::Exact) == keys.len()
            && !self.is_rtc()
            && t.direct_counter.is_none()
            && t.direct_meter.is_none()
            && t.implementation.is_none()
            && table_flags(t).is_empty()
            && !self.table_has_ref(t)
    }

    /// Whether the program uses any data-plane write feature (then `p4dp/dpwrite.h` is included).
    pub fn uses_dpwrite(&self) -> bool {
        let p = self.p;
        p.tables.iter().any(|(_, t)| !table_flags(t).is_empty())
            || p.actions
                .iter()
                .any(|(_, a)| a.params.iter().any(|v| self.is_ref_var(Owner::Control(a.owner), *v)))
    }

    /// The typedef of an `@__ref` parameter's pointee: the value type with the alignment the
    /// native layout guarantees (`min(size, 8)`, 1 above 128 bits) and `may_alias` (the entry's
    /// data is a byte array).
    pub fn ref_type(&mut self, ct: &str, t: TypeId, span: Span) -> R<String> {
        if let Some(n) = self.ref_types.get(ct) {
            return Ok(n.clone());
        }
        let Some(w) = self.value_width(t) else {
            return unsupported_as(UnsupportedKind::Type, span, "`@__ref` parameter of a non-scalar type");
        };
        let align = if w > 128 { 1 } else { storage_size(w).min(8) };
        let name = self.namer.fresh("ref_", ct);
        let _ = writeln!(
            self.types_out,
            "typedef {ct} __attribute__((may_alias, aligned({align}))) {name};"
        );
        self.ref_types.insert(ct.to_string(), name.clone());
        Ok(name)
    }

    /// Points the `@__ref` parameter `v` (action data at `off`) of owner `o` into entry `e`.
    pub fn ref_bind(&mut self, o: Owner, v: VarId, off: u32, span: Span) -> R<String> {
        let vt = self.vars(o)[v].ty;
        let ct = self.ctype(vt, span)?;
        let rt = self.ref_type(&ct, vt, span)?;
        let f = self.frame(o);
        Ok(format!(
            "\t\tR->{}.{} = ({rt} *)(void *)(_me->data + {off});",
            f.field,
            f.vars[v.index()]
        ))
    }

    /// Points the `@__ref` parameter `v` at its frame scratch (no entry), holding `val`.
    pub fn ref_bind_scratch(&mut self, o: Owner, v: VarId, val: &str, span: Span) -> R<String> {
        let vt = self.vars(o)[v].ty;
        let ct = self.ctype(vt, span)?;
        let rt = self.ref_type(&ct, vt, span)?;
        let f = self.frame(o);
        let s = self.ref_scratch(o, v);
        Ok(format!(
            "\t\t{s} = {val};\n\t\tR->{}.{} = ({rt} *)&{s};",
            f.field,
            f.vars[v.index()]
        ))
    }

    /// PNA data-plane write externs; Ok(false) if `name` is not one.
    pub(crate) fn dp_function(&mut self, name: &str, c: &Call, level: usize, out: &mut String) -> R<bool> {
        let i = ind(level);
        match name {
            "add_entry" => self.add_entry(c, level, out)?,
            "set_entry_expire_time" => {
                let Some(Arg::In(e)) = c.args.first() else {
                    return unsupported_as(
                        UnsupportedKind::ExternFunction,
                        c.span,
                        "set_entry_expire_time without a profile",
                    );
                };
                let x = self.expr(e)?;
                let _ = writeln!(
                    out,
                    "{i}if (R->dp_entry)\n{i}\tp4dp_entry_set_expire(R->ctx, R->dp_entry, (uint32_t)({x}));"
                );
            }
            "restart_expire_timer" => {
                let _ = writeln!(out, "{i}if (R->dp_entry)\n{i}\tp4dp_entry_touch(R->ctx, R->dp_entry);");
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// Bytes of an action-data buffer handed to a data-plane insert. The runtime reads the
    /// table's data_len bytes (the max over its actions): the buffer is sized for the largest
    /// table of the program, zero-filled past the action's data.
    pub(crate) fn data_buf_len(&self) -> R<u32> {
        let mut buf_len = 0;
        for (_, t) in self.p.tables.iter() {
            for a in t.actions.iter().map(|ta| ta.action).chain([t.default_action.action]) {
                buf_len = buf_len.max(self.data_layout(a)?.1);
            }
        }
        Ok(buf_len)
    }

    /// `add_entry<T>(action_name, params, profile)`: params (a struct whose fields are the
    /// action's directionless parameters, as sema checked) in the action's native data layout,
    /// inserted with the key the running table was looked up with.
    fn add_entry(&mut self, c: &Call, level: usize, out: &mut String) -> R<()> {
        let p = self.p;
        let i = ind(level);
        let (Some(Arg::In(name)), Some(Arg::In(params)), Some(Arg::In(prof))) =
            (c.args.first(), c.args.get(1), c.args.get(2))
        else {
            return unsupported_as(
                UnsupportedKind::ExternFunction,
                c.span,
                "add_entry with other than 3 arguments",
            );
        };
        let ExprKind::Const(Value::String(fq)) = &name.kind else {
            return unsupported_as(
                UnsupportedKind::ExternFunction,
                c.span,
                "add_entry with a non-constant action name",
            );
        };
        let Owner::Control(cid) = self.owner else {
            return unsupported_as(UnsupportedKind::ExternFunction, c.span, "add_entry outside a control");
        };
        let Some(target) = p.controls[cid]
            .actions
            .iter()
            .copied()
            .find(|a| &p.actions[*a].fq_name == fq)
        else {
            return unsupported_as(
                UnsupportedKind::ExternFunction,
                c.span,
                format!("add_entry: no action `{fq}` in this control"),
            );
        };
        let dparams = self.data_params(target)?;
        let widths: Vec<u32> = dparams.iter().map(|(_, w)| *w).collect();
        let (lay, len) = native_layout(&widths);
        let fields = self.fields(params.ty);
        if fields.len() != lay.len() {
            return unsupported_as(
                UnsupportedKind::ExternFunction,
                c.span,
                "add_entry: parameter struct does not match the action",
            );
        }
        let pct = self.ctype(params.ty, params.span)?;
        let px = self.expr(params)?;
        let prof = self.expr(prof)?;
        let abi = self.abi_action_of[target.index()];
        let _ = writeln!(out, "{i}{{ /* add_entry(\"{}\") */", fq.replace("*/", "* /"));
        let buf_len = self.data_buf_len()?.max(len);
        let _ = writeln!(
            out,
            "{i}\tuint8_t _d[{}] __attribute__((aligned(8)));\n{i}\tmemset(_d, 0, sizeof _d);",
            buf_len.max(1)
        );
        let _ = writeln!(out, "{i}\tconst {pct} _p = {px};");
        for ((f, _), (off, size)) in fields.iter().zip(&lay) {
            let _ = writeln!(out, "{i}\tmemcpy(_d + {off}, &_p.{f}, {size});");
        }
        let _ = writeln!(out, "{i}\tint _r = R->dp_key ? p4dp_table_dp_add_seen(R->ctx, R->dp_table, R->dp_key, {abi}u, _d, (uint32_t)({prof}), {}) : -1; /* -1: not run by a table */", self.stage_seen());
        out.push_str(&self.stage_invalidate(&format!("{i}\t")));
        match &c.ret {
            Some(r) => {
                let st = self.store(r, "(uint8_t)(_r == 0)", level + 1)?;
                out.push_str(&st);
            }
            None => {
                let _ = writeln!(out, "{i}\t(void)_r;");
            }
        }
        let _ = writeln!(out, "{i}}}");
        Ok(())
    }
}
