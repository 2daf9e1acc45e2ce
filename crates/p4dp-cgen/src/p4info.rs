//! P4Info in protobuf text format (P4Runtime `p4info.proto`), with the ids of [`crate::ids`].

use std::collections::{BTreeMap, HashSet};
use std::fmt::Write as _;

use p4dp_ir::*;

use crate::externs::const_u64;
use crate::ids::{assign_ids, Ids};

fn q(s: &str) -> String {
    crate::ctype::c_string(s)
}

/// Shortest unique dot-separated suffix of every name (among all names given).
fn aliases(names: &[String]) -> BTreeMap<String, String> {
    let all: HashSet<&String> = names.iter().collect();
    let mut suffix_count: BTreeMap<String, usize> = BTreeMap::new();
    for n in &all {
        let parts: Vec<&str> = n.split('.').collect();
        for k in 1..=parts.len() {
            *suffix_count.entry(parts[parts.len() - k..].join(".")).or_default() += 1;
        }
    }
    let mut out = BTreeMap::new();
    for n in &all {
        let parts: Vec<&str> = n.split('.').collect();
        let mut alias = n.to_string();
        for k in 1..=parts.len() {
            let s = parts[parts.len() - k..].join(".");
            if suffix_count.get(&s) == Some(&1) {
                alias = s;
                break;
            }
        }
        out.insert(n.to_string(), alias);
    }
    out
}

struct W<'a> {
    p: &'a Program,
    ids: Ids,
    alias: BTreeMap<String, String>,
    out: String,
    structs: BTreeMap<String, TypeId>,
}

impl W<'_> {
    /// The `type` line of a MeterSpec; none for two-rate three-colour meters (the enum's 0).
    fn meter_type(t: MeterType) -> &'static str {
        match t {
            MeterType::TwoRateThreeColor => "",
            MeterType::SingleRateThreeColor => "    type: SINGLE_RATE_THREE_COLOR\n",
            MeterType::SingleRateTwoColor => "    type: SINGLE_RATE_TWO_COLOR\n",
        }
    }

    fn preamble(&mut self, id: u32, name: &str, anns: &[Annotation]) {
        let alias = self.alias.get(name).cloned().unwrap_or_else(|| name.to_string());
        let _ = writeln!(
            self.out,
            "  preamble {{\n    id: {id}\n    name: {}\n    alias: {}",
            q(name),
            q(&alias)
        );
        for a in anns {
            if matches!(a.name.as_str(), "name" | "id") {
                continue;
            }
            if a.name == "brief" || a.name == "description" {
                if let Some(AnnotationArg::String(s)) = a.args.first() {
                    let _ = writeln!(self.out, "    {}: {}", a.name, q(s));
                }
            }
        }
        self.out.push_str("  }\n");
    }

    fn width(&self, t: TypeId) -> u32 {
        match self.p.types.get(t) {
            Type::Error | Type::Enum { .. } => 32,
            _ => self.p.types.scalar_width(t).unwrap_or(0),
        }
    }

    /// A P4DataTypeSpec for type `t` (registers, digests, struct members).
    fn type_spec(&mut self, t: TypeId, indent: &str) -> String {
        let p = self.p;
        match p.types.get(t) {
            Type::Bool => format!("{indent}bool {{\n{indent}}}\n"),
            Type::Bit(w) => {
                format!("{indent}bitstring {{\n{indent}  bit {{\n{indent}    bitwidth: {w}\n{indent}  }}\n{indent}}}\n")
            }
            Type::Int(w) => {
                format!("{indent}bitstring {{\n{indent}  int {{\n{indent}    bitwidth: {w}\n{indent}  }}\n{indent}}}\n")
            }
            Type::Varbit(w) => format!(
                "{indent}bitstring {{\n{indent}  varbit {{\n{indent}    max_bitwidth: {w}\n{indent}  }}\n{indent}}}\n"
            ),
            Type::SerEnum { underlying, .. } => self.type_spec(*underlying, indent),
            Type::Error => format!("{indent}error {{\n{indent}}}\n"),
            Type::Struct(s) | Type::Header(s) => {
                let kind = if matches!(p.types.get(t), Type::Header(_)) {
                    "header"
                } else {
                    "struct"
                };
                self.structs.insert(s.name.clone(), t);
                format!("{indent}{kind} {{\n{indent}  name: {}\n{indent}}}\n", q(&s.name))
            }
            Type::Tuple(ts) => {
                let mut o = format!("{indent}tuple {{\n");
                for m in ts.clone() {
                    let inner = format!("{indent}    ");
                    let _ = write!(o, "{indent}  members {{\n{}{indent}  }}\n", self.type_spec(m, &inner));
                }
                let _ = writeln!(o, "{indent}}}");
                o
            }
            _ => format!(
                "{indent}bitstring {{\n{indent}  bit {{\n{indent}    bitwidth: {}\n{indent}  }}\n{indent}}}\n",
                self.width(t)
            ),
        }
    }

    fn counter_unit(v: Option<&Value>) -> &'static str {
        match v {
            Some(Value::Enum(0)) => "PACKETS",
            Some(Value::Enum(1)) => "BYTES",
            Some(Value::Enum(2)) => "BOTH",
            _ => "UNSPECIFIED",
        }
    }
}

/// P4Info of `p` in protobuf text format.
pub fn generate_p4info(p: &ValidProgram) -> String {
    let p = p.program();
    let ids = assign_ids(p);
    let mut names: Vec<String> = Vec::new();
    names.extend(p.tables.iter().map(|(_, t)| t.fq_name.clone()));
    names.extend(p.actions.iter().map(|(_, a)| a.fq_name.clone()));
    names.extend(
        p.externs
            .iter()
            .filter(|(_, e)| crate::ids::extern_prefix(e.kind) != 0)
            .map(|(_, e)| e.fq_name.clone()),
    );
    names.extend(p.value_sets.iter().map(|(_, v)| v.fq_name.clone()));
    names.extend(ids.digests.iter().map(|(_, n, _)| n.clone()));
    let alias = aliases(&names);
    let mut w = W {
        p,
        ids,
        alias,
        out: String::new(),
        structs: BTreeMap::new(),
    };
    let arch = p.package.as_ref().map(|k| k.arch.clone()).unwrap_or_default();
    let _ = writeln!(w.out, "pkg_info {{\n  arch: {}\n}}", q(&arch));

    // tables
    for (tid, t) in p.tables.iter() {
        w.out.push_str("tables {\n");
        let id = w.ids.tables[tid.index()];
        w.preamble(id, &t.fq_name, &t.annotations);
        // selector keys (action selectors) are not part of the match (actprof.rs)
        let indirect = t.implementation.is_some();
        for (i, k) in t
            .keys
            .iter()
            .filter(|k| !(indirect && k.match_kind == MatchKind::Selector))
            .enumerate()
        {
            let bw = w.width(k.expr.ty).max(1);
            let mt = match &k.match_kind {
                MatchKind::Key(KeyMatch::Exact) => "match_type: EXACT".to_string(),
                MatchKind::Key(KeyMatch::Lpm) => "match_type: LPM".to_string(),
                MatchKind::Key(KeyMatch::Ternary) => "match_type: TERNARY".to_string(),
                MatchKind::Key(KeyMatch::Range) => "match_type: RANGE".to_string(),
                MatchKind::Key(KeyMatch::Optional) => "match_type: OPTIONAL".to_string(),
                other => format!("other_match_type: {}", q(other.as_str())),
            };
            let _ = writeln!(
                w.out,
                "  match_fields {{\n    id: {}\n    name: {}\n    bitwidth: {bw}\n    {mt}\n  }}",
                i + 1,
                q(&k.name)
            );
        }
        let mut seen = HashSet::new();
        for ta in &t.actions {
            let a = &p.actions[ta.action];
            if !seen.insert(a.fq_name.clone()) {
                continue;
            }
            let aid = w.ids.actions.get(&a.fq_name).copied().unwrap_or(0);
            let _ = writeln!(w.out, "  action_refs {{\n    id: {aid}");
            if ta.annotations.iter().any(|x| x.name == "tableonly") {
                w.out
                    .push_str("    scope: TABLE_ONLY\n    annotations: \"@tableonly\"\n");
            } else if ta.annotations.iter().any(|x| x.name == "defaultonly") {
                w.out
                    .push_str("    scope: DEFAULT_ONLY\n    annotations: \"@defaultonly\"\n");
            }
            w.out.push_str("  }\n");
        }
        if t.default_action.is_const {
            let aid = w
                .ids
                .actions
                .get(&p.actions[t.default_action.action].fq_name)
                .copied()
                .unwrap_or(0);
            let _ = writeln!(w.out, "  const_default_action_id: {aid}");
        }
        if let Some(x) = t.implementation {
            let _ = writeln!(w.out, "  implementation_id: {}", w.ids.externs[x.index()]);
        }
        for x in [t.direct_counter, t.direct_meter].into_iter().flatten() {
            let _ = writeln!(w.out, "  direct_resource_ids: {}", w.ids.externs[x.index()]);
        }
        let _ = writeln!(w.out, "  size: {}", t.size.unwrap_or(crate::tables::DEFAULT_TABLE_SIZE));
        if t.idle_timeout.notify {
            // the control plane receives IdleTimeoutNotifications for this table
            w.out.push_str("  idle_timeout_behavior: NOTIFY_CONTROL\n");
        }
        if t.entries_const && !t.entries.is_empty() {
            w.out.push_str("  is_const_table: true\n");
        }
        w.out.push_str("}\n");
    }

    // actions (one per control-plane name)
    let mut seen = HashSet::new();
    for (_, a) in p.actions.iter() {
        if !seen.insert(a.fq_name.clone()) {
            continue;
        }
        w.out.push_str("actions {\n");
        let id = w.ids.actions.get(&a.fq_name).copied().unwrap_or(0);
        w.preamble(id, &a.fq_name, &a.annotations);
        let vars = &p.controls[a.owner].vars;
        let mut k = 0;
        for v in &a.params {
            if let VarKind::ActionParam(_, Direction::None) = vars[*v].kind {
                k += 1;
                let _ = writeln!(
                    w.out,
                    "  params {{\n    id: {k}\n    name: {}\n    bitwidth: {}\n  }}",
                    q(&vars[*v].name),
                    w.width(vars[*v].ty)
                );
            }
        }
        w.out.push_str("}\n");
    }

    // externs
    for (xid, x) in p.externs.iter() {
        let id = w.ids.externs[xid.index()];
        let size = x.ctor_args.first().and_then(const_u64).unwrap_or(0);
        let table_of = p
            .tables
            .iter()
            .find(|(_, t)| t.direct_counter == Some(xid) || t.direct_meter == Some(xid))
            .map(|(t, _)| w.ids.tables[t.index()])
            .unwrap_or(0);
        match x.kind {
            ExternKind::V1Counter | ExternKind::PnaCounter => {
                w.out.push_str("counters {\n");
                w.preamble(id, &x.fq_name, &x.annotations);
                let _ = writeln!(
                    w.out,
                    "  spec {{\n    unit: {}\n  }}\n  size: {size}\n}}",
                    W::counter_unit(x.ctor_args.get(1))
                );
            }
            ExternKind::V1DirectCounter | ExternKind::PnaDirectCounter => {
                w.out.push_str("direct_counters {\n");
                w.preamble(id, &x.fq_name, &x.annotations);
                let _ = writeln!(
                    w.out,
                    "  spec {{\n    unit: {}\n  }}\n  direct_table_id: {table_of}\n}}",
                    W::counter_unit(x.ctor_args.first())
                );
            }
            ExternKind::V1Meter | ExternKind::PnaMeter => {
                w.out.push_str("meters {\n");
                w.preamble(id, &x.fq_name, &x.annotations);
                let unit = match x.ctor_args.get(1) {
                    Some(Value::Enum(1)) => "BYTES",
                    _ => "PACKETS",
                };
                let _ = writeln!(
                    w.out,
                    "  spec {{\n    unit: {unit}\n{}  }}\n  size: {size}\n}}",
                    W::meter_type(x.meter_type)
                );
            }
            ExternKind::V1DirectMeter | ExternKind::PnaDirectMeter => {
                w.out.push_str("direct_meters {\n");
                w.preamble(id, &x.fq_name, &x.annotations);
                let unit = match x.ctor_args.first() {
                    Some(Value::Enum(1)) => "BYTES",
                    _ => "PACKETS",
                };
                let _ = writeln!(
                    w.out,
                    "  spec {{\n    unit: {unit}\n{}  }}\n  direct_table_id: {table_of}\n}}",
                    W::meter_type(x.meter_type)
                );
            }
            k if k.is_action_profile() => {
                w.out.push_str("action_profiles {\n");
                w.preamble(id, &x.fq_name, &x.annotations);
                for (tid, _) in p.tables.iter().filter(|(_, t)| t.implementation == Some(xid)) {
                    let _ = writeln!(w.out, "  table_ids: {}", w.ids.tables[tid.index()]);
                }
                if k.is_action_selector() {
                    w.out.push_str("  with_selector: true\n");
                }
                let _ = writeln!(w.out, "  size: {}", crate::actprof::profile_size(x));
                if k.is_action_selector() {
                    // the size semantics are always given: sum of weights unless annotated
                    let s = &x.selector;
                    if s.max_group_size > 0 {
                        let _ = writeln!(w.out, "  max_group_size: {}", s.max_group_size);
                    }
                    match s.semantics {
                        SizeSemantics::SumOfWeights => w.out.push_str("  sum_of_weights {\n  }\n"),
                        SizeSemantics::SumOfMembers if s.max_member_weight > 0 => {
                            let _ = writeln!(
                                w.out,
                                "  sum_of_members {{\n    max_member_weight: {}\n  }}",
                                s.max_member_weight
                            );
                        }
                        SizeSemantics::SumOfMembers => w.out.push_str("  sum_of_members {\n  }\n"),
                    }
                    // unset (false) unless annotated, and always on a profile without selector
                    if s.weights_disallowed {
                        w.out.push_str("  weights_disallowed: true\n");
                    }
                }
                w.out.push_str("}\n");
            }
            ExternKind::V1Register | ExternKind::PnaRegister => {
                w.out.push_str("registers {\n");
                w.preamble(id, &x.fq_name, &x.annotations);
                let spec = match x.type_args.first() {
                    Some(t) => w.type_spec(*t, "    "),
                    None => String::new(),
                };
                let _ = writeln!(w.out, "  type_spec {{\n{spec}  }}\n  size: {size}\n}}");
            }
            _ => {}
        }
    }

    // digests
    for (t, name, id) in w.ids.digests.clone() {
        w.out.push_str("digests {\n");
        w.preamble(id, &name, &[]);
        let spec = w.type_spec(t, "    ");
        let _ = writeln!(w.out, "  type_spec {{\n{spec}  }}\n}}");
    }

    // PNA Digest instances
    for (xid, x) in p.externs.iter() {
        if x.kind != ExternKind::PnaDigest {
            continue;
        }
        w.out.push_str("digests {\n");
        let id = w.ids.externs[xid.index()];
        w.preamble(id, &x.fq_name, &x.annotations);
        let spec = match x.type_args.first() {
            Some(t) => w.type_spec(*t, "    "),
            None => String::new(),
        };
        let _ = writeln!(w.out, "  type_spec {{\n{spec}  }}\n}}");
    }

    // packet I/O: the headers the controller port exchanges with the controller
    for (t, name, id) in w.ids.controller_headers.clone() {
        let Type::Header(h) = p.types.get(t) else { continue };
        w.out.push_str("controller_packet_metadata {\n");
        let _ = writeln!(
            w.out,
            "  preamble {{\n    id: {id}\n    name: {}\n    alias: {}\n    annotations: {}\n  }}",
            q(&name),
            q(&name),
            q(&format!("@controller_header(\"{name}\")"))
        );
        for (i, f) in h.fields.iter().enumerate() {
            let _ = writeln!(
                w.out,
                "  metadata {{\n    id: {}\n    name: {}\n    bitwidth: {}\n  }}",
                i + 1,
                q(&f.name),
                w.width(f.ty)
            );
        }
        w.out.push_str("}\n");
    }

    // value sets
    for (vid, v) in p.value_sets.iter() {
        w.out.push_str("value_sets {\n");
        let id = w.ids.value_sets[vid.index()];
        w.preamble(id, &v.fq_name, &v.annotations);
        for (i, f) in v.fields.iter().enumerate() {
            let kind = match f.kind {
                VsetMatch::Exact => "EXACT",
                VsetMatch::Ternary => "TERNARY",
                VsetMatch::Lpm => "LPM",
                VsetMatch::Optional => "OPTIONAL",
            };
            let _ = writeln!(
                w.out,
                "  match {{\n    id: {}\n    name: {}\n    bitwidth: {}\n    match_type: {kind}\n  }}",
                i + 1,
                q(&f.name),
                w.width(f.ty)
            );
        }
        let _ = writeln!(w.out, "  size: {}\n}}", v.size);
    }

    // type_info for the named structs/headers used in type specs
    if !w.structs.is_empty() {
        let mut done = HashSet::new();
        let mut body = String::new();
        while let Some((name, t)) = w
            .structs
            .iter()
            .find(|(n, _)| !done.contains(*n))
            .map(|(n, t)| (n.clone(), *t))
        {
            done.insert(name.clone());
            let (kind, fields) = match p.types.get(t) {
                Type::Header(s) => ("headers", s.fields.clone()),
                Type::Struct(s) => ("structs", s.fields.clone()),
                _ => continue,
            };
            let _ = writeln!(body, "  {kind} {{\n    key: {}\n    value {{", q(&name));
            for f in fields {
                let spec = w.type_spec(f.ty, "          ");
                let _ = writeln!(
                    body,
                    "      members {{\n        name: {}\n        type_spec {{\n{spec}        }}\n      }}",
                    q(&f.name)
                );
            }
            body.push_str("    }\n  }\n");
        }
        let _ = writeln!(w.out, "type_info {{\n{body}}}");
    }
    w.out
}

#[cfg(test)]
mod tests {
    use super::aliases;

    #[test]
    fn shortest_unique_suffix() {
        let names: Vec<String> = ["ingress.t", "egress.t", "ingress.u", "NoAction"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let a = aliases(&names);
        assert_eq!(a["ingress.t"], "ingress.t");
        assert_eq!(a["egress.t"], "egress.t");
        assert_eq!(a["ingress.u"], "u");
        assert_eq!(a["NoAction"], "NoAction");
    }
}
