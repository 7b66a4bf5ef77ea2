#!/usr/bin/env bash
# The long fuzzing run, outside CI: every libFuzzer target of tests/fuzz for RUNS executions
# (default 10,000,000) from its seeds and the corpus earlier runs grew, NPROC targets at a time,
# in the sanitizer build of scripts/sanitize.sh (ASan + UBSan). Writes the figures — executions,
# rate, coverage, corpus, crashes — to ${FIGURES:-docs/host/fuzzing.md} with the command, date
# and revision; exits 1 when a target crashed, leaked, hung or ran out of memory (its reproducer
# is left in $BUILD_DIR/fuzz-artifacts/).
#   scripts/fuzz.sh [RUNS] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-10000000}
shift || true
BUILD_DIR=${SANITIZE_BUILD_DIR:-build-sanitize}
FIGURES=${FIGURES:-docs/host/fuzzing.md}
if [ ! -f "$BUILD_DIR/CMakeCache.txt" ]; then
  echo "fuzz.sh: no sanitizer build in $BUILD_DIR; run scripts/sanitize.sh first" >&2
  exit 2
fi
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for f in tests/fuzz/fuzz_*.cpp; do targets+=("$(basename "$f" .cpp | sed 's/^fuzz_//')"); done
fi
cmake --build "$BUILD_DIR" --parallel "$(nproc)" --target "${targets[@]/#/fuzz_}"
LOGS="$BUILD_DIR/fuzz-logs" ART="$BUILD_DIR/fuzz-artifacts"
mkdir -p "$LOGS" "$ART"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
started=$(date -u +%Y-%m-%dT%H:%M:%SZ)
run_one() {
  local t=$1 corpus="$BUILD_DIR/tests/fuzz/corpus/$1"
  mkdir -p "$corpus" "$ART/$t"
  local s=$(date +%s)
  set +e
  "$BUILD_DIR/tests/fuzz/fuzz_$t" -runs="$RUNS" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$ART/$t/" "$corpus" "tests/fuzz/corpus/$t" > "$LOGS/$t.log" 2>&1
  echo "rc=$? seconds=$(( $(date +%s) - s ))" >> "$LOGS/$t.log"
}
export -f run_one
export BUILD_DIR RUNS LOGS ART
printf '%s\n' "${targets[@]}" | xargs -P "${NPROC:-$(nproc)}" -I{} bash -c 'run_one {}'
# One row per target, from libFuzzer's final stats and its last status line.
failed=0
{
  echo "# Fuzzing figures"
  echo
  echo "- command: \`scripts/fuzz.sh $RUNS${*:+ $*}\` (ASan + UBSan, clang $(clang --version | sed -n 's/.*version \([0-9.]*\).*/\1/p;q'), $(nproc) cores)"
  echo "- date: $started; revision: $(git rev-parse --short=12 HEAD)$(git diff --quiet HEAD -- src include tests/fuzz || echo ' (with uncommitted changes)')"
  echo "- machine: $(nproc) cores, $(awk '/MemTotal/{printf "%.0f GiB", $2/1048576}' /proc/meminfo)"
  echo
  echo "| target | executions | exec/s | seconds | coverage (edges) | features | corpus | crashes |"
  echo "|---|---|---|---|---|---|---|---|"
  for t in "${targets[@]}"; do
    log="$LOGS/$t.log"
    rc=$(sed -n 's/^rc=\([0-9]*\).*/\1/p' "$log")
    secs=$(sed -n 's/.*seconds=\([0-9]*\)/\1/p' "$log")
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
    last=$(grep -E '^#[0-9]+' "$log" | tail -1)
    cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<< "$last")
    ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<< "$last")
    corp=$(sed -n 's/.* corp: \([0-9]*\/[0-9a-zA-Z]*\).*/\1/p' <<< "$last")
    crashes=0
    if [ "$rc" != 0 ]; then crashes="**1 (rc $rc, $ART/$t)**"; failed=1; fi
    echo "| $t | ${execs:-?} | ${rate:-?} | ${secs:-?} | ${cov:-?} | ${ft:-?} | ${corp:-?} | $crashes |"
  done
} > "$FIGURES.tmp"
mv "$FIGURES.tmp" "$FIGURES"
cat "$FIGURES"
exit $failed
