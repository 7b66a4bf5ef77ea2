"""What a Python user writes without ceremony (docs/python.md): dtype names as numpy and torch
spell them, callables without a stream argument, relative provider paths, a Result in a notebook,
results files compare accepts. Host backend, standard library only (ctest python_package)."""

import ctypes
import json
import os
import subprocess
import sys
import tempfile
import types
import unittest

import caliber
from caliber import _dtypes, _run, _streams


class FakeTorchDtype:
    """What torch.float32 looks like to caliber: a torch object whose text is "torch.float32"."""
    __module__ = "torch"

    def __init__(self, name):
        self.name_ = name

    def __str__(self):
        return "torch." + self.name_


class FakeNumpyDtype:
    """numpy.dtype("float16"): name, kind and itemsize."""
    name, kind, itemsize = "float16", "f", 2


class Dtypes(unittest.TestCase):
    def test_every_spelling_names_the_same_element_type(self):
        for spelling in ("fp32", "float32", "FLOAT32", "<f4", "f4", "numpy.float32", FakeTorchDtype("float32")):
            self.assertEqual(_dtypes.canonical(spelling), "fp32", spelling)
        self.assertEqual(_dtypes.canonical(FakeNumpyDtype()), "fp16")
        self.assertEqual(_dtypes.canonical(FakeTorchDtype("bfloat16")), "bf16")
        self.assertEqual(_dtypes.canonical(float), "fp64")  # numpy's meaning of Python's float
        self.assertEqual(_dtypes.canonical(bool), "bool")
        self.assertEqual(_dtypes.canonical("float8_e4m3fn"), "fp8_e4m3")
        self.assertEqual(_dtypes.canonical("|u1"), "uint8")
        self.assertIsNone(_dtypes.canonical(None))

    def test_an_unknown_dtype_is_a_usage_error_naming_it(self):
        with self.assertRaises(caliber.UsageError) as e:
            _dtypes.canonical("float31", "caliber.Buffer dtype")
        self.assertIn("caliber.Buffer dtype: unknown dtype 'float31'", str(e.exception))
        self.assertEqual(e.exception.fields, ("caliber.Buffer dtype",))

    def test_buffers_take_any_spelling_and_only_scanned_types_reach_the_core(self):
        self.assertEqual(caliber.Buffer(1, 4, "float32").dtype, "fp32")
        self.assertEqual(caliber.Buffer(1, 4, FakeTorchDtype("float16")).dtype, "fp16")
        self.assertEqual(_dtypes.scanned("int32"), None)
        self.assertEqual(_dtypes.scanned("bfloat16"), "bf16")


class ImplicitStreams(unittest.TestCase):
    def test_which_callables_take_the_stream(self):
        self.assertTrue(_streams.accepts(lambda stream: None, 1))
        self.assertTrue(_streams.accepts(lambda *a: None, 2))
        self.assertFalse(_streams.accepts(lambda: None, 1))
        self.assertFalse(_streams.accepts(lambda rotation: None, 2))
        self.assertTrue(_streams.accepts(print, 1))  # no signature to read: the explicit form

    def test_a_callable_without_arguments_is_measured(self):
        calls = []
        r = caliber.measure(lambda: calls.append(1), backend="host", cache="warm", iterations=5)
        self.assertEqual(r.summary.n, 5)
        self.assertGreaterEqual(len(calls), 6)  # warmup and samples, each called with nothing

    def test_rotation_without_the_stream(self):
        seen = set()
        x = (ctypes.c_char * (1 << 20))()
        caliber.measure(lambda rotation: seen.add(rotation), backend="host", cache="rotate", rotation_copies=64,
                        working_set_bytes=1 << 20, iterations=70, inputs=[caliber.Buffer(ctypes.addressof(x), 1 << 20)],
                        on_integrity_failure="return")
        self.assertGreater(len(seen), 1)

    def test_the_stream_is_entered_once_per_run_of_calls_and_restored(self):
        events = []

        class ExternalStream:  # what CuPy's is to caliber: a context manager per stream handle
            def __init__(self, handle, device):
                self.handle = handle

            def __enter__(self):
                events.append(("enter", self.handle))

            def __exit__(self, *exc):
                events.append(("exit", self.handle))

        fake = types.ModuleType("cupy")
        fake.cuda = types.SimpleNamespace(ExternalStream=ExternalStream)
        saved = sys.modules.get("cupy")
        sys.modules["cupy"] = fake
        try:
            binding = _streams.Binding(0)
            for handle in (11, 11, 11, 12, 0):
                binding.call(handle, lambda: events.append("call"))
            binding.release()
        finally:
            if saved is None:
                del sys.modules["cupy"]
            else:
                sys.modules["cupy"] = saved
            _streams._cupy_streams.clear()
        self.assertEqual(events, [("enter", 11), "call", "call", "call", ("exit", 11), ("enter", 12), "call",
                                  ("exit", 12), "call"])

    def test_without_a_stream_the_call_runs_as_it_is(self):
        self.assertEqual(_streams.call_on(0, None, lambda a, b: a + b, 2, 3), 5)


class Paths(unittest.TestCase):
    def test_provider_files_are_relative_to_the_current_directory(self):
        cwd = os.getcwd()
        self.assertEqual(_run._absolute_entrypoint("python:k/providers.py:Fast"),
                         "python:{}:Fast".format(os.path.join(cwd, "k/providers.py")))
        self.assertEqual(_run._absolute_entrypoint("libs/libmine.so:my_gemm"),
                         "{}:my_gemm".format(os.path.join(cwd, "libs/libmine.so")))
        for kept in ("builtin:naive", "@plugins/libcaliber_add_rmsnorm.so:add_rmsnorm_host",
                     "python:/abs/p.py:X"):
            self.assertEqual(_run._absolute_entrypoint(kept), kept)


class Display(unittest.TestCase):
    def test_a_result_in_a_notebook_shows_value_interval_contract_and_verdict(self):
        r = caliber.measure(lambda: None, backend="host", cache="warm", iterations=40, name="<mine>")
        page = r._repr_html_()
        self.assertIn("caliber.Result <code>&lt;mine&gt;</code>", page)  # escaped
        self.assertIn("{:.4g} us".format(r.value_us), page)
        self.assertIn("median 95% interval [", page)
        self.assertIn("schedule=isolated", page)
        self.assertIn("<b>unverified</b>", page)


class ResultsFiles(unittest.TestCase):
    def test_written_results_carry_the_identity_compare_needs(self):
        with tempfile.TemporaryDirectory() as tmp:
            identity = caliber.run_identity("host")
            results = [caliber.measure(lambda: None, backend="host", cache="warm", iterations=9, samples=True,
                                       name="noop")]
            a, b = os.path.join(tmp, "a.json"), os.path.join(tmp, "b.json")
            caliber.write_results_json(a, results, identity)
            caliber.write_results_json(b, results)  # the identity collected at writing
            with open(os.path.join(tmp, "a.run_identity.json"), encoding="utf-8") as f:
                side = json.load(f)
            self.assertEqual(side["run_id"], identity["run_id"])
            self.assertEqual(side["outputs"], ["a.json"])
            self.assertEqual([c["contract"]["schedule"] for c in side["contracts"]], ["isolated"])
            done = caliber.cli("compare", a, b, check=False, capture=True)
            self.assertEqual(done.returncode, 0, done.stderr)
            self.assertIn("noop", done.stdout)

    def test_an_incomplete_file_says_so(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "r.json")
            caliber.write_results_json(path, [], caliber.run_identity("host"), complete=False)
            with open(path, encoding="utf-8") as f:
                self.assertFalse(json.load(f)["complete"])

    def test_the_identity_request_is_checked(self):
        with self.assertRaises(caliber.UsageError) as e:
            caliber.run_identity("host", device=7)
        self.assertIn("device: host has no device 7", str(e.exception))


class Console(unittest.TestCase):
    def test_python_m_caliber_runs_the_cli(self):
        done = subprocess.run([sys.executable, "-m", "caliber", "validate", "--help"], capture_output=True, text=True)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("Usage: caliber validate", done.stdout)


if __name__ == "__main__":
    unittest.main()
