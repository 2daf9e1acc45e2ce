"""p4runtime-shell steps of tests/p4runtime/clients.sh: python shell_client.py ADDR DIR STEP."""
import sys

import grpc
import p4runtime_sh.shell as sh

addr, d, step = sys.argv[1], sys.argv[2], sys.argv[3]
if addr.startswith("unix:"):
    # gRPC's C core sends a Unix socket's path as the HTTP/2 :authority, which the switch's
    # HTTP/2 server (h2) refuses as malformed; clients name the authority `localhost` instead
    # (docs/p4runtime.md "Unix socket"). p4runtime-shell makes its channel itself, so the
    # channel's maker is wrapped.
    _channel = grpc.insecure_channel

    def _localhost(target, options=None, compression=None):
        return _channel(target, [("grpc.default_authority", "localhost")] + list(options or []), compression)

    grpc.insecure_channel = _localhost
DMAC, FWD = "FwdIngress.dmac", "FwdIngress.forward"


def entry(port=None):
    te = sh.TableEntry(DMAC)(action=FWD) if port is not None else sh.TableEntry(DMAC)
    te.match["h.eth.dst"] = "02:00:00:00:00:01"
    if port is not None:
        te.action["port"] = str(port)
    return te


if step == "push":
    sh.setup(device_id=1, grpc_addr=addr, election_id=(0, 1),
             config=sh.FwdPipeConfig(d + "/fwd.p4info.txtpb", d + "/fwd.device.bin"))
    assert list(sh.TableEntry(DMAC).read()) == [], "a new pipeline has no entries"
else:
    sh.setup(device_id=1, grpc_addr=addr, election_id=(0, 1))
    if step == "insert":
        entry(1).insert()
    elif step == "modify":
        entry(0).modify()
    elif step == "delete":
        entry().delete()
    # every match kind: lpm, ternary + range + optional with a priority
    if step == "insert":
        lpm = sh.TableEntry("FwdIngress.src_lpm")(action="FwdIngress.set_src")
        lpm.match["h.eth.src"] = "02:00:00:00:00:00/24"
        lpm.action["mac"] = "02:00:00:00:00:aa"
        lpm.insert()
        acl = sh.TableEntry("FwdIngress.acl")(action="FwdIngress.set_etype")
        acl.match["h.eth.etype"] = "0x88b5&&&0xffff"
        acl.match["h.eth.dst"] = "02:00:00:00:00:01"
        acl.match["h.eth.src"] = "0..0x0200000000ff"
        acl.action["t"] = "0x88b6"
        acl.priority = 10
        acl.insert()
        got = list(sh.TableEntry("FwdIngress.acl").read())
        assert len(got) == 1 and got[0].priority == 10, got
        got = list(sh.TableEntry("FwdIngress.src_lpm").read())
        assert len(got) == 1, got
    entries = list(sh.TableEntry(DMAC).read())
    ports = [int.from_bytes(e.msg().action.action.params[0].value, "big") for e in entries]
    print(step, "dmac ports:", ports)
    want = {"insert": [1], "modify": [0], "delete": []}[step]
    assert ports == want, (step, ports)
sh.teardown()
print("shell", step, "ok")
