#!/usr/bin/env bash
# System test of `p4dp run --iface` (DPDK net_af_packet on Linux interfaces): two veth pairs whose
# host ends live in network namespaces ns_a / ns_b. 20 frames (EtherType 0x88b5) sent from ns_a
# must arrive in ns_b with the source MAC rewritten by tests/system/port_fwd.p4.
# Needs root and iproute2; prints SKIP (exit 0) where namespaces cannot be created.
set -uo pipefail
cd "$(dirname "$0")/../.."
P4DP=${P4DP:-target/dist/p4dp}
tag=p4dp$$
nsa=${tag}a nsb=${tag}b
cleanup() {
  ip netns del "$nsa" 2>/dev/null; ip netns del "$nsb" 2>/dev/null
  ip link del "${tag}0" 2>/dev/null; ip link del "${tag}1" 2>/dev/null
  [ -n "${pid:-}" ] && kill "$pid" 2>/dev/null
  rm -rf "$work"
}
work=$(mktemp -d); trap cleanup EXIT
if ! ip netns add "$nsa" 2>/dev/null; then echo "iface: SKIP (cannot create network namespaces here)"; exit 0; fi
ip netns add "$nsb"
ip link add "${tag}0" type veth peer name h0 netns "$nsa"
ip link add "${tag}1" type veth peer name h1 netns "$nsb"
for l in "${tag}0" "${tag}1"; do ip link set "$l" up; done
ip -n "$nsa" link set h0 up; ip -n "$nsb" link set h1 up
# receiver first (counts matching frames for up to 8 s), then the switch, then the sender
ip netns exec "$nsb" python3 - "$work/rx.txt" <<'PY' &
import socket, sys, time
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x88b5)); s.bind(("h1", 0)); s.settimeout(0.5)
got, end = [], time.time() + 8
while time.time() < end and len(got) < 20:
    try: f = s.recv(2048)
    except socket.timeout: continue
    if f[12:14] == b"\x88\xb5": got.append(f)
open(sys.argv[1], "w").write("\n".join(f.hex() for f in got))
PY
rxpid=$!
"$P4DP" run tests/system/port_fwd.p4 --iface "0=${tag}0" --iface "1=${tag}1" --duration 6 >"$work/run.log" 2>&1 &
pid=$!
sleep 2.5
ip netns exec "$nsa" python3 - <<'PY'
import socket, time
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW); s.bind(("h0", 0))
for i in range(20):
    s.send(bytes.fromhex("020000000001") + bytes.fromhex("0200000000aa") + b"\x88\xb5" + bytes([i]) * 46)
    time.sleep(0.02)
PY
wait "$rxpid"; wait "$pid"; rc=$?; pid=
n=$(grep -c . "$work/rx.txt" 2>/dev/null || echo 0)
bad=$(grep -vc '^0200000000010200000000998' "$work/rx.txt" 2>/dev/null || true)
if [ "$rc" -ne 0 ] || [ "$n" -ne 20 ] || [ "${bad:-0}" -ne 0 ]; then
  echo "iface: FAIL (p4dp exit $rc, $n/20 frames received, $bad with a wrong source MAC)"; cat "$work/run.log"; exit 1
fi
echo "iface: 1 passed, 0 failed (20/20 frames forwarded through af_packet ports)"
