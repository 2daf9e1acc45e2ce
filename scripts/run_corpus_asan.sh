#!/usr/bin/env bash
# Runs the corpus (tests/programs/*.p4 with an .stf) once through `p4dp stf --burst` with everything
# on the packet path built with AddressSanitizer: the generated programs (P4DP_CFLAGS, honoured by
# the gcc command that builds prog.so) and the runtime (libp4dp_rt.so from `make -C runtime
# asan-lib`, found first through LD_LIBRARY_PATH). p4dp itself is not instrumented, so the ASan
# runtime is preloaded (LD_PRELOAD): it must be in the process before the first instrumented
# library, and a dlopen()ed program cannot bring it. --burst runs the workers' path (process_mbufs
# on DPDK mbufs), the one a deployment runs. Any report fails the program (exit 67).
# The whole corpus runs (about 5 minutes on 2 cores: an instrumented build of each program costs
# seconds); ASAN_EVERY=N runs every Nth program (in name order) for a quicker check.
# See docs/testing.md.
set -uo pipefail
cd "$(dirname "$0")/.."
P4DP=${P4DP:-target/dist/p4dp}
JOBS=${JOBS:-2}
make -s -C runtime asan-lib >/dev/null || { echo "corpus-asan: building the ASan runtime failed"; exit 1; }
libasan=$(gcc -print-file-name=libasan.so)
[ -f "$libasan" ] || { echo "corpus-asan: gcc has no libasan.so"; exit 1; }
export P4DP_CFLAGS="-fsanitize=address -fno-omit-frame-pointer -fno-sanitize-recover=all"
export LD_LIBRARY_PATH="$PWD/build/runtime/asan/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# detect_leaks=0: the EAL keeps its memory until exit; verify_asan_link_order=0: p4dp is not linked
# with ASan (preloaded instead)
export ASAN_OPTIONS="detect_leaks=0 verify_asan_link_order=0 exitcode=67"
logdir=build/corpus-asan-logs; rm -rf "$logdir"; mkdir -p "$logdir"

# The check must not pass vacuously: a program built by this p4dp must really be instrumented.
probe=$logdir/probe
if ! LD_PRELOAD=$libasan "$P4DP" build tests/programs/action_direct_call.p4 -o "$probe" >"$logdir/probe.log" 2>&1 \
   || ! nm -D "$probe"/*.so | grep -q __asan_; then
  echo "corpus-asan: $P4DP does not build programs with P4DP_CFLAGS (log: $logdir/probe.log)"
  exit 1
fi

run_one() {
  local p4=$1 name; name=$(basename "${p4%.p4}")
  if LD_PRELOAD=$libasan timeout 300 "$P4DP" stf --burst "$p4" "${p4%.p4}.stf" >"$logdir/$name.log" 2>&1; then
    echo "PASS $p4"
  else
    echo "FAIL $p4 (log: $logdir/$name.log)"
  fi
}
export -f run_one; export P4DP logdir libasan
progs=$(ls tests/programs/*.stf | sed 's/\.stf$/.p4/')
every=${ASAN_EVERY:-1}
[[ "$every" =~ ^[1-9][0-9]*$ ]] || { echo "corpus-asan: ASAN_EVERY must be a positive integer"; exit 1; }
progs=$(echo "$progs" | awk -v n="$every" 'NR % n == 1 % n')
results=$(echo "$progs" | xargs -P "$JOBS" -I{} bash -c 'run_one {}')
echo "$results" | grep '^FAIL' || true
pass=$(echo "$results" | grep -c '^PASS' || true)
fail=$(echo "$results" | grep -c '^FAIL' || true)
echo "corpus under ASan: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
