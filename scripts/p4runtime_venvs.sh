#!/usr/bin/env bash
# Creates the Python environments of the P4Runtime client tests (tests/p4runtime/), cached under
# build/: p4runtime-shell (which pins protobuf < 3.21) and finsy each get their own venv, since
# their protobuf requirements conflict. Idempotent: a venv whose stamp exists is kept.
set -euo pipefail
cd "$(dirname "$0")/.."
SHELL_VERSION=0.0.6
FINSY_VERSION=0.30.0
mk() { # name, stamp, packages...
  local dir=build/venv-$1 stamp=$2; shift 2
  [ -f "$dir/$stamp" ] && return 0
  echo "setup: creating $dir ($*)"
  rm -rf "$dir"
  python3 -m venv "$dir"
  "$dir/bin/pip" install --quiet --disable-pip-version-check "$@"
  touch "$dir/$stamp"
}
mk p4rt-shell ".p4runtime-shell-$SHELL_VERSION" "p4runtime-shell==$SHELL_VERSION"
mk finsy ".finsy-$FINSY_VERSION" "finsy==$FINSY_VERSION"
