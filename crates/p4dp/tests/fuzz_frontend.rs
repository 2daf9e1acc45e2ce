//! Mutation fuzzing of the whole front end (parse + semantic analysis + IR validation).
//!
//! Every program of the corpus is preprocessed once; then random byte- and token-level mutations of
//! the preprocessed text are compiled. The front end must return (diagnostics or a program), never
//! panic and never hang. Ignored by default: `scripts/fuzz.sh` runs it for `P4DP_FUZZ_SECS`
//! seconds (default 20) with a seed from `P4DP_FUZZ_SEED` (printed, so a failure can be replayed).

use std::panic;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545F4914F6CDD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
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
    let mut rng = Rng(seed);
    let deadline = Instant::now() + Duration::from_secs(secs);
    let mut n = 0u64;
    let crash_dir = repo().join("build/fuzz-crashes");
    while Instant::now() < deadline {
        let base = &inputs[rng.below(inputs.len())];
        let m = mutate(&mut rng, base);
        let t0 = Instant::now();
        let r = panic::catch_unwind(|| front_end(&m));
        let took = t0.elapsed();
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
