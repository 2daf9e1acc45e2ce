"""finsy steps of tests/p4runtime/clients.sh: python finsy_client.py ADDR DIR STEP.

primary: finsy connects as primary (election id 30), inserts the dmac entry (port 1) and reads it
back, and a clone session with two replicas. backup: a second client (raw stubs from finsy's protos) with a lower election id is told
it is a backup and its Write is refused with PERMISSION_DENIED while the primary is connected.
"""
import asyncio
import sys
import time
from pathlib import Path

import finsy as fy
import grpc
from finsy.p4entity import P4Replica
from finsy.proto import p4r, p4r_grpc

addr, d, step = sys.argv[1], Path(sys.argv[2]), sys.argv[3]


def backup_write_refused():
    ch = grpc.insecure_channel(addr)
    stub = p4r_grpc.P4RuntimeStub(ch)
    req = p4r.StreamMessageRequest(arbitration=p4r.MasterArbitrationUpdate(
        device_id=1, election_id=p4r.Uint128(high=0, low=5)))
    stream = stub.StreamChannel(_forever(req))
    first = next(stream)
    code = first.arbitration.status.code
    assert code == 6, f"backup arbitration status {code}, want ALREADY_EXISTS (6)"
    try:
        stub.Write(p4r.WriteRequest(device_id=1, election_id=p4r.Uint128(high=0, low=5)))
    except grpc.RpcError as e:
        assert e.code() == grpc.StatusCode.PERMISSION_DENIED, e.code()
        print("backup write refused:", e.code())
    else:
        raise AssertionError("a backup's write was accepted")
    stream.cancel()


def _forever(first):
    """The request side of the backup's stream: its arbitration, then open for a while."""
    yield first
    time.sleep(5)


async def main():
    opts = fy.SwitchOptions(p4info=d / "fwd.p4info.txtpb", p4blob=d / "fwd.device.bin", initial_election_id=30)
    async with fy.Switch("sw", addr, opts) as sw:
        assert sw.is_primary, "finsy is not primary"
        if step == "primary":
            await sw.write([+fy.P4TableEntry(
                "FwdIngress.dmac",
                match=fy.P4TableMatch(dst="02:00:00:00:00:01"),
                action=fy.P4TableAction("FwdIngress.forward", port=1))])
            got = [e async for e in sw.read(fy.P4TableEntry("FwdIngress.dmac"))]
            assert len(got) == 1, got
            print("finsy read:", got[0])
            # a clone session with two replicas and truncation reads back as written
            cs = fy.P4CloneSessionEntry(5, packet_length_bytes=100, replicas=(
                P4Replica(1, instance=1), P4Replica(2, instance=2)))
            await sw.write([+cs])
            got = [e async for e in sw.read(fy.P4CloneSessionEntry())]
            assert got == [cs], got
            print("finsy clone session read:", got[0])
        await asyncio.get_running_loop().run_in_executor(None, backup_write_refused)
    print("finsy", step, "ok")


asyncio.run(main())
