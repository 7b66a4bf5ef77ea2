"""caliber.run with providers written in Python (docs/python.md, "Python providers"), on the host
backend: an op of your own whose providers and reference are Python objects, and a shipped op with
a Python provider next to caliber's own. The rows come from the core's runner and checks: honest
providers end ok, one that gets its output wrong, touches an input, computes once or raises does
not. Pure Python (ctypes views of the buffers), so the tests need nothing beyond the standard
library."""

import hashlib
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import unittest

import caliber

DESCRIPTION = """\
schema_version: 1
op: scale_add
summary: "z = x + 2 y, elementwise over [m, n]"
args:
  m: integer
  n: integer
inputs:
  - {name: x, shape: [m, n]}
  - {name: y, shape: [m, n]}
outputs:
  - {name: z, shape: [m, n]}
flops: 2 * m * n
reference:
  entrypoint: "python:providers.py:reference"
  precision: fp64
"""

PROVIDERS = '''\
import caliber


class Honest:
    backend = "host"
    detail = "a Python loop"
    ops = ("scale_add",)

    def __init__(self):
        self.prepared = []

    def prepare(self, problem):
        self.prepared.append((problem.op, problem.dtype, problem.args["m"], problem.args["n"],
                              [t.shape for t in problem.inputs], [t.shape for t in problem.outputs]))

    def run(self, problem, inputs, outputs, stream):
        assert stream == 0 and self.prepared  # the host backend's stream; prepare() ran first
        x, y = (t.as_ctypes() for t in inputs)
        z = outputs[0].as_ctypes()
        for i in range(len(z)):
            z[i] = x[i] + 2.0 * y[i]


reference = Honest  # also the reference: run on fp64 copies of the inputs


class NoStream(Honest):
    """run() without the stream argument: caliber makes its stream the libraries' current one."""

    def run(self, problem, inputs, outputs):
        Honest.run(self, problem, inputs, outputs, 0)


class Wrong(Honest):
    def run(self, problem, inputs, outputs, stream):
        x, y = (t.as_ctypes() for t in inputs)
        z = outputs[0].as_ctypes()
        for i in range(len(z)):
            z[i] = x[i] + y[i]


class Lazy(Honest):
    """Computes once per shape, then returns at once: the later calls leave what they find."""

    def prepare(self, problem):
        Honest.prepare(self, problem)
        self.done = False

    def run(self, problem, inputs, outputs, stream):
        if not self.done:
            Honest.run(self, problem, inputs, outputs, stream)
            self.done = True


class TouchesInput(Honest):
    def run(self, problem, inputs, outputs, stream):
        Honest.run(self, problem, inputs, outputs, stream)
        inputs[1].as_ctypes()[0] = 0.0


@caliber.provider(backend="host")
def raises(problem, inputs, outputs, stream):
    raise ValueError("no kernel for this shape")


class Narrow(Honest):
    def supports(self, problem):
        return None if problem.args["n"] <= 32 else "rows longer than 32"


@caliber.provider(backend="cuda")
def on_device(problem, inputs, outputs, stream):
    pass


class Tuned(Honest):
    """An autotuner: chooses a tile per shape, or uses the one it is pinned to."""

    def __init__(self):
        Honest.__init__(self)
        self.pinned = None

    def pin_config(self, key):
        if key is not None and not key.startswith("tile="):
            raise ValueError("not a tile: " + key)
        self.pinned = key

    def prepare(self, problem):
        Honest.prepare(self, problem)
        self.chosen = self.pinned or "tile={}".format(16 if problem.args["n"] <= 32 else 64)

    def chosen_config(self):
        return self.chosen, "the tile the tuner chose"


class Crashes(Honest):
    """Takes the worker down (a read at address 0) on rows longer than 40."""

    def run(self, problem, inputs, outputs, stream):
        if problem.args["n"] > 40:
            import ctypes
            ctypes.string_at(0)
        Honest.run(self, problem, inputs, outputs, stream)


class Hangs(Honest):
    """Never returns on rows longer than 40."""

    def run(self, problem, inputs, outputs, stream):
        if problem.args["n"] > 40:
            import time
            time.sleep(3600)
        Honest.run(self, problem, inputs, outputs, stream)


class Exits(Honest):
    """Calls sys.exit(0) on rows longer than 40: its call fails; the worker goes on."""

    def run(self, problem, inputs, outputs, stream):
        if problem.args["n"] > 40:
            import sys
            sys.exit(0)
        Honest.run(self, problem, inputs, outputs, stream)


class Softmax:
    """A shipped op served from Python (plugin ABI v2, as every Python provider)."""
    backend = "host"
    ops = ("softmax",)

    def run(self, problem, inputs, outputs, stream):
        import math
        m, n = problem.m, problem.n
        # The tensors of ops/softmax.op.yaml, as the core's problem lists them.
        if [(t.name, list(t.shape)) for t in problem.inputs + problem.outputs] != [("x", [m, n]), ("y", [m, n])]:
            raise ValueError("unexpected tensors {}".format(problem.inputs + problem.outputs))
        x, y = inputs[0].as_ctypes(), outputs[0].as_ctypes()
        for r in range(m):
            row = [x[r * n + c] for c in range(n)]
            top = max(row)
            e = [math.exp(v - top) for v in row]
            s = sum(e)
            for c in range(n):
                y[r * n + c] = e[c] / s
'''

# An op updated in place (docs/user-ops.md, "In-place outputs"): acc += 2 x, acc being the output.
IN_PLACE_DESCRIPTION = """\
schema_version: 1
op: accumulate
args:
  n: integer
inputs:
  - {name: acc, shape: [n]}
  - {name: x, shape: [n]}
outputs:
  - {name: acc_out, in_place: acc}
flops: 2 * n
reference:
  entrypoint: "python:in_place.py:Accumulate"
  precision: fp64
"""

IN_PLACE_PROVIDERS = '''\
class Accumulate:
    backend = "host"
    ops = ("accumulate",)

    def run(self, problem, inputs, outputs, stream):
        acc = outputs[0].as_ctypes()  # the buffer of inputs[0]
        x = inputs[1].as_ctypes()
        for i in range(len(acc)):
            acc[i] += 2.0 * x[i]


class Once(Accumulate):
    def prepare(self, problem):
        self.done = False

    def run(self, problem, inputs, outputs, stream):
        if not self.done:
            super().run(problem, inputs, outputs, stream)
            self.done = True
'''

RUN_OPTIONS = {"min_time_ms": 0, "max_time_ms": 2, "min_samples": 6, "warmup": 1}


def write(path, text):
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def entry(name, symbol):
    return '  {}: {{enabled: true, entrypoint: "python:providers.py:{}", provider: python}}\n'.format(name, symbol)


class PythonProviders(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="caliber_python_providers_")
        write(os.path.join(self.dir, "providers.py"), PROVIDERS)
        write(os.path.join(self.dir, "scale_add.op.yaml"), DESCRIPTION)

    def path(self, name):
        return os.path.join(self.dir, name)

    def ledger(self, op, *shapes, description=True):
        args = ["ledger", "manual", "--op", op, "--ledger", self.path(op + ".jsonl"), "--dtype", "fp32"]
        if description:
            args += ["--op-description", self.path("scale_add.op.yaml")]
        for s in shapes:
            args += ["--shape", s]
        caliber.cli(*args)
        return self.path(op + ".jsonl")

    def scale_add_matrix(self, providers):
        write(self.path("matrix.yaml"),
              "schema_version: 1\nkernel: scale_add\nop_type: scale_add\nop_description: scale_add.op.yaml\n"
              "dtype: [fp32]\nreference_provider: honest\nlayout_contract: row_major\nproviders:\n" + providers)
        return self.path("matrix.yaml")

    def test_an_op_of_your_own_with_python_providers_and_a_python_reference(self):
        ledger = self.ledger("scale_add", "m=4,n=32", "m=3,n=45")
        matrix = self.scale_add_matrix(entry("honest", "Honest") + entry("wrong", "Wrong") + entry("lazy", "Lazy") +
                                       entry("touches_input", "TouchesInput") + entry("raises", "raises") +
                                       entry("narrow", "Narrow") + entry("on_device", "on_device"))
        r = caliber.run(op="scale_add", shape_ledger=ledger, baseline_matrix=matrix, out=self.path("out"),
                        backend="host", options=RUN_OPTIONS)
        self.assertEqual(r.exit_code, 0)
        self.assertEqual(len(r.rows), 2 * 7)
        by = {}
        for row in r.rows:
            by.setdefault(row["provider"], []).append(row)
        for row in by["honest"]:
            self.assertEqual(row["benchmark_status"], "ok", row.get("status_reason"))
            m, n = row["args"]["m"], row["args"]["n"]
            self.assertEqual(row["flops"], 2 * m * n)
            self.assertEqual(row["bytes"], 3 * m * n * 4)  # the default: every tensor once
            self.assertIn("providers.py:Honest: a Python loop [python {}.{}.".format(*sys.version_info[:2]),
                          row["provider_detail"])
            before = [c for c in row["integrity"]["checks"] if c["name"] == "output_before_timing"][0]
            self.assertIn("providers.py:reference in fp64", before["detail"])
            self.assertGreater(row["median_us"], 0)
        for name in ("wrong", "lazy", "touches_input"):
            for row in by[name]:
                self.assertEqual(row["benchmark_status"], "incorrect", (name, row.get("status_reason")))
        for row in by["raises"]:
            self.assertEqual(row["benchmark_status"], "failed")
            self.assertIn("ValueError: no kernel for this shape", row["status_reason"])
        narrow = {row["args"]["n"]: row for row in by["narrow"]}
        self.assertEqual(narrow[32]["benchmark_status"], "ok", narrow[32].get("status_reason"))
        self.assertEqual(narrow[45]["benchmark_status"], "unsupported")
        self.assertIn("rows longer than 32", narrow[45]["status_reason"])
        for row in by["on_device"]:
            self.assertEqual(row["benchmark_status"], "not_configured")
            self.assertIn("is for the cuda backend", row["status_reason"])
        # The identity names the Python files like plugin libraries, with their hashes, and the
        # caliber executable as the harness (the worker's library among the hashed files).
        hashed = {p["role"]: p["path"] for p in r.identity["providers"]}
        self.assertTrue(hashed["honest"].endswith("providers.py"), hashed)
        self.assertTrue(hashed["op_description.reference"].endswith("providers.py"), hashed)
        self.assertTrue(hashed["caliber_worker_library"].endswith("libcaliber_c.so"), hashed)
        with open(caliber._run.executable(), "rb") as f:
            self.assertEqual(r.identity["harness"]["executable_sha256"], hashlib.sha256(f.read()).hexdigest())

        # The files are the ones report and compare read.
        report = caliber.cli("report", "--shape-ledger", ledger, "--results", self.path("out/benchmark_results.jsonl"),
                             "--out", self.path("report"), "--candidate", "honest", "--op-description",
                             self.path("scale_add.op.yaml"), check=False, capture=True)
        self.assertEqual(report.returncode, 0, report.stderr)
        with open(self.path("report/benchmark_summary.md"), encoding="utf-8") as f:
            self.assertIn("scale_add", f.read())
        again = caliber.run(op="scale_add", shape_ledger=ledger, baseline_matrix=matrix, out=self.path("again"),
                            backend="host", options=dict(RUN_OPTIONS, providers="honest"))
        self.assertEqual([row["benchmark_status"] for row in again.rows if row["provider"] == "honest"], ["ok", "ok"])
        gate = caliber.cli("compare", self.path("out"), self.path("again"), "--format", "json", check=False,
                           capture=True)
        self.assertEqual(gate.returncode, 0, gate.stdout + gate.stderr)
        self.assertIn("scale_add", gate.stdout)

    def test_an_op_updated_in_place_by_python_providers(self):
        write(self.path("accumulate.op.yaml"), IN_PLACE_DESCRIPTION)
        write(self.path("in_place.py"), IN_PLACE_PROVIDERS)
        caliber.cli("ledger", "manual", "--op", "accumulate", "--op-description", self.path("accumulate.op.yaml"),
                    "--ledger", self.path("acc.jsonl"), "--dtype", "fp32", "--shape", "n=64", "--shape", "n=100")
        write(self.path("acc.yaml"),
              "schema_version: 1\nkernel: accumulate\nop_type: accumulate\nop_description: accumulate.op.yaml\n"
              "dtype: [fp32]\nreference_provider: honest\nlayout_contract: row_major\nproviders:\n"
              '  honest: {enabled: true, entrypoint: "python:in_place.py:Accumulate", provider: python}\n'
              '  once: {enabled: true, entrypoint: "python:in_place.py:Once", provider: python}\n')
        r = caliber.run(op="accumulate", shape_ledger=self.path("acc.jsonl"), baseline_matrix=self.path("acc.yaml"),
                        out=self.path("acc_out"), backend="host", options=RUN_OPTIONS)
        self.assertEqual(r.exit_code, 0)
        self.assertEqual(len(r.rows), 4)
        for row in r.rows:
            n = row["args"]["n"]
            self.assertEqual(row["bytes"], 3 * n * 4)  # acc read and written, x read
            if row["provider"] == "honest":
                # Each timed call added to what the last one left; the verified ones started from
                # the original acc and matched the reference's single update of it.
                self.assertEqual(row["benchmark_status"], "ok", row.get("status_reason"))
                inputs = [c for c in row["integrity"]["checks"] if c["name"] == "inputs_unchanged"][0]
                self.assertIn("1 input (", inputs["detail"])  # x is watched, acc is not
            else:
                self.assertEqual(row["benchmark_status"], "incorrect", row.get("status_reason"))
                self.assertIn("wrong after the timed calls", row["status_reason"])

    def test_a_python_autotuner_s_choice_is_recorded_and_replayed(self):
        ledger = self.ledger("scale_add", "m=4,n=32", "m=3,n=45")
        matrix = self.scale_add_matrix(entry("honest", "Honest") + entry("tuned", "Tuned"))
        first = caliber.run(op="scale_add", shape_ledger=ledger, baseline_matrix=matrix, out=self.path("first"),
                            backend="host", options=RUN_OPTIONS)
        tuned = {row["args"]["n"]: row for row in first.rows if row["provider"] == "tuned"}
        self.assertEqual({n: (row["benchmark_status"], row["config"]["pinning"], row["config"]["key"])
                          for n, row in tuned.items()},
                         {32: ("ok", "recorded", "tile=16"), 45: ("ok", "recorded", "tile=64")})
        self.assertEqual(tuned[32]["config"]["description"], "the tile the tuner chose")
        again = caliber.run(op="scale_add", shape_ledger=ledger, baseline_matrix=matrix, out=self.path("again"),
                            backend="host", options=dict(RUN_OPTIONS, replay_configs=self.path("first")))
        replayed = {row["args"]["n"]: row["config"] for row in again.rows if row["provider"] == "tuned"}
        self.assertEqual({n: (c["pinning"], c["key"]) for n, c in replayed.items()},
                         {32: ("replayed", "tile=16"), 45: ("replayed", "tile=64")})

    def test_a_python_provider_that_crashes_or_hangs_costs_its_cell_only(self):
        ledger = self.ledger("scale_add", "m=4,n=32", "m=3,n=45", "m=2,n=8")
        matrix = self.scale_add_matrix(entry("honest", "Honest") + entry("crashes", "Crashes") + entry("hangs", "Hangs"))
        r = caliber.run(op="scale_add", shape_ledger=ledger, baseline_matrix=matrix, out=self.path("out"),
                        backend="host", options=dict(RUN_OPTIONS, cell_timeout_s=3))
        status = {(row["provider"], row["args"]["n"]): row for row in r.rows}
        self.assertEqual(len(r.rows), 9)
        for n in (32, 45, 8):
            self.assertEqual(status[("honest", n)]["benchmark_status"], "ok")
        for n in (32, 8):  # the shapes it does not crash or hang on, before and after the one it does
            self.assertEqual(status[("crashes", n)]["benchmark_status"], "ok")
            self.assertEqual(status[("hangs", n)]["benchmark_status"], "ok")
        self.assertEqual(status[("crashes", 45)]["benchmark_status"], "failed")
        self.assertIn("signal 11", status[("crashes", 45)]["status_reason"])
        self.assertEqual(status[("hangs", 45)]["benchmark_status"], "failed")
        self.assertIn("3 s", status[("hangs", 45)]["status_reason"])

    def test_a_python_provider_that_calls_sys_exit_fails_its_cell_with_that_said(self):
        ledger = self.ledger("scale_add", "m=4,n=32", "m=3,n=45")
        matrix = self.scale_add_matrix(entry("honest", "Honest") + entry("exits", "Exits"))
        r = caliber.run(op="scale_add", shape_ledger=ledger, baseline_matrix=matrix, out=self.path("out"),
                        backend="host", options=RUN_OPTIONS)
        status = {(row["provider"], row["args"]["n"]): row for row in r.rows}
        self.assertEqual(len(r.rows), 4)
        self.assertEqual(status[("exits", 32)]["benchmark_status"], "ok")
        self.assertEqual(status[("exits", 45)]["benchmark_status"], "failed")
        self.assertIn("the provider called sys.exit(0)", status[("exits", 45)]["status_reason"])
        self.assertEqual(status[("honest", 45)]["benchmark_status"], "ok")

    def test_a_python_worker_refuses_a_library_of_another_build(self):
        # What caliber run starts, with the build it expects set to another one: the worker's
        # events (here on stderr, descriptor 2) say why, and nothing is measured.
        ledger = self.ledger("scale_add", "m=2,n=8")
        matrix = self.scale_add_matrix(entry("honest", "Honest"))
        env = dict(caliber._run._environment(), CALIBER_HARNESS_BUILD="0.0.0 (another, Debug)")
        worker = subprocess.run(
            [sys.executable, "-m", "caliber._worker", "--provider", self.path("providers.py") + ":Honest", "--",
             "--op", "scale_add", "--shape-ledger", ledger, "--baseline-matrix", matrix, "--out", self.path("out"),
             "--backend", "host", "--run-id", "test", "--events-fd", "2"],
            env=env, input='{"token": "t0k"}\n', capture_output=True, text=True, timeout=60)
        self.assertEqual(worker.returncode, 2, worker.stderr)
        self.assertIn("but the run is by caliber 0.0.0 (another, Debug)", worker.stderr)
        self.assertIn('"token": "t0k"', worker.stderr.replace('"token":"t0k"', '"token": "t0k"'))
        self.assertIn('"event": "fatal"', worker.stderr.replace('"event":"fatal"', '"event": "fatal"'))

    def test_a_python_worker_without_the_channel_token_imports_nothing(self):
        # The token is the first line on stdin, read before any provider file is imported: a worker
        # started without it says why and never imports the (here failing) provider file.
        write(self.path("loud.py"), "raise SystemExit('imported')\n")
        worker = subprocess.run(
            [sys.executable, "-m", "caliber._worker", "--provider", self.path("loud.py") + ":Honest", "--",
             "--op", "scale_add", "--out", self.path("out"), "--events-fd", "2"],
            env=caliber._run._environment(), stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60)
        self.assertEqual(worker.returncode, 2, worker.stderr)
        self.assertIn("the first line on stdin must be the channel's token", worker.stderr)
        self.assertNotIn("imported", worker.stderr)

    def test_providers_and_shapes_given_from_python(self):
        spec = importlib.util.spec_from_file_location("user_scale_add_providers", self.path("providers.py"))
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
        kwargs = dict(op="scale_add", out=self.path("made"), op_description=self.path("scale_add.op.yaml"),
                      shapes=[{"m": 4, "n": 32}, {"m": 2, "n": 8}], dtypes=["fp32"], backend="host",
                      options=RUN_OPTIONS)
        r = caliber.run(providers={"honest": module.Honest, "wrong": module.Wrong, "raises": module.raises}, **kwargs)
        self.assertEqual(sorted((row["provider"], row["benchmark_status"]) for row in r.rows),
                         [("honest", "ok"), ("honest", "ok"), ("raises", "failed"), ("raises", "failed"),
                          ("wrong", "incorrect"), ("wrong", "incorrect")])
        with open(self.path("made/inputs/baseline_matrix.yaml"), encoding="utf-8") as f:
            matrix = json.load(f)
        self.assertEqual(matrix["reference_provider"], "honest")
        self.assertEqual(matrix["providers"]["honest"]["entrypoint"],
                         "python:{}:Honest".format(os.path.abspath(self.path("providers.py"))))
        # Resumed with the same providers and shapes: the same inputs, every cell already done.
        again = caliber.run(providers={"honest": module.Honest, "wrong": module.Wrong, "raises": module.raises},
                            resume=True, **kwargs)
        self.assertEqual(len(again.rows), 6)
        # strict: exit 1, and the rows say which cells failed, so the result is returned.
        strict = caliber.run(providers={"honest": module.Honest, "wrong": module.Wrong}, strict=True,
                             **dict(kwargs, out=self.path("strict")))
        self.assertEqual(strict.exit_code, 1)
        self.assertEqual(sorted((row["provider"], row["benchmark_status"]) for row in strict.rows),
                         [("honest", "ok"), ("honest", "ok"), ("wrong", "incorrect"), ("wrong", "incorrect")])
        # What the worker cannot import is refused before anything runs.
        class Local(module.Honest):
            pass
        for bad in (module.Honest(), Local):
            with self.assertRaises(caliber.UsageError):
                caliber.run(providers={"bad": bad}, **dict(kwargs, out=self.path("bad")))
        self.assertFalse(os.path.exists(self.path("bad/benchmark_results.jsonl")))

    def test_relative_entrypoints_dtype_names_and_a_run_without_the_stream(self):
        # From the providers' directory, as a user runs it: the relative file is that directory's,
        # not OUT/inputs/'s where the matrix is written; "float32" is fp32.
        cwd = os.getcwd()
        os.chdir(self.dir)
        try:
            r = caliber.run(op="scale_add", out="rel", op_description="scale_add.op.yaml", shapes=[{"m": 2, "n": 8}],
                            dtypes=["float32"], backend="host", options=RUN_OPTIONS,
                            providers={"honest": "python:providers.py:Honest", "nostream": "python:providers.py:NoStream"})
        finally:
            os.chdir(cwd)
        self.assertEqual(sorted((row["provider"], row["dtype"], row["benchmark_status"]) for row in r.rows),
                         [("honest", "fp32", "ok"), ("nostream", "fp32", "ok")])
        with open(self.path("rel/inputs/baseline_matrix.yaml"), encoding="utf-8") as f:
            matrix = json.load(f)
        self.assertEqual(matrix["providers"]["nostream"]["entrypoint"],
                         "python:{}:NoStream".format(os.path.realpath(self.path("providers.py"))))

    def test_a_campaign_of_python_providers_is_sealed_and_verifies(self):
        ledger = self.ledger("scale_add", "m=4,n=32", "m=3,n=45", "m=2,n=8")
        matrix = self.scale_add_matrix(entry("honest", "Honest") + entry("wrong", "Wrong"))
        caliber.cli("batch", "--op", "scale_add", "--shape-ledger", ledger, "--baseline-matrix", matrix, "--out",
                    self.path("campaign"), "--backend", "host", "--devices", "0,0", "--min-time-ms", "0",
                    "--max-time-ms", "2", "--min-samples", "6", "--warmup", "1")
        self.assertTrue(os.path.exists(self.path("campaign/campaign_seal.json")))
        verify = caliber.cli("campaign", "verify", self.path("campaign"), capture=True)
        self.assertIn("6 receipt(s) checked, sealed, 0 problem(s)", verify.stdout + verify.stderr)
        # The device's server cannot host a Python worker: each shard's run asks it to exit, so the
        # device is the Python worker's alone (docs/batch.md, "One process per device").
        server_log = open(self.path("campaign/device_server_0.log")).read()
        self.assertIn("asked it to exit", server_log)
        run_log = open(self.path("campaign/shards/scale_add/s0/run.log")).read()
        self.assertIn("the run's providers run in a Python worker; the server exited", run_log)

    def test_a_shipped_op_with_a_python_provider_next_to_caliber_s_own(self):
        ledger = self.ledger("softmax", "m=3,n=40", description=False)
        write(self.path("softmax.yaml"),
              "schema_version: 1\nkernel: softmax\nop_type: softmax\ndtype: [fp32]\nreference_provider: naive\n"
              "layout_contract: row_major\nproviders:\n"
              "  naive: {enabled: true, entrypoint: \"builtin:naive\", provider: caliber}\n" +
              entry("python_softmax", "Softmax") + entry("honest", "Honest"))
        r = caliber.run(op="softmax", shape_ledger=ledger, baseline_matrix=self.path("softmax.yaml"),
                        out=self.path("softmax_out"), backend="host", options=RUN_OPTIONS)
        status = {row["provider"]: row for row in r.rows}
        self.assertEqual(status["naive"]["benchmark_status"], "ok", status["naive"].get("status_reason"))
        self.assertEqual(status["python_softmax"]["benchmark_status"], "ok", status["python_softmax"].get("status_reason"))
        self.assertEqual(status["honest"]["benchmark_status"], "not_configured")  # it offers scale_add only
        self.assertIn("offers scale_add, not softmax", status["honest"]["status_reason"])
        self.assertGreater(status["python_softmax"]["median_us"], 0)

    def test_a_provider_file_that_does_not_import_stops_the_run_with_its_error(self):
        write(self.path("providers.py"), "import no_such_module_here\n")
        ledger = self.ledger("scale_add", "m=2,n=8")
        matrix = self.scale_add_matrix(entry("honest", "Honest"))
        with self.assertRaises(caliber.CaliberError) as ctx:
            caliber.run(op="scale_add", shape_ledger=ledger, baseline_matrix=matrix, out=self.path("out"),
                        backend="host", options=RUN_OPTIONS)
        self.assertIn("No module named 'no_such_module_here'", str(ctx.exception))
        # the plugin_loads preflight, once, where the matrix names the provider
        self.assertIn("PREFLIGHT_FAILED check=plugin_loads: " + matrix + ":9: field 'providers.honest.entrypoint': "
                      "python provider", str(ctx.exception))
        self.assertNotIn("caliber worker: error", str(ctx.exception))
        self.assertFalse(os.path.exists(self.path("out/benchmark_results.jsonl")))
        # strict returns on exit 1 only when a row says which cell failed: here none does.
        with self.assertRaises(caliber.CaliberError) as ctx:
            caliber.run(op="scale_add", shape_ledger=ledger, baseline_matrix=matrix, out=self.path("strict"),
                        backend="host", strict=True, options=RUN_OPTIONS)
        self.assertIn("No module named 'no_such_module_here'", str(ctx.exception))

    def test_a_provider_file_that_calls_sys_exit_on_import_fails_the_preflight(self):
        write(self.path("providers.py"), "import sys\nsys.exit(0)\n")
        ledger = self.ledger("scale_add", "m=2,n=8")
        matrix = self.scale_add_matrix(entry("honest", "Honest"))
        with self.assertRaises(caliber.CaliberError) as ctx:
            caliber.run(op="scale_add", shape_ledger=ledger, baseline_matrix=matrix, out=self.path("out"),
                        backend="host", options=RUN_OPTIONS)
        self.assertIn(matrix + ":9: field 'providers.honest.entrypoint': ", str(ctx.exception))
        self.assertIn("the provider called sys.exit(0)", str(ctx.exception))
        self.assertFalse(os.path.exists(self.path("out/benchmark_results.jsonl")))

    def test_a_provider_file_that_never_finishes_importing_fails_at_the_start_timeout(self):
        write(self.path("providers.py"), "import time\ntime.sleep(3600)\n")
        ledger = self.ledger("scale_add", "m=2,n=8")
        matrix = self.scale_add_matrix(entry("honest", "Honest"))
        with self.assertRaises(caliber.CaliberError) as ctx:
            caliber.run(op="scale_add", shape_ledger=ledger, baseline_matrix=matrix, out=self.path("out"),
                        backend="host", options=dict(RUN_OPTIONS, start_timeout_s=2))
        self.assertIn("the measuring worker did not start twice in a row", str(ctx.exception))

    def test_a_missing_provider_file_fails_the_preflight_naming_the_matrix_line(self):
        ledger = self.ledger("scale_add", "m=2,n=8")
        matrix = self.scale_add_matrix(entry("honest", "Honest").replace("providers.py", "missing.py"))
        with self.assertRaises(caliber.CaliberError) as ctx:
            caliber.run(op="scale_add", shape_ledger=ledger, baseline_matrix=matrix, out=self.path("out"),
                        backend="host", options=RUN_OPTIONS)
        self.assertIn("matrix.yaml:9: field 'providers.honest.entrypoint'", str(ctx.exception))
        self.assertIn("missing.py is not a file", str(ctx.exception))


if __name__ == "__main__":
    unittest.main()
