#!/usr/bin/env bash
# On the H200 (device tool), from the repository root, after scripts/device_stage.sh here:
#   run(command="bash scripts/device_check.sh [SECTION...]", carry=[".device"])
# Runs the GPU tests and the benchmarks; exits 1 when a section fails (section foundation fails on
# a failed GPU test, a missing test report, or a GPU test skipped with the device present: the
# counts are printed at the end). Each section writes under a work folder and a summary
# <section>.md; at the end the summaries are copied to $OUT and everything else is packed
# into $OUT/device_outputs.tar.gz (the device tool returns at most 8 files).
# Sections (default: all): see scripts/device/*.sh. With section foundation or integrity, the
# integrity corpus's caught/not-caught matrix is written too: integrity_corpus.md (it goes to
# docs/gpu/integrity_corpus.md).
set -uo pipefail
cd "$(dirname "$0")/.."
# scripts/device_stage.sh packs the binaries (the carry limit): unpacked once here.
if [ -f .device/bundle.tar.xz ] && [ ! -d .device/bin ]; then
  tar -C .device -xJf .device/bundle.tar.xz || { echo "device_check: cannot unpack .device/bundle.tar.xz"; exit 1; }
fi
FINAL_OUT=${OUT:-out/device}
OUT=$(mktemp -d /tmp/caliber-device.XXXXXX)
mkdir -p "$FINAL_OUT"
export CALIBER_EXE=$PWD/.device/bin/caliber
export LD_LIBRARY_PATH=$PWD/.device/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export PYTHONUNBUFFERED=1
export CALIBER_SOURCE_DIR=$PWD              # tests find matrices/, schemas/, data/ here
export CALIBER_PLUGIN_DIR=$PWD/.device/lib  # @plugins/ in baseline matrices
# tests/gpu/test_integrity_corpus.cpp writes its matrix to the file this names: the GPU tests of
# section foundation, or the corpus suite alone after section integrity (corpus_matrix below).
export CALIBER_CORPUS_MATRIX=$OUT/integrity_corpus.md
sections=("$@")
if [ ${#sections[@]} -eq 0 ]; then
  sections=()
  for f in scripts/device/*.sh; do sections+=("$(basename "$f" .sh)"); done
fi
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "revision: $(cat .device/REVISION 2>/dev/null)"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw --format=csv
} | tee "$OUT/machine.txt"
# After section integrity: the corpus suite alone, unless the GPU tests (section foundation) have
# written the matrix already; its output in integrity/corpus_tests.txt.
corpus_matrix() {
  [ -f "$CALIBER_CORPUS_MATRIX" ] && return 0
  mkdir -p "$OUT/integrity"
  timeout 400 .device/bin/caliber_gpu_tests --gtest_brief=1 --gtest_filter='IntegrityCorpus.*' \
    > "$OUT/integrity/corpus_tests.txt" 2>&1
  local suite_rc=$?
  tail -5 "$OUT/integrity/corpus_tests.txt"
  [ -f "$CALIBER_CORPUS_MATRIX" ] || echo "integrity corpus: no matrix written"
  return $suite_rc
}
# The matrix headed like the other figures: the command, date, revision and GPU model.
head_corpus_matrix() {
  [ -f "$CALIBER_CORPUS_MATRIX" ] || return 0
  {
    echo "<!-- produced on the GPU by scripts/device_check.sh; see the header lines -->"
    echo
    echo "- Command: \`scripts/device_stage.sh\` here, then the device tool: \`bash scripts/device_check.sh ${sections[*]}\`"
    echo "- date: $(date -u +%Y-%m-%dT%H:%M:%SZ), revision: $(cat .device/REVISION 2>/dev/null);" \
         "GPU: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)"
    echo
    cat "$CALIBER_CORPUS_MATRIX"
  } > "$CALIBER_CORPUS_MATRIX.headed" && mv "$CALIBER_CORPUS_MATRIX.headed" "$CALIBER_CORPUS_MATRIX"
}
rc=0
for s in "${sections[@]}"; do
  echo "=== section $s"
  start=$(date +%s)
  bash "scripts/device/$s.sh" "$OUT" || { echo "section $s FAILED (rc=$?)"; rc=1; }
  if [ "$s" = integrity ]; then
    corpus_matrix || { echo "integrity corpus suite FAILED"; rc=1; }
  fi
  echo "=== section $s took $(( $(date +%s) - start )) s"
done
head_corpus_matrix
# The GPU test counts (section foundation, scripts/device/gpu_test_counts.sh): a failed test, a
# missing report or a skip with the device present has already failed that section, so the run.
if [ -f "$OUT/foundation/gpu_test_counts.txt" ]; then
  echo "=== GPU test counts"
  grep -E '^(GPU tests|gpu tests|FAILED|SKIPPED)' "$OUT/foundation/gpu_test_counts.txt"
fi
cp "$OUT"/*.md "$OUT/machine.txt" "$FINAL_OUT"/ 2>/dev/null
tar -czf "$FINAL_OUT/device_outputs.tar.gz" -C "$OUT" .
ls -la "$FINAL_OUT"
exit $rc
