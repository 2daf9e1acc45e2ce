//! A human-readable dump of a [`Program`] (`p4dp build --show-ir`).
//!
//! The format is P4-like but shows what the IR holds: variables as `name#index`, temporaries,
//! hoisted calls, call targets with argument directions, elaborated instances with their
//! control-plane names, table entries with priorities, and types by name.

use std::fmt::Write as _;

use crate::*;

/// Renders the whole program.
pub fn program(p: &Program) -> String {
    let mut pr = Printer {
        p,
        out: String::new(),
        vars: None,
        indent: 0,
    };
    pr.program();
    pr.out
}

/// Renders a type.
pub fn type_name(t: &TypeTable, id: TypeId) -> String {
    match t.get(id) {
        Type::Void => "void".into(),
        Type::Bool => "bool".into(),
        Type::Bit(w) => format!("bit<{w}>"),
        Type::Int(w) => format!("int<{w}>"),
        Type::Varbit(w) => format!("varbit<{w}>"),
        Type::Error => "error".into(),
        Type::String => "string".into(),
        Type::MatchKind => "match_kind".into(),
        Type::Enum { name, .. } | Type::SerEnum { name, .. } => name.clone(),
        Type::Header(s) | Type::HeaderUnion(s) | Type::Struct(s) => s.name.clone(),
        Type::Stack { elem, size } => format!("{}[{}]", type_name(t, *elem), size),
        Type::Tuple(ts) => format!(
            "tuple<{}>",
            ts.iter().map(|x| type_name(t, *x)).collect::<Vec<_>>().join(", ")
        ),
        Type::Extern { name, args } if args.is_empty() => name.clone(),
        Type::Extern { name, args } => format!(
            "{}<{}>",
            name,
            args.iter().map(|x| type_name(t, *x)).collect::<Vec<_>>().join(", ")
        ),
    }
}

/// Renders a constant.
pub fn value(v: &Value) -> String {
    match v {
        Value::Bool(b) => b.to_string(),
        Value::Bits { width, signed, bits } => {
            if *width > 8 {
                format!("{}{}0x{:x}", width, if *signed { "s" } else { "w" }, bits)
            } else {
                format!("{}{}{}", width, if *signed { "s" } else { "w" }, bits)
            }
        }
        Value::Error(e) => format!("error#{e}"),
        Value::Enum(e) => format!("enum#{e}"),
        Value::String(s) => format!("{s:?}"),
        Value::Aggregate { valid, fields } => {
            let inner = fields.iter().map(value).collect::<Vec<_>>().join(", ");
            match valid {
                Some(false) => format!("{{#invalid: {inner}}}"),
                _ => format!("{{{inner}}}"),
            }
        }
    }
}

fn binop(op: BinOp) -> &'static str {
    op.symbol()
}

struct Printer<'a> {
    p: &'a Program,
    out: String,
    vars: Option<&'a Arena<Var>>,
    indent: usize,
}

impl<'a> Printer<'a> {
    fn line(&mut self, s: &str) {
        for _ in 0..self.indent {
            self.out.push_str("    ");
        }
        self.out.push_str(s);
        self.out.push('\n');
    }

    fn ty(&self, t: TypeId) -> String {
        if t.index() >= self.p.types.len() {
            return format!("<bad type {t:?}>");
        }
        type_name(&self.p.types, t)
    }

    fn var(&self, v: VarId) -> String {
        match self.vars {
            Some(vs) if v.index() < vs.len() => format!("{}#{}", vs[v].name, v.index()),
            _ => format!("var#{}", v.index()),
        }
    }

    fn anns(a: &[Annotation]) -> String {
        let mut s = String::new();
        for x in a {
            s.push('@');
            s.push_str(&x.name);
            if !x.args.is_empty() {
                let args: Vec<String> = x.args.iter().map(Self::ann_arg).collect();
                let _ = write!(s, "({})", args.join(", "));
            }
            s.push(' ');
        }
        s
    }

    fn ann_arg(a: &AnnotationArg) -> String {
        match a {
            AnnotationArg::String(s) => format!("{s:?}"),
            AnnotationArg::Int(i) => i.to_string(),
            AnnotationArg::Kv(k, v) => format!("{k}={}", Self::ann_arg(v)),
            AnnotationArg::Raw(r) => r.clone(),
        }
    }

    fn expr(&self, e: &Expr) -> String {
        match &e.kind {
            ExprKind::Const(v) => value(v),
            ExprKind::Var(v) => self.var(*v),
            ExprKind::Field(b, i) => {
                let name = match self.p.types.get(b.ty) {
                    Type::Header(s) | Type::HeaderUnion(s) | Type::Struct(s) => s
                        .fields
                        .get(*i as usize)
                        .map(|f| f.name.clone())
                        .unwrap_or_else(|| format!("#{i}")),
                    _ => format!("#{i}"),
                };
                format!("{}.{}", self.expr(b), name)
            }
            ExprKind::StackElem(b, i) => format!("{}[{}]", self.expr(b), self.expr(i)),
            ExprKind::StackNextIndex(b) => format!("{}.nextIndex", self.expr(b)),
            ExprKind::Slice(b, h, l) => format!("{}[{h}:{l}]", self.expr(b)),
            ExprKind::Concat(a, b) => format!("({} ++ {})", self.expr(a), self.expr(b)),
            ExprKind::Cast(a) => format!("(({}) {})", self.ty(e.ty), self.expr(a)),
            ExprKind::Unary(op, a) => {
                let o = match op {
                    UnOp::Neg => "-",
                    UnOp::BitNot => "~",
                    UnOp::Not => "!",
                };
                format!("{o}{}", self.expr(a))
            }
            ExprKind::Binary(op, a, b) => format!("({} {} {})", self.expr(a), binop(*op), self.expr(b)),
            ExprKind::Mux(c, a, b) => format!("({} ? {} : {})", self.expr(c), self.expr(a), self.expr(b)),
            ExprKind::IsValid(a) => format!("{}.isValid()", self.expr(a)),
            ExprKind::List(es) => format!(
                "{{{}}}:{}",
                es.iter().map(|x| self.expr(x)).collect::<Vec<_>>().join(", "),
                self.ty(e.ty)
            ),
        }
    }

    fn arg(&self, a: &Arg) -> String {
        match a {
            Arg::In(e) => format!("in {}", self.expr(e)),
            Arg::Out(e) => format!("out {}", self.expr(e)),
            Arg::InOut(e) => format!("inout {}", self.expr(e)),
        }
    }

    fn name_of<T>(arena: &Arena<T>, id: Id<T>, f: impl Fn(&T) -> String) -> String {
        if id.index() < arena.len() {
            f(&arena[id])
        } else {
            format!("<bad id {id:?}>")
        }
    }

    fn call(&self, c: &Call) -> String {
        let target = match &c.target {
            CallTarget::Action(a) => format!("action {}", Self::name_of(&self.p.actions, *a, |x| x.fq_name.clone())),
            CallTarget::Function(f) => format!("function {}", Self::name_of(&self.p.functions, *f, |x| x.name.clone())),
            CallTarget::Control(x) => format!(
                "control {}.apply",
                Self::name_of(&self.p.controls, *x, |x| x.path.clone())
            ),
            CallTarget::Parser(x) => format!(
                "parser {}.apply",
                Self::name_of(&self.p.parsers, *x, |x| x.path.clone())
            ),
            CallTarget::ExternMethod {
                obj: ExternRef::Instance(x),
                method,
            } => {
                format!("{}.{method}", Self::name_of(&self.p.externs, *x, |x| x.fq_name.clone()))
            }
            CallTarget::ExternMethod {
                obj: ExternRef::Param(v),
                method,
            } => format!("{}.{method}", self.var(*v)),
            CallTarget::ExternFunction(n) => format!("extern {n}"),
            CallTarget::SetValid => "setValid".into(),
            CallTarget::SetInvalid => "setInvalid".into(),
            CallTarget::PushFront(n) => format!("push_front({n})"),
            CallTarget::PopFront(n) => format!("pop_front({n})"),
        };
        let targs = if c.type_args.is_empty() {
            String::new()
        } else {
            format!(
                "<{}>",
                c.type_args.iter().map(|t| self.ty(*t)).collect::<Vec<_>>().join(", ")
            )
        };
        let args = c.args.iter().map(|a| self.arg(a)).collect::<Vec<_>>().join(", ");
        match &c.ret {
            Some(r) => format!("{} = call {target}{targs}({args});", self.expr(r)),
            None => format!("call {target}{targs}({args});"),
        }
    }

    fn block(&mut self, b: &[Stmt]) {
        self.indent += 1;
        for s in b {
            self.stmt(s);
        }
        self.indent -= 1;
    }

    fn stmt(&mut self, s: &Stmt) {
        match s {
            Stmt::Assign { dst, src, .. } => {
                let l = format!("{} = {};", self.expr(dst), self.expr(src));
                self.line(&l);
            }
            Stmt::If { cond, then_, else_, .. } => {
                let l = format!("if ({}) {{", self.expr(cond));
                self.line(&l);
                self.block(then_);
                if !else_.is_empty() {
                    self.line("} else {");
                    self.block(else_);
                }
                self.line("}");
            }
            Stmt::Switch {
                expr, cases, default, ..
            } => {
                let l = format!("switch ({}) {{", self.expr(expr));
                self.line(&l);
                for c in cases {
                    let vals = c.values.iter().map(value).collect::<Vec<_>>().join(", ");
                    self.line(&format!("  case {vals}:"));
                    self.block(&c.body);
                }
                if let Some(d) = default {
                    self.line("  default:");
                    self.block(d);
                }
                self.line("}");
            }
            Stmt::Call(c) => {
                let l = self.call(c);
                self.line(&l);
            }
            Stmt::ApplyTable {
                table, hit, action_run, ..
            } => {
                let t = Self::name_of(&self.p.tables, *table, |x| x.fq_name.clone());
                let mut l = format!("apply table {t}");
                if let Some(h) = hit {
                    let _ = write!(l, " hit -> {}", self.var(*h));
                }
                if let Some(r) = action_run {
                    let _ = write!(l, " action_run -> {}", self.var(*r));
                }
                l.push(';');
                self.line(&l);
            }
            Stmt::Exit { .. } => self.line("exit;"),
            Stmt::Return { value: Some(v), .. } => {
                let l = format!("return {};", self.expr(v));
                self.line(&l);
            }
            Stmt::Return { value: None, .. } => self.line("return;"),
            Stmt::Verify { cond, error, .. } => {
                let l = format!("verify({}, {});", self.expr(cond), self.expr(error));
                self.line(&l);
            }
            Stmt::Block(b) => {
                self.line("{");
                self.block(b);
                self.line("}");
            }
            Stmt::Loop {
                pre,
                cond,
                body,
                update,
                ..
            } => {
                self.line("loop {");
                self.block(pre);
                let l = format!("  if (!{}) break;", self.expr(cond));
                self.line(&l);
                self.block(body);
                self.line("} update {");
                self.block(update);
                self.line("}");
            }
            Stmt::Break { .. } => self.line("break;"),
            Stmt::Continue { .. } => self.line("continue;"),
        }
    }

    fn vars(&mut self, vars: &'a Arena<Var>) {
        for (id, v) in vars.iter() {
            let kind = match v.kind {
                VarKind::Param(d) => format!("param {d:?}"),
                VarKind::Local => "local".into(),
                VarKind::ActionParam(a, d) => format!("action param of #{} {d:?}", a.index()),
            };
            let l = format!(
                "{}var {}#{}: {} ({kind})",
                Self::anns(&v.annotations),
                v.name,
                id.index(),
                self.ty(v.ty)
            );
            self.line(&l);
        }
    }

    fn keyset(k: &KeySet) -> String {
        match k {
            KeySet::Any => "_".into(),
            KeySet::Value(v) => value(v),
            KeySet::Mask(v, m) => format!("{} &&& {}", value(v), value(m)),
            KeySet::Range(a, b) => format!("{} .. {}", value(a), value(b)),
            KeySet::ValueSet(v) => format!("value_set#{}", v.index()),
        }
    }

    fn program(&mut self) {
        let p = self.p;
        if let Some(pkg) = &p.package {
            let blocks: Vec<String> = pkg
                .blocks
                .iter()
                .map(|(n, b)| match b {
                    BlockRef::Control(c) => {
                        format!("{n} = control {}", Self::name_of(&p.controls, *c, |x| x.path.clone()))
                    }
                    BlockRef::Parser(x) => {
                        format!("{n} = parser {}", Self::name_of(&p.parsers, *x, |x| x.path.clone()))
                    }
                })
                .collect();
            self.line(&format!(
                "package {} (arch {}): {}",
                pkg.type_name,
                pkg.arch,
                blocks.join(", ")
            ));
        } else {
            self.line("package: none");
        }
        self.line(&format!("errors: {}", p.errors.join(", ")));
        self.line(&format!("match_kinds: {}", p.match_kinds.join(", ")));
        for (id, t) in p.types.iter() {
            match t {
                Type::Header(s) | Type::HeaderUnion(s) | Type::Struct(s) => {
                    let kw = match t {
                        Type::Header(_) => "header",
                        Type::HeaderUnion(_) => "header_union",
                        _ => "struct",
                    };
                    let fields = s
                        .fields
                        .iter()
                        .map(|f| format!("{} {}", self.ty(f.ty), f.name))
                        .collect::<Vec<_>>()
                        .join("; ");
                    self.line(&format!("type#{} {kw} {} {{ {fields} }}", id.index(), s.name));
                }
                Type::SerEnum {
                    name,
                    underlying,
                    members,
                } => {
                    let m = members
                        .iter()
                        .map(|(n, v)| format!("{n} = {}", value(v)))
                        .collect::<Vec<_>>()
                        .join(", ");
                    self.line(&format!(
                        "type#{} enum {} {name} {{ {m} }}",
                        id.index(),
                        self.ty(*underlying)
                    ));
                }
                Type::Enum { name, members } => {
                    self.line(&format!("type#{} enum {name} {{ {} }}", id.index(), members.join(", ")))
                }
                _ => {}
            }
        }
        for (id, x) in p.externs.iter() {
            let targs = x.type_args.iter().map(|t| self.ty(*t)).collect::<Vec<_>>().join(", ");
            let args = x.ctor_args.iter().map(value).collect::<Vec<_>>().join(", ");
            self.line(&format!(
                "{}extern#{} {}<{targs}>({args}) {} [{}]",
                Self::anns(&x.annotations),
                id.index(),
                x.type_name,
                x.name,
                x.fq_name
            ));
        }
        for (id, f) in p.functions.iter() {
            self.vars = Some(&f.vars);
            let params = f.params.iter().map(|v| self.var(*v)).collect::<Vec<_>>().join(", ");
            self.line(&format!(
                "function#{} {} {}({params}) {{",
                id.index(),
                self.ty(f.ret),
                f.name
            ));
            self.indent += 1;
            self.vars(&f.vars);
            self.indent -= 1;
            self.block(&f.body);
            self.line("}");
        }
        for (id, pr) in p.parsers.iter() {
            self.vars = Some(&pr.vars);
            let params = pr.params.iter().map(|v| self.var(*v)).collect::<Vec<_>>().join(", ");
            self.line(&format!(
                "{}parser#{} {} [{}]({params}) {{",
                Self::anns(&pr.annotations),
                id.index(),
                pr.type_name,
                pr.path
            ));
            self.indent += 1;
            self.vars(&pr.vars);
            for vs in &pr.value_sets {
                let l = Self::name_of(&p.value_sets, *vs, |v| {
                    format!(
                        "value_set#{} <{}>({}) {} [{}]",
                        vs.index(),
                        self.ty(v.ty),
                        v.size,
                        v.name,
                        v.fq_name
                    )
                });
                self.line(&l);
            }
            for e in &pr.externs {
                self.line(&format!("uses extern#{}", e.index()));
            }
            if !pr.init.is_empty() {
                self.line("init {");
                self.block(&pr.init);
                self.line("}");
            }
            let start = if pr.start.index() < pr.states.len() {
                pr.states[pr.start].name.clone()
            } else {
                "<bad>".into()
            };
            self.line(&format!("start = {start}"));
            for (_, st) in pr.states.iter() {
                self.line(&format!("state {} {{", st.name));
                self.block(&st.body);
                let target = |t: &Target| match t {
                    Target::Accept => "accept".to_string(),
                    Target::Reject => "reject".to_string(),
                    Target::State(s) => Self::name_of(&pr.states, *s, |x| x.name.clone()),
                };
                self.indent += 1;
                match &st.transition {
                    Transition::Goto(t) => self.line(&format!("transition {};", target(t))),
                    Transition::Select { keys, cases, .. } => {
                        let ks = keys.iter().map(|k| self.expr(k)).collect::<Vec<_>>().join(", ");
                        self.line(&format!("transition select({ks}) {{"));
                        for c in cases {
                            let k = c.keysets.iter().map(Self::keyset).collect::<Vec<_>>().join(", ");
                            self.line(&format!("    ({k}): {};", target(&c.next)));
                        }
                        self.line("}");
                    }
                }
                self.indent -= 1;
                self.line("}");
            }
            self.indent -= 1;
            self.line("}");
        }
        for (id, c) in p.controls.iter() {
            self.vars = Some(&c.vars);
            let params = c.params.iter().map(|v| self.var(*v)).collect::<Vec<_>>().join(", ");
            self.line(&format!(
                "{}control#{} {} [{}]({params}) {{",
                Self::anns(&c.annotations),
                id.index(),
                c.type_name,
                c.path
            ));
            self.indent += 1;
            self.vars(&c.vars);
            for e in &c.externs {
                self.line(&format!("uses extern#{}", e.index()));
            }
            for a in &c.actions {
                if a.index() >= p.actions.len() {
                    continue;
                }
                let act = &p.actions[*a];
                let params = act.params.iter().map(|v| self.var(*v)).collect::<Vec<_>>().join(", ");
                self.line(&format!(
                    "{}action#{} {} [{}]({params}) {{",
                    Self::anns(&act.annotations),
                    a.index(),
                    act.name,
                    act.fq_name
                ));
                self.block(&act.body);
                self.line("}");
            }
            for t in &c.tables {
                if t.index() >= p.tables.len() {
                    continue;
                }
                self.table(*t);
            }
            self.line("apply {");
            self.block(&c.body);
            self.line("}");
            self.indent -= 1;
            self.line("}");
        }
    }

    fn table(&mut self, t: TableId) {
        let p = self.p;
        let tb = &p.tables[t];
        let act = |a: ActionId| Self::name_of(&p.actions, a, |x| x.fq_name.clone());
        self.line(&format!(
            "{}table#{} {} [{}] {{",
            Self::anns(&tb.annotations),
            t.index(),
            tb.name,
            tb.fq_name
        ));
        self.indent += 1;
        for k in &tb.keys {
            let l = format!("key {} : {} [{}]", self.expr(&k.expr), k.match_kind, k.name);
            self.line(&l);
        }
        for a in &tb.actions {
            let bound = a
                .bound
                .iter()
                .map(|b| match b {
                    Some(x) => self.arg(x),
                    None => "_".into(),
                })
                .collect::<Vec<_>>()
                .join(", ");
            self.line(&format!(
                "{}action {}({bound})",
                Self::anns(&a.annotations),
                act(a.action)
            ));
        }
        let d = &tb.default_action;
        let data = d.data.iter().map(value).collect::<Vec<_>>().join(", ");
        self.line(&format!(
            "{}default_action = {}({data})",
            if d.is_const { "const " } else { "" },
            act(d.action)
        ));
        if let Some(s) = tb.size {
            self.line(&format!("size = {s}"));
        }
        for (n, x) in [
            ("counters", tb.direct_counter),
            ("meters", tb.direct_meter),
            ("implementation", tb.implementation),
        ] {
            if let Some(x) = x {
                self.line(&format!("{n} = extern#{}", x.index()));
            }
        }
        if tb.add_on_miss {
            self.line("add_on_miss = true");
        }
        if tb.idle_timeout.notify {
            self.line("idle_timeout = notify");
        }
        if tb.idle_timeout.auto_delete {
            self.line("idle_timeout = auto_delete");
        }
        for (n, v) in &tb.other_properties {
            self.line(&format!("{n} = {}", value(v)));
        }
        if !tb.entries.is_empty() {
            self.line(&format!("{}entries = {{", if tb.entries_const { "const " } else { "" }));
            for e in &tb.entries {
                let ks = e.keys.iter().map(Self::keyset).collect::<Vec<_>>().join(", ");
                let data = e.data.iter().map(value).collect::<Vec<_>>().join(", ");
                let prio = e.priority.map(|p| format!("priority={p} ")).unwrap_or_default();
                self.line(&format!("    {prio}({ks}) : {}({data})", act(e.action)));
            }
            self.line("}");
        }
        self.indent -= 1;
        self.line("}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prints_controls_statements_and_values() {
        let mut p = Program::default();
        let b8 = p.types.intern(Type::Bit(8));
        let mut vars = Arena::new();
        let x = vars.alloc(Var {
            entry_ref: false,
            name: "x".into(),
            ty: b8,
            kind: VarKind::Local,
            annotations: Vec::new(),
            span: Span::default(),
        });
        let k = |v: u32| Expr {
            kind: ExprKind::Const(Value::Bits {
                width: 8,
                signed: false,
                bits: BigUint::from(v),
            }),
            ty: b8,
            span: Span::default(),
        };
        let xv = Expr {
            kind: ExprKind::Var(x),
            ty: b8,
            span: Span::default(),
        };
        let sum = Expr {
            kind: ExprKind::Binary(BinOp::Add, Box::new(xv.clone()), Box::new(k(1))),
            ty: b8,
            span: Span::default(),
        };
        p.controls.alloc(Control {
            type_name: "C".into(),
            path: "C".into(),
            params: Vec::new(),
            vars,
            actions: Vec::new(),
            tables: Vec::new(),
            externs: Vec::new(),
            body: vec![
                Stmt::Assign {
                    dst: xv,
                    src: sum,
                    span: Span::default(),
                },
                Stmt::Exit { span: Span::default() },
            ],
            annotations: Vec::new(),
            span: Span::default(),
        });
        let out = program(&p);
        assert!(out.contains("control#0 C [C]() {"), "{out}");
        assert!(out.contains("var x#0: bit<8> (local)"), "{out}");
        assert!(out.contains("x#0 = (x#0 + 8w1);"), "{out}");
        assert!(out.contains("exit;"), "{out}");
        assert_eq!(
            value(&Value::Bits {
                width: 16,
                signed: true,
                bits: BigUint::from(255u32)
            }),
            "16s0xff"
        );
    }
}
