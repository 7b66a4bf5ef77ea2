#!/usr/bin/env bash
# Why small kernels read slower with fresh inputs than with one fixed input set, and what helps: an
# rmsnorm-like row kernel (64x256 to 4096x4096 fp32, warm) under caliber's graph and per_iter
# schedules, the fresh-input work split into its parts (separate input sets, the redraw, one
# allocation, the launch gate, sets drawn ahead of a batch), three interleaved rounds. The probe:
# scripts/device/fresh_inputs_probe.cu (built by scripts/device_stage.sh, or here when missing).
# Raw output: $1/fresh_inputs/probe.txt; summary: $1/fresh_inputs.md.
set -uo pipefail
OUT=$1
D=$OUT/fresh_inputs
mkdir -p "$D"
P=$PWD/.device/bin/fresh_inputs_probe
if [ ! -x "$P" ]; then
  NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
  mkdir -p "$(dirname "$P")"
  "$NVCC" -O2 -std=c++17 -arch=sm_90 -o "$P" scripts/device/fresh_inputs_probe.cu > "$D/build.log" 2>&1 \
    || { cat "$D/build.log"; echo "fresh_inputs: cannot build $P"; exit 1; }
fi
timeout 300 "$P" > "$D/probe.txt" 2> "$D/probe.log"
rc=$?
# rc 2: a launch gate opened at its timeout (the summary is still written, the section fails).
[ $rc -eq 0 ] || [ $rc -eq 2 ] || { cat "$D/probe.log"; tail -5 "$D/probe.txt"; echo "fresh_inputs: probe rc=$rc"; exit 1; }
grep -q '^## summary' "$D/probe.txt" || { echo "fresh_inputs: no summary in the probe's output"; exit 1; }
{
  echo "<!-- produced on the GPU by scripts/device_check.sh (section fresh_inputs) -->"
  echo
  echo "# Fresh inputs against one fixed input set (scripts/device/fresh_inputs.sh, warm)"
  echo
  grep '^# device' "$D/probe.txt" | sed 's/^# //'
  echo
  echo "Subject: y = x * rsqrt(mean(x^2) + eps) * w, one block of 256 threads per row, fp32, no cache flush."\
       "Each cell is the median over three interleaved rounds of each round's median (graph: 200 replays of"\
       "16 calls, the replay's event time / 16, one sync per 25 replays; per_iter: 400 calls, events around"\
       "each call, one sync per 50). G_fixed captures one input set 16 times and never redraws; G_fresh (what"\
       "caliber does) gives each call its own set (one cudaMalloc per buffer) and redraws x and w and poisons"\
       "y of all 16 sets before each replay (three launches per set); G_sets_nodraw has the 16 sets, drawn"\
       "once; G_redraw_one redraws one set before each replay; G_fresh_pool carves the 16 sets out of one"\
       "cudaMalloc (256-byte aligned, contiguous) and redraws them; G_fresh_gated is G_fresh with a launch"\
       "gate (a spinning kernel released from the host) held between the redraw and the start event. P_fixed"\
       "times the calls alone; P_fresh (what caliber does) enqueues the redraw and poison of the one set"\
       "before each call; P_fresh_gated holds the gate before the start event and releases it once the stop"\
       "event is enqueued; P_fixed_gated is P_fixed with the gate; P_sets_ahead draws up to 50 sets before"\
       "each batch and rotates the calls over them (set counts below). Ratios are of the medians."
  echo
  sed -n '/^## summary/,$p' "$D/probe.txt"
  echo
  grep '^# ' "$D/probe.txt" | grep -v '^# device' | sed 's/^# /- /'
} > "$OUT/fresh_inputs.md"
cat "$OUT/fresh_inputs.md"
[ $rc -eq 0 ] || { echo "fresh_inputs: a launch gate opened at its timeout"; exit 1; }
