#!/usr/bin/env bash
# P4Runtime with real clients: `p4dp serve` on two af_packet ports (veth pairs whose host ends
# live in network namespaces), driven by p4runtime-shell and finsy (their venvs come from
# scripts/p4runtime_venvs.sh). Frames sent into port 0 must reach port 1 exactly when the dmac
# entry the controller wrote says so; with stream.p4 finsy's PacketOuts must leave port 1 and the
# frames sent into port 0 come back to it as PacketIns and a digest; p4runtime-shell also drives a
# switch on a Unix socket. Needs root and iproute2; SKIP where namespaces cannot be made.
set -uo pipefail
cd "$(dirname "$0")/../.."
P4DP=${P4DP:-target/dist/p4dp}
SHPY=build/venv-p4rt-shell/bin/python FYPY=build/venv-finsy/bin/python
tag=p4rt$$ nsa=p4rt$$a nsb=p4rt$$b
work=$(mktemp -d)
cleanup() {
  [ -n "${pid:-}" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
  ip netns del "$nsa" 2>/dev/null; ip netns del "$nsb" 2>/dev/null
  ip link del "${tag}0" 2>/dev/null; ip link del "${tag}1" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
if ! ip netns add "$nsa" 2>/dev/null; then echo "p4runtime clients: SKIP (cannot create network namespaces here)"; exit 0; fi
bash scripts/p4runtime_venvs.sh || { echo "p4runtime clients: FAIL (cannot create the client venvs)"; exit 1; }
ip netns add "$nsb"
ip link add "${tag}0" type veth peer name h0 netns "$nsa"
ip link add "${tag}1" type veth peer name h1 netns "$nsb"
for l in "${tag}0" "${tag}1"; do ip link set "$l" up; done
ip -n "$nsa" link set h0 up; ip -n "$nsb" link set h1 up
"$P4DP" build tests/p4runtime/fwd.p4 -o "$work/out" >/dev/null 2>&1 || { echo "p4runtime clients: FAIL (build)"; exit 1; }
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
addr=127.0.0.1:$port
"$P4DP" serve --iface "0=${tag}0" --iface "1=${tag}1" --p4runtime "$addr" --duration 240 >"$work/serve.log" 2>&1 &
pid=$!
for _ in $(seq 50); do python3 -c "import socket; socket.create_connection(('127.0.0.1',$port),0.2)" 2>/dev/null && break; sleep 0.2; done

pass=0 fail=0
ok() { echo "  ok: $1"; pass=$((pass+1)); }
bad() { echo "  FAIL: $1"; fail=$((fail+1)); }
# frames from ns_a (port 0) that arrive in ns_b (port 1), of 10 sent to 02:00:00:00:00:01
arrive() {
  ip netns exec "$nsb" python3 - "$work/rx" <<'PY' &
import socket, sys, time
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x0003)); s.bind(("h1", 0)); s.settimeout(0.2)
open(sys.argv[1] + ".ready", "w").close()  # the sender waits for this: a loaded machine starts us late
n, end = 0, time.time() + 2.5
while time.time() < end:
    try: f = s.recv(2048)
    except socket.timeout: continue
    if f[:6] == bytes.fromhex("020000000001") and f[12:14] in (b"\x88\xb5", b"\x88\xb6"): n += 1
open(sys.argv[1], "w").write(str(n))
PY
  local rx=$!
  for _ in $(seq 100); do [ -e "$work/rx.ready" ] && break; sleep 0.05; done
  rm -f "$work/rx.ready"
  ip netns exec "$nsa" python3 - <<'PY'
import socket, time
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW); s.bind(("h0", 0))
for i in range(10):
    s.send(bytes.fromhex("020000000001") + bytes.fromhex("020000000010") + b"\x88\xb5" + bytes([i]) * 46)
    time.sleep(0.02)
PY
  wait "$rx"; cat "$work/rx"
}
step() { # client step expected-arrivals
  local py=$1 script=$2 st=$3 want=$4
  if "$py" "tests/p4runtime/$script" "$addr" "$work/out" "$st" >"$work/$st.log" 2>&1; then
    n=$(arrive)
    if [ "$n" = "$want" ]; then ok "$script $st: $n/10 frames reached port 1"; else bad "$script $st: $n/10 frames reached port 1, want $want"; fi
  else
    bad "$script $st"; tail -5 "$work/$st.log"
  fi
}
step "$SHPY" shell_client.py push 0
step "$SHPY" shell_client.py insert 10
step "$SHPY" shell_client.py modify 0
step "$SHPY" shell_client.py delete 0
step "$FYPY" finsy_client.py primary 10
# packet I/O and digests (stream.p4): 10 PacketOuts to port 1 must arrive on its far side
"$P4DP" build tests/p4runtime/stream.p4 -o "$work/out" >/dev/null 2>&1 || bad "build stream.p4"
if "$FYPY" tests/p4runtime/finsy_stream.py "$addr" "$work/out" push >"$work/spush.log" 2>&1; then
  ok "finsy_stream.py push"
else
  bad "finsy_stream.py push"; tail -5 "$work/spush.log"
fi
ip netns exec "$nsb" python3 - "$work/srx" <<'PY' &
import socket, sys, time
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x0003)); s.bind(("h1", 0)); s.settimeout(0.2)
open(sys.argv[1] + ".ready", "w").close()
n, end = 0, time.time() + 30
while time.time() < end and n < 10:
    try: f = s.recv(2048)
    except socket.timeout: continue
    if f[:6] == bytes.fromhex("020000000001") and f[12:14] == b"\x88\xb6": n += 1
open(sys.argv[1], "w").write(str(n))
PY
srx=$!
for _ in $(seq 100); do [ -e "$work/srx.ready" ] && break; sleep 0.05; done
if "$FYPY" tests/p4runtime/finsy_stream.py "$addr" "$work/out" io "$nsa" >"$work/sio.log" 2>&1; then
  ok "finsy_stream.py io: packet-ins from port 0 and a digest received (acknowledged)"
else
  bad "finsy_stream.py io"; tail -5 "$work/sio.log"
fi
wait "$srx"; n=$(cat "$work/srx")
if [ "$n" = 10 ]; then ok "finsy PacketOuts: $n/10 frames left port 1"; else bad "finsy PacketOuts: $n/10 frames left port 1"; fi
kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; pid=
grep -q "switch-over" "$work/serve.log" || bad "no switch-over reported"
# p4runtime-shell over a Unix socket (docs/p4runtime.md "Unix socket"), a switch with no ports
sock="$work/p4rt.sock"
"$P4DP" serve --p4runtime "unix:$sock" --duration 120 >"$work/userve.log" 2>&1 &
pid=$!
for _ in $(seq 50); do [ -S "$sock" ] && break; sleep 0.2; done
if "$SHPY" tests/p4runtime/shell_client.py "unix:$sock" "$work/out" push >"$work/upush.log" 2>&1 &&
   "$SHPY" tests/p4runtime/shell_client.py "unix:$sock" "$work/out" insert >"$work/uinsert.log" 2>&1; then
  ok "shell_client.py push, insert over unix:$sock: entries of every match kind read back"
else
  bad "shell_client.py over a Unix socket"; tail -5 "$work/upush.log" "$work/uinsert.log"; cat "$work/userve.log"
fi
kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; pid=
[ ! -e "$sock" ] || bad "the switch left its socket file behind"
if [ "$fail" -ne 0 ]; then echo "--- p4dp serve log"; cat "$work/serve.log"; fi
echo "p4runtime clients: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
