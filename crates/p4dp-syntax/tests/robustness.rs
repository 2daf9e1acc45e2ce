//! Mutation robustness: parse many randomly mutated versions of the corpus
//! (bytes and tokens deleted, inserted, swapped, duplicated; truncation).
//! The parser must never panic and must terminate on each input.
//!
//! Environment: `P4DP_FUZZ_SECS` (default 6) bounds the run time,
//! `P4DP_FUZZ_SEED` changes the seed. A panicking/hanging input is written to
//! the system temp directory and its path is reported.

use p4dp_testutil::rng::Rng;
use p4dp_testutil::{p4_files, repo_root};
use std::sync::mpsc;
use std::time::{Duration, Instant};

const FRAGMENTS: &[&str] = &[
    "{",
    "}",
    "(",
    ")",
    "<",
    ">",
    ">>",
    ";",
    ",",
    "[",
    "]",
    ":",
    "@",
    "@name(",
    "&&&",
    "..",
    "...",
    "_",
    "=",
    "8w",
    "0x",
    "\"",
    "/*",
    "//",
    "#",
    "{#}",
    "control",
    "parser",
    "state",
    "transition",
    "select",
    "apply",
    "table",
    "key",
    "actions",
    "entries",
    "const",
    "extern",
    "bit<",
    "int<",
    "tuple<",
    "typedef",
    "header",
    "struct",
    "enum",
    "action",
    "switch",
    "default",
    "if",
    "else",
    "return",
    "exit",
    "for",
    "in",
    "priority",
    "|+|",
    "++",
    "?",
    "(bit<8>)",
    "\u{e9}",
    "\0",
    "\n",
    "x",
    "T",
    "main",
];

fn mutate(rng: &mut Rng, src: &[u8], spans: &[(usize, usize)]) -> Vec<u8> {
    let mut v = src.to_vec();
    let rounds = 1 + rng.below(4);
    for _ in 0..rounds {
        let len = v.len();
        match rng.below(9) {
            0 if len > 0 => {
                // delete a byte range
                let a = rng.below(len);
                let b = (a + 1 + rng.below(16)).min(len);
                v.drain(a..b);
            }
            1 => {
                let a = rng.below(len + 1);
                v.insert(a, rng.next() as u8);
            }
            2 => {
                let a = rng.below(len + 1);
                let f = FRAGMENTS[rng.below(FRAGMENTS.len())].as_bytes();
                v.splice(a..a, f.iter().copied());
            }
            3 if len > 0 => v.truncate(rng.below(len)),
            4 if !spans.is_empty() && len == src.len() => {
                // delete a token
                let (a, b) = spans[rng.below(spans.len())];
                v.drain(a.min(len)..b.min(len));
            }
            5 if spans.len() > 1 && len == src.len() => {
                // swap two tokens
                let (a1, b1) = spans[rng.below(spans.len())];
                let (a2, b2) = spans[rng.below(spans.len())];
                let (x, y) = if a1 < a2 {
                    ((a1, b1), (a2, b2))
                } else {
                    ((a2, b2), (a1, b1))
                };
                if x.1 <= y.0 && y.1 <= len {
                    let t1 = v[x.0..x.1].to_vec();
                    let t2 = v[y.0..y.1].to_vec();
                    v.splice(y.0..y.1, t1);
                    v.splice(x.0..x.1, t2);
                }
            }
            6 if len > 0 => {
                // duplicate a range
                let a = rng.below(len);
                let b = (a + 1 + rng.below(64)).min(len);
                let chunk = v[a..b].to_vec();
                let at = rng.below(len + 1);
                v.splice(at..at, chunk);
            }
            7 if len > 0 => {
                let a = rng.below(len);
                v[a] = rng.next() as u8;
            }
            _ => {
                // repeat an opening bracket many times (deep nesting)
                let a = rng.below(len + 1);
                let f = ["(", "{", "[", "-", "<", "@a("][rng.below(6)];
                let n = 1 + rng.below(300);
                v.splice(a..a, f.repeat(n).into_bytes());
            }
        }
    }
    v
}

#[test]
fn mutated_inputs_never_panic_or_hang() {
    let root = repo_root();
    let mut corpus: Vec<Vec<u8>> = Vec::new();
    for dir in [
        "crates/p4dp-syntax/tests/p4",
        "tests/programs",
        "p4include",
        "tests/reject/syntax",
    ] {
        for f in p4_files(&root.join(dir)) {
            if let Ok(b) = std::fs::read(&f) {
                corpus.push(b);
            }
        }
    }
    assert!(!corpus.is_empty());
    let secs: u64 = std::env::var("P4DP_FUZZ_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(6);
    let seed: u64 = std::env::var("P4DP_FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x9E37_79B9_7F4A_7C15);
    let spans: Vec<Vec<(usize, usize)>> = corpus
        .iter()
        .map(|b| {
            let text = String::from_utf8_lossy(b);
            let (toks, _) = p4dp_syntax::lexer::lex(p4dp_syntax::FileId(0), &text);
            toks.iter().map(|t| (t.span.lo as usize, t.span.hi as usize)).collect()
        })
        .collect();

    // Worker thread with a main-thread-sized stack; the test thread watches
    // for hangs.
    let (tx_in, rx_in) = mpsc::channel::<Vec<u8>>();
    let (tx_out, rx_out) = mpsc::channel::<Result<(), String>>();
    let worker = std::thread::Builder::new()
        .stack_size(8 << 20)
        .spawn(move || {
            for input in rx_in {
                let r = std::panic::catch_unwind(|| p4dp_syntax::fuzz_parse(&input)).map_err(|e| {
                    e.downcast_ref::<String>()
                        .cloned()
                        .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                        .unwrap_or_default()
                });
                if tx_out.send(r).is_err() {
                    return;
                }
            }
        })
        .expect("spawn worker");

    let mut rng = Rng::new(seed);
    let start = Instant::now();
    let mut n = 0usize;
    while start.elapsed() < Duration::from_secs(secs) {
        let i = rng.below(corpus.len());
        let input = mutate(&mut rng, &corpus[i], &spans[i]);
        tx_in.send(input.clone()).expect("worker alive");
        let save = |why: &str| {
            let p = std::env::temp_dir().join(format!("p4dp-syntax-fuzz-{}.p4", std::process::id()));
            let _ = std::fs::write(&p, &input);
            panic!("parser {why} on mutated input #{n}; input saved to {}", p.display());
        };
        match rx_out.recv_timeout(Duration::from_secs(20)) {
            Ok(Ok(())) => {}
            Ok(Err(msg)) => save(&format!("panicked ({msg})")),
            Err(_) => save("did not terminate within 20 s"),
        }
        n += 1;
    }
    drop(tx_in);
    let _ = worker.join();
    assert!(n > 100, "only {n} inputs tried");
    eprintln!("robustness: {n} mutated inputs parsed");
}
