#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Check the runtime's layering (ARCHITECTURE.md, "Runtime layers") on the built objects.

Usage: layers.py OBJ_DIR. Reads the symbols each object defines and uses (nm) and fails when a
file calls a function of a file in the same or a higher layer, or of a file not listed here: the
calls between the runtime's files must stay a DAG, lower layers never calling upper ones.
"""
import glob
import os
import subprocess
import sys

# file -> layer; a file may call only files of a strictly lower layer.
LAYERS = {
    "err": 0, "rcu": 0, "table_mem": 0,
    "conv": 1, "table_util": 1, "table_xindex": 1, "rtc_sync": 1,
    "table_exact": 2, "table_lpm": 2, "table_tm": 2, "table_keyless": 2,
    "table_common": 3,
    "dpwrite": 4, "externs": 4, "pkt": 4, "port": 4,
    "ctl": 5, "rtc_table": 5,
    "actprof": 6, "direct": 6, "batch": 6,
    "rtc_bg": 7, "liveness": 7,
    "worker": 8, "runtime": 8,
    "rtc_run": 9,
    "bench": 9, "bench_dp": 10, "bench_lpm": 10, "bench_acl": 10, "bench_rtc": 10, "bench_trace": 11,
}


def symbols(obj):
    out = subprocess.run(["nm", obj], capture_output=True, text=True, check=True).stdout
    defined, used = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "TDRB":
            defined.add(parts[2])
        elif len(parts) == 2 and parts[0] == "U":
            used.add(parts[1])
    return defined, used


def main():
    objs = sorted(glob.glob(os.path.join(sys.argv[1], "*.o")) + glob.glob(os.path.join(sys.argv[1], "bench", "*.o")))
    owner, uses = {}, {}
    for o in objs:
        name = os.path.basename(o)[:-2]
        defined, used = symbols(o)
        for s in defined:
            owner[s] = name
        uses[name] = used
    bad = []
    for name, used in sorted(uses.items()):
        if name not in LAYERS:
            bad.append(f"{name}.c is not in a layer (tests/layers.py)")
            continue
        for s in sorted(used):
            callee = owner.get(s)
            if callee is None or callee == name:
                continue
            if LAYERS.get(callee, 99) >= LAYERS[name]:
                bad.append(f"{name}.c (layer {LAYERS[name]}) calls {s} of {callee}.c (layer {LAYERS.get(callee)})")
    for b in bad:
        print("layering violation:", b)
    print(f"layers: {len(uses)} files, {len(bad)} violations")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
