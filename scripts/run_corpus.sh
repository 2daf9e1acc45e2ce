#!/usr/bin/env bash
# Runs every tests/programs/*.p4 that has a .stf next to it through `p4dp stf` twice, two at a time:
# through the program's process() and with --burst through the workers' path (process_mbufs or process_burst:
# batched parsing, staged lookups); and compiles every tests/programs/compile_only/*.p4 with `p4dp build`.
# Prints one line per failure and a final 'N passed, N failed' line; exits 1 on any failure.
set -uo pipefail
cd "$(dirname "$0")/.."
P4DP=${P4DP:-target/release/p4dp}
JOBS=${JOBS:-2}
logdir=build/corpus-logs; rm -rf "$logdir"; mkdir -p "$logdir"
run_one() {
  local p4=$1 name; name=$(basename "${p4%.p4}")
  local stf=${p4%.p4}.stf
  if [ -f "$stf" ]; then
    if timeout 120 "$P4DP" stf "$p4" "$stf" >"$logdir/$name.log" 2>&1; then echo "PASS $p4"; else echo "FAIL $p4 (log: $logdir/$name.log)"; fi
    if timeout 120 "$P4DP" stf --burst "$p4" "$stf" >"$logdir/$name.burst.log" 2>&1; then echo "PASS $p4 --burst"; else echo "FAIL $p4 --burst (log: $logdir/$name.burst.log)"; fi
  else
    if timeout 120 "$P4DP" build "$p4" -o "build/corpus/$name" >"$logdir/$name.log" 2>&1; then echo "PASS $p4"; else echo "FAIL $p4 (log: $logdir/$name.log)"; fi
  fi
}
export -f run_one; export P4DP logdir
results=$(ls tests/programs/*.p4 tests/programs/compile_only/*.p4 examples/*.p4 2>/dev/null | xargs -P "$JOBS" -I{} bash -c 'run_one {}')
echo "$results" | grep '^FAIL' || true
pass=$(echo "$results" | grep -c '^PASS' || true)
fail=$(echo "$results" | grep -c '^FAIL' || true)
echo "corpus: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
