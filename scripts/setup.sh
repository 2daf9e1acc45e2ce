#!/usr/bin/env bash
# Installs what p4dp needs on a fresh Debian bookworm machine. Idempotent: does nothing when all is present.
set -euo pipefail
pkgs=(build-essential pkg-config dpdk-dev libdpdk-dev libpcap-dev libbsd-dev libnuma-dev python3 cpp iproute2 libtsan2)  # libtsan2: make test-tsan
missing=()
for p in "${pkgs[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
if ! command -v cargo >/dev/null 2>&1; then
  if [ -x "$HOME/.cargo/bin/cargo" ]; then export PATH="$HOME/.cargo/bin:$PATH"
  else
    echo "setup: installing Rust from Debian (cargo, rustc)"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq cargo rustc >/dev/null
  fi
fi
pkg-config --exists libdpdk || { echo "setup: libdpdk not found by pkg-config" >&2; exit 1; }
bash "$(dirname "$0")/fetch_p4runtime_protos.sh"  # P4Runtime .proto files for crates/p4dp-p4runtime
