"""Python providers of add_rmsnorm (examples/user_op) that must not post a number, for the H200
check scripts/device/python_providers.sh: each computes the right outputs in its first call, then
games the harness in its own way. Honest reference point: examples/user_op/python/providers.py.
One honest one too, NoStreamArgument: ForgetsStream's body without the stream argument, so caliber
makes its stream torch's current one for the call (docs/python.md, "Streams"): it must end ok."""

import caliber
import torch


def _add_rmsnorm(problem, x, residual, weight, y, h):
    torch.add(x, residual, out=h)
    y.copy_(torch.nn.functional.rms_norm(h, (problem.args["n"],), weight, problem.args["eps"]))


class _Base:
    backend = "cuda"
    ops = ("add_rmsnorm",)
    flags = ("allocation",)

    def views(self, inputs, outputs):
        return [t.torch() for t in inputs] + [t.torch() for t in outputs]


class ForgetsStream(_Base):
    """Launches on torch's current stream, not caliber's: the timer's stream holds none of it."""

    def run(self, problem, inputs, outputs, stream):
        _add_rmsnorm(problem, *self.views(inputs, outputs))


class NoStreamArgument(_Base):
    """ForgetsStream's launch on torch's current stream, from a run() that takes no stream."""

    def run(self, problem, inputs, outputs):
        _add_rmsnorm(problem, *self.views(inputs, outputs))


class SideStream(_Base):
    """Launches on a stream of its own and never joins it back."""

    def prepare(self, problem):
        self.side = torch.cuda.Stream()

    def run(self, problem, inputs, outputs, stream):
        with torch.cuda.stream(self.side):
            _add_rmsnorm(problem, *self.views(inputs, outputs))


class Lazy(_Base):
    """Computes once per shape, then returns at once."""

    def prepare(self, problem):
        self.done = False

    def run(self, problem, inputs, outputs, stream):
        if not self.done:
            with torch.cuda.stream(caliber.torch_stream(stream)):
                _add_rmsnorm(problem, *self.views(inputs, outputs))
            self.done = True


class PartialOutput(_Base):
    """Writes y, and h only on its first half of rows after the first call."""

    def prepare(self, problem):
        self.calls = 0

    def run(self, problem, inputs, outputs, stream):
        x, residual, weight, y, h = self.views(inputs, outputs)
        with torch.cuda.stream(caliber.torch_stream(stream)):
            if self.calls == 0:
                _add_rmsnorm(problem, x, residual, weight, y, h)
            else:
                half = problem.args["m"] // 2
                torch.add(x[:half], residual[:half], out=h[:half])
                y.copy_(torch.nn.functional.rms_norm(x + residual, (problem.args["n"],), weight, problem.args["eps"]))
        self.calls += 1


class MutatesInput(_Base):
    """Also adds into x, an input."""

    def run(self, problem, inputs, outputs, stream):
        x, residual, weight, y, h = self.views(inputs, outputs)
        with torch.cuda.stream(caliber.torch_stream(stream)):
            _add_rmsnorm(problem, x, residual, weight, y, h)
            x.add_(1.0)
