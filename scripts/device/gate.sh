#!/usr/bin/env bash
# On the GPU: scripts/device_gate_check.sh (same build passes, slower build fails,
# another contract is refused). Summary: $1/gate.md.
set -uo pipefail
mkdir -p "$1/gate"
OUT="$1/gate" bash scripts/device_gate_check.sh
cp "$1/gate/device_gate.md" "$1/gate.md" 2>/dev/null || echo "no gate summary produced"
