//! Compiling the p4dp extension statements for action profiles and selectors (docs/stf.md):
//! `act_prof_create_member`, `act_prof_create_group`, `act_prof_add_member_to_group`,
//! `table_indirect_add` and `table_indirect_add_with_group`. Member and group handles are
//! numbered 0, 1, 2, ... per profile in statement order (as BMv2's CLI returns them) and are
//! passed to the target as the member/group ids.

use super::{Cx, EntryStmt, Op};
use crate::ast::{Int, Name, StmtKind};
use crate::resolve;
use crate::schema::ActionProfileSchema;

impl<'a> Cx<'a> {
    fn profile(&mut self, name: &Name) -> Option<&'a ActionProfileSchema> {
        let schema = self.schema;
        match resolve::resolve_exact(
            schema.action_profiles.iter().map(|p| p.name.as_str()),
            &name.text,
            "action profile",
        ) {
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
            let mut d = self.rep.make(
                h.span,
                format!("{what} handle {} of `{profile}` has not been created yet", h.value),
            );
            d.note = Some(format!(
                "handles are numbered 0, 1, 2, ... per profile in `{stmt}` order; {n} created so far"
            ));
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
                    self.rep
                        .error(profile.span, format!("action profile `{}` implements no table", p.name));
                    return None;
                };
                let table = self.schema.tables.iter().find(|t| &t.name == tname)?;
                let action = self.action(table, action, false)?;
                Some(Op::ActProfCreateMember {
                    profile: p.name.clone(),
                    member,
                    action,
                })
            }
            StmtKind::ActProfCreateGroup { profile } => {
                let p = self.profile(profile)?;
                let c = self.ap_handles.entry(p.name.clone()).or_default();
                let group = c.1;
                c.1 += 1;
                if !p.selector {
                    self.rep.error(
                        profile.span,
                        format!("`{}` is an action profile without a selector: it has no groups", p.name),
                    );
                    return None;
                }
                Some(Op::ActProfCreateGroup {
                    profile: p.name.clone(),
                    group,
                })
            }
            StmtKind::ActProfAddMemberToGroup { profile, member, group } => {
                let p = self.profile(profile)?;
                let m = self.ap_handle(&p.name, *member, false);
                let g = self.ap_handle(&p.name, *group, true);
                Some(Op::ActProfAddMemberToGroup {
                    profile: p.name.clone(),
                    member: m?,
                    group: g?,
                })
            }
            StmtKind::AddIndirect {
                table: table_name,
                priority,
                keys,
                group,
                handle,
            } => {
                let table = self.table(table_name)?;
                let Some(p) = self
                    .schema
                    .action_profiles
                    .iter()
                    .find(|p| p.tables.contains(&table.name))
                else {
                    self.rep.error(
                        table_name.span,
                        format!(
                            "table `{}` is not implemented by an action profile; use `add`",
                            table.name
                        ),
                    );
                    return None;
                };
                if *group && !p.selector {
                    self.rep.error(
                        table_name.span,
                        format!(
                            "table `{}` has an action profile without a selector: it has no groups",
                            table.name
                        ),
                    );
                    return None;
                }
                let m = self.entry_match(table_name, table, *priority, keys, EntryStmt::Indirect);
                let id = self.ap_handle(&p.name, *handle, *group);
                let m = m?;
                Some(Op::AddIndirect {
                    table: table.name.clone(),
                    matches: m.matches,
                    priority: m.priority,
                    group: *group,
                    id: id?,
                })
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::compile::Op;
    use crate::load;
    use crate::schema::*;
    use crate::target::{ActionCall, FieldMatch, KeyFieldMatch};

    fn schema() -> ProgramSchema {
        let tbl = |name: &str, match_kind: MatchKind| TableSchema {
            name: name.into(),
            keys: vec![KeyFieldSchema {
                name: "hdr.k".into(),
                match_kind,
                width: 8,
            }],
            actions: vec![
                ActionRefSchema {
                    name: "ingress.set".into(),
                    scope: ActionScope::TableAndDefault,
                },
                ActionRefSchema {
                    name: "NoAction".into(),
                    scope: ActionScope::DefaultOnly,
                },
            ],
            const_default_action: false,
            const_entries: false,
            needs_priority: match_kind != MatchKind::Exact,
        };
        ProgramSchema {
            tables: vec![
                tbl("ingress.tp", MatchKind::Exact),
                tbl("ingress.ts", MatchKind::Exact),
                tbl("ingress.plain", MatchKind::Exact),
                tbl("ingress.tt", MatchKind::Ternary),
            ],
            actions: vec![
                ActionSchema {
                    name: "ingress.set".into(),
                    params: vec![ParamSchema {
                        name: "port".into(),
                        width: 9,
                    }],
                },
                ActionSchema {
                    name: "NoAction".into(),
                    params: vec![],
                },
            ],
            action_profiles: vec![
                ActionProfileSchema {
                    name: "ingress.tp".into(),
                    tables: vec!["ingress.tp".into()],
                    selector: false,
                },
                ActionProfileSchema {
                    name: "ingress.ts".into(),
                    tables: vec!["ingress.ts".into()],
                    selector: true,
                },
                ActionProfileSchema {
                    name: "ingress.tt".into(),
                    tables: vec!["ingress.tt".into()],
                    selector: false,
                },
            ],
            ..Default::default()
        }
    }

    fn errs(text: &str) -> Vec<String> {
        match load("t.stf", text, &schema()) {
            Ok(p) => panic!("compiled: {:?}", p.steps),
            Err(d) => d.0.iter().map(|d| d.headline()).collect(),
        }
    }

    #[test]
    fn handles_and_ops() {
        let p = load(
            "t.stf",
            "act_prof_create_member ingress.ts ingress.set(port:1)\n\
             act_prof_create_member ingress.ts set(port:2)\n\
             act_prof_create_group ingress.ts\n\
             act_prof_add_member_to_group ingress.ts 1 0\n\
             table_indirect_add_with_group ingress.ts hdr.k:5 0\n\
             table_indirect_add ts hdr.k:6 1\n\
             act_prof_create_member ingress.tp set(port:3)\n\
             table_indirect_add ingress.tp hdr.k:7 0\n",
            &schema(),
        )
        .unwrap_or_else(|d| panic!("{d}"));
        let ops: Vec<Op> = p.steps.into_iter().map(|s| s.op).collect();
        let set = |v: u8| ActionCall {
            name: "ingress.set".into(),
            args: vec![vec![0, v]],
        };
        assert_eq!(
            ops[0],
            Op::ActProfCreateMember {
                profile: "ingress.ts".into(),
                member: 0,
                action: set(1)
            }
        );
        assert_eq!(
            ops[1],
            Op::ActProfCreateMember {
                profile: "ingress.ts".into(),
                member: 1,
                action: set(2)
            }
        );
        assert_eq!(
            ops[2],
            Op::ActProfCreateGroup {
                profile: "ingress.ts".into(),
                group: 0
            }
        );
        assert_eq!(
            ops[3],
            Op::ActProfAddMemberToGroup {
                profile: "ingress.ts".into(),
                member: 1,
                group: 0
            }
        );
        let k = |v: u8| {
            vec![KeyFieldMatch {
                field: "hdr.k".into(),
                m: FieldMatch::Exact(vec![v]),
            }]
        };
        assert_eq!(
            ops[4],
            Op::AddIndirect {
                table: "ingress.ts".into(),
                matches: k(5),
                priority: None,
                group: true,
                id: 0
            }
        );
        assert_eq!(
            ops[5],
            Op::AddIndirect {
                table: "ingress.ts".into(),
                matches: k(6),
                priority: None,
                group: false,
                id: 1
            }
        );
        // handles count per profile
        assert_eq!(
            ops[6],
            Op::ActProfCreateMember {
                profile: "ingress.tp".into(),
                member: 0,
                action: set(3)
            }
        );
        assert_eq!(
            ops[7],
            Op::AddIndirect {
                table: "ingress.tp".into(),
                matches: k(7),
                priority: None,
                group: false,
                id: 0
            }
        );
    }

    #[test]
    fn errors() {
        let e = errs("act_prof_create_member ingress.nope ingress.set(port:1)");
        assert!(e[0].contains("unknown action profile `ingress.nope`"), "{e:?}");
        let e = errs("act_prof_create_group ingress.tp");
        assert!(e[0].contains("has no groups"), "{e:?}");
        let e = errs("act_prof_create_member ingress.tp NoAction()");
        assert!(e[0].contains("defaultonly") || e[0].contains("default"), "{e:?}");
        let e = errs("act_prof_create_group ingress.ts\nact_prof_add_member_to_group ingress.ts 0 0");
        assert!(
            e[0].contains("member handle 0 of `ingress.ts` has not been created yet"),
            "{e:?}"
        );
        let e = errs("table_indirect_add ingress.plain hdr.k:1 0");
        assert!(e[0].contains("not implemented by an action profile"), "{e:?}");
        let e =
            errs("act_prof_create_member ingress.tp set(port:1)\ntable_indirect_add_with_group ingress.tp hdr.k:1 0");
        assert!(e[0].contains("without a selector"), "{e:?}");
        let e = errs("table_indirect_add ingress.tp hdr.k:1");
        assert!(e[0].contains("member handle"), "{e:?}");
    }

    /// (headline, span length, note) of every error.
    fn diags(text: &str) -> Vec<(String, u32, Option<String>)> {
        match load("t.stf", text, &schema()) {
            Ok(p) => panic!("compiled: {:?}", p.steps),
            Err(d) => d.0.iter().map(|d| (d.headline(), d.span.len, d.note.clone())).collect(),
        }
    }

    #[test]
    fn indirect_priority_and_keys() {
        let p = load(
            "t.stf",
            "act_prof_create_member ingress.tt set(port:1)\n\
             table_indirect_add ingress.tt 7 0\n\
             table_indirect_add ingress.tt 8 hdr.k:0x1* 0\n",
            &schema(),
        )
        .unwrap_or_else(|d| panic!("{d}"));
        let ops: Vec<Op> = p.steps.into_iter().map(|s| s.op).collect();
        let entry = |priority: u32, m: FieldMatch| Op::AddIndirect {
            table: "ingress.tt".into(),
            matches: vec![KeyFieldMatch {
                field: "hdr.k".into(),
                m,
            }],
            priority: Some(priority),
            group: false,
            id: 0,
        };
        // a key not given matches anything
        let any = FieldMatch::Ternary {
            value: vec![0],
            mask: vec![0],
        };
        assert_eq!(ops[1], entry(7, any));
        let m = FieldMatch::Ternary {
            value: vec![0x10],
            mask: vec![0xf0],
        };
        assert_eq!(ops[2], entry(8, m));
        // the priority of a table that needs none is ignored
        let p = load(
            "t.stf",
            "act_prof_create_member ingress.tp set(port:1)\ntable_indirect_add tp 9 hdr.k:1 0",
            &schema(),
        )
        .unwrap_or_else(|d| panic!("{d}"));
        match &p.steps[1].op {
            Op::AddIndirect { priority, .. } => assert_eq!(*priority, None),
            o => panic!("{o:?}"),
        }
    }

    #[test]
    fn indirect_entry_errors() {
        // no note here (`add` has one); every error of the statement is reported, in order
        assert_eq!(
            diags("table_indirect_add ingress.tt hdr.k:0x1 0"),
            vec![
                (
                    "t.stf:1:20: error: table `ingress.tt` needs a priority (it has a ternary, range or optional key)"
                        .into(),
                    10,
                    None
                ),
                (
                    "t.stf:1:41: error: member handle 0 of `ingress.tt` has not been created yet".into(),
                    1,
                    Some("handles are numbered 0, 1, 2, ... per profile in `act_prof_create_member` order; 0 created so far".into())
                ),
            ]
        );
        let e = diags("table_indirect_add tt 4294967296 hdr.k:0x1 0");
        assert_eq!(
            e[0].0,
            "t.stf:1:23: error: priority 4294967296 is too large (maximum 4294967295)"
        );
        // a bad key value is pointed at the key's name (`add` points at the value)
        let e = diags("act_prof_create_member ingress.tp set(port:1)\ntable_indirect_add tp hdr.k:0x1ff 0");
        assert_eq!(e.len(), 1, "{e:?}");
        assert!(e[0].0.starts_with("t.stf:2:23: error: "), "{e:?}");
        assert_eq!(e[0].1, 5);
        let e = diags("act_prof_create_member ingress.tp set(port:1)\ntable_indirect_add tp hdr.k:1 k:2 nope:3 0");
        assert_eq!(
            e.iter().map(|d| d.0.as_str()).collect::<Vec<_>>(),
            [
                "t.stf:2:31: error: key field `hdr.k` is given twice",
                "t.stf:2:35: error: table `ingress.tp` has no key field `nope`",
            ]
        );
    }
}
