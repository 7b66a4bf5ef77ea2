#!/usr/bin/env bash
# An op of your own on the GPU (docs/user-ops.md): the example add_rmsnorm (examples/user_op)
# through caliber ledger manual -> caliber run (cuda providers, the host fp64 reference, every
# output checked) -> caliber report, over decode- and prefill-like shapes of a 4096 and an 8192
# hidden size in fp32 and bf16; the same with the reference on the device; then sgd_momentum, an
# op updated in place. Writes $OUT/user_op/ and the summaries $OUT/user_op.md,
# $OUT/user_op_device_reference.md and $OUT/user_op_in_place.md; exits non-zero when a
# step fails or a row of the examples' providers is not ok. About a minute.
set -uo pipefail
OUT=$1
C=$CALIBER_EXE
D=$OUT/user_op
mkdir -p "$D"
DESC=examples/user_op/add_rmsnorm.op.yaml
rm -f "$D/ledger.jsonl"
$C ledger manual --op add_rmsnorm --op-description "$DESC" --ledger "$D/ledger.jsonl" --dtype fp32,bf16 \
  --shape m=1,n=4096,eps=1e-6 --shape m=32,n=4096,eps=1e-6 --shape m=4096,n=4096,eps=1e-6 \
  --shape m=16384,n=8192,eps=1e-6 2>&1 | tee "$D/ledger.txt" || exit 1
rm -rf "$D/run"
$C run --op add_rmsnorm --backend cuda --shape-ledger "$D/ledger.jsonl" --verification-seed 00c0ffee00c0ffee \
  --baseline-matrix examples/user_op/baseline_matrix_cuda.yaml --out "$D/run" 2>&1 | tee "$D/run.txt"
run_rc=${PIPESTATUS[0]}
$C report --shape-ledger "$D/ledger.jsonl" --results "$D/run/benchmark_results.jsonl" --out "$D/report" \
  --candidate cuda_fused --op-description "$DESC" 2>&1 | tee "$D/report.txt"
report_rc=${PIPESTATUS[0]}
python3 scripts/device/summarize_op_rows.py "$D/run/benchmark_results.jsonl" "$OUT/user_op.md" \
  "An op of your own on the GPU: add_rmsnorm (examples/user_op, scripts/device/user_op.sh)" \
  "Kernel-only = event/graph/warm, eager = event/per_iter/warm (caliber run's cuda contracts); the reference is the host plugin in fp64; y and h compared on every row up to 2^24 elements, else on rows drawn at random." \
  "caliber run=$run_rc" "caliber report=$report_rc"
first_rc=$?

# The same cells with the reference on the device (docs/user-ops.md, "The reference"):
# add_rmsnorm_device_reference.op.yaml names add_rmsnorm_cuda_reference (fp64 on the GPU); the
# same verification seed, so the same rows are compared. Summary: the reference's time per shape
# both ways and the largest difference of a correctness number.
sed -e "s|^op_description: .*|op_description: $PWD/examples/user_op/add_rmsnorm_device_reference.op.yaml|" \
  examples/user_op/baseline_matrix_cuda.yaml > "$D/matrix_device_reference.yaml"
rm -rf "$D/run_device_reference"
$C run --op add_rmsnorm --backend cuda --shape-ledger "$D/ledger.jsonl" --verification-seed 00c0ffee00c0ffee \
  --baseline-matrix "$D/matrix_device_reference.yaml" --out "$D/run_device_reference" 2>&1 | tee "$D/run_device_reference.txt"
device_reference_rc=${PIPESTATUS[0]}
python3 - "$D/run/benchmark_results.jsonl" "$D/run_device_reference/benchmark_results.jsonl" \
  "$device_reference_rc" > "$OUT/user_op_device_reference.md" <<'PY'
import json, sys
host, device = ([json.loads(l) for l in open(f) if l.strip()] for f in sys.argv[1:3])
print("# add_rmsnorm's reference on the host and on the device (scripts/device/user_op.sh)\n")
print("The cells of user_op.md again with examples/user_op/add_rmsnorm_device_reference.op.yaml (the reference "
      "add_rmsnorm_cuda_reference, fp64 on the GPU) instead of the host plugin (fp64, the host's cores); the same "
      "verification seed. Reference ms: the shape's reference phase (both input sets), summed over its cells.\n")
print("| shape | dtype | reference ms, host | reference ms, device | cells ok (host / device) | largest rel_fro difference |")
print("|---|---|---:|---:|---|---:|")
key = lambda r: (json.dumps(r["args"], sort_keys=True), r["dtype"])
def by_shape(rows):
    out = {}
    for r in rows:
        s = out.setdefault(key(r), {"ms": 0.0, "ok": 0, "n": 0, "fro": {}})
        s["ms"] += (r.get("cell_phases_ms") or {}).get("reference", 0.0)
        s["ok"] += r["benchmark_status"] == "ok"
        s["n"] += 1
        if r.get("correctness"):
            s["fro"][r["provider"]] = r["correctness"]["rel_fro_error"]
    return out
h, d = by_shape(host), by_shape(device)
bad = int(sys.argv[3]) != 0 or len(device) != len(host) or not device
for k in h:
    if k not in d:
        bad = True
        continue
    diff = max((abs(d[k]["fro"][p] - v) / v for p, v in h[k]["fro"].items() if v and p in d[k]["fro"]), default=float("nan"))
    bad = bad or d[k]["ok"] != d[k]["n"] or not diff <= 1e-6
    args = json.loads(k[0])
    shape = " ".join(f"{a}={v}" for a, v in args.items() if a != "eps")
    print(f"| {shape} | {k[1]} | {h[k]['ms']:.1f} | {d[k]['ms']:.1f} | {h[k]['ok']}/{h[k]['n']} / {d[k]['ok']}/{d[k]['n']} | {diff:.1e} |")
print(f"\ncaliber run (device reference) exit {sys.argv[3]}; {'FAILED' if bad else 'ok'}")
sys.exit(1 if bad else 0)
PY
device_reference_summary_rc=$?
cat "$OUT/user_op_device_reference.md"

# An op updated in place (docs/user-ops.md, "In-place outputs"): sgd_momentum's cuda providers
# (examples/user_op/sgd_momentum_cuda.cu), param and momentum written through the outputs, each
# verified call started from the original values; a 1M, a 16M and a 64M parameter vector.
SGD=examples/user_op/sgd_momentum.op.yaml
rm -f "$D/sgd_ledger.jsonl"
$C ledger manual --op sgd_momentum --op-description "$SGD" --ledger "$D/sgd_ledger.jsonl" --dtype fp32,bf16 \
  --shape n=1048576,lr=0.01,beta=0.9 --shape n=16777216,lr=0.01,beta=0.9 --shape n=67108864,lr=0.01,beta=0.9 \
  2>&1 | tee "$D/sgd_ledger.txt" || exit 1
rm -rf "$D/sgd_run"
$C run --op sgd_momentum --backend cuda --shape-ledger "$D/sgd_ledger.jsonl" \
  --baseline-matrix examples/user_op/baseline_matrix_sgd_momentum.yaml --out "$D/sgd_run" 2>&1 | tee "$D/sgd_run.txt"
sgd_rc=${PIPESTATUS[0]}
python3 scripts/device/summarize_op_rows.py "$D/sgd_run/benchmark_results.jsonl" "$OUT/user_op_in_place.md" \
  "An op updated in place on the GPU: sgd_momentum (examples/user_op, scripts/device/user_op.sh)" \
  "param and momentum are updated in place (outputs[k] == inputs[k]); kernel-only = event/graph/warm, eager = event/per_iter/warm; each verified call starts from the original values; the reference is the host plugin in fp64; GB/s from the default bytes (param and momentum read and written, grad read: 5 n dtype_bytes)." \
  "caliber run=$sgd_rc"
sgd_summary_rc=$?
[ "$first_rc" -eq 0 ] && [ "$sgd_summary_rc" -eq 0 ] && [ "$device_reference_summary_rc" -eq 0 ]
