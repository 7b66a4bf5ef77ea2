#!/usr/bin/env bash
# Python providers on the GPU (docs/python.md, "Python providers"): add_rmsnorm (examples/user_op)
# written as a Triton kernel and two torch functions (examples/user_op/python/providers.py) against
# the CUDA plugin's providers, over a ledger of decode- and prefill-like shapes in fp32 and bf16,
# through caliber.run (the Python package), with the integrity checks on and the host fp64
# reference; then caliber report over its results. Then Python providers that game the harness
# (tests/python/cuda/misbehaving_providers.py: another stream, a stream of their own, computing
# once, a partial output, a changed input), none of which may end ok. Writes
# $OUT/python_providers/ and the summary $OUT/python_providers.md; then sgd_momentum, an op
# updated in place, in Triton and torch ($OUT/python_providers_in_place.md). Exits non-zero
# when a step fails, an honest row is not ok or a misbehaving one is. About a minute.
set -uo pipefail
OUT=$1
cd "$(dirname "$0")/../.."
D=$OUT/python_providers
mkdir -p "$D"
export CALIBER_LIBRARY=${CALIBER_LIBRARY:-$PWD/.device/lib/libcaliber_c.so}
export PYTHONPATH=$PWD/python${PYTHONPATH:+:$PYTHONPATH}
export PYTHONDONTWRITEBYTECODE=1
PY=${PYTHON:-python3}
DESC=examples/user_op/add_rmsnorm.op.yaml
MATRIX=examples/user_op/python/baseline_matrix.yaml
rm -rf "$D/run" "$D/report" "$D/ledger.jsonl"
start=$(date +%s)
$PY - "$D" "$DESC" "$MATRIX" <<'PY' 2>&1 | tee "$D/run.txt"
import sys, time
import caliber
d, desc, matrix = sys.argv[1:4]
caliber.cli("ledger", "manual", "--op", "add_rmsnorm", "--op-description", desc, "--ledger", d + "/ledger.jsonl",
            "--dtype", "fp32,bf16", "--shape", "m=1,n=4096,eps=1e-6", "--shape", "m=32,n=4096,eps=1e-6",
            "--shape", "m=4096,n=4096,eps=1e-6", "--shape", "m=16384,n=8192,eps=1e-6")
t = time.time()
r = caliber.run(op="add_rmsnorm", shape_ledger=d + "/ledger.jsonl", baseline_matrix=matrix, out=d + "/run",
                backend="cuda")
print("caliber.run: exit {}, {} rows in {:.1f} s".format(r.exit_code, len(r.rows), time.time() - t))
rep = caliber.cli("report", "--shape-ledger", d + "/ledger.jsonl", "--results", d + "/run/benchmark_results.jsonl",
                  "--out", d + "/report", "--candidate", "triton", "--op-description", desc, check=False)
print("caliber report: exit {}".format(rep.returncode))
sys.exit(0 if rep.returncode == 0 and r.exit_code == 0 else 1)
PY
run_rc=${PIPESTATUS[0]}
echo "python providers: exit $run_rc after $(( $(date +%s) - start )) s"
python3 scripts/device/summarize_op_rows.py "$D/run/benchmark_results.jsonl" "$OUT/python_providers.md" \
  "Python providers on the GPU: add_rmsnorm in Triton and torch against CUDA plugins (scripts/device/python_providers.sh)" \
  "Through \`caliber.run\` (python/caliber): the providers of examples/user_op/python/providers.py run in a worker Python hosts, the CUDA plugin's in the same worker; kernel-only = event/graph/warm, eager = event/per_iter/warm; the reference is the host plugin in fp64; both outputs checked (poisoned, fresh inputs, inputs watched)." \
  "caliber.run + caliber report=$run_rc" --append="$D/report/benchmark_summary.md:40"
summary_rc=$?
# Python providers that game the harness (tests/python/cuda/misbehaving_providers.py): none may end
# ok; the honest one without a stream argument (caliber's stream made torch's current) must.
M=$D/misbehaving
rm -rf "$M" && mkdir -p "$M"
cat > "$M/matrix.yaml" <<YAML
schema_version: 1
kernel: add_rmsnorm
op_type: add_rmsnorm
op_description: $PWD/$DESC
dtype: [bf16]
reference_provider: honest
layout_contract: row_major
providers:
  honest: {enabled: true, entrypoint: "python:$PWD/examples/user_op/python/providers.py:TorchRmsNorm", provider: torch}
  forgets_stream: {enabled: true, entrypoint: "python:$PWD/tests/python/cuda/misbehaving_providers.py:ForgetsStream", provider: torch}
  no_stream_argument: {enabled: true, entrypoint: "python:$PWD/tests/python/cuda/misbehaving_providers.py:NoStreamArgument", provider: torch}
  side_stream: {enabled: true, entrypoint: "python:$PWD/tests/python/cuda/misbehaving_providers.py:SideStream", provider: torch}
  lazy: {enabled: true, entrypoint: "python:$PWD/tests/python/cuda/misbehaving_providers.py:Lazy", provider: torch}
  partial_output: {enabled: true, entrypoint: "python:$PWD/tests/python/cuda/misbehaving_providers.py:PartialOutput", provider: torch}
  mutates_input: {enabled: true, entrypoint: "python:$PWD/tests/python/cuda/misbehaving_providers.py:MutatesInput", provider: torch}
YAML
$PY - "$M" "$DESC" <<'PY' 2>&1 | tee "$M/run.txt" | tail -12
import sys
import caliber
m, desc = sys.argv[1:3]
caliber.cli("ledger", "manual", "--op", "add_rmsnorm", "--op-description", desc, "--ledger", m + "/ledger.jsonl",
            "--dtype", "bf16", "--shape", "m=4096,n=4096,eps=1e-6")
r = caliber.run(op="add_rmsnorm", shape_ledger=m + "/ledger.jsonl", baseline_matrix=m + "/matrix.yaml", out=m + "/run",
                backend="cuda")
lines = ["", "## Python providers that game the harness (tests/python/cuda/misbehaving_providers.py), bf16 m=4096 n=4096", "",
         "| provider | status | why |", "|---|---|---|"]
wrong = []
for row in r.rows:
    lines.append("| {} | {} | {} |".format(row["provider"], row["benchmark_status"],
                                          (row.get("status_reason") or "").replace("|", "/")[:300]))
    expected_ok = row["provider"] in ("honest", "no_stream_argument")  # the latter: caliber's stream made current
    if (row["benchmark_status"] == "ok") != expected_ok:
        wrong.append(row["provider"])
lines.append("")
lines.append("misbehaving providers that ended ok, or an honest one that did not: {}".format(wrong or "none"))
print("\n".join(lines))
with open(m + "/table.md", "w") as f:
    f.write("\n".join(lines) + "\n")
sys.exit(1 if wrong or len(r.rows) != 7 else 0)
PY
misbehaving_rc=${PIPESTATUS[0]}
cat "$M/table.md" >> "$OUT/python_providers.md" 2>/dev/null
# The same providers as a campaign (caliber batch): the device's server cannot host a Python
# worker, so each shard's run asks it to exit and measures with the device to itself (the
# device_exclusive preflight passes). Two shapes of the ledger above, one shard.
B=$D/batch
rm -rf "$B" && mkdir -p "$B"
head -n 2 "$D/ledger.jsonl" > "$B/ledger.jsonl"
$CALIBER_EXE batch --op add_rmsnorm --backend cuda --shape-ledger "$B/ledger.jsonl" --baseline-matrix "$MATRIX" \
  --devices 0 --max-time-ms 20 --out "$B/run" > "$B/batch.txt" 2>&1
batch_rc=$?
{
  echo ""
  echo "## The same providers through caliber batch (two shapes, --devices 0)"
  echo ""
  echo "- batch exit $batch_rc; $(grep -c '"benchmark_status":"ok"' "$B/run/benchmark_results.jsonl" 2>/dev/null) ok rows of $(wc -l < "$B/run/benchmark_results.jsonl" 2>/dev/null)"
  echo "- device server log: $(grep -h 'asked it to exit' "$B/run/device_server_0.log" | head -1)"
  echo "- the shard's run: $(grep -h 'device server' "$B/run/shards/add_rmsnorm/s0/run.log" | head -1)"
} | tee -a "$OUT/python_providers.md"
# An op updated in place (docs/user-ops.md, "In-place outputs"): sgd_momentum in Triton and torch
# (examples/user_op/python/sgd_providers.py) against the CUDA plugin's providers; param and momentum
# are written through the outputs, each verified call starts from their original values.
S=$D/in_place
rm -rf "$S" && mkdir -p "$S"
$PY - "$S" <<'PY' 2>&1 | tee "$S/run.txt" | tail -4
import sys
import caliber
s = sys.argv[1]
caliber.cli("ledger", "manual", "--op", "sgd_momentum", "--op-description", "examples/user_op/sgd_momentum.op.yaml",
            "--ledger", s + "/ledger.jsonl", "--dtype", "fp32,bf16", "--shape", "n=1048576,lr=0.01,beta=0.9",
            "--shape", "n=67108864,lr=0.01,beta=0.9")
r = caliber.run(op="sgd_momentum", shape_ledger=s + "/ledger.jsonl",
                baseline_matrix="examples/user_op/python/baseline_matrix_sgd_momentum.yaml", out=s + "/run",
                backend="cuda")
sys.exit(r.exit_code)
PY
in_place_rc=${PIPESTATUS[0]}
python3 scripts/device/summarize_op_rows.py "$S/run/benchmark_results.jsonl" "$OUT/python_providers_in_place.md" \
  "Python providers of an op updated in place on the GPU: sgd_momentum in Triton and torch against CUDA plugins (scripts/device/python_providers.sh)" \
  "Through \`caliber.run\`: examples/user_op/python/sgd_providers.py (Triton; torch's mul_/add_/add_) and the CUDA plugin's two providers; param and momentum updated in place (outputs[k] == inputs[k]); kernel-only = event/graph/warm with one call per graph (an in-place update is verified one call at a time), eager = event/per_iter/warm; the reference is the host plugin in fp64; GB/s from 5 n dtype_bytes." \
  "caliber.run=$in_place_rc"
in_place_summary_rc=$?
[ "$summary_rc" -eq 0 ] && [ "$misbehaving_rc" -eq 0 ] && [ "$batch_rc" -eq 0 ] && [ "$in_place_summary_rc" -eq 0 ]
