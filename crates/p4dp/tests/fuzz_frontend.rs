//! Mutation fuzzing of the whole front end (parse + semantic analysis + IR validation).
//!
//! Every program of the corpus is preprocessed once; then random byte- and token-level mutations of
//! the preprocessed text are compiled, and one input in eight is a generated deep one (long operator,
//! member and index chains, deep parentheses and casts, nested and chained declarations, long
//! `else if` chains, nested tuples) of random size. The front end must return (diagnostics or a
//! program), never panic, never overflow the stack (it runs on a thread with the CLI's 8 MiB main-
//! thread stack; a deep input is saved before it runs, since an overflow aborts the process) and
//! never hang. Ignored by default: `scripts/fuzz.sh` runs it for `P4DP_FUZZ_SECS`
//! seconds (default 20) with a seed from `P4DP_FUZZ_SEED` (printed, so a failure can be replayed).

use p4dp_testutil::rng::Rng;
use std::fmt::Write as _;
use std::panic;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The stack `p4dp` compiles on: its main thread's default (8 MiB).
const CLI_STACK: usize = 8 << 20;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

const SNIPPETS: &[&str] = &[
    "{",
    "}",
    "(",
    ")",
    "<",
    ">",
    ";",
    ",",
    "bit<8>",
    "int<4>",
    "varbit<16>",
    "header",
    "struct",
    "apply",
    "transition",
    "select",
    "default",
    "_",
    "&&&",
    "..",
    "++",
    "|+|",
    "1w1",
    "8s-1",
    "0xFF",
    "@name(\"x\")",
    "table",
    "key",
    "actions",
    "exit",
    "return",
    "switch",
    "=",
    "==",
    "?",
    ":",
    "[3:0]",
    ".next",
    ".last",
    "extract",
    "emit",
    "tuple<bit<8>>",
    "error.NoMatch",
    "main",
    "package",
    "control",
    "parser",
    "state",
];

fn mutate(rng: &mut Rng, src: &str) -> String {
    let mut s: Vec<u8> = src.as_bytes().to_vec();
    for _ in 0..1 + rng.below(4) {
        if s.is_empty() {
            break;
        }
        let at = rng.below(s.len());
        match rng.below(6) {
            0 => {
                let n = 1 + rng.below(16);
                let end = (at + n).min(s.len());
                s.drain(at..end);
            }
            1 => {
                let snip = SNIPPETS[rng.below(SNIPPETS.len())];
                s.splice(at..at, snip.bytes());
            }
            2 => s[at] = (rng.next() & 0x7f) as u8,
            3 => s.truncate(at),
            4 => {
                let len = 1 + rng.below(40);
                let from = rng.below(s.len());
                let end = (from + len).min(s.len());
                let chunk: Vec<u8> = s[from..end].to_vec();
                let at = at.min(s.len());
                s.splice(at..at, chunk);
            }
            _ => s.insert(at, b"{}();<>"[rng.below(7)]),
        }
    }
    String::from_utf8_lossy(&s).into_owned()
}

/// A v1model program: `top` declarations, then an ingress control whose apply block is `body`.
fn skeleton(top: &str, body: &str) -> String {
    format!(
        "header h_t {{ bit<8> a; bit<8> b; bit<32> c; }}\n\
         struct headers_t {{ h_t h; h_t[4] s; }}\n\
         struct meta_t {{ }}\n\
         {top}\n\
         parser P(packet_in pk, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {{\n\
           state start {{ pk.extract(hdr.h); transition accept; }} }}\n\
         control VC(inout headers_t hdr, inout meta_t meta) {{ apply {{ }} }}\n\
         control Ing(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {{\n\
           apply {{\n{body}\n }} }}\n\
         control EG(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {{ apply {{ }} }}\n\
         control CC(inout headers_t hdr, inout meta_t meta) {{ apply {{ }} }}\n\
         control DP(packet_out pk, in headers_t hdr) {{ apply {{ pk.emit(hdr.h); }} }}\n\
         V1Switch(P(), VC(), Ing(), EG(), CC(), DP()) main;\n"
    )
}

/// A size for a deep input: mostly around the front end's limits (64 to 1,100), sometimes far
/// beyond them (up to 20,000).
fn deep_size(rng: &mut Rng) -> usize {
    match rng.below(4) {
        0 => 1 + rng.below(20_000),
        _ => 1 + rng.below(1_100),
    }
}

/// A generated program with one construct repeated or nested to a random depth.
fn deep_input(rng: &mut Rng, prelude: &str) -> String {
    const OPS: &[&str] = &["+", "-", "*", "&", "|", "^", "++", "|+|", "<<", "==", "&&", "<", "?:"];
    let n = deep_size(rng);
    let mut top = String::new();
    let mut body = String::new();
    match rng.below(9) {
        0 => {
            // operator chain, mixed operators, some parenthesized runs
            body.push_str("hdr.h.b = (bit<8>)(hdr.h.a");
            for _ in 0..n {
                match OPS[rng.below(OPS.len())] {
                    "?:" => body.push_str(" == 1 ? hdr.h.a : hdr.h.b"),
                    op => {
                        let _ = write!(body, " {op} ");
                        if rng.below(8) == 0 {
                            body.push_str("(hdr.h.b + 1)");
                        } else {
                            body.push_str("hdr.h.a");
                        }
                    }
                }
            }
            body.push_str(");");
        }
        1 => {
            let _ = write!(
                body,
                "hdr.h.b = hdr{}.a;",
                [".h", ".s[0]", ".s.last", "[1]"][rng.below(4)].repeat(n)
            );
        }
        2 => {
            // parentheses, unary operators and casts nested
            let opens: Vec<&str> = (0..n).map(|_| ["(", "-", "~", "(bit<8>)", "!"][rng.below(5)]).collect();
            let _ = write!(
                body,
                "hdr.h.b = {}hdr.h.a{};",
                opens.concat(),
                ")".repeat(opens.iter().filter(|o| **o == "(").count())
            );
        }
        3 | 4 => {
            // struct types nested, declared innermost first or used innermost first
            top.push_str("struct s0 { bit<8> f; }\n");
            for i in 1..n {
                let _ = writeln!(top, "struct s{i} {{ s{} f; }}", i - 1);
            }
            if rng.below(2) == 0 {
                let _ = write!(body, "s{} v;", n - 1);
            } else {
                for i in (0..n).step_by(1 + rng.below(8)) {
                    let _ = write!(body, "s{i} v{i}; ");
                }
            }
        }
        5 => {
            // typedef or constant chains
            if rng.below(2) == 0 {
                top.push_str("typedef bit<8> t0;\n");
                for i in 1..n {
                    let _ = writeln!(top, "typedef t{} t{i};", i - 1);
                }
                let _ = write!(body, "t{} v = 1;", n - 1);
            } else {
                top.push_str("const bit<8> c0 = 1;\n");
                for i in 1..n {
                    let _ = writeln!(top, "const bit<8> c{i} = c{} + 1;", i - 1);
                }
                let _ = write!(body, "hdr.h.b = c{};", n - 1);
            }
        }
        6 => {
            // else-if chain, arms sometimes nesting further
            for i in 0..n {
                if i > 0 {
                    body.push_str(" else ");
                }
                let _ = write!(body, "if (hdr.h.c == {i}) {{ hdr.h.b = {}; }}", i % 256);
                if rng.below(64) == 0 {
                    body.push_str(" else { if (hdr.h.a == 1) { hdr.h.b = 2; } }");
                    break;
                }
            }
        }
        7 => {
            // nested tuples, each level doubling the spelled-out size
            top.push_str("typedef bit<8> t0;\n");
            let levels = 1 + n % 70;
            for i in 1..levels {
                let _ = writeln!(top, "typedef tuple<t{0}, t{0}> t{i};", i - 1);
            }
            let _ = write!(body, "t{} v;", levels - 1);
        }
        _ => {
            // nested blocks and statements
            let _ = write!(body, "{}hdr.h.b = 1;{}", "{ ".repeat(n), " }".repeat(n));
        }
    }
    format!("{prelude}\n{}", skeleton(&top, &body))
}

/// core.p4 and v1model.p4, preprocessed (the generated programs need them).
fn prelude() -> String {
    let f = std::env::temp_dir().join(format!("p4dp-fuzz-prelude-{}.p4", std::process::id()));
    let _ = std::fs::write(&f, "#include <core.p4>\n#include <v1model.p4>\n");
    let text = p4dp_syntax::preprocess(&f, &[repo().join("p4include")], &[])
        .ok()
        .and_then(|(sm, id)| sm.file(id).map(|s| s.text.clone()))
        .unwrap_or_default();
    let _ = std::fs::remove_file(&f);
    text
}

fn corpus() -> Vec<String> {
    let mut out = Vec::new();
    let mut files: Vec<PathBuf> = std::fs::read_dir(repo().join("tests/programs"))
        .map(|d| d.filter_map(|e| e.ok()).map(|e| e.path()).collect())
        .unwrap_or_default();
    files.retain(|p| p.extension().is_some_and(|e| e == "p4"));
    files.sort();
    for f in files.iter().take(40) {
        if let Ok((sm, file)) = p4dp_syntax::preprocess(f, &[repo().join("p4include")], &[]) {
            if let Some(src) = sm.file(file) {
                out.push(src.text.clone());
            }
        }
    }
    out
}

fn front_end(text: &str) {
    let mut sm = p4dp_syntax::SourceMap::new();
    let file = sm.add_file("fuzz.p4", text.to_string());
    let (ast, diags) = p4dp_syntax::parse_program(&mut sm, file);
    if diags.iter().any(|d| d.is_error()) {
        let _ = p4dp_syntax::render_all(&sm, &diags);
        return;
    }
    let (prog, diags) = p4dp_sema::analyze(&ast, &sm);
    let _ = p4dp_syntax::render_all(&sm, &diags);
    if let Some(p) = prog {
        let _ = p4dp_ir::validate(p);
    }
}

#[test]
#[ignore]
fn fuzz_front_end() {
    let h = std::thread::Builder::new()
        .stack_size(CLI_STACK)
        .spawn(fuzz_loop)
        .expect("spawn the fuzz thread");
    if let Err(e) = h.join() {
        panic::resume_unwind(e);
    }
}

fn fuzz_loop() {
    let secs: u64 = std::env::var("P4DP_FUZZ_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(20);
    let seed: u64 = std::env::var("P4DP_FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos() as u64)
                .unwrap_or(1)
        })
        | 1;
    println!("fuzz seed {seed}");
    let inputs = corpus();
    assert!(!inputs.is_empty(), "no corpus programs found");
    let prelude = prelude();
    assert!(!prelude.is_empty(), "cannot preprocess core.p4 and v1model.p4");
    let mut rng = Rng::new(seed);
    let deadline = Instant::now() + Duration::from_secs(secs);
    let mut n = 0u64;
    let crash_dir = repo().join("build/fuzz-crashes");
    while Instant::now() < deadline {
        let deep = rng.below(8) == 0;
        let m = if deep {
            let m = deep_input(&mut rng, &prelude);
            // Saved first: a stack overflow aborts the process before it could be saved.
            std::fs::create_dir_all(&crash_dir).ok();
            std::fs::write(crash_dir.join(format!("running-{seed}.p4")), &m).ok();
            m
        } else {
            let base = &inputs[rng.below(inputs.len())];
            mutate(&mut rng, base)
        };
        let t0 = Instant::now();
        let r = panic::catch_unwind(|| front_end(&m));
        let took = t0.elapsed();
        if deep && r.is_ok() {
            std::fs::remove_file(crash_dir.join(format!("running-{seed}.p4"))).ok();
        }
        if r.is_err() || took > Duration::from_secs(5) {
            std::fs::create_dir_all(&crash_dir).ok();
            let p: &Path = &crash_dir.join(format!("crash-{seed}-{n}.p4"));
            std::fs::write(p, &m).ok();
            panic!(
                "front end {} on a mutated input (saved to {})",
                if r.is_err() { "panicked" } else { "took too long" },
                p.display()
            );
        }
        n += 1;
    }
    println!("fuzz: {n} inputs, no panic");
}
