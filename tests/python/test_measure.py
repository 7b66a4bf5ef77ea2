"""caliber.measure on the host backend, through libcaliber_c.so (ctest python_package).

Buffers are array.array objects behind a tiny wrapper that exposes __array_interface__, so the
tests need nothing beyond the standard library (no numpy)."""

import array
import ctypes
import json
import os
import subprocess
import tempfile
import unittest

import caliber
from caliber import _buffers


class HostArray:
    """float32 host memory exposing __array_interface__ (what numpy arrays expose)."""

    def __init__(self, values):
        self.data = array.array("f", values)
        address, n = self.data.buffer_info()
        self.address, self.nbytes = address, n * self.data.itemsize
        self.__array_interface__ = {"shape": (n,), "typestr": "<f4", "data": (address, False), "version": 3}


def host_copy(dst, src):
    def call(stream):
        ctypes.memmove(dst.address, src.address, src.nbytes)
    return call


N = 4096
FAST = dict(backend="host", cache="warm", iterations=20, telemetry=False)


def inputs():
    return HostArray(1.0 + (i % 89) for i in range(N)), HostArray(0.0 for _ in range(N))


class MeasureHostCopy(unittest.TestCase):
    def test_value_summary_contract(self):
        x, y = inputs()
        r = caliber.measure(host_copy(y, x), inputs=[x], outputs=[y], name="host_copy",
                            params={"elements": N, "dtype": "float32"}, **FAST)
        self.assertGreater(r.value_us, 0)
        self.assertEqual(r.summary.n, 20)
        self.assertLessEqual(r.summary.p10_us, r.summary.median_us)
        self.assertEqual(r.value_us, r.summary.median_us)
        self.assertEqual(r.contract.instrument, "wallclock")
        self.assertEqual(r.contract.schedule, "isolated")
        self.assertEqual(r.contract.cache, "warm")
        self.assertEqual(r.contract.statistic, "median")
        self.assertEqual(r.contract.iterations.rule, "fixed")
        self.assertEqual(r.name, "host_copy")
        self.assertEqual(r.params.as_dict(), {"elements": N, "dtype": "float32"})
        self.assertIsInstance(r.warnings, list)
        # Without draw_inputs and check_drawn every timed call saw the same values, so the
        # verdict is at best partial and the record says why (docs/integrity.md; with them:
        # tests/python/test_fresh_inputs.py).
        self.assertEqual(r.verdict, "partial")
        fresh = {c.name: c for c in r.integrity.checks}["fresh_inputs"]
        self.assertEqual(fresh.outcome, "not_run")
        self.assertIn("inputs fixed", fresh.detail)
        self.assertEqual(list(y.data), list(x.data))

    def test_stream_is_zero_on_host(self):
        seen = set()
        caliber.measure(lambda s: seen.add(s), integrity_checks=False, **FAST)
        self.assertEqual(seen, {0})

    def test_contract_keywords_reach_the_core(self):
        x, y = inputs()
        r = caliber.measure(host_copy(y, x), inputs=[x], outputs=[y], backend="host", cache="warm",
                            schedule="per_iter", statistic="p90", warmup=3, min_samples=8, max_time_ms=50,
                            telemetry=False)
        self.assertEqual(r.contract.schedule, "per_iter")
        self.assertEqual(r.contract.statistic, "p90")
        self.assertEqual(r.contract.warmup, 3)
        self.assertEqual(r.contract.iterations.rule, "adaptive")
        self.assertEqual(r.contract.iterations.min_samples, 8)
        self.assertEqual(r.value_us, r.summary.p90_us)

    def test_to_json_has_the_keys_of_caliber_bench_json(self):
        exe = os.environ.get("CALIBER_EXE")
        if not exe:
            self.skipTest("CALIBER_EXE (the caliber executable) is not set")
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "bench.json")
            subprocess.run([exe, "bench", "--backend", "host", "--kernel", "copy", "--size", "64KiB", "--cache",
                            "warm", "--iters", "5", "--json", path], check=True, capture_output=True)
            with open(path, encoding="utf-8") as f:
                bench = json.load(f)["results"][0]
        x, y = inputs()
        mine = json.loads(caliber.measure(host_copy(y, x), inputs=[x], outputs=[y], backend="host",
                                          cache="warm", iterations=5).to_json())
        self.assertEqual(sorted(mine), sorted(bench))
        for key in ("summary", "contract", "device", "integrity", "telemetry"):
            self.assertEqual(sorted(mine[key]), sorted(bench[key]), key)
        self.assertEqual(mine["contract"], bench["contract"])

    def test_write_results_json(self):
        x, y = inputs()
        r = caliber.measure(host_copy(y, x), inputs=[x], outputs=[y], **FAST)
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "results.json")
            caliber.write_results_json(path, [r, r])
            with open(path, encoding="utf-8") as f:
                doc = json.load(f)
        self.assertTrue(doc["complete"])
        self.assertEqual([json.dumps(x, sort_keys=True) for x in doc["results"]],
                         [json.dumps(json.loads(r.to_json()), sort_keys=True)] * 2)


class Integrity(unittest.TestCase):
    def test_a_callable_that_stops_working_is_refused(self):
        x, y = inputs()
        calls = []

        def lazy(stream):  # copies once, then returns early: the output it leaves is stale
            if not calls:
                ctypes.memmove(y.address, x.address, x.nbytes)
            calls.append(stream)

        with self.assertRaises(caliber.IntegrityError) as cm:
            caliber.measure(lazy, inputs=[x], outputs=[y], **FAST)
        result = cm.exception.result
        self.assertEqual(result.verdict, "failed")
        failed = [c.name for c in result.integrity.checks if c.outcome == "failed"]
        self.assertIn("output_after_timing", failed)

        calls.clear()
        r = caliber.measure(lazy, inputs=[x], outputs=[y], on_integrity_failure="return", **FAST)
        self.assertEqual(r.verdict, "failed")

    def test_a_callable_that_writes_its_input_is_caught(self):
        x, y = inputs()

        def scribble(stream):
            ctypes.memmove(y.address, x.address, x.nbytes)
            x.data[0] += 1.0

        r = caliber.measure(scribble, inputs=[x], outputs=[y], on_integrity_failure="return", **FAST)
        failed = [c.name for c in r.integrity.checks if c.outcome == "failed"]
        self.assertIn("inputs_unchanged", failed)

    def test_an_in_place_update_is_verified_from_its_original_values(self):
        x = HostArray(0.5 for _ in range(N))
        acc = HostArray(float(i % 13) for i in range(N))
        seen = []

        def add_into(stream):  # acc += x, in place
            seen.append(acc.data[1])
            for i in range(0, N, 512):
                acc.data[i] += x.data[i]

        r = caliber.measure(add_into, inputs=[x], in_place={"acc": acc}, **FAST)
        self.assertEqual(r.verdict, "partial")  # fresh_inputs: not_run (updated in place)
        checks = {c.name: c for c in r.integrity.checks}
        self.assertEqual(checks["output_after_timing"].outcome, "passed")
        self.assertEqual(checks["inputs_unchanged"].outcome, "passed")  # x is watched, acc is not
        self.assertGreater(len(seen), 3)

        calls = []

        def lazy(stream):  # updates once, then returns early: the verified call leaves the original values
            if not calls:
                add_into(stream)
            calls.append(stream)

        r = caliber.measure(lazy, inputs=[x], in_place={"acc": acc}, on_integrity_failure="return", **FAST)
        failed = [c.name for c in r.integrity.checks if c.outcome == "failed"]
        self.assertIn("output_after_timing", failed)

    def test_without_buffers_the_result_says_unverified(self):
        r = caliber.measure(lambda s: None, **FAST)
        self.assertEqual(r.verdict, "unverified")


class Errors(unittest.TestCase):
    def test_an_exception_in_fn_is_raised_not_a_number(self):
        calls = []

        def fails_on_the_third_call(stream):
            calls.append(stream)
            if len(calls) == 3:
                raise ZeroDivisionError("the kernel failed")

        with self.assertRaises(ZeroDivisionError) as cm:
            caliber.measure(fails_on_the_third_call, **FAST)
        self.assertIn("the kernel failed", str(cm.exception))
        self.assertEqual(len(calls), 3)

    def test_a_refused_contract_is_a_value_error_naming_the_field(self):
        with self.assertRaises(ValueError) as cm:
            caliber.measure(lambda s: None, backend="host", schedule="graph")
        self.assertIsInstance(cm.exception, caliber.ContractError)
        self.assertEqual(cm.exception.fields, ("schedule",))
        self.assertIn("schedule graph", str(cm.exception))

        with self.assertRaises(caliber.ContractError) as cm:
            caliber.measure(lambda s: None, backend="host", schedule="pipelined", measure="host-dispatch")
        self.assertIn("schedule", cm.exception.fields)

        with self.assertRaises(ValueError) as cm:
            caliber.measure(lambda s: None, backend="host", instrument="event")
        self.assertIn("instrument", cm.exception.fields)

    def test_cache_rotate_cycles_through_the_copies(self):
        # One copy's working set, and enough copies to cover 2x the host's last-level cache.
        probe = json.loads(caliber.measure(lambda s: None, integrity_checks=False, **FAST).to_json())
        llc = probe["device"]["llc_bytes"]
        self.assertGreater(llc, 0)
        ws = 1 << 20
        copies = max(2, -(-2 * llc // ws))
        seen = []
        r = caliber.measure(lambda s, rotation: seen.append(rotation), backend="host", cache="rotate",
                            iterations=10, warmup=1, rotation_copies=copies, working_set_bytes=ws,
                            integrity_checks=False, telemetry=False)
        self.assertEqual(r.contract.cache, "rotate")
        self.assertEqual(json.loads(r.to_json())["rotation_copies"], copies)
        # The timed calls take the copies round-robin.
        timed = seen[-10:]
        self.assertEqual(timed, [(timed[0] + i) % copies for i in range(10)])
        self.assertTrue(all(0 <= k < copies for k in seen))
        # Too few copies for the cache: refused by the core with the numbers.
        with self.assertRaises(caliber.ContractError) as cm:
            caliber.measure(lambda s, rotation: None, backend="host", cache="rotate", iterations=5,
                            rotation_copies=2, working_set_bytes=64, integrity_checks=False, telemetry=False)
        self.assertIn("cache rotate needs >= 2x the last-level cache", str(cm.exception))
        # Without the copies: refused, naming cache; copies without rotate: a usage error.
        with self.assertRaises(caliber.ContractError) as cm:
            caliber.measure(lambda s: None, backend="host", cache="rotate", iterations=5)
        self.assertEqual(cm.exception.fields, ("cache",))
        with self.assertRaises(caliber.UsageError) as cm:
            caliber.measure(lambda s: None, backend="host", cache="warm", rotation_copies=4, working_set_bytes=64)
        self.assertEqual(cm.exception.fields, ("rotation_copies",))

    def test_wrong_values_are_value_errors_naming_the_field(self):
        for kwargs, field in [(dict(cache="lukewarm"), "cache"), (dict(statistic="p150"), "statistic"),
                              (dict(warmup=0), "warmup"), (dict(iterations=10, min_samples=20), "iterations"),
                              (dict(params={"shape": [1, 2]}), "params")]:
            with self.subTest(field=field), self.assertRaises(ValueError) as cm:
                caliber.measure(lambda s: None, backend="host", **kwargs)
            self.assertEqual(cm.exception.fields, (field,))

    def test_each_contract_field_is_parsed_under_its_own_name(self):
        for kwargs, message in [(dict(schedule="bogus"), "schedule: unknown schedule 'bogus'"),
                                (dict(throttle_policy="never"), "throttle_policy: unknown throttle policy 'never'"),
                                (dict(cupti_reduction="most"), "cupti_reduction: unknown cupti reduction 'most'"),
                                (dict(cupti_value="best"), "cupti_value: unknown cupti value 'best'"),
                                (dict(graph_calls=0), "graph_calls must be >= 1 (got 0)"),
                                (dict(warmup="3"), "warmup: expected an integer (got \"3\")"),
                                (dict(measure="both"), "measure: unknown value 'both' (expected device|host-dispatch)")]:
            field = next(iter(kwargs))
            with self.subTest(field=field), self.assertRaises(caliber.UsageError) as cm:
                caliber.measure(lambda s: None, backend="host", **kwargs)
            self.assertEqual(cm.exception.fields, (field,))
            self.assertTrue(str(cm.exception).startswith(message), str(cm.exception))

    def test_a_refusal_names_every_field_to_change_in_the_contracts_order(self):
        with self.assertRaises(caliber.ContractError) as cm:
            caliber.measure(lambda s: None, backend="host", schedule="per_iter", measure="host-dispatch")
        self.assertEqual(cm.exception.fields, ("measure", "schedule"))
        self.assertTrue(str(cm.exception).startswith(
            "contract refused (measure, schedule): host_dispatch times one launch per sample"), str(cm.exception))

    def test_device_memory_on_the_host_backend_is_refused(self):
        class OnDevice:
            __cuda_array_interface__ = {"shape": (4,), "typestr": "<f4", "data": (4096, False), "version": 3}

        with self.assertRaises(ValueError) as cm:
            caliber.measure(lambda s: None, backend="host", inputs=[OnDevice()])
        self.assertIn("device memory", str(cm.exception))

    def test_an_object_without_an_interface_is_refused(self):
        with self.assertRaises(ValueError):
            caliber.measure(lambda s: None, backend="host", inputs=[object()])


class Buffers(unittest.TestCase):
    def test_array_interface(self):
        x = HostArray([1.0, 2.0, 3.0])
        b = _buffers.describe(x, "x")
        self.assertEqual((b.address, b.nbytes, b.dtype, b.device), (x.address, 12, "fp32", "cpu"))

    def test_non_contiguous_is_refused(self):
        x = HostArray([1.0] * 8)
        x.__array_interface__ = dict(x.__array_interface__, shape=(4,), strides=(8,))
        with self.assertRaises(ValueError):
            _buffers.describe(x, "x")

    def test_dlpack(self):
        x = HostArray([1.0] * 6)

        class DLManaged(ctypes.Structure):
            _fields_ = [("dl_tensor", _buffers._DLTensor), ("manager_ctx", ctypes.c_void_p),
                        ("deleter", ctypes.c_void_p)]

        class Tensor:  # a 2x3 bfloat16-typed view of x's first 12 bytes, as a DLPack producer
            def __init__(self):
                self.shape = (ctypes.c_int64 * 2)(2, 3)
                self.managed = DLManaged()
                t = self.managed.dl_tensor
                t.data, t.ndim, t.shape, t.byte_offset = x.address, 2, self.shape, 0
                t.device.device_type, t.dtype.code, t.dtype.bits, t.dtype.lanes = 1, 4, 16, 1

            def __dlpack_device__(self):
                return (1, 0)

            def __dlpack__(self, stream=None):
                new = ctypes.pythonapi.PyCapsule_New
                new.restype, new.argtypes = ctypes.py_object, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
                return new(ctypes.addressof(self.managed), b"dltensor", None)

        b = _buffers.describe(Tensor(), "t")
        self.assertEqual((b.address, b.nbytes, b.dtype, b.device), (x.address, 12, "bf16", "cpu"))

    def test_raw_buffer(self):
        x, y = inputs()
        r = caliber.measure(host_copy(y, x), inputs={"x": caliber.Buffer(x.address, x.nbytes, "fp32")},
                            outputs={"y": caliber.Buffer(y.address, y.nbytes, "fp32")}, **FAST)
        self.assertEqual(r.verdict, "partial")  # fresh_inputs: not_run (no draw_inputs given)


class Library(unittest.TestCase):
    def test_version_and_backends(self):
        self.assertRegex(caliber.version(), r"^\d+\.\d+\.\d+ \(git ")
        kinds = {b["backend"]: b for b in caliber.backends()}
        self.assertTrue(kinds["host"]["compiled"])
        self.assertIn("cuda", kinds)


if __name__ == "__main__":
    unittest.main()
