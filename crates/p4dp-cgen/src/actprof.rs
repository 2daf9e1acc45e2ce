//! Tables implemented by an action profile or action selector (`implementation = ...`): their
//! entries refer to a member or group of the profile instead of holding an action (abi.h
//! "Action profiles"). The match key has only the non-selector keys; after the lookup generated
//! code hashes the `selector` keys (groups only) and resolves the entry to a member with
//! `p4dp_actprof_resolve`, then dispatches on the member like on a direct entry.

use std::fmt::Write as _;

use p4dp_ir::*;

use crate::{unsupported_as, Gen, UnsupportedKind, R};

/// Declared size of a profile: `action_profile(size)`, `action_selector(algo, size, width)`.
pub(crate) fn profile_size(x: &ExternInstance) -> u64 {
    let arg = if x.kind.is_action_selector() {
        x.ctor_args.get(1)
    } else {
        x.ctor_args.first()
    };
    arg.and_then(crate::externs::const_u64).unwrap_or(0)
}

/// Bytes of an indirect entry's reference (struct p4dp_actprof_ref): the least data_len.
pub(crate) const REF_LEN: u32 = 8;

/// The `table_impl` value of table `t`: its profile's extern index, or -1.
pub(crate) fn table_impl(t: &Table) -> i64 {
    t.implementation.map(|x| x.index() as i64).unwrap_or(-1)
}

impl<'a> Gen<'a> {
    /// The keys table `tid`'s entries match on, in order: all of them, or for an indirect table
    /// those other than its `selector` keys (`ProgramInfo::match_keys`).
    pub(crate) fn match_keys(&self, tid: TableId) -> Vec<&'a TableKey> {
        let t = &self.p.tables[tid];
        self.info.match_keys[tid.index()].iter().map(|&i| &t.keys[i]).collect()
    }

    /// Reject indirect tables using features not supported with profiles; Ok for direct tables.
    pub(crate) fn check_indirect(&self, tid: TableId) -> R<()> {
        let p = self.p;
        let t = &p.tables[tid];
        let Some(x) = t.implementation else { return Ok(()) };
        let inst = &p.externs[x];
        let name = &t.fq_name;
        if !inst.kind.is_action_profile() {
            return unsupported_as(
                UnsupportedKind::Table,
                t.span,
                format!(
                    "table `{name}`: implementation `{}` is not an action profile or action selector",
                    inst.type_name
                ),
            );
        }
        let has_sel = t.keys.iter().any(|k| k.match_kind == MatchKind::Selector);
        if has_sel && !inst.kind.is_action_selector() {
            return unsupported_as(
                UnsupportedKind::Table,
                t.span,
                format!("table `{name}`: `selector` keys need an action selector implementation"),
            );
        }
        if !t.entries.is_empty() {
            return unsupported_as(
                UnsupportedKind::Table,
                t.span,
                format!("table `{name}`: entries in a table implemented by an action profile"),
            );
        }
        if t.direct_counter.is_some() || t.direct_meter.is_some() {
            return unsupported_as(
                UnsupportedKind::Table,
                t.span,
                format!("table `{name}`: direct counters/meters with an action profile implementation"),
            );
        }
        let has_ref = self.table_has_ref(t);
        if has_ref || t.entry_lock || t.idle_timeout.any() || !crate::dpwrite::table_flags(t).is_empty() {
            return unsupported_as(UnsupportedKind::Table, t.span, format!("table `{name}`: data-plane writes, entry locks or idle timeouts with an action profile implementation"));
        }
        Ok(())
    }

    /// The selector's hash algorithm (the name `hash_value` understands).
    fn selector_algo(&self, inst: &ExternInstance) -> R<String> {
        let Some(Value::Enum(i)) = inst.ctor_args.first() else {
            return unsupported_as(
                UnsupportedKind::Table,
                inst.span,
                format!("action selector `{}`: the algorithm must be a constant", inst.fq_name),
            );
        };
        let member = self.p.types.iter().find_map(|(_, ty)| match ty {
            Type::Enum { name, members } if name.contains("HashAlgorithm") => members.get(*i as usize).cloned(),
            _ => None,
        });
        let Some(m) = member else {
            return unsupported_as(
                UnsupportedKind::Table,
                inst.span,
                format!("action selector `{}`: unknown hash algorithm", inst.fq_name),
            );
        };
        let m = m.to_ascii_lowercase();
        Ok(match m.as_str() {
            "ones_complement16" => "csum16".to_string(),
            "target_default" => "crc32".to_string(),
            _ => m,
        })
    }

    /// Statements after the lookup of indirect table `tid` (empty for direct tables): on a hit,
    /// hash the selector keys if the entry refers to a group, then resolve `e` to the member;
    /// an empty group runs the default entry as a miss.
    pub(crate) fn actprof_resolve(&mut self, tid: TableId) -> R<String> {
        let p = self.p;
        let t = &p.tables[tid];
        let Some(x) = t.implementation else {
            return Ok(String::new());
        };
        let inst = &p.externs[x];
        let (ti, xi) = (tid.index(), x.index());
        let mut o = String::new();
        let _ = writeln!(
            o,
            "\n\tif (_hit) {{\n\t\tuint64_t _sh = 0; /* selector hash (groups only) */"
        );
        let sel: Vec<&TableKey> = t.keys.iter().filter(|k| k.match_kind == MatchKind::Selector).collect();
        if inst.kind.is_action_selector() && !sel.is_empty() {
            let algo = self.selector_algo(inst)?;
            let mut bits = 0u32;
            for k in &sel {
                bits += self.max_bits(k.expr.ty, k.expr.span)?;
            }
            let buf = self.fresh_tmp();
            let _ = writeln!(o, "\t\tif (p4dp_actprof_is_group(e)) {{\n\t\t\tuint8_t {buf}[{}];\n\t\t\tmemset({buf}, 0, sizeof {buf});\n\t\t\tuint32_t _o = 0;\n\t\t\tuint8_t *_b = {buf};", bits.div_ceil(8).max(1));
            for k in &sel {
                self.serialize_expr(&k.expr, 3, &mut o)?;
            }
            let h = self.hash_value(&algo, &buf, "((_o + 7u) / 8u)", false, inst.span)?;
            let _ = writeln!(o, "\t\t\t_sh = {h};\n\t\t\t(void)_b;\n\t\t}}");
        }
        let _ = writeln!(o, "\t\te = p4dp_actprof_resolve(R->ctx, {xi}u, e, _sh);\n\t\tif (e == NULL) {{\n\t\t\t/* empty group: the default action, as a miss */\n\t\t\t_hit = 0;\n\t\t\te = p4dp_table_default(R->ctx, {ti}u);\n\t\t}}\n\t}}");
        o.pop(); // the caller ends the line
        Ok(o)
    }

    /// `p4dp_program.table_impl` initializer: (declarations, member initializer line).
    pub(crate) fn table_impl_md(&self) -> (String, String) {
        let p = self.p;
        if !p.tables.iter().any(|(_, t)| t.implementation.is_some()) {
            return (String::new(), String::new());
        }
        let v: Vec<String> = p.tables.iter().map(|(_, t)| table_impl(t).to_string()).collect();
        (
            format!("static const int32_t md_timpl[] = {{ {} }};\n", v.join(", ")),
            "\t.table_impl = md_timpl,\n".to_string(),
        )
    }
}
