#!/usr/bin/env bash
# Brief fuzzing of the front end (parse + sema + IR validation): mutated corpus programs and generated
# deep inputs (operator/member chains, nested types, declaration chains, else-if chains). Any panic,
# stack overflow or hang fails and
# saves the input under build/fuzz-crashes/. P4DP_FUZZ_SECS (default 20) bounds the run.
set -euo pipefail
cd "$(dirname "$0")/.."
P4DP_FUZZ_SECS=${P4DP_FUZZ_SECS:-20} cargo test --release -p p4dp --test fuzz_frontend -- --ignored --nocapture
