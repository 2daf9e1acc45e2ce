//! Compiling the p4dp extension statements for action profiles and selectors (docs/stf.md):
//! `act_prof_create_member`, `act_prof_create_group`, `act_prof_add_member_to_group`,
//! `table_indirect_add` and `table_indirect_add_with_group`. Member and group handles are
//! numbered 0, 1, 2, ... per profile in statement order (as BMv2's CLI returns them) and are
//! passed to the target as the member/group ids.

use super::{u32_of, Cx, Op};
use crate::ast::{Int, Name, StmtKind};
use crate::resolve;
use crate::schema::ActionProfileSchema;
use crate::target::{FieldMatch, KeyFieldMatch};
use crate::value;

impl<'a> Cx<'a> {
    fn profile(&mut self, name: &Name) -> Option<&'a ActionProfileSchema> {
        let schema = self.schema;
        match resolve::resolve_exact(schema.action_profiles.iter().map(|p| p.name.as_str()), &name.text, "action profile")
        {
            Ok(i) => Some(&schema.action_profiles[i]),
            Err(e) => {
                self.resolve_err(name.span, e);
                None
            }
        }
    }

    /// Check a member (`group` false) or group handle of `profile` against those created so far.
    fn ap_handle(&mut self, profile: &str, h: Int, group: bool) -> Option<u32> {
        let (members, groups) = self.ap_handles.get(profile).copied().unwrap_or((0, 0));
        let (n, what, stmt) = if group {
            (groups, "group", "act_prof_create_group")
        } else {
            (members, "member", "act_prof_create_member")
        };
        if h.value >= u64::from(n) {
            let mut d = self.rep.make(h.span, format!("{what} handle {} of `{profile}` has not been created yet", h.value));
            d.note = Some(format!("handles are numbered 0, 1, 2, ... per profile in `{stmt}` order; {n} created so far"));
            self.rep.push(d);
            return None;
        }
        Some(h.value as u32)
    }

    pub(super) fn act_prof_stmt(&mut self, kind: &StmtKind) -> Option<Op> {
        match kind {
            StmtKind::ActProfCreateMember { profile, action } => {
                let p = self.profile(profile)?;
                // count it even if the action is bad, so later handles keep their numbers
                let c = self.ap_handles.entry(p.name.clone()).or_default();
                let member = c.0;
                c.0 += 1;
                let Some(tname) = p.tables.first() else {
                    self.rep.error(profile.span, format!("action profile `{}` implements no table", p.name));
                    return None;
                };
                let table = self.schema.tables.iter().find(|t| &t.name == tname)?;
                let action = self.action(table, action, false)?;
                Some(Op::ActProfCreateMember { profile: p.name.clone(), member, action })
            }
            StmtKind::ActProfCreateGroup { profile } => {
                let p = self.profile(profile)?;
                let c = self.ap_handles.entry(p.name.clone()).or_default();
                let group = c.1;
                c.1 += 1;
                if !p.selector {
                    self.rep.error(profile.span, format!("`{}` is an action profile without a selector: it has no groups", p.name));
                    return None;
                }
                Some(Op::ActProfCreateGroup { profile: p.name.clone(), group })
            }
            StmtKind::ActProfAddMemberToGroup { profile, member, group } => {
                let p = self.profile(profile)?;
                let m = self.ap_handle(&p.name, *member, false);
                let g = self.ap_handle(&p.name, *group, true);
                Some(Op::ActProfAddMemberToGroup { profile: p.name.clone(), member: m?, group: g? })
            }
            StmtKind::AddIndirect { table: table_name, priority, keys, group, handle } => {
                let table = self.table(table_name)?;
                let Some(p) = self.schema.action_profiles.iter().find(|p| p.tables.contains(&table.name)) else {
                    self.rep.error(
                        table_name.span,
                        format!("table `{}` is not implemented by an action profile; use `add`", table.name),
                    );
                    return None;
                };
                if *group && !p.selector {
                    self.rep.error(table_name.span, format!("table `{}` has an action profile without a selector: it has no groups", table.name));
                    return None;
                }
                let mut ok = true;
                let prio = match (priority, table.needs_priority) {
                    (Some(p), true) => u32_of(&mut self.rep, *p, "priority"),
                    (None, true) => {
                        self.rep.error(
                            table_name.span,
                            format!("table `{}` needs a priority (it has a ternary, range or optional key)", table.name),
                        );
                        ok = false;
                        None
                    }
                    (_, false) => None,
                };
                let mut matches: Vec<Option<FieldMatch>> = vec![None; table.keys.len()];
                for k in keys {
                    let ki = match resolve::resolve_key(table, &k.name.text) {
                        Ok(i) => i,
                        Err(e) => {
                            self.resolve_err(k.name.span, e);
                            ok = false;
                            continue;
                        }
                    };
                    if matches[ki].is_some() {
                        self.rep.error(k.name.span, format!("key field `{}` is given twice", table.keys[ki].name));
                        ok = false;
                        continue;
                    }
                    match value::encode_key(&k.value, &table.keys[ki]) {
                        Ok(m) => matches[ki] = Some(m),
                        Err(e) => {
                            self.encode_err(k.name.span, e);
                            ok = false;
                        }
                    }
                }
                let id = self.ap_handle(&p.name, *handle, *group);
                if !ok {
                    return None;
                }
                let matches = table
                    .keys
                    .iter()
                    .zip(matches)
                    .map(|(k, m)| KeyFieldMatch { field: k.name.clone(), m: m.unwrap_or_else(|| value::default_match(k)) })
                    .collect();
                Some(Op::AddIndirect { table: table.name.clone(), matches, priority: prio, group: *group, id: id? })
            }
            _ => None,
        }
    }
}
