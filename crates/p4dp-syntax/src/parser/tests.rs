//! Parser unit tests: AST shapes, precedence, disambiguation, recovery.

use crate::ast::*;
use crate::{parse_str, SourceMap};

fn parse_ok(src: &str) -> Program {
    let mut sm = SourceMap::new();
    let (_, p, d) = parse_str(&mut sm, "t.p4", src);
    assert!(
        d.is_empty(),
        "unexpected diagnostics for {src:?}:\n{}",
        crate::render_all(&sm, &d)
    );
    p
}

fn errors(src: &str) -> Vec<(&'static str, String)> {
    let mut sm = SourceMap::new();
    let (_, _, d) = parse_str(&mut sm, "t.p4", src);
    d.into_iter().map(|d| (d.code, d.message)).collect()
}

fn ty(t: &Type) -> String {
    match &t.kind {
        TypeKind::Bit(None) => "bit".into(),
        TypeKind::Bit(Some(w)) => format!("bit<{}>", sx(w)),
        TypeKind::Int(None) => "int".into(),
        TypeKind::Int(Some(w)) => format!("int<{}>", sx(w)),
        TypeKind::Varbit(w) => format!("varbit<{}>", sx(w)),
        TypeKind::Named(n) => format!("{}{}", if n.top_level { "." } else { "" }, n.name.name),
        TypeKind::Specialized { base, args } => {
            format!(
                "{}<{}>",
                base.name.name,
                args.iter().map(ty).collect::<Vec<_>>().join(",")
            )
        }
        TypeKind::Stack { elem, size } => format!("{}[{}]", ty(elem), sx(size)),
        TypeKind::Tuple(a) => format!("tuple<{}>", a.iter().map(ty).collect::<Vec<_>>().join(",")),
        TypeKind::List(e) => format!("list<{}>", ty(e)),
        k => format!("{k:?}").to_lowercase(),
    }
}

/// S-expression rendering of an expression.
fn sx(e: &Expr) -> String {
    match &e.kind {
        ExprKind::Int(i) => match i.width {
            Some(w) => format!("{w}{}{}", if i.signed { 's' } else { 'w' }, i.value),
            None => i.value.to_string(),
        },
        ExprKind::Bool(b) => b.to_string(),
        ExprKind::Str(s) => format!("{s:?}"),
        ExprKind::Name(n) => format!("{}{}", if n.top_level { "." } else { "" }, n.name.name),
        ExprKind::This => "this".into(),
        ExprKind::DontCare => "_".into(),
        ExprKind::ErrorMember(m) => format!("error.{}", m.name),
        ExprKind::Member { base, member } => format!("{}.{}", sx(base), member.name),
        ExprKind::Index { base, index } => format!("{}[{}]", sx(base), sx(index)),
        ExprKind::Slice { base, hi, lo } => format!("{}[{}:{}]", sx(base), sx(hi), sx(lo)),
        ExprKind::Call {
            callee,
            type_args,
            args,
        } => {
            let ta = if type_args.is_empty() {
                String::new()
            } else {
                format!("<{}>", type_args.iter().map(ty).collect::<Vec<_>>().join(","))
            };
            let a: Vec<String> = args
                .iter()
                .map(|a| match &a.name {
                    Some(n) => format!("{}={}", n.name, sx(&a.value)),
                    None => sx(&a.value),
                })
                .collect();
            format!("{}{}({})", sx(callee), ta, a.join(","))
        }
        ExprKind::ConstructorCall { ty: t, args } => format!("new {}({})", ty(t), args.len()),
        ExprKind::Unary { op, expr } => format!("({op:?} {})", sx(expr)),
        ExprKind::Binary { op, lhs, rhs } => format!("({op:?} {} {})", sx(lhs), sx(rhs)),
        ExprKind::Ternary { cond, then_e, else_e } => format!("(? {} {} {})", sx(cond), sx(then_e), sx(else_e)),
        ExprKind::Cast { ty: t, expr } => format!("(cast {} {})", ty(t), sx(expr)),
        ExprKind::List { elems, dots } => {
            format!(
                "{{{}{}}}",
                elems.iter().map(sx).collect::<Vec<_>>().join(","),
                if *dots { ",..." } else { "" }
            )
        }
        ExprKind::Struct { fields, dots } => format!(
            "{{{}{}}}",
            fields
                .iter()
                .map(|f| format!("{}={}", f.name.name, sx(&f.value)))
                .collect::<Vec<_>>()
                .join(","),
            if *dots { ",..." } else { "" }
        ),
        ExprKind::InvalidHeader => "{#}".into(),
        ExprKind::Invalid => "<invalid>".into(),
    }
}

/// Parse `const bit<8> x = <src>;` and return the initializer.
fn expr(src: &str) -> String {
    let p = parse_ok(&format!("const bit<8> x = {src};"));
    match &p.decls[0] {
        Decl::Const(c) => sx(&c.value),
        d => panic!("not a const: {d:?}"),
    }
}

/// Statements of `control c() { apply { <src> } }`.
fn stmts(src: &str) -> Vec<Stmt> {
    let p = parse_ok(&format!("control c() {{ apply {{ {src} }} }}"));
    match p.decls.into_iter().next() {
        Some(Decl::Control(c)) => c.apply.stmts,
        d => panic!("not a control: {d:?}"),
    }
}

#[test]
fn precedence() {
    assert_eq!(expr("a + b * c"), "(Add a (Mul b c))");
    assert_eq!(expr("a - b - c"), "(Sub (Sub a b) c)");
    assert_eq!(expr("a & b == c"), "(Eq (BitAnd a b) c)");
    assert_eq!(expr("a | b ^ c & d"), "(BitOr a (BitXor b (BitAnd c d)))");
    assert_eq!(expr("a << 1 + 2"), "(Shl a (Add 1 2))");
    assert_eq!(expr("a >> 2"), "(Shr a 2)");
    assert_eq!(expr("a > b"), "(Gt a b)");
    assert_eq!(expr("a >= b"), "(Ge a b)");
    assert_eq!(expr("a < b == c > d"), "(Eq (Lt a b) (Gt c d))");
    assert_eq!(expr("a || b && c"), "(Or a (And b c))");
    assert_eq!(expr("a ++ b + c"), "(Add (Concat a b) c)");
    assert_eq!(expr("a |+| b |-| c"), "(SubSat (AddSat a b) c)");
    assert_eq!(expr("a ? b : c ? d : e"), "(? a b (? c d e))");
    assert_eq!(expr("-a.b[1]"), "(Neg a.b[1])");
    assert_eq!(expr("!a && ~b == c"), "(And (Not a) (Eq (BitNot b) c))");
    assert_eq!(expr("x[7:0] ++ y[3:0]"), "(Concat x[7:0] y[3:0])");
}

#[test]
fn literals_in_exprs() {
    assert_eq!(expr("8w255"), "8w255");
    assert_eq!(expr("4s3"), "4s3");
    assert_eq!(expr("-4s3"), "(Neg 4s3)");
    assert_eq!(expr("0x10 + 0b11"), "(Add 16 3)");
}

#[test]
fn generics_and_calls() {
    assert_eq!(expr("f<bit<8>>(x)"), "f<bit<8>>(x)");
    assert_eq!(expr("a < b && c > (d)"), "(And (Lt a b) (Gt c d))");
    assert_eq!(expr("p.lookahead<bit<32>>()"), "p.lookahead<bit<32>>()");
    assert_eq!(expr("f(a = 1, b = _)"), "f(a=1,b=_)");
    assert_eq!(expr("T.minSizeInBits()"), "T.minSizeInBits()");
    assert_eq!(expr("error.NoMatch"), "error.NoMatch");
    assert_eq!(expr(".x + E.A"), "(Add .x E.A)");
    assert_eq!(expr("t.apply().hit"), "t.apply().hit");
    assert_eq!(expr("R<bit<8>, bit<4>>(16)"), "R<bit<8>,bit<4>>(16)");
}

#[test]
fn casts_vs_parens() {
    assert_eq!(expr("(bit<8>)x + 1"), "(Add (cast bit<8> x) 1)");
    assert_eq!(expr("(bit<8>) -x"), "(cast bit<8> (Neg x))");
    assert_eq!(expr("(a) - b"), "(Sub a b)");
    assert_eq!(expr("(T) x"), "(cast T x)");
    assert_eq!(expr("(T)(x + 1)"), "(cast T (Add x 1))");
    assert_eq!(expr("(T){ a = 1 }"), "(cast T {a=1})");
    assert_eq!(expr("(a[2]) + 1"), "(Add a[2] 1)");
    assert_eq!(expr("(x)"), "x");
    assert_eq!(expr("(error.X)"), "error.X");
}

#[test]
fn brace_exprs() {
    assert_eq!(expr("{}"), "{}");
    assert_eq!(expr("{#}"), "{#}");
    assert_eq!(expr("{1, 2,}"), "{1,2}");
    assert_eq!(expr("{ a = 1, b = { 2 } }"), "{a=1,b={2}}");
    assert_eq!(expr("{ a = 1, ... }"), "{a=1,...}");
    assert_eq!(expr("{ 1, ... }"), "{1,...}");
}

#[test]
fn types() {
    let p = parse_ok(
        "typedef bit<8>[4] a; typedef tuple<bit<8>, R<bit<8>>> b; typedef bit c; typedef int d; \
         typedef varbit<32> e; typedef list<bit<8>> f; typedef .T g; typedef bit<(W*2)> h; typedef R<_, void> i;",
    );
    let got: Vec<String> = p
        .decls
        .iter()
        .map(|d| match d {
            Decl::Typedef(TypedefDecl {
                target: TypedefTarget::Type(t),
                ..
            }) => ty(t),
            d => panic!("{d:?}"),
        })
        .collect();
    assert_eq!(
        got,
        vec![
            "bit<8>[4]",
            "tuple<bit<8>,R<bit<8>>>",
            "bit",
            "int",
            "varbit<32>",
            "list<bit<8>>",
            ".T",
            "bit<(Mul W 2)>",
            "R<dontcare,void>"
        ]
    );
}

#[test]
fn decl_vs_statement() {
    let s =
        stmts("h[0] = 1; H[4] st; MyInst(1) inner; f(1); bit<8> x; T y = 2; a.b.c = d; x += 1; x >>= 2; t.apply();");
    let kinds: Vec<String> = s
        .iter()
        .map(|s| match &s.kind {
            StmtKind::Assign { .. } => "assign".to_string(),
            StmtKind::CompoundAssign { op, .. } => format!("{op:?}="),
            StmtKind::Call(_) => "call".into(),
            StmtKind::Decl(d) => match &**d {
                Decl::Var(v) => format!("var {}", ty(&v.ty)),
                Decl::Instantiation(i) => format!("inst {}", ty(&i.ty)),
                d => format!("{d:?}"),
            },
            k => format!("{k:?}"),
        })
        .collect();
    assert_eq!(
        kinds,
        vec![
            "assign",
            "var H[4]",
            "inst MyInst",
            "call",
            "var bit<8>",
            "var T",
            "assign",
            "Add=",
            "Shr=",
            "call"
        ]
    );
}

#[test]
fn switch_fallthrough() {
    let s = stmts("switch (t.apply().action_run) { a: b: { } default: { } }");
    let StmtKind::Switch { cases, .. } = &s[0].kind else {
        panic!()
    };
    assert_eq!(cases.len(), 3);
    assert!(cases[0].body.is_none());
    assert!(cases[1].body.is_some());
    assert!(matches!(cases[2].label, SwitchLabel::Default(_)));
}

#[test]
fn select_keysets() {
    let p = parse_ok(
        "parser p(packet_in b) { state start { transition select(a, b) { \
         (1, _): s1; (2 &&& 3, 4 .. 5): s2; (x): s3; (default): s4; default: accept; (a) + 1: s5; } } }",
    );
    let Decl::Parser(pd) = &p.decls[0] else { panic!() };
    let Some(Transition::Select { exprs, cases, .. }) = &pd.states[0].transition else {
        panic!()
    };
    assert_eq!(exprs.len(), 2);
    let shapes: Vec<String> = cases
        .iter()
        .map(|c| match &c.keyset {
            Keyset::Tuple { elems, .. } => format!("tuple{}", elems.len()),
            Keyset::Simple(SimpleKeyset::Expr(e)) => format!("expr {}", sx(e)),
            Keyset::Simple(SimpleKeyset::Default(_)) => "default".into(),
            Keyset::Simple(k) => format!("{k:?}"),
        })
        .collect();
    assert_eq!(
        shapes,
        vec!["tuple2", "tuple2", "expr x", "tuple1", "default", "expr (Add a 1)"]
    );
}

#[test]
fn table_properties() {
    let p = parse_ok(
        "control c() { table t { key = { a : exact; b[3:0] : lpm @name(\"b\"); } actions = { x; y(1); } \
         const default_action = x(); size = 16; implementation = ap(); \
         const entries = { priority = 3 : (1, 2) : x; 5 : y(2); } } apply { } }",
    );
    let Decl::Control(c) = &p.decls[0] else { panic!() };
    let Decl::Table(t) = &c.locals[0] else { panic!() };
    assert_eq!(t.properties.len(), 6);
    assert!(matches!(&t.properties[0].kind, TablePropertyKind::Key(k) if k.len() == 2 && k[1].annotations.len() == 1));
    assert!(matches!(&t.properties[1].kind, TablePropertyKind::Actions(a) if a.len() == 2 && a[1].args.is_some()));
    assert!(t.properties[2].is_const);
    let TablePropertyKind::Entries(es) = &t.properties[5].kind else {
        panic!()
    };
    assert!(t.properties[5].is_const);
    assert!(es[0].priority.is_some());
    assert!(matches!(es[0].keyset, Keyset::Tuple { .. }));
    assert!(es[1].priority.is_none());
}

#[test]
fn annotations() {
    let p =
        parse_ok("@name(\"x\") @priority(3) @hidden @weird(a b c) @kv[k = 1, j = \"s\"] @el[1, 2] const bit<8> x = 1;");
    let Decl::Const(c) = &p.decls[0] else { panic!() };
    let a = &c.annotations;
    assert_eq!(a.len(), 6);
    assert!(
        matches!(&a[0].body, AnnotationBody::Unstructured { exprs: Some(e), .. } if matches!(e[0].kind, ExprKind::Str(ref s) if s == "x"))
    );
    assert!(matches!(&a[1].body, AnnotationBody::Unstructured { exprs: Some(e), .. } if e.len() == 1));
    assert!(matches!(&a[2].body, AnnotationBody::Empty));
    assert!(matches!(&a[3].body, AnnotationBody::Unstructured { exprs: None, tokens } if tokens.len() == 3));
    assert!(matches!(&a[4].body, AnnotationBody::KeyValueList(kv) if kv.len() == 2));
    assert!(matches!(&a[5].body, AnnotationBody::ExprList(e) if e.len() == 2));
}

#[test]
fn externs_and_instantiations() {
    let p = parse_ok(
        "extern E<T> { E(bit<8> n); T get<U>(in U u); abstract void cb(); } extern void f(in bit<8> a); \
         extern bit<8> g<T>(in T t); E<bit<8>>(1) e = { void cb() { } }; V1Switch(P(), V()) main;",
    );
    let Decl::ExternObject(e) = &p.decls[0] else { panic!() };
    assert_eq!(e.type_params.len(), 1);
    assert!(matches!(e.members[0], ExternMember::Constructor { .. }));
    assert!(
        matches!(&e.members[1], ExternMember::Method { is_abstract: false, proto } if proto.type_params.len() == 1)
    );
    assert!(matches!(e.members[2], ExternMember::Method { is_abstract: true, .. }));
    assert!(matches!(&p.decls[1], Decl::ExternFunction(f) if f.name.name == "f"));
    assert!(matches!(&p.decls[2], Decl::ExternFunction(f) if f.type_params.len() == 1));
    assert!(matches!(&p.decls[3], Decl::Instantiation(i) if i.initializer.as_ref().map(|v| v.len()) == Some(1)));
    assert!(matches!(&p.decls[4], Decl::Instantiation(i) if i.name.name == "main" && i.args.len() == 2));
}

#[test]
fn enums_and_typedefs() {
    let p =
        parse_ok("enum A { X, Y } enum bit<8> B { X = 1, Y = 2, } type bit<8> N; typedef struct S { bit<8> f; } St;");
    assert!(matches!(&p.decls[0], Decl::Enum(e) if e.repr.is_none() && e.members.len() == 2));
    assert!(matches!(&p.decls[1], Decl::Enum(e) if e.repr.is_some() && e.members[1].value.is_some()));
    assert!(matches!(&p.decls[2], Decl::Typedef(t) if t.is_newtype));
    assert!(matches!(
        &p.decls[3],
        Decl::Typedef(TypedefDecl {
            target: TypedefTarget::Decl(_),
            ..
        })
    ));
}

#[test]
fn recovery_reports_several_errors() {
    let e = errors(
        "control c() { apply { x = 1 y = 2; z = ; } }\n\
         header h { bit<8> a bit<8> b; }\n\
         const bit<8> k = ;\n\
         struct s { bit<8> ok; }",
    );
    let codes: Vec<&str> = e.iter().map(|x| x.0).collect();
    assert!(codes.len() >= 4, "{e:?}");
    assert!(codes.iter().all(|c| c.starts_with("E01")), "{e:?}");
}

#[test]
fn not_allowed_here() {
    let e = errors("table t { } control c() { header h { } apply { } } parser p() { table t { } state start { transition accept; } }");
    assert_eq!(e.iter().filter(|x| x.0 == "E0111").count(), 3, "{e:?}");
}

#[test]
fn statements_after_transition() {
    let e = errors("parser p() { state start { transition accept; x = 1; } }");
    assert_eq!(e[0].0, "E0115");
}

#[test]
fn control_without_apply() {
    let e = errors("control c() { action a() { } }");
    assert_eq!(e.len(), 1);
    assert!(e[0].1.contains("no `apply`"), "{e:?}");
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let src = format!("const bit<8> x = {}1{};", "(".repeat(5000), ")".repeat(5000));
    let e = errors(&src);
    assert!(e.iter().any(|x| x.0 == "E0113"), "{:?}", &e[..e.len().min(3)]);
    let src = format!("control c() {{ apply {{ {} }} }}", "{".repeat(5000));
    let e = errors(&src);
    assert!(e.iter().any(|x| x.0 == "E0113"));
    let src = format!("const bit<8> x = {}1;", "-".repeat(5000));
    assert!(errors(&src).iter().any(|x| x.0 == "E0113"));
}

#[test]
fn too_many_errors_stop() {
    let src = "const = ;\n".repeat(500);
    let e = errors(&src);
    assert!(e.len() <= 102, "{}", e.len());
    assert_eq!(e.last().map(|x| x.0), Some("E0117"));
}

// ───────────── input-controlled depth ─────────────

/// `const bit<8> X = <e>;` parsed; the initializer's height.
fn const_height(src: &str) -> u32 {
    let p = parse_ok(src);
    match &p.decls[0] {
        Decl::Const(c) => c.value.height,
        d => panic!("{d:?}"),
    }
}

#[test]
fn expression_height_is_recorded() {
    assert_eq!(const_height("const bit<8> X = 1;"), 1);
    assert_eq!(const_height("const bit<8> X = 1 + 2 * 3;"), 3);
    assert_eq!(const_height("const bit<8> X = ((1 + 2)) + 3;"), 3);
    assert_eq!(const_height("const bit<8> X = a.b.c[1];"), 4);
    assert_eq!(const_height("const bit<8> X = f(g(h(1)));"), 4);
    // A cast counts the expressions in its type: `(bit<(1 + 2)>) x` is 3 high.
    assert_eq!(const_height("const bit<8> X = (bit<(1 + 2)>) x;"), 4);
}

#[test]
fn operator_chains_are_bounded_by_height() {
    let chain = |n: usize| format!("const bit<8> X = {};", vec!["1"; n].join(" + "));
    assert_eq!(const_height(&chain(256)), 256);
    let e = errors(&chain(257));
    assert_eq!(e.len(), 1, "{e:?}");
    assert_eq!(e[0].0, "E0113");
    // The reported case: 10,000 operators in one expression.
    let e = errors(&chain(10_001));
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(e[0].1.contains("expression nested too deep"), "{e:?}");
    let e = errors(&format!("const bit<8> X = a{};", ".b".repeat(10_000)));
    assert_eq!(e.len(), 1, "{e:?}");
    assert_eq!(e[0].0, "E0113");
}

#[test]
fn else_if_chain_is_parsed_as_a_chain() {
    let arms: Vec<String> = (0..98).map(|i| format!("if (x == {i}) {{ y = {i}; }}")).collect();
    let src = format!(
        "control C() {{ apply {{ {} else {{ y = 0; }} }} }}",
        arms.join(" else ")
    );
    let p = parse_ok(&src);
    let Decl::Control(c) = &p.decls[0] else { panic!() };
    // The chain is nested `If`s in the AST: walk its else branches to the final `else`.
    let mut s = &c.apply.stmts[0];
    let mut n = 0;
    while let StmtKind::If { else_s: Some(e), .. } = &s.kind {
        n += 1;
        s = e;
    }
    assert_eq!(n, 98);
    assert!(matches!(s.kind, StmtKind::Block(_)));
    let arms: Vec<String> = (0..1025).map(|i| format!("if (x == {i}) {{ y = 1; }}")).collect();
    let e = errors(&format!("control C() {{ apply {{ {} }} }}", arms.join(" else ")));
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(e[0].1.contains("`else if` chain too long"), "{e:?}");
}

#[test]
fn nesting_within_else_if_arms_is_still_bounded() {
    let deep = format!(
        "control C() {{ apply {{ if (a) {{ }} else if (b) {} }} }}",
        "{".repeat(200) + &"}".repeat(200)
    );
    let e = errors(&deep);
    assert!(
        e.iter().any(|(c, m)| *c == "E0113" && m.contains("nesting too deep")),
        "{e:?}"
    );
}
