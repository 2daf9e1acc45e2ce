#!/usr/bin/env bash
# Robustness of `p4dp run`, `stf` and `build` against hostile input and signals: each case states
# the outcome it expects (exit status, the message, input files intact byte for byte, outputs that
# are valid pcaps, no temporary directory or gcc child left behind). Every command runs under
# `timeout`, so a hang is a failure, not a stuck suite.
# Usage: bash tests/robustness/run.sh   (P4DP=path/to/p4dp to test another binary)
set -uo pipefail
# A shell started with SIGINT ignored (a background job of a shell without job control) cannot
# undo it and passes it on to every program it starts, and p4dp keeps an inherited "ignore": the
# signal cases would fail for the harness's reason. Start this script again with SIGINT at its
# default.
if (( (16#$(awk '/^SigIgn:/ {print $2}' /proc/$$/status) >> 1) & 1 )); then
  exec python3 -c 'import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); os.execvp("bash", ["bash", *sys.argv[1:]])' "$0" "$@"
fi
# job control: background commands keep SIGINT (a non-interactive shell starts them with SIGINT
# ignored, and p4dp leaves an inherited "ignore" as it is)
set -m
cd "$(dirname "$0")/../.."
P4DP=${P4DP:-target/dist/p4dp}
P4DP=$(realpath "$P4DP")
EX=$(realpath examples)
work=$(mktemp -d /tmp/p4dp-robustness.XXXXXX)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null; done
  rm -rf "$work"
}
trap cleanup EXIT
cd "$work"
fails=0
ok() { echo "  ok: $1"; }
bad() { echo "  FAIL: $1"; fails=$((fails + 1)); }
# expect_rc NAME WANT GOT
expect_rc() { if [ "$3" = "$2" ]; then ok "$1: exit $3"; else bad "$1: exit $3, expected $2"; fi; }
# expect_in NAME FILE TEXT: FILE contains TEXT (fixed string)
expect_in() { if grep -qF -- "$3" "$2"; then ok "$1: says '$3'"; else bad "$1: no '$3' in:"; sed 's/^/      /' "$2" | head -20; fi; }
expect_not_in() { if ! grep -qF -- "$3" "$2"; then ok "$1: no '$3'"; else bad "$1: '$3' in $2"; fi; }
# a valid pcap: a classic header with the Ethernet link type; with WANT_BYTES, exactly that size
expect_pcap() {
  python3 - "$2" "${3:-}" <<'PY' && ok "$1: $2 is a valid pcap" || bad "$1: $2 is not a valid pcap"
import sys, os
d = open(sys.argv[1], "rb").read()
le = d[:4] in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1")  # microsecond, nanosecond magic
be = d[:4] in (b"\xa1\xb2\xc3\xd4", b"\xa1\xb2\x3c\x4d")
ok = len(d) >= 24 and (le or be) and int.from_bytes(d[20:22] if le else d[22:24], "little" if le else "big") == 1
at = 24  # every record complete
while ok and at < len(d):
    incl = int.from_bytes(d[at + 8:at + 12], "little" if le else "big")
    ok = len(d) - at >= 16 + incl
    at += 16 + incl
if sys.argv[2]: ok = ok and len(d) == int(sys.argv[2])
sys.exit(0 if ok else 1)
PY
}
expect_same() { if cmp -s "$2" "$3"; then ok "$1: $2 intact"; else bad "$1: $2 changed"; fi; }
# wait_for FILE TEXT SECONDS
wait_for() { for _ in $(seq 1 $(($3 * 10))); do grep -qF -- "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done; return 1; }
# finish PID: its exit status, after at most 20 s (then it is killed: a hang is a failure)
finish() {
  timeout 20 tail --pid="$1" -f /dev/null || { bad "pid $1 still runs after 20 s: killed"; kill -KILL "$1"; }
  wait "$1"
}
# children PID: the processes whose parent is PID
children() { ps -o pid= --ppid "$1" 2>/dev/null | tr -d ' '; }

# inputs: 20 Ethernet frames; the same cut short, with a record length of 0x7fffffff, with the
# raw-IP link type, and a pcapng file with an interface but no packets
python3 "$OLDPWD/scripts/gen_pcap.py" --count 20 --out in.pcap >/dev/null
python3 - <<'PY'
import struct
d = open("in.pcap", "rb").read()
open("cut.pcap", "wb").write(d[:-10])
b = bytearray(d); at = 24
for _ in range(2): at += 16 + int.from_bytes(b[at + 8:at + 12], "little")
b[at + 8:at + 12] = (0x7fffffff).to_bytes(4, "little")
open("huge.pcap", "wb").write(b)
r = bytearray(d); r[20:24] = (101).to_bytes(4, "little")
open("raw.pcap", "wb").write(r)
def block(t, body): return struct.pack("<II", t, 12 + len(body)) + body + struct.pack("<I", 12 + len(body))
open("empty.pcapng", "wb").write(block(0x0a0d0d0a, struct.pack("<IHHq", 0x1a2b3c4d, 1, 0, -1)) + block(1, struct.pack("<HHI", 1, 0, 0)))
PY
for f in in cut huge raw; do cp $f.pcap $f.orig; done
RUN=("$P4DP" run "$EX/l2l3.p4")

echo "pcap input that cannot be read to its end: counted as far as it can be read; the run ends"
cp "$EX/l2l3.entries" removed.entries; echo "remove all" >>removed.entries
timeout 60 "${RUN[@]}" --port 0=cut.pcap:out0.pcap --port 1=huge.pcap:out1.pcap --port 2=empty.pcapng:out2.pcap \
  --port 3=:out3.pcap --table-entries removed.entries >drain.out 2>drain.err
expect_rc "drain" 0 $?
expect_in "drain" drain.err "cut.pcap: record 20 (at byte 1268) is cut short: 44 of its 54 bytes"
expect_in "drain" drain.err "huge.pcap: record 3 (at byte 108) claims 2147483647 captured bytes"
expect_in "drain" drain.out "     0         19          940"
expect_in "remove all" drain.err "installed 0 table entries from removed.entries"
expect_same "drain" cut.pcap cut.orig
expect_same "drain" huge.pcap huge.orig
for i in 0 1 2; do expect_pcap "drain" out$i.pcap; done
expect_pcap "drain, a port that sent nothing" out3.pcap 24

echo "outputs that would overwrite an input or each other: refused before anything is opened"
ln -s in.pcap link.pcap
i=0
while IFS='|' read -r args msg; do
  i=$((i + 1))
  cp in.orig in.pcap; rm -f same.pcap o0.pcap
  # shellcheck disable=SC2086
  timeout 30 "${RUN[@]}" $args >ovl$i.out 2>ovl$i.err
  expect_rc "overlap $i ($args)" 2 $?
  expect_in "overlap $i" ovl$i.err "$msg"
  expect_same "overlap $i" in.pcap in.orig
  [ "$(wc -l <ovl$i.err)" = 1 ] && ok "overlap $i: one line" || bad "overlap $i: more than one line"
done <<'CASES'
--port 0=in.pcap:in.pcap|error: --port 0=in.pcap:in.pcap: the output in.pcap is also the input of port 0
--port 0=in.pcap:o0.pcap --port 2=:in.pcap|error: --port 2=:in.pcap: the output in.pcap is also the input of port 0
--port 0=in.pcap --port 2=:./link.pcap|the output ./link.pcap is also the input of port 0
--port 0=in.pcap --port 1=:same.pcap --port 2=:./same.pcap|the output ./same.pcap is also the output of port 1: two ports cannot write one file
--port 0=in.pcap --vdev 1=net_pcap9,rx_pcap=in.pcap,tx_pcap=in.pcap|refusing to overwrite an input
CASES
[ ! -e same.pcap ] && ok "overlap: no output file created" || bad "overlap: same.pcap was created"
cp in.orig in.pcap

echo "bad options and inputs: one clear line, exit 2, no panic"
while IFS='|' read -r cmd msg; do
  # shellcheck disable=SC2086
  timeout 30 "$P4DP" $cmd >opt.out 2>opt.err
  expect_rc "$cmd" 2 $?
  expect_in "$cmd" opt.err "$msg"
  expect_not_in "$cmd" opt.err "panicked"
  expect_not_in "$cmd" opt.err "EAL"
  case "$cmd" in *--duration*) expect_in "$cmd" opt.err "seconds: give a number greater than 0 and at most 31536000" ;; esac
done <<CASES
run $EX/l2l3.p4 --port 0=in.pcap --duration nan|invalid value 'nan' for '--duration <SECONDS>'
run $EX/l2l3.p4 --port 0=in.pcap --duration inf|invalid value 'inf' for '--duration <SECONDS>'
run $EX/l2l3.p4 --port 0=in.pcap --duration=-1|invalid value '-1' for '--duration <SECONDS>'
run $EX/l2l3.p4 --port 0=in.pcap --duration 1e30|invalid value '1e30' for '--duration <SECONDS>'
run $EX/l2l3.p4 --port 0=in.pcap --workers 1000000|1000000 is not in 1..=127
run $EX/l2l3.p4 --port 0=in.pcap --mem 0|0 is not in 64..=1048576
run $EX/l2l3.p4 --port 0=in.pcap --iface 5=nosuch|error: --iface 5=nosuch: no network interface named
run $EX/l2l3.p4 --port 0=raw.pcap|raw.pcap has link type 101 (RAW, IP without a link header), not Ethernet (1)
build $EX/l2l3.p4 -o /dev/null|error: /dev/null: exists and is not a directory
serve --duration nan|invalid value 'nan' for '--duration <SECONDS>'
serve --duration=-1|invalid value '-1' for '--duration <SECONDS>'
serve --workers 1000000|1000000 is not in 1..=127
serve --mem 1|1 is not in 64..=1048576
CASES
expect_same "link type" raw.pcap raw.orig

echo "table entries that fail: their own wording, a final newline"
printf 'add l2_fwd hdr.ethernet.dstAddr:0x00000000b001 l2_forward(port:1)\nadd l2_fwd hdr.ethernet.dstAddr:0x00000000b001 l2_forward(port:2)\n' >dup.entries
timeout 60 "${RUN[@]}" --port 0=in.pcap:o.pcap --table-entries dup.entries >dup.out 2>dup.err
expect_rc "entries" 2 $?
expect_in "entries" dup.err "dup.entries:2: error: adding the entry failed"
expect_in "entries" dup.err "installing the table entries failed at line 2"
expect_not_in "entries" dup.err "packet output was not compared"
# the report's last line is p4dp's error on a line of its own, ended by a newline
tail -n 1 dup.err | grep -q '^error: ' && [ -z "$(tail -c 1 dup.err)" ] && ok "entries: the error is a line of its own" ||
  bad "entries: the error does not start a line: $(tail -n 1 dup.err)"

echo "a run with live ports goes on after its pcap input is drained and after the last live packet,"
echo "until SIGINT: then it stops cleanly, prints statistics, writes valid outputs, exits 130"
rm -f live*.pcap
live=(--vdev 2=net_ring0)
# the lo interface through af_packet needs root: there a live port receives packets, then none
[ "$(id -u)" = 0 ] && live+=(--iface 3=lo) || echo "  (not root: no --iface lo port)"
"${RUN[@]}" --port 0=in.pcap:live0.pcap --port 1=:live1.pcap "${live[@]}" >live.out 2>live.err &
pid=$!; pids+=("$pid")
wait_for live.err "running until stopped" 40 || bad "live: no 'running until stopped'"
python3 -c 'import socket; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); [s.sendto(b"x" * 20, ("127.0.0.1", 9)) for _ in range(5)]'
sleep 1.5
kill -0 "$pid" 2>/dev/null && ok "live: still running 1.5 s after the input was drained" || bad "live: ended by itself"
kill -INT "$pid"
finish "$pid"
expect_rc "live SIGINT" 130 $?
expect_in "live SIGINT" live.out "     0         20          994"
if [ "$(id -u)" = 0 ]; then
  grep -qE '^ +3 +[1-9]' live.out && ok "live: lo received packets" || bad "live: lo received nothing"
fi
expect_pcap "live SIGINT" live0.pcap
expect_pcap "live SIGINT, a port that sent nothing" live1.pcap 24
expect_same "live SIGINT" in.pcap in.orig
[ ! -e "/tmp/p4dp-run-$pid" ] && ok "live SIGINT: temporary directory removed" || bad "live SIGINT: /tmp/p4dp-run-$pid left"

echo "SIGTERM while gcc compiles: gcc ended, temporary directory removed, exit 143"
"${RUN[@]}" --port 0=in.pcap:c.pcap >comp.out 2>comp.err &
pid=$!; pids+=("$pid")
kids=""
for _ in $(seq 1 100); do kids=$(children "$pid"); [ -n "$kids" ] && break; sleep 0.05; done
[ -n "$kids" ] && ok "compile: gcc runs ($kids)" || bad "compile: no gcc child seen"
kill -TERM "$pid"
finish "$pid"
expect_rc "compile SIGTERM" 143 $?
sleep 0.2
for k in $kids; do [ -d "/proc/$k" ] && [ "$(awk '{print $3}' "/proc/$k/stat")" != Z ] && bad "compile: child $k still runs"; done
[ ! -e "/tmp/p4dp-run-$pid" ] && ok "compile SIGTERM: temporary directory removed" || bad "compile SIGTERM: /tmp/p4dp-run-$pid left"

echo "SIGTERM while a slow compile runs: gcc is started with no signal blocked and ends, exit 143"
# gcc runs cc1 under this wrapper (gcc -wrapper): it records the signal mask of the gcc driver
# that p4dp started (its parent; the shell itself starts with its own mask cleared), then takes
# 60 s. A driver that inherited p4dp's blocked SIGTERM could not be ended by a signal.
cat >slowcc.sh <<'WRAP'
#!/bin/sh
grep SigBlk "/proc/$PPID/status" >"$(dirname "$0")/slowcc.mask"
sleep 60
exec "$@"
WRAP
chmod +x slowcc.sh
P4DP_CFLAGS="-wrapper $work/slowcc.sh" "${RUN[@]}" --port 0=in.pcap:s.pcap >slow.out 2>slow.err &
pid=$!; pids+=("$pid")
wait_for slowcc.mask SigBlk 30 && ok "slow compile: the compiler runs" || bad "slow compile: the wrapper never ran"
expect_in "slow compile" slowcc.mask "SigBlk:	0000000000000000"
t0=$(date +%s)
kill -TERM "$pid"
finish "$pid"
expect_rc "slow compile SIGTERM" 143 $?
[ $(( $(date +%s) - t0 )) -lt 15 ] && ok "slow compile: ended without waiting for the compiler" || bad "slow compile: waited for the compiler"

echo "two SIGINTs while \`p4dp stf\` compiles: ends at once, temporary directory removed, exit 130"
"$P4DP" stf "$EX/l2l3.p4" "$EX/l2l3.stf" >stf.out 2>stf.err &
pid=$!; pids+=("$pid")
for _ in $(seq 1 100); do [ -n "$(children "$pid")" ] && break; sleep 0.05; done
kill -INT "$pid"; sleep 0.05; kill -INT "$pid"
finish "$pid"
expect_rc "stf SIGINT x2" 130 $?
[ ! -e "/tmp/p4dp-stf-$pid" ] && ok "stf SIGINT x2: temporary directory removed" || bad "stf SIGINT x2: /tmp/p4dp-stf-$pid left"

if [ "$fails" = 0 ]; then echo "robustness: all cases passed"; else echo "robustness: $fails check(s) FAILED"; exit 1; fi
