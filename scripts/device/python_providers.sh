#!/usr/bin/env bash
# Python providers on the H200 (docs/python.md, "Python providers"): add_rmsnorm (examples/user_op)
# written as a Triton kernel and two torch functions (examples/user_op/python/providers.py) against
# the CUDA plugin's providers, over a ledger of decode- and prefill-like shapes in fp32 and bf16,
# through caliber.run (the Python package), with the integrity checks on and the host fp64
# reference; then caliber report over its results. Writes $OUT/python_providers/ and the summary
# $OUT/python_providers_h200.md; exits non-zero when a step fails or a row is not ok. About a minute.
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
python3 scripts/device/summarize_op_rows.py "$D/run/benchmark_results.jsonl" "$OUT/python_providers_h200.md" \
  "Python providers on the H200: add_rmsnorm in Triton and torch against CUDA plugins (scripts/device/python_providers.sh)" \
  "Through \`caliber.run\` (python/caliber): the providers of examples/user_op/python/providers.py run in a worker Python hosts, the CUDA plugin's in the same worker; kernel-only = event/graph/warm, eager = event/per_iter/warm; the reference is the host plugin in fp64; both outputs checked (poisoned, fresh inputs, inputs watched)." \
  "caliber.run + caliber report=$run_rc" --append="$D/report/benchmark_summary.md:40"
