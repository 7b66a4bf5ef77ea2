#!/usr/bin/env bash
# Counts the GPU tests of one device run from GoogleTest's XML reports (--gtest_output=xml:FILE)
# and says whether they are evidence: passed, failed, skipped and disabled tests, and the name and
# message of every failure and skip.
#
#   bash scripts/device/gpu_test_counts.sh [--device yes|no|auto] [--allow-skip ERE]... REPORT.xml...
#
# Exit 1 when any test failed; when a report is missing, unreadable or holds no test (the binary
# crashed or was killed before writing it); and when a test was skipped while a device is present:
# every test of the GPU suite needs the device, so with one there a skip is a test that did not
# run, not a pass. --device auto (the default) looks for a device with `nvidia-smi -L` and in the
# reports (the property cuda_devices > 0 that tests/gpu/test_device_visible.cpp records, i.e. the
# test binary saw one). --allow-skip ERE lets skips whose "Suite.Name: message" matches through
# (counted as allowed); use it only for a skip a reviewer accepted. Exit 0 otherwise. Only bash,
# grep and awk: it runs on the GPU machine and in the CPU tests (tests/scripts/test_gpu_test_counts.cpp).
set -uo pipefail

device=auto
allow=()
reports=()
while [ $# -gt 0 ]; do
  case "$1" in
    --device) device=${2:-}; shift 2 ;;
    --allow-skip) allow+=("${2:-}"); shift 2 ;;
    -*) echo "gpu_test_counts: unknown option $1" >&2; exit 2 ;;
    *) reports+=("$1"); shift ;;
  esac
done
case "$device" in yes|no|auto) ;; *) echo "gpu_test_counts: --device must be yes, no or auto (got '$device')" >&2; exit 2 ;; esac
if [ ${#reports[@]} -eq 0 ]; then
  echo "gpu_test_counts: no report given (usage: gpu_test_counts.sh [--device yes|no|auto] REPORT.xml...)" >&2
  exit 2
fi

problems=()
cases=$(mktemp)
trap 'rm -f "$cases"' EXIT
for r in "${reports[@]}"; do
  if [ ! -s "$r" ]; then
    problems+=("report $r is missing or empty: the test binary did not finish (crash, timeout or kill)")
    continue
  fi
  if ! grep -q '</testsuites>' "$r"; then
    problems+=("report $r is truncated (no </testsuites>): the test binary did not finish")
    continue
  fi
  # One line per test case: outcome<TAB>Suite.Name<TAB>message<TAB>devices seen.
  awk '
    function attr(line, key,   m) {
      if (match(line, " " key "=\"[^\"]*\"")) { m = substr(line, RSTART + length(key) + 3, RLENGTH - length(key) - 4); return m }
      return ""
    }
    function unescape(s) {
      gsub(/&#x0A;/, " | ", s); gsub(/&#x0D;/, "", s); gsub(/&lt;/, "<", s); gsub(/&gt;/, ">", s)
      gsub(/&quot;/, "\"", s); gsub(/&apos;/, "\047", s); gsub(/&amp;/, "\\&", s); gsub(/\t/, " ", s)
      return s
    }
    function emit() {
      outcome = failed ? "failed" : (skipped ? "skipped" : (status == "notrun" ? "disabled" : "passed"))
      printf "%s\t%s\t%s\t%s\n", outcome, name, (failed ? fmsg : smsg), devices
      open_case = 0
    }
    /<testcase / {
      name = attr($0, "classname") "." attr($0, "name"); status = attr($0, "status"); result = attr($0, "result")
      failed = 0; skipped = (result == "skipped"); fmsg = ""; smsg = ""; devices = ""; open_case = 1
      if ($0 ~ /\/>[ \t]*$/) emit()
      next
    }
    open_case && /<failure / { if (!failed) fmsg = unescape(attr($0, "message")); failed = 1 }
    open_case && /<skipped / { skipped = 1; smsg = unescape(attr($0, "message")) }
    open_case && /<property name="cuda_devices"/ { devices = attr($0, "value") }
    open_case && /<\/testcase>/ { emit() }
  ' "$r" >> "$cases"
done

count() { awk -F'\t' -v o="$1" '$1 == o' "$cases" | wc -l | tr -d ' '; }
passed=$(count passed)
failed=$(count failed)
skipped=$(count skipped)
disabled=$(count disabled)
total=$((passed + failed + skipped + disabled))

present=no
why="no device"
if [ "$device" = yes ]; then
  present=yes why="--device yes"
elif [ "$device" = auto ]; then
  if command -v nvidia-smi > /dev/null 2>&1 && nvidia-smi -L 2> /dev/null | grep -q '^GPU '; then
    present=yes why="nvidia-smi -L lists a GPU"
  elif awk -F'\t' '$4 != "" && $4 + 0 > 0 { found = 1 } END { exit !found }' "$cases"; then
    present=yes why="the test binary saw a CUDA device"
  fi
fi

allowed=0
denied=0
while IFS=$'\t' read -r outcome name message _; do
  case "$outcome" in
    failed) echo "FAILED $name: $message" ;;
    skipped)
      ok=no
      for ere in "${allow[@]+"${allow[@]}"}"; do
        if printf '%s: %s\n' "$name" "$message" | grep -Eq -- "$ere"; then ok=yes; fi
      done
      if [ "$ok" = yes ]; then
        allowed=$((allowed + 1)); echo "SKIPPED (allowed) $name: $message"
      else
        denied=$((denied + 1)); echo "SKIPPED $name: $message"
      fi
      ;;
    disabled) echo "DISABLED $name" ;;
  esac
done < "$cases"

echo "GPU tests: $passed passed, $failed failed, $skipped skipped, $disabled disabled ($total in ${#reports[@]} report(s)); device present: $present ($why)"
[ "$total" -eq 0 ] && [ ${#problems[@]} -eq 0 ] && problems+=("no test case in the reports: nothing was run")
[ "$failed" -gt 0 ] && problems+=("$failed GPU test(s) failed")
if [ "$present" = yes ] && [ "$denied" -gt 0 ]; then
  problems+=("$denied GPU test(s) skipped with a device present: a test that needs the device did not run")
fi
if [ ${#problems[@]} -gt 0 ]; then
  for p in "${problems[@]}"; do echo "gpu tests FAILED: $p"; done
  exit 1
fi
echo "gpu tests OK"
exit 0
