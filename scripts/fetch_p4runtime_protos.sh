#!/usr/bin/env bash
# Fetches the official P4Runtime v1.5 .proto files (p4/v1, p4/config/v1, google/rpc) for the
# p4dp-p4runtime crate. They ship inside the PyPI wheel of `finsy`; the wheel is downloaded with pip
# by pinned version, checked against its sha256 and its .proto files extracted into
# build/p4runtime-protos/ (not committed). Idempotent: does nothing when the files are present.
set -euo pipefail
cd "$(dirname "$0")/.."
VERSION=0.30.0
SHA256=29f5194b40ac1c19caacbc4a138b3208b1efa1a6d930c51bccd834d273d22097
DEST=build/p4runtime-protos
STAMP="$DEST/.finsy-$VERSION"
[ -f "$STAMP" ] && exit 0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
echo "setup: fetching the P4Runtime .proto files (finsy $VERSION wheel)"
PY=$(command -v python3)
"$PY" -m pip download --quiet --no-deps --only-binary=:all: -d "$tmp" "finsy==$VERSION" >/dev/null
whl=$(ls "$tmp"/finsy-"$VERSION"-*.whl)
echo "$SHA256  $whl" | sha256sum -c --quiet - || { echo "setup: $whl: sha256 mismatch" >&2; exit 1; }
rm -rf "$DEST"; mkdir -p "$DEST"
"$PY" - "$whl" "$DEST" <<'PY'
import sys, zipfile, os
whl, dest = sys.argv[1], sys.argv[2]
want = ("finsy/proto/p4/v1/", "finsy/proto/p4/config/v1/", "finsy/proto/google/rpc/")
n = 0
with zipfile.ZipFile(whl) as z:
    for name in z.namelist():
        if name.endswith(".proto") and name.startswith(want):
            rel = name[len("finsy/proto/"):]
            os.makedirs(os.path.join(dest, os.path.dirname(rel)), exist_ok=True)
            with open(os.path.join(dest, rel), "wb") as f:
                f.write(z.read(name))
            n += 1
if n < 5:
    sys.exit(f"setup: only {n} .proto files found in {whl}")
PY
touch "$STAMP"
