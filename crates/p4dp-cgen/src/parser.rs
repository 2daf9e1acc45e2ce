//! Parsers: one C function per parser instance, a `goto` state machine over the input bytes
//! with a bit cursor (`R->cur`). Returns 0 on accept, 1 on reject (error code in `R->perr`).
//! In a parser whose state graph has a cycle, every state entry counts against
//! `CgenOptions::parser_step_limit` (then ParserTimeout); an acyclic parser does not count (perf:
//! it runs each state at most once per call, so any endless run goes round a counted cycle).

use std::fmt::Write as _;

use p4dp_ir::*;

use crate::namer::sanitize;
use crate::{unsupported, unsupported_as, Gen, Owner, UnsupportedKind, R};

impl Gen<'_> {
    fn state_label(&self, p: &Parser, t: Target) -> String {
        match t {
            Target::Accept => "p_accept".into(),
            Target::Reject => "p_reject".into(),
            Target::State(s) => format!("s{}_{}", s.index(), sanitize(&p.states[s].name)),
        }
    }

    fn keyset_cond(&mut self, k: &str, kt: TypeId, ks: &KeySet, span: Span) -> R<String> {
        let signed = self.scalar(kt).is_some_and(|s| s.signed);
        let w = self.scalar(kt).map(|s| s.w).unwrap_or(32);
        Ok(match ks {
            KeySet::Any => "1".into(),
            KeySet::Value(v) => {
                let c = self.value(v, kt, span)?;
                self.eq_expr(k, &c, kt, span)?
            }
            KeySet::Mask(v, m) => {
                if !self.is_cint(kt) {
                    return unsupported_as(
                        UnsupportedKind::WideValue,
                        span,
                        "masked select on a value wider than 128 bits",
                    );
                }
                let (v, m) = (self.value(v, kt, span)?, self.value(m, kt, span)?);
                format!("((({k}) & ({m})) == (({v}) & ({m})))")
            }
            KeySet::Range(lo_v, hi_v) => {
                if !self.is_cint(kt) {
                    return unsupported_as(
                        UnsupportedKind::WideValue,
                        span,
                        "range select on a value wider than 128 bits",
                    );
                }
                let (lo, hi) = (self.value(lo_v, kt, span)?, self.value(hi_v, kt, span)?);
                if signed {
                    let f = if w > 64 { "p4dp_sext128" } else { "p4dp_sext64" };
                    format!("({f}({k}, {w}) >= {f}({lo}, {w}) && {f}({k}, {w}) <= {f}({hi}, {w}))")
                } else {
                    let lo_e = Expr {
                        kind: ExprKind::Const(lo_v.clone()),
                        ty: kt,
                        span,
                    };
                    let hi_e = Expr {
                        kind: ExprKind::Const(hi_v.clone()),
                        ty: kt,
                        span,
                    };
                    let mut c = Vec::new();
                    if crate::expr::trivial_unsigned_cmp(BinOp::Ge, &lo_e, w).is_none() {
                        c.push(format!("({k}) >= ({lo})"));
                    }
                    if crate::expr::trivial_unsigned_cmp(BinOp::Le, &hi_e, w).is_none() {
                        c.push(format!("({k}) <= ({hi})"));
                    }
                    if c.is_empty() {
                        "1".to_string()
                    } else {
                        format!("({})", c.join(" && "))
                    }
                }
            }
            KeySet::ValueSet(vs) => self.value_set_cond(*vs, &[(k.to_string(), kt)], span)?,
        })
    }

    /// The match of keys `keys` (names and types, one per member field) against value set `vs`.
    fn value_set_cond(&mut self, vs: ValueSetId, keys: &[(String, TypeId)], span: Span) -> R<String> {
        if keys.len() != self.p.value_sets[vs].fields.len() {
            return unsupported(span, "value set case with a wrong number of keys");
        }
        let mut words = Vec::new();
        for (k, kt) in keys {
            let w = self.scalar(*kt).map(|s| s.w).unwrap_or(32);
            if w > 64 {
                return unsupported_as(
                    UnsupportedKind::WideValue,
                    span,
                    "value_set over a value wider than 64 bits",
                );
            }
            // the runtime's members are unsigned bit patterns of each key's width
            let m = if w >= 64 { u64::MAX } else { (1u64 << w) - 1 };
            words.push(format!("(uint64_t)({k}) & UINT64_C({m:#x})"));
        }
        Ok(format!(
            "p4dp_value_set_match(R->ctx, {}u, (const uint64_t[]){{ {} }})",
            vs.index(),
            words.join(", ")
        ))
    }

    pub fn emit_parser(&mut self, pid: ParserId) -> R<()> {
        let p = self.p;
        let pr = &p.parsers[pid];
        self.owner = Owner::Parser(pid);
        self.reject_label = Some("p_reject".into());
        let fr = self.parser_frames[pid.index()].clone();
        let timeout = self.err_code("ParserTimeout", pr.span)?;
        let no_match = self.err_code("NoMatch", pr.span)?;
        let limit = self.opts.parser_step_limit;
        let inl = self.inline_block(Owner::Parser(pid));
        let _ = writeln!(self.protos, "static {inl}int {}(struct gst *R);", fr.func);
        // perf: only a parser whose state graph has a cycle counts transitions (ParserTimeout);
        // an acyclic one runs each state at most once per call, and any endless run must go
        // round some cycle, whose parser counts
        let cyclic = has_cycle(pr);
        let mut body = String::new();
        self.block(&pr.init, 1, &mut body)?;
        let _ = writeln!(body, "\tgoto {};", self.state_label(pr, Target::State(pr.start)));
        for (sid, st) in pr.states.iter() {
            let lab = self.state_label(pr, Target::State(sid));
            if cyclic {
                let _ = writeln!(body, "{lab}: __attribute__((unused));\n\tif (++R->steps > {limit}u) {{\n\t\tR->perr = {timeout};\n\t\tgoto p_reject;\n\t}}");
            } else {
                let _ = writeln!(body, "{lab}: __attribute__((unused));");
            }
            self.block(&st.body, 1, &mut body)?;
            match &st.transition {
                Transition::Goto(t) => {
                    let _ = writeln!(body, "\tgoto {};", self.state_label(pr, *t));
                }
                Transition::Select { keys, cases, span } => {
                    let _ = writeln!(body, "\t{{");
                    let mut names = Vec::new();
                    for k in keys {
                        let t = self.fresh_tmp();
                        let ct = self.ctype(k.ty, k.span)?;
                        let x = self.expr(k)?;
                        let _ = writeln!(body, "\t\t{ct} {t} = {x};\n\t\t(void){t};");
                        names.push((t, k.ty));
                    }
                    for c in cases {
                        if c.keysets.len() != names.len() {
                            return unsupported(*span, "select case with a wrong number of keysets");
                        }
                        let mut conds = Vec::new();
                        let mut i = 0;
                        while i < names.len() {
                            // a value set over a struct covers as many keys as it has fields
                            let n = match &c.keysets[i] {
                                KeySet::ValueSet(v) => p.value_sets[*v].fields.len(),
                                _ => 1,
                            };
                            let cnd = match &c.keysets[i] {
                                KeySet::ValueSet(v) => {
                                    self.value_set_cond(*v, &names[i..(i + n).min(names.len())], *span)?
                                }
                                ks => self.keyset_cond(&names[i].0, names[i].1, ks, *span)?,
                            };
                            if cnd != "1" {
                                conds.push(cnd);
                            }
                            i += n.max(1);
                        }
                        let cond = if conds.is_empty() {
                            "1".to_string()
                        } else {
                            conds.join(" && ")
                        };
                        let _ = writeln!(body, "\t\tif ({cond})\n\t\t\tgoto {};", self.state_label(pr, c.next));
                    }
                    let _ = writeln!(body, "\t\tR->perr = {no_match};\n\t\tgoto p_reject;\n\t}}");
                }
            }
        }
        let _ = writeln!(self.funcs, "/* parser {} ({}) */\nstatic {inl}int {}(struct gst *R)\n{{\n\t(void)R;\n{body}p_accept: __attribute__((unused));\n\treturn 0;\np_reject: __attribute__((unused));\n\treturn 1;\n}}\n", pr.path, pr.type_name, fr.func);
        self.reject_label = None;
        Ok(())
    }
}

impl Gen<'_> {
    /// The program's value sets for `struct p4dp_program` (indexed by `ValueSetId`, as
    /// `p4dp_value_set_match` names them): the array's declaration and the initializer's lines.
    pub fn value_set_md(&self) -> (String, String) {
        let p = self.p;
        if p.value_sets.is_empty() {
            return (String::new(), String::new());
        }
        let mut decl = String::new();
        let mut rows = Vec::new();
        for (vid, v) in p.value_sets.iter() {
            let ws: Vec<String> = v
                .fields
                .iter()
                .map(|f| format!("{}u", self.scalar(f.ty).map(|s| s.w).unwrap_or(0)))
                .collect();
            let _ = writeln!(
                decl,
                "static const uint32_t md_vset_widths_{}[] = {{ {} }};",
                vid.index(),
                ws.join(", ")
            );
            rows.push(format!(
                "	{{ {}, {}u, {}u, {}u, md_vset_widths_{} }},",
                crate::ctype::c_string(&v.fq_name),
                self.ids.value_sets[vid.index()],
                v.size,
                ws.len(),
                vid.index()
            ));
        }
        let _ = writeln!(
            decl,
            "static const struct p4dp_value_set_info md_value_sets[] = {{\n{}\n}};",
            rows.join("\n")
        );
        (
            decl,
            format!("\t.n_value_sets = {}u,\n\t.value_sets = md_value_sets,\n", rows.len()),
        )
    }
}

/// Whether the state graph of `pr` has a cycle (a state reachable from itself).
fn has_cycle(pr: &Parser) -> bool {
    let n = pr.states.len();
    let next = |sid: StateId| -> Vec<usize> {
        let ts: Vec<Target> = match &pr.states[sid].transition {
            Transition::Goto(t) => vec![*t],
            Transition::Select { cases, .. } => cases.iter().map(|c| c.next).collect(),
        };
        ts.into_iter()
            .filter_map(|t| {
                if let Target::State(s) = t {
                    Some(s.index())
                } else {
                    None
                }
            })
            .collect()
    };
    let ids: Vec<StateId> = pr.states.ids().collect();
    // 0 unvisited, 1 on the DFS stack, 2 done
    let mut mark = vec![0u8; n];
    for start in 0..n {
        if mark[start] != 0 {
            continue;
        }
        let mut stack: Vec<(usize, Vec<usize>)> = vec![(start, next(ids[start]))];
        mark[start] = 1;
        while let Some((v, succ)) = stack.last_mut() {
            match succ.pop() {
                Some(w) if w < n && mark[w] == 1 => return true,
                Some(w) if w < n && mark[w] == 0 => {
                    mark[w] = 1;
                    let s = next(ids[w]);
                    stack.push((w, s));
                }
                Some(_) => {}
                None => {
                    mark[*v] = 2;
                    stack.pop();
                }
            }
        }
    }
    false
}
