"""caliber's pytest plugin (python/caliber/pytest_plugin.py), run by pytest's own pytester on
inner sessions, host backend. Run with the package installed (tests/python/pip_install.sh: the
plugin comes from its pytest11 entry point) or with -p caliber.pytest_plugin."""

import json
import os
import subprocess
import sys

import pytest

pytest_plugins = ["pytester"]

# A benchmark suite as a user keeps one: a parametrized test, a marker, two measurements in a test.
SUITE = """
import ctypes, os, time
import pytest

SLOW = float(os.environ.get("SUITE_SLOW_US", "0"))

def spin(us):
    end = time.perf_counter() + us * 1e-6
    while time.perf_counter() < end:
        pass

@pytest.mark.parametrize("n", [16, 4096])
def test_copy(caliber_measure, n):
    src = (ctypes.c_float * n)(*range(n)); dst = (ctypes.c_float * n)()
    def copy():
        ctypes.memmove(dst, src, ctypes.sizeof(src))
        spin(SLOW)
    r = caliber_measure(copy, inputs=[caliber.Buffer(ctypes.addressof(src), ctypes.sizeof(src), "float32")],
                        outputs=[caliber.Buffer(ctypes.addressof(dst), ctypes.sizeof(dst), "float32")])
    assert r.verdict == "partial"

@pytest.mark.caliber(iterations=7, statistic="min")
def test_marked(caliber_measure):
    r = caliber_measure(lambda: None, statistic="mean")
    assert (r.summary.n, r.contract.statistic) == (7, "mean")

@pytest.mark.caliber(min_samples=8, max_time_ms=20)
def test_adaptive(caliber_measure):
    r = caliber_measure(lambda: None)  # the marker's adaptive rule replaces --caliber-iterations 30
    assert r.contract.iterations.rule == "adaptive" and r.summary.n >= 8

def test_two(caliber_measure):
    caliber_measure(lambda stream: None, name="explicit")
    caliber_measure(lambda: None, name="implicit")

import caliber
"""


def run_suite(pytester, *args, slow_us=0):
    pytester.makepyfile(test_suite=SUITE)
    os.environ["SUITE_SLOW_US"] = str(slow_us)
    try:
        return pytester.runpytest_subprocess("-p", "caliber.pytest_plugin", "--caliber-backend", "host",
                                             "--caliber-cache", "warm", "--caliber-iterations", "30", *args)
    finally:
        del os.environ["SUITE_SLOW_US"]


def read(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def test_one_result_per_parameter_set_named_after_the_test(pytester):
    out = pytester.path / "results.json"
    run = run_suite(pytester, "--caliber-json", str(out))
    run.assert_outcomes(passed=5)
    doc = read(out)
    assert doc["complete"] is True
    names = [r["name"] for r in doc["results"]]
    assert names == ["test_suite.py::test_copy[16]", "test_suite.py::test_copy[4096]", "test_suite.py::test_marked",
                     "test_suite.py::test_adaptive", "test_suite.py::test_two::explicit", "test_suite.py::test_two::implicit"]
    assert [r["params"] for r in doc["results"][:2]] == [{"n": 16}, {"n": 4096}]
    first = doc["results"][0]
    assert (first["contract"]["cache"], first["summary"]["n"], first["device"]["backend"]) == ("warm", 30, "host")
    assert len(first["samples_us"]) == 30  # kept: compare's rank test needs them
    identity = read(pytester.path / "results.run_identity.json")
    assert identity["outputs"] == ["results.json"]
    assert identity["device"]["backend"] == "host"
    assert sorted(c["role"] for c in identity["contracts"]) == ["isolated/warm"]
    run.stdout.fnmatch_lines(["*= caliber =*", "* us  median * partial *test_suite.py::test_copy[[]16[]]"])


def test_the_marker_is_over_the_options_and_the_call_over_both(pytester):
    out = pytester.path / "r.json"
    run_suite(pytester, "--caliber-json", str(out), "-k", "marked").assert_outcomes(passed=1, deselected=4)
    (r,) = read(out)["results"]
    assert (r["summary"]["n"], r["contract"]["statistic"]) == (7, "mean")


def test_a_second_measurement_needs_its_own_name(pytester):
    pytester.makepyfile(test_twice="""
def test_twice(caliber_measure):
    caliber_measure(lambda: None, backend="host", iterations=3)
    caliber_measure(lambda: None, backend="host", iterations=3)
""")
    run = pytester.runpytest_subprocess("-p", "caliber.pytest_plugin")
    run.assert_outcomes(failed=1)
    run.stdout.fnmatch_lines(["*test_twice.py::test_twice is measured twice; give each measurement its own name=*"])


def test_a_failed_integrity_check_fails_the_test_and_writes_no_result(pytester):
    pytester.makepyfile(test_cheat="""
import ctypes, caliber
def test_writes_its_input(caliber_measure):
    x = (ctypes.c_float * 64)(); y = (ctypes.c_float * 64)()
    def cheat():
        x[0] += 1.0
    caliber_measure(cheat, inputs=[caliber.Buffer(ctypes.addressof(x), 256)],
                    outputs=[caliber.Buffer(ctypes.addressof(y), 256)], iterations=5)
""")
    out = pytester.path / "r.json"
    run = pytester.runpytest_subprocess("-p", "caliber.pytest_plugin", "--caliber-backend", "host",
                                        "--caliber-json", str(out))
    run.assert_outcomes(failed=1)
    run.stdout.fnmatch_lines(["*IntegrityError*"])
    assert read(out)["results"] == []


def test_compare_gates_with_compares_exit_codes(pytester):
    baseline = pytester.path / "baseline.json"
    run_suite(pytester, "--caliber-json", str(baseline)).assert_outcomes(passed=5)
    # The same suite again: like for like, nothing gated, exit 0 and compare's report in the summary.
    run = run_suite(pytester, "--caliber-compare", str(baseline))
    assert run.ret == 0
    run.stdout.fnmatch_lines(["*caliber compare*baseline.json (exit 0)*"])
    # A regression of a gated row: compare's exit 1.
    thresholds = pytester.path / "thresholds.json"
    thresholds.write_text(json.dumps({
        "schema_version": 1, "kind": "caliber.thresholds",
        "architectures": {"x86_64": {"rules": [{"name": "test_suite.py::test_copy*", "relative_pct": 20,
                                                 "absolute_us": 20, "calibration": "the test's own numbers"}]}}}))
    run = run_suite(pytester, "--caliber-compare", str(baseline), "--caliber-thresholds", str(thresholds),
                    slow_us=2000)
    run.assert_outcomes(passed=5)
    assert run.ret == 1
    run.stdout.fnmatch_lines(["*test_suite.py::test_copy[[]16[]]*SLOWER*GATE FAIL*"])
    # Not like for like (another schedule than the baseline's): refused, compare's exit 4.
    run = run_suite(pytester, "--caliber-compare", str(baseline), "--caliber-schedule", "per_iter")
    assert run.ret == 4


def test_options_are_checked_before_anything_runs(pytester):
    pytester.makepyfile(test_x="def test_x(): pass")
    run = pytester.runpytest_subprocess("-p", "caliber.pytest_plugin", "--caliber-thresholds", "t.json")
    assert run.ret == pytest.ExitCode.USAGE_ERROR
    run.stderr.fnmatch_lines(["*--caliber-thresholds and --caliber-strict need --caliber-compare BASELINE*"])
    run = pytester.runpytest_subprocess("-p", "caliber.pytest_plugin", "--caliber-compare", "missing.json")
    assert run.ret == pytest.ExitCode.USAGE_ERROR
    run.stderr.fnmatch_lines(["*--caliber-compare: missing.json: no such file*"])


def test_the_caliber_backend_fixture_resolves_auto(pytester):
    pytester.makepyfile(test_b="def test_b(caliber_backend): assert caliber_backend == 'host'")
    pytester.runpytest_subprocess("-p", "caliber.pytest_plugin", "--caliber-backend", "host").assert_outcomes(passed=1)
