"""finsy steps of tests/p4runtime/clients.sh with tests/p4runtime/stream.p4:
python finsy_stream.py ADDR DIR STEP [NS_IN]

push: finsy connects as primary (election id 40) and pushes stream.p4.
io: finsy configures the learn_t digest (lists of one, acknowledged), sends 10 PacketOuts to
port 1 (to 02:00:00:00:00:01, ethertype 0x88b6: the frames clients.sh counts on the far side of
port 1), then has 3 frames sent into port 0 (from network namespace NS_IN, interface h0) to an
unknown destination: it must receive each as a PacketIn with ingress_port 0 and its source MAC
in a DigestList (learned on port 0), which it acknowledges.
"""
import asyncio
import subprocess
import sys
from pathlib import Path

import finsy as fy

addr, d, step = sys.argv[1], Path(sys.argv[2]), sys.argv[3]
SRC = "02:00:00:00:00:30"
TIMEOUT = 20.0


def send_into_port0(ns: str):
    """Three frames from the host end of port 0 to 02:00:00:00:00:99 (unknown to dmac)."""
    code = (
        "import socket, time\n"
        "s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW); s.bind(('h0', 0))\n"
        "for i in range(3):\n"
        "    s.send(bytes.fromhex('020000000099') + bytes.fromhex('020000000030') + b'\\x88\\xb5' + bytes([i]) * 46)\n"
        "    time.sleep(0.05)\n"
    )
    subprocess.run(["ip", "netns", "exec", ns, "python3", "-c", code], check=True)


async def packet_ins(sw, n):
    got = []
    async for p in sw.read_packets():
        if p.payload[:6] == bytes.fromhex("020000000099"):
            got.append(p)
            if len(got) == n:
                return got


async def digests(sw, want):
    """DigestLists (each acknowledged) until one learns `want` (src, port)."""
    got = []
    async for dl in sw.read_digests("learn_t"):
        await sw.write([dl.ack()])
        got.extend(dl.data)
        if any((x["src"], x["port"]) == want for x in dl.data):
            return got


async def main():
    opts = fy.SwitchOptions(p4info=d / "stream.p4info.txtpb", p4blob=d / "stream.device.bin", initial_election_id=40)
    async with fy.Switch("sw", addr, opts) as sw:
        assert sw.is_primary, "finsy is not primary"
        if step == "push":
            print("finsy pushed stream.p4")
            return
        await sw.write([+fy.P4DigestEntry("learn_t", max_list_size=1, max_timeout_ns=0, ack_timeout_ns=10**9)])
        got = [e async for e in sw.read(fy.P4DigestEntry())]
        assert len(got) == 1 and got[0].max_list_size == 1, got
        frame = bytes.fromhex("020000000001") + bytes.fromhex("020000000020") + b"\x88\xb6" + bytes(46)
        await sw.write([fy.P4PacketOut(frame, egress_port=1, pad=0) for _ in range(10)])
        pins = asyncio.ensure_future(packet_ins(sw, 3))
        digs = asyncio.ensure_future(digests(sw, (int(SRC.replace(":", ""), 16), 0)))
        await asyncio.sleep(0.2)  # the readers' queues are open
        await asyncio.get_running_loop().run_in_executor(None, send_into_port0, sys.argv[4])
        pkts = await asyncio.wait_for(pins, TIMEOUT)
        for p in pkts:
            assert p["ingress_port"] == 0, p
        print("finsy packet-ins:", len(pkts), pkts[0])
        data = await asyncio.wait_for(digs, TIMEOUT)
        print("finsy digests:", data)
    print("finsy", step, "ok")


asyncio.run(main())
