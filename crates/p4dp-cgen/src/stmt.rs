//! Statements, calls with copy-in/copy-out, header/stack builtins, and the functions of
//! controls, actions and P4 functions.

use std::fmt::Write as _;

use p4dp_ir::*;

use crate::ctype::{mask_lit, opty, storage};
use crate::{unsupported, unsupported_as, Gen, Owner, UnsupportedKind, R};

/// Indentation.
pub fn ind(n: usize) -> String {
    "\t".repeat(n)
}

impl Gen<'_> {
    /// Conditions under which a write through lvalue `e` takes effect (in-range stack indices).
    pub fn lvalue_guards(&mut self, e: &Expr, out: &mut Vec<String>) -> R<()> {
        match &e.kind {
            ExprKind::Field(b, _) | ExprKind::StackNextIndex(b) | ExprKind::Slice(b, _, _) => {
                self.lvalue_guards(b, out)
            }
            ExprKind::StackElem(b, i) => {
                self.lvalue_guards(b, out)?;
                if let Type::Stack { size, .. } = self.p.types.get(b.ty) {
                    let size = *size;
                    if let (_, Some(g)) = self.stack_index(i, size)? {
                        out.push(g);
                    }
                }
                Ok(())
            }
            ExprKind::Var(_) => Ok(()),
            _ => unsupported(e.span, "not an lvalue"),
        }
    }

    /// A C statement storing the C value `src` into lvalue `dst` (guarded writes to stacks;
    /// slices update only their bits).
    pub fn store(&mut self, dst: &Expr, src: &str, level: usize) -> R<String> {
        let mut guards = Vec::new();
        self.lvalue_guards(dst, &mut guards)?;
        // flatten nested slices
        let (mut base, mut lo, mut width) = (dst, 0u32, None::<u32>);
        while let ExprKind::Slice(b, h, l) = &base.kind {
            lo += *l;
            if width.is_none() {
                width = Some(*h - *l + 1);
            }
            base = b;
        }
        let body = match width {
            None => format!("{} = {};", self.expr(dst)?, src),
            Some(sw) => {
                let bs = match self.scalar(base.ty) {
                    Some(s) => s,
                    None => return unsupported_as(UnsupportedKind::Type, dst.span, "slice of a non-scalar"),
                };
                let lv = self.expr(base)?;
                if bs.w <= 128 {
                    let ot = opty(bs.w);
                    format!(
                        "{lv} = ({})((({ot})({lv}) & ~(({ot}){} << {lo})) | ((({ot})({src}) & ({ot}){}) << {lo}));",
                        storage(bs.w),
                        mask_lit(sw),
                        mask_lit(sw)
                    )
                } else {
                    let off = bs.w.div_ceil(8) * 8 - lo - sw;
                    if sw <= 64 {
                        format!("p4dp_bits_set64(({lv}).b, {off}u, {sw}, (uint64_t)({src}));")
                    } else if sw <= 128 {
                        format!("p4dp_bits_set128(({lv}).b, {off}u, {sw}, (p4dp_u128)({src}));")
                    } else {
                        let ct = self.wide_type(sw);
                        let pad = sw.div_ceil(8) * 8 - sw;
                        format!("{{ {ct} _w = ({src}); p4dp_bits_copy(({lv}).b, {off}u, _w.b, {pad}u, {sw}u); }}")
                    }
                }
            }
        };
        Ok(if guards.is_empty() {
            format!("{}{}\n", ind(level), body)
        } else {
            format!(
                "{}if ({})\n{}{}\n",
                ind(level),
                guards.join(" && "),
                ind(level + 1),
                body
            )
        })
    }

    pub fn block(&mut self, b: &Block, level: usize, out: &mut String) -> R<()> {
        for s in b {
            let r = self.stmt(s, level, out);
            self.skip(r)?;
        }
        Ok(())
    }

    fn in_parser(&self) -> bool {
        matches!(self.owner, Owner::Parser(_))
    }

    /// After a call that may `exit`: propagate (controls/actions), or ignore (parsers/functions).
    fn rc_check(&self, level: usize) -> String {
        match self.owner {
            Owner::Control(_) => format!("{}if (_rc)\n{}return _rc;\n", ind(level), ind(level + 1)),
            _ => format!("{}(void)_rc;\n", ind(level)),
        }
    }

    pub fn stmt(&mut self, s: &Stmt, level: usize, out: &mut String) -> R<()> {
        let i = ind(level);
        match s {
            Stmt::Assign { dst, src, .. } => {
                let v = self.expr(src)?;
                let st = self.store(dst, &v, level)?;
                out.push_str(&st);
            }
            Stmt::If { cond, then_, else_, .. } => {
                let c = self.expr(cond)?;
                let _ = writeln!(out, "{i}if ({c}) {{");
                self.block(then_, level + 1, out)?;
                if else_.is_empty() {
                    let _ = writeln!(out, "{i}}}");
                } else {
                    let _ = writeln!(out, "{i}}} else {{");
                    self.block(else_, level + 1, out)?;
                    let _ = writeln!(out, "{i}}}");
                }
            }
            Stmt::Switch {
                expr,
                cases,
                default,
                span,
            } => {
                if !self.is_cint(expr.ty) {
                    return unsupported_as(
                        UnsupportedKind::WideValue,
                        *span,
                        "switch on a value wider than 128 bits",
                    );
                }
                let ct = self.ctype(expr.ty, *span)?;
                let t = self.fresh_tmp();
                let x = self.expr(expr)?;
                let _ = writeln!(out, "{i}{{\n{i}\t{ct} {t} = {x};");
                let mut first = true;
                for c in cases {
                    let mut conds = Vec::new();
                    for v in &c.values {
                        conds.push(format!("{t} == {}", self.value(v, expr.ty, *span)?));
                    }
                    if conds.is_empty() {
                        continue;
                    }
                    let _ = writeln!(
                        out,
                        "{i}\t{}if ({}) {{",
                        if first { "" } else { "else " },
                        conds.join(" || ")
                    );
                    first = false;
                    self.block(&c.body, level + 2, out)?;
                    let _ = writeln!(out, "{i}\t}}");
                }
                if let Some(d) = default {
                    if first {
                        let _ = writeln!(out, "{i}\t(void){t};\n{i}\t{{");
                    } else {
                        let _ = writeln!(out, "{i}\telse {{");
                    }
                    self.block(d, level + 2, out)?;
                    let _ = writeln!(out, "{i}\t}}");
                } else if first {
                    let _ = writeln!(out, "{i}\t(void){t};");
                }
                let _ = writeln!(out, "{i}}}");
            }
            Stmt::Call(c) => self.call(c, level, out)?,
            Stmt::ApplyTable {
                table,
                hit,
                action_run,
                span,
            } => {
                if self.in_parser() {
                    return unsupported(*span, "table apply in a parser");
                }
                let f = self.tbl_fns[table.index()].clone();
                let _ = writeln!(
                    out,
                    "{i}{{\n{i}\tuint8_t _hit = 0;\n{i}\tuint32_t _run = 0;\n{i}\tint _rc = {f}(R, &_hit, &_run);"
                );
                if let Some(h) = hit {
                    let _ = writeln!(out, "{i}\t{} = _hit;", self.var_ref(self.owner, *h));
                } else {
                    let _ = writeln!(out, "{i}\t(void)_hit;");
                }
                if let Some(a) = action_run {
                    let vt = self.vars(self.owner)[*a].ty;
                    let ct = self.ctype(vt, *span)?;
                    let _ = writeln!(out, "{i}\t{} = ({ct})_run;", self.var_ref(self.owner, *a));
                } else {
                    let _ = writeln!(out, "{i}\t(void)_run;");
                }
                out.push_str(&self.rc_check(level + 1));
                let _ = writeln!(out, "{i}}}");
            }
            Stmt::Exit { span } => match self.owner {
                Owner::Control(_) => {
                    let _ = writeln!(out, "{i}return 1;");
                }
                _ => return unsupported(*span, "`exit` outside a control"),
            },
            Stmt::Return { value, span } => {
                match (value, self.owner) {
                    (Some(v), Owner::Function(f)) => {
                        let x = self.expr(v)?;
                        let fr = self.fn_frames[f.index()].field.clone();
                        let _ = writeln!(out, "{i}R->{fr}.ret = {x};");
                    }
                    (Some(_), _) => return unsupported(*span, "`return` with a value outside a function"),
                    (None, Owner::Parser(_)) => return unsupported(*span, "`return` in a parser"),
                    _ => {}
                }
                let _ = writeln!(out, "{i}return 0;");
            }
            Stmt::Verify { cond, error, span } => {
                let Some(rej) = self.reject_label.clone() else {
                    return unsupported(*span, "`verify` outside a parser");
                };
                let (c, e) = (self.expr(cond)?, self.expr(error)?);
                let _ = writeln!(out, "{i}if (!({c})) {{\n{i}\tR->perr = {e};\n{i}\tgoto {rej};\n{i}}}");
            }
            Stmt::Block(b) => {
                let _ = writeln!(out, "{i}{{");
                self.block(b, level + 1, out)?;
                let _ = writeln!(out, "{i}}}");
            }
            Stmt::Loop {
                pre,
                cond,
                body,
                update,
                ..
            } => {
                // `update` runs at the top of every iteration but the first, so that a P4
                // `continue` can be a C `continue` and still run it. No C loop or `switch` is
                // emitted around statements of the body (P4 `switch` becomes an if chain), so P4
                // `break`/`continue` are C `break`/`continue` of this `for`.
                if update.is_empty() {
                    let _ = writeln!(out, "{i}for (;;) {{");
                } else {
                    let first = self.fresh_tmp();
                    let _ = writeln!(out, "{i}for (uint8_t {first} = 1;; {first} = 0) {{");
                    let _ = writeln!(out, "{i}\tif (!{first}) {{");
                    self.block(update, level + 2, out)?;
                    let _ = writeln!(out, "{i}\t}}");
                }
                if let Some(d) = self.foreach_body.as_mut() {
                    *d += 1;
                }
                self.block(pre, level + 1, out)?;
                let c = self.expr(cond)?;
                let _ = writeln!(out, "{i}\tif (!({c}))\n{i}\t\tbreak;");
                let r = self.block(body, level + 1, out);
                if let Some(d) = self.foreach_body.as_mut() {
                    *d -= 1;
                }
                r?;
                let _ = writeln!(out, "{i}}}");
            }
            // Outside every `for` of a Foreach loop body they end the Foreach loop (rtc.rs).
            Stmt::Break { .. } if self.foreach_body == Some(0) => {
                let _ = writeln!(out, "{i}return {};", crate::rtc::FOREACH_BREAK);
            }
            Stmt::Continue { .. } if self.foreach_body == Some(0) => {
                let _ = writeln!(out, "{i}return {};", crate::rtc::FOREACH_CONTINUE);
            }
            Stmt::Break { .. } => {
                let _ = writeln!(out, "{i}break;");
            }
            Stmt::Continue { .. } => {
                let _ = writeln!(out, "{i}continue;");
            }
        }
        Ok(())
    }

    /// Copy-in of `args` into the parameter slots `slots` (C lvalues; None = no storage, e.g.
    /// packet_in), then `call` (a C expression returning int, stored in `_rc`), then copy-out.
    fn call_with_frame(
        &mut self,
        slots: &[(Option<String>, Direction)],
        args: &[Arg],
        call: &str,
        span: Span,
        level: usize,
        out: &mut String,
    ) -> R<()> {
        if slots.len() != args.len() {
            return unsupported(
                span,
                format!("call with {} arguments for {} parameters", args.len(), slots.len()),
            );
        }
        let i = ind(level);
        let _ = writeln!(out, "{i}{{");
        for ((slot, _), a) in slots.iter().zip(args) {
            let Some(slot) = slot else { continue };
            match a {
                Arg::In(e) | Arg::InOut(e) => {
                    let x = self.expr(e)?;
                    let _ = writeln!(out, "{i}\t{slot} = {x};");
                }
                Arg::Out(_) => {
                    let _ = writeln!(out, "{i}\tmemset(&{slot}, 0, sizeof {slot});");
                }
            }
        }
        let _ = writeln!(out, "{i}\tint _rc = {call};");
        for ((slot, _), a) in slots.iter().zip(args) {
            let Some(slot) = slot else { continue };
            if let Arg::Out(e) | Arg::InOut(e) = a {
                let st = self.store(e, slot, level + 1)?;
                out.push_str(&st);
            }
        }
        out.push_str(&self.rc_check(level + 1));
        let _ = writeln!(out, "{i}}}");
        Ok(())
    }

    /// Parameter slots of owner `o`'s parameters `params`.
    fn param_slots(&self, o: Owner, params: &[VarId]) -> Vec<(Option<String>, Direction)> {
        let vars = self.vars(o);
        params
            .iter()
            .map(|v| {
                let var = &vars[*v];
                let dir = match var.kind {
                    VarKind::Param(d) | VarKind::ActionParam(_, d) => d,
                    VarKind::Local => Direction::None,
                };
                if matches!(self.p.types.get(var.ty), Type::Extern { .. }) {
                    (None, dir)
                } else {
                    (Some(self.var_ref(o, *v)), dir)
                }
            })
            .collect()
    }

    pub fn call(&mut self, c: &Call, level: usize, out: &mut String) -> R<()> {
        let p = self.p;
        let i = ind(level);
        match &c.target {
            CallTarget::Action(a) => {
                let act = &p.actions[*a];
                if Owner::Control(act.owner) != self.owner {
                    return unsupported(c.span, "call of an action of another control");
                }
                let slots = self.param_slots(self.owner, &act.params);
                let f = format!("{}(R)", self.act_fns[a.index()]);
                self.call_with_frame(&slots, &c.args, &f, c.span, level, out)?;
            }
            CallTarget::Function(fid) => {
                let o = Owner::Function(*fid);
                let fr = self.fn_frames[fid.index()].clone();
                let slots = self.param_slots(o, &p.functions[*fid].params);
                let _ = writeln!(out, "{i}R->{0} = (struct {1}){{}};", fr.field, fr.ty);
                let call = format!("{}(R)", fr.func);
                // the return value is read inside the block, after copy-out
                let mut inner = String::new();
                self.call_with_frame(&slots, &c.args, &call, c.span, level, &mut inner)?;
                if let Some(r) = &c.ret {
                    let st = self.store(r, &format!("R->{}.ret", fr.field), level)?;
                    inner.push_str(&st);
                }
                out.push_str(&inner);
            }
            CallTarget::Control(cid) => {
                let o = Owner::Control(*cid);
                let fr = self.ctl_frames[cid.index()].clone();
                let slots = self.param_slots(o, &p.controls[*cid].params);
                let _ = writeln!(out, "{i}R->{0} = (struct {1}){{}};", fr.field, fr.ty);
                self.call_with_frame(&slots, &c.args, &format!("{}(R)", fr.func), c.span, level, out)?;
            }
            CallTarget::Parser(pid) => {
                let Some(rej) = self.reject_label.clone() else {
                    return unsupported(c.span, "sub-parser call outside a parser");
                };
                let o = Owner::Parser(*pid);
                let fr = self.parser_frames[pid.index()].clone();
                let slots = self.param_slots(o, &p.parsers[*pid].params);
                let _ = writeln!(out, "{i}R->{0} = (struct {1}){{}};", fr.field, fr.ty);
                // reject in the sub-parser rejects the caller too (after copy-out)
                let mut inner = String::new();
                self.call_with_frame(&slots, &c.args, &format!("{}(R)", fr.func), c.span, level, &mut inner)?;
                let inner = inner.replace("(void)_rc;", &format!("if (_rc)\n{i}\t\tgoto {rej};"));
                out.push_str(&inner);
            }
            CallTarget::SetValid | CallTarget::SetInvalid => {
                let Some(Arg::InOut(h) | Arg::Out(h)) = c.args.first() else {
                    return unsupported(c.span, "setValid/setInvalid without a header argument");
                };
                let valid = matches!(c.target, CallTarget::SetValid);
                let mut guards = Vec::new();
                self.lvalue_guards(h, &mut guards)?;
                let lv = self.expr(h)?;
                let mut body = format!("({lv}).valid = {};", u8::from(valid));
                // setValid on a union member invalidates the other members
                if let (true, ExprKind::Field(u, idx)) = (valid, &h.kind) {
                    if matches!(p.types.get(u.ty), Type::HeaderUnion(_)) {
                        let ul = self.expr(u)?;
                        for (k, (f, _)) in self.fields(u.ty).iter().enumerate() {
                            if k as u32 != *idx {
                                body.push_str(&format!(" ({ul}).{f}.valid = 0;"));
                            }
                        }
                    }
                }
                if !matches!(p.types.get(h.ty), Type::Header(_)) {
                    return unsupported(c.span, "setValid/setInvalid on a non-header");
                }
                if guards.is_empty() {
                    let _ = writeln!(out, "{i}{body}");
                } else {
                    let _ = writeln!(out, "{i}if ({}) {{ {body} }}", guards.join(" && "));
                }
            }
            CallTarget::PushFront(n) | CallTarget::PopFront(n) => {
                let Some(Arg::InOut(s)) = c.args.first() else {
                    return unsupported(c.span, "push_front/pop_front without a stack argument");
                };
                let (elem, size) = match p.types.get(s.ty) {
                    Type::Stack { elem, size } => (*elem, *size),
                    _ => return unsupported(c.span, "push_front/pop_front on a non-stack"),
                };
                let lv = self.expr(s)?;
                let inv = self.invalidate_code(&format!("({lv}).e[_k]"), elem);
                let n = *n;
                if matches!(c.target, CallTarget::PushFront(_)) {
                    let _ = writeln!(
                        out,
                        "{i}for (int32_t _k = {last}; _k >= 0; _k--) {{\n{i}\tif ((uint32_t)_k >= {n}u)\n{i}\t\t({lv}).e[_k] = ({lv}).e[_k - {n}];\n{i}\telse {{ {inv} }}\n{i}}}\n{i}({lv}).next_index = ({lv}).next_index + {n}u > {size}u ? {size}u : ({lv}).next_index + {n}u;",
                        last = size as i64 - 1
                    );
                } else {
                    let _ = writeln!(
                        out,
                        "{i}for (uint32_t _k = 0; _k < {size}u; _k++) {{\n{i}\tif (_k + {n}u < {size}u)\n{i}\t\t({lv}).e[_k] = ({lv}).e[_k + {n}u];\n{i}\telse {{ {inv} }}\n{i}}}\n{i}({lv}).next_index = ({lv}).next_index >= {n}u ? ({lv}).next_index - {n}u : 0;"
                    );
                }
            }
            CallTarget::ExternMethod { .. } | CallTarget::ExternFunction(_) => self.extern_call(c, level, out)?,
        }
        Ok(())
    }

    /// C statements making the header/union `lv` of type `t` invalid.
    pub fn invalidate_code(&self, lv: &str, t: TypeId) -> String {
        match self.p.types.get(t) {
            Type::Header(_) => format!("{lv}.valid = 0;"),
            Type::HeaderUnion(_) => self
                .fields(t)
                .iter()
                .map(|(f, _)| format!("{lv}.{f}.valid = 0;"))
                .collect::<Vec<_>>()
                .join(" "),
            _ => String::new(),
        }
    }

    /// Emit a control's apply function and its actions.
    pub fn emit_control(&mut self, cid: ControlId) -> R<()> {
        let p = self.p;
        self.owner = Owner::Control(cid);
        self.reject_label = None;
        let fr = self.ctl_frames[cid.index()].clone();
        let c = &p.controls[cid];
        let inl = self.inline_block(Owner::Control(cid));
        let _ = writeln!(self.protos, "static {inl}int {}(struct gst *R);", fr.func);
        let mut body = String::new();
        self.block(&c.body, 1, &mut body)?;
        let _ = writeln!(
            self.funcs,
            "/* control {} ({}) */\nstatic {inl}int {}(struct gst *R)\n{{\n\t(void)R;\n{body}\treturn 0;\n}}\n",
            c.path, c.type_name, fr.func
        );
        for (aid, a) in p.actions.iter() {
            if a.owner != cid {
                continue;
            }
            let name = self.act_fns[aid.index()].clone();
            // An action no table lists and no code calls is still emitted; `unused` keeps
            // -Werror=unused-function quiet about it.
            let _ = writeln!(
                self.protos,
                "__attribute__((unused)) static inline __attribute__((always_inline)) int {name}(struct gst *R);"
            );
            let mut body = String::new();
            self.foreach_body = a.loop_body.then_some(0);
            self.in_action = true;
            let r = self.block(&a.body, 1, &mut body);
            self.in_action = false;
            self.foreach_body = None;
            r?;
            let _ = writeln!(
                self.funcs,
                "/* action {} */\n__attribute__((unused)) static inline __attribute__((always_inline)) int {name}(struct gst *R)\n{{\n\t(void)R;\n{body}\treturn 0;\n}}\n",
                a.fq_name
            );
        }
        Ok(())
    }

    pub fn emit_function(&mut self, fid: FunctionId) -> R<()> {
        let p = self.p;
        self.owner = Owner::Function(fid);
        self.reject_label = None;
        let fr = self.fn_frames[fid.index()].clone();
        let f = &p.functions[fid];
        let _ = writeln!(self.protos, "static int {}(struct gst *R);", fr.func);
        let mut body = String::new();
        self.block(&f.body, 1, &mut body)?;
        let _ = writeln!(
            self.funcs,
            "/* function {} */\n__attribute__((unused)) static int {}(struct gst *R)\n{{\n\t(void)R;\n{body}\treturn 0;\n}}\n",
            f.name, fr.func
        );
        Ok(())
    }
}
