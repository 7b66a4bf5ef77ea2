"""Fresh inputs through caliber.measure and the C API (docs/integrity.md, "Fresh inputs" and
"Audited calls"; docs/python.md): draw_inputs(seed) writes new input values before every call
that is not a verified one, check_drawn(seed) judges the timed calls caliber audits. With both,
an honest callable is verified and one that remembers its result or stops working fails; without
them the verdict is at best partial. Host backend, standard library only (ctypes views of
array.array buffers, as in test_measure.py)."""

import array
import ctypes
import json
import unittest

import caliber
from caliber._library import CALL_FN, CHECK_FN, DRAW_FN, call_json, library  # the C API through ctypes
from test_measure import HostArray

N = 4096
FAST = dict(backend="host", cache="warm", iterations=20, telemetry=False)


def drawn_x(seed):
    """The x that draw_inputs(seed) writes: a function of the seed alone, never zero."""
    return array.array("f", (0.5 + ((seed ^ (i * 0x9E3779B97F4A7C15)) % 1000) / 1000.0 for i in range(N)))


def affine(values):
    """y = 2 x + 1 in float32 (2 x is exact in double and the sum rounds once, as in float32)."""
    return array.array("f", (2.0 * v + 1.0 for v in values))


class Affine:
    """x, y and the honest callable y = 2 x + 1 with its draw and check; counts the calls."""

    def __init__(self):
        self.x = HostArray(0.5 + (i % 89) / 89.0 for i in range(N))
        self.y = HostArray(0.0 for _ in range(N))
        self.seeds, self.checked = [], []

    def honest(self, stream):
        self.y.data[:] = affine(self.x.data)

    def draw(self, seed):
        self.seeds.append(seed)
        self.x.data[:] = drawn_x(seed)

    def check(self, seed):
        self.checked.append(seed)
        return None if self.y.data == affine(drawn_x(seed)) else "y is not 2 x + 1 for the drawn x"

    def measure(self, fn, fresh=True, **keywords):
        if fresh:
            keywords.setdefault("draw_inputs", self.draw)
            keywords.setdefault("check_drawn", self.check)
        return caliber.measure(fn, inputs={"x": self.x}, outputs={"y": self.y}, name="affine", **FAST, **keywords)


def checks_of(result):
    return {c.name: c for c in result.integrity.checks}


class Verdicts(unittest.TestCase):
    def test_an_honest_callable_with_a_draw_and_its_check_is_verified(self):
        a = Affine()
        r = a.measure(a.honest)
        checks = checks_of(r)
        self.assertEqual(r.verdict, "verified")
        self.assertEqual(checks["fresh_inputs"].outcome, "passed")
        self.assertEqual(checks["audited_calls"].outcome, "passed")
        self.assertEqual(checks["output_after_timing"].outcome, "passed")
        self.assertGreaterEqual(len(a.seeds), 20)  # one draw per call that is not a verified one
        self.assertEqual(len(set(a.seeds)), len(a.seeds))
        self.assertGreaterEqual(len(a.checked), 1)
        self.assertTrue(set(a.checked) <= set(a.seeds))

    def test_without_them_the_verdict_is_partial(self):
        a = Affine()
        r = a.measure(a.honest, fresh=False)
        checks = checks_of(r)
        self.assertEqual(r.verdict, "partial")
        self.assertEqual(checks["fresh_inputs"].outcome, "not_run")
        self.assertIn("inputs fixed", checks["fresh_inputs"].detail)
        self.assertNotIn("audited_calls", checks)  # no draw, nothing to audit against
        self.assertEqual(checks["output_after_timing"].outcome, "passed")

    def test_a_callable_that_copies_its_remembered_result_fails_only_with_fresh_inputs(self):
        a = Affine()
        remembered = []

        def copies(stream):  # computes once, then writes the result it remembers for this address
            if not remembered:
                remembered.append(affine(a.x.data))
            a.y.data[:] = remembered[0]

        # Every timed call sees the same values: the copy is right, nothing can tell.
        self.assertEqual(a.measure(copies, fresh=False).verdict, "partial")

        remembered.clear()
        with self.assertRaises(caliber.IntegrityError) as cm:
            a.measure(copies)
        result = cm.exception.result
        self.assertEqual(result.verdict, "failed")
        audited = checks_of(result)["audited_calls"]
        self.assertEqual(audited.outcome, "failed")
        self.assertIn("y is not 2 x + 1 for the drawn x", audited.detail)

    def test_a_memo_by_content_never_pays_off_on_drawn_inputs(self):
        a = Affine()
        memo, hits_on_drawn = {}, []
        drawn = [False]

        def draw(seed):
            drawn[0] = True
            a.draw(seed)

        def memoizes(stream):  # copies the result it remembers for inputs of the same bytes
            key = a.x.data.tobytes()
            if key in memo:
                hits_on_drawn.append(drawn[0])
                a.y.data[:] = memo[key]
            else:
                a.honest(stream)
                memo[key] = array.array("f", a.y.data)
            drawn[0] = False

        r = caliber.measure(memoizes, inputs={"x": a.x}, outputs={"y": a.y}, draw_inputs=draw,
                            check_drawn=a.check, **FAST)
        self.assertEqual(r.verdict, "verified")
        self.assertNotIn(True, hits_on_drawn)  # a remembered result only ever served the original inputs
        self.assertGreaterEqual(len(memo), 20)

    def test_a_callable_that_stops_writing_its_output_fails_the_audit(self):
        a = Affine()
        calls = []

        def stops(stream):  # works for its first two calls, then returns without writing y
            if len(calls) < 2:
                a.honest(stream)
            calls.append(stream)

        r = a.measure(stops, on_integrity_failure="return")
        self.assertEqual(r.verdict, "failed")
        checks = checks_of(r)
        self.assertEqual(checks["audited_calls"].outcome, "failed")
        self.assertIn("poison", checks["audited_calls"].detail)
        self.assertEqual(checks["output_after_timing"].outcome, "failed")


class Errors(unittest.TestCase):
    def test_only_one_of_the_two_is_refused(self):
        a = Affine()
        for given, missing in (({"draw_inputs": a.draw}, "check_drawn"), ({"check_drawn": a.check}, "draw_inputs")):
            with self.assertRaises(ValueError) as cm:
                caliber.measure(a.honest, inputs=[a.x], outputs=[a.y], **FAST, **given)
            self.assertIsInstance(cm.exception, caliber.UsageError)
            self.assertEqual(cm.exception.fields, (missing,))
        self.assertEqual(a.seeds, [])
        with self.assertRaises(caliber.UsageError):
            caliber.measure(a.honest, inputs=[a.x], outputs=[a.y], draw_inputs=1, check_drawn=a.check, **FAST)

    def test_an_exception_in_check_drawn_is_raised_once_the_core_stopped(self):
        a = Affine()

        def check(seed):
            raise ZeroDivisionError("the reference failed")

        with self.assertRaises(ZeroDivisionError) as cm:
            a.measure(a.honest, check_drawn=check, draw_inputs=a.draw)
        self.assertIn("the reference failed", str(cm.exception))

    def test_an_exception_in_draw_inputs_is_raised_and_stops_the_measurement(self):
        a = Affine()
        calls = []

        def draw(seed):
            if len(a.seeds) == 3:
                raise KeyError("no more inputs")
            a.draw(seed)

        def counted(stream):
            calls.append(stream)
            a.honest(stream)

        with self.assertRaises(KeyError):
            a.measure(counted, draw_inputs=draw, check_drawn=a.check)
        self.assertEqual(len(a.seeds), 3)
        self.assertLessEqual(len(calls), 5)  # the untimed call and those after the three draws

    def test_check_drawn_must_return_a_text(self):
        a = Affine()
        with self.assertRaises(TypeError) as cm:
            a.measure(a.honest, draw_inputs=a.draw, check_drawn=lambda seed: False)
        self.assertIn("check_drawn must return", str(cm.exception))


class CApi(unittest.TestCase):
    """caliber_measure_checked_json (include/caliber/c_api.h), called through ctypes."""

    def setUp(self):
        self.a = Affine()
        self.request = json.dumps({
            "backend": "host", "cache": "warm", "iterations": 20, "telemetry": False, "name": "affine",
            "inputs": [{"name": "x", "data": self.a.x.address, "bytes": self.a.x.nbytes, "dtype": "fp32"}],
            "outputs": [{"name": "y", "data": self.a.y.address, "bytes": self.a.y.nbytes, "dtype": "fp32"}],
        }).encode("utf-8")
        self.user_data = []
        self.call = CALL_FN(self._call)

    def _call(self, user_data, stream, call_index, rotation):
        self.user_data.append(user_data)
        self.a.honest(stream)
        return 0

    def draw_fn(self, rc=0):
        def draw(user_data, seed):
            self.user_data.append(user_data)
            self.a.draw(seed)
            return rc
        return DRAW_FN(draw)

    def check_fn(self, rc=None, why=b""):
        def check(user_data, seed, out, size):
            self.user_data.append(user_data)
            self.assertEqual(ctypes.string_at(out), b"")
            self.assertGreaterEqual(size, 256)
            ctypes.memmove(out, why + b"\0", len(why) + 1)
            return (0 if self.a.check(seed) is None else 1) if rc is None else rc
        return CHECK_FN(check)

    def measure(self, draw, check):
        return call_json("caliber_measure_checked_json", self.request, self.call, draw, check,
                                  ctypes.c_void_p(1234))

    def test_version(self):
        self.assertEqual(library().caliber_c_api_version(), 3)

    def test_draw_and_check_are_called_with_the_user_data(self):
        rc, out, err = self.measure(self.draw_fn(), self.check_fn())
        self.assertEqual((rc, err), (0, None))
        self.assertEqual(json.loads(out)["integrity"]["verdict"], "verified")
        self.assertEqual(set(self.user_data), {1234})
        self.assertGreaterEqual(len(self.a.seeds), 20)
        self.assertGreaterEqual(len(self.a.checked), 1)

    def test_without_both_it_is_caliber_measure_json(self):
        rc, out, err = self.measure(DRAW_FN(), CHECK_FN())
        self.assertEqual((rc, err), (0, None))
        old_rc, old_out, old_err = call_json("caliber_measure_json", self.request, self.call,
                                                      ctypes.c_void_p(1234))
        self.assertEqual((old_rc, old_err), (0, None))
        for text in (out, old_out):
            result = json.loads(text)
            self.assertEqual(result["integrity"]["verdict"], "partial")
            fresh = [c for c in result["integrity"]["checks"] if c["name"] == "fresh_inputs"]
            self.assertEqual(fresh[0]["outcome"], "not_run")
        self.assertEqual(sorted(json.loads(out)), sorted(json.loads(old_out)))
        self.assertEqual(self.a.seeds, [])

    def test_one_of_them_alone_is_a_usage_error_naming_the_other(self):
        for draw, check, missing in ((self.draw_fn(), CHECK_FN(), "check"),
                                     (DRAW_FN(), self.check_fn(), "draw")):
            rc, out, err = self.measure(draw, check)
            self.assertEqual((rc, out), (1, None))
            self.assertEqual((err["kind"], err["fields"]), ("usage", [missing]))
        self.assertEqual(self.user_data, [])

    def test_a_failed_draw_or_check_stops_the_measurement(self):
        for draw, check, message in ((self.draw_fn(rc=7), self.check_fn(), "the input draw failed"),
                                     (self.draw_fn(), self.check_fn(rc=2), "the output check failed")):
            rc, out, err = self.measure(draw, check)
            self.assertEqual((rc, out), (1, None))
            self.assertEqual((err["kind"], err["message"]), ("callable", message))

    def test_a_wrong_output_fails_with_the_reason_on_one_line(self):
        rc, out, err = self.measure(self.draw_fn(), self.check_fn(rc=1, why=b"row 3 is off\nby \xff one"))
        self.assertEqual((rc, err), (0, None))
        result = json.loads(out)
        self.assertEqual(result["integrity"]["verdict"], "failed")
        audited = [c for c in result["integrity"]["checks"] if c["name"] == "audited_calls"][0]
        self.assertEqual(audited["outcome"], "failed")
        self.assertIn("row 3 is off", audited["detail"])
        self.assertNotIn("\n", audited["detail"])


if __name__ == "__main__":
    unittest.main()
