#!/usr/bin/env bash
# The long fuzzing run, outside CI: every libFuzzer target of tests/fuzz until it has executed
# RUNS inputs in all (default 10,000,000), NPROC targets at a time, each for at most
# MAX_SECONDS per invocation (default: no bound). Runs resume: the corpus a target grew and the
# executions it already made are kept in the fuzz build ($FUZZ_BUILD_DIR, default build-fuzz:
# clang, ASan + UBSan, -O2; only the fuzz targets are built), so a later invocation continues
# where the last one stopped. Writes the figures — executions, time, coverage, corpus, crashes,
# per target over all its runs — to ${FIGURES:-docs/host/fuzzing.md} with the command, dates and
# revisions; exits 1 when a target crashed, leaked, hung or ran out of memory (its reproducer is
# left in $FUZZ_BUILD_DIR/fuzz-artifacts/<target>/).
#   scripts/fuzz.sh [RUNS] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-10000000}
shift || true
BUILD_DIR=${FUZZ_BUILD_DIR:-build-fuzz}
FIGURES=${FIGURES:-docs/host/fuzzing.md}
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for f in tests/fuzz/fuzz_*.cpp; do targets+=("$(basename "$f" .cpp | sed 's/^fuzz_//')"); done
fi
# FUZZ_PREBUILT=1: the targets are already in $BUILD_DIR/tests/fuzz (built elsewhere, e.g. copied
# to a machine with more cores and no compiler); REVISION names the source they were built from.
if [ -z "${FUZZ_PREBUILT:-}" ]; then
  scripts/setup.sh clang libclang-rt-dev
  # -O2: the long run is about executions per second (the CI build is -O0 for its compile time).
  cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
    "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g1" "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O2 -g1" \
    -DCALIBER_PRECOMPILE_HEADERS=ON -DCALIBER_ENABLE_CUDA=OFF -DCALIBER_SANITIZE=address,undefined \
    -DCALIBER_BUILD_FUZZERS=ON -DCALIBER_BUILD_UNIT_TESTS=OFF >/dev/null
  cmake --build "$BUILD_DIR" --parallel "$(nproc)" --target "${targets[@]/#/fuzz_}"
fi
LOGS="$BUILD_DIR/fuzz-logs" ART="$BUILD_DIR/fuzz-artifacts" LEDGER="$BUILD_DIR/fuzz-ledger"
mkdir -p "$LOGS" "$ART" "$LEDGER"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
REVISION=${REVISION:-"$(git rev-parse --short=12 HEAD)$(git diff --quiet HEAD -- src include tests/fuzz || echo '+changes')"}
# Executions a target has made in all its runs (column 3 of its ledger).
executed() { awk -F'\t' '{s += $3} END {print s + 0}' "$LEDGER/$1.tsv" 2>/dev/null || echo 0; }
# One run of one target: the executions still missing, within MAX_SECONDS; one ledger line:
# date, revision, executions, seconds, edges, features, corpus, exit status.
run_one() {
  local t=$1 corpus="$BUILD_DIR/tests/fuzz/corpus/$1"
  local left=$(( RUNS - $(executed "$t") ))
  [ "$left" -gt 0 ] || return 0
  mkdir -p "$corpus" "$ART/$t"
  local s=$(date +%s) rc=0 log="$LOGS/$t.$(date -u +%Y%m%dT%H%M%SZ).$BASHPID.log"
  "$BUILD_DIR/tests/fuzz/fuzz_$t" -runs="$left" ${MAX_SECONDS:+-max_total_time=$MAX_SECONDS} -timeout=10 \
    -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$ART/$t/" "$corpus" "tests/fuzz/corpus/$t" \
    > "$log" 2>&1 || rc=$?
  local last execs
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  last=$(grep -E '^#[0-9]+' "$log" | tail -1)
  # A crash ends the run before the final stats: count the executions of its last status line.
  [ -n "$execs" ] || execs=$(sed -n 's/^#\([0-9]*\).*/\1/p' <<< "$last")
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$REVISION" "${execs:-0}" \
    "$(( $(date +%s) - s ))" "$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<< "$last")" \
    "$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<< "$last")" \
    "$(sed -n 's/.* corp: \([0-9]*\/[0-9a-zA-Z]*\).*/\1/p' <<< "$last")" "$rc" >> "$LEDGER/$t.tsv"
}
export -f run_one executed
export BUILD_DIR RUNS LOGS ART LEDGER REVISION MAX_SECONDS
printf '%s\n' "${targets[@]}" | xargs -P "${NPROC:-$(nproc)}" -I{} bash -c 'run_one {}'
# One row per target over all its runs; the latest run's coverage and corpus.
failed=0
{
  echo "# Fuzzing figures"
  echo
  echo "Written by \`scripts/fuzz.sh\` (tests/fuzz/README.md): each target runs from its seeds and the"
  echo "corpus its earlier runs grew until it has executed the goal; a row sums all its runs."
  echo
  echo "- command: \`scripts/fuzz.sh $RUNS${*:+ $*}\`${MAX_SECONDS:+ with MAX_SECONDS=$MAX_SECONDS} (clang $(clang --version 2>/dev/null | sed -n 's/.*version \([0-9.]*\).*/\1/p;q'), ASan + UBSan, -O2)"
  echo "- machine: ${FUZZ_MACHINES:-$(nproc) cores, $(awk '/MemTotal/{printf "%.0f GiB", $2/1048576}' /proc/meminfo)}; written $(date -u +%Y-%m-%dT%H:%M:%SZ) at revision $REVISION"
  echo
  echo "| target | executions (goal $RUNS) | runs | seconds | exec/s | edges | features | corpus | revisions | crashes |"
  echo "|---|---|---|---|---|---|---|---|---|---|"
  for t in "${targets[@]}"; do
    f="$LEDGER/$t.tsv"
    if [ ! -s "$f" ]; then echo "| $t | 0 | 0 | | | | | | | not run |"; failed=1; continue; fi
    awk -F'\t' -v t="$t" -v goal="$RUNS" '
      { execs += $3; secs += $4; runs += 1; cov = $5; ft = $6; corp = $7; if ($8 != 0) crashes += 1
        if (!($2 in seen)) { seen[$2] = 1; revs = revs (revs == "" ? "" : ", ") $2 } }
      END { rate = secs > 0 ? int(execs / secs) : 0
            status = crashes > 0 ? "**" crashes "**" : (execs >= goal ? "0" : "0 (goal not reached)")
            printf "| %s | %d | %d | %d | %d | %s | %s | %s | %s | %s |\n", t, execs, runs, secs, rate, cov, ft, corp, revs, status }' "$f"
    if awk -F'\t' '$8 != 0 {bad = 1} END {exit !bad}' "$f"; then failed=1; fi
  done
} > "$FIGURES.tmp"
mv "$FIGURES.tmp" "$FIGURES"
cat "$FIGURES"
exit $failed
