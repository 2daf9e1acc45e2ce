#!/usr/bin/env bash
# The corpus on the real runtime: every tests/programs/*.p4 that has a .stf next to it through
# `p4dp stf` (the program's process(), built with UBSan) and `p4dp stf --burst` (the workers' path:
# process_mbufs or process_burst, batched parsing, staged lookups), two runs at a time; every other program
# (tests/programs without an STF, tests/programs/compile_only, examples) through `p4dp build`.
# The test itself is crates/p4dp/tests/corpus.rs (part of `cargo test`); this runs it alone.
# P4DP_CORPUS_FILTER=NAME runs the programs whose name contains NAME; P4DP_TEST_JOBS=N runs N at once.
# Logs: build/corpus-logs/. Exits non-zero on any failure, listing each failing run with its log's end.
set -euo pipefail
cd "$(dirname "$0")/.."
exec cargo test --release -p p4dp --test corpus -- --nocapture
