"""The core's Result, as Python reads it: attributes over the JSON object that `caliber bench
--json` writes for one result (schemas/results.schema.json). Nothing is recomputed here."""

import json


class Fields:
    """Read-only attribute access to a JSON object: ``r.contract.schedule``, ``r.summary.p10_us``."""

    def __init__(self, values):
        object.__setattr__(self, "_values", values)

    def __getattr__(self, key):
        try:
            return _wrap(self._values[key])
        except KeyError:
            raise AttributeError("{} has no field {!r} (fields: {})".format(
                type(self).__name__, key, ", ".join(self._values))) from None

    def __setattr__(self, key, value):
        raise AttributeError("caliber results are read-only")

    def __getitem__(self, key):
        return _wrap(self._values[key])

    def __contains__(self, key):
        return key in self._values

    def __iter__(self):
        return iter(self._values)

    def keys(self):
        return self._values.keys()

    def as_dict(self):
        return json.loads(json.dumps(self._values))

    def __eq__(self, other):
        return isinstance(other, Fields) and self._values == other._values

    def __repr__(self):
        return "{}({})".format(type(self).__name__, json.dumps(self._values))


def _wrap(v):
    if isinstance(v, dict):
        return Fields(v)
    if isinstance(v, list):
        return [_wrap(x) for x in v]
    return v


class Result(Fields):
    """One measurement: ``value_us`` (the contract's statistic, microseconds), ``summary`` (n,
    min_us, p10_us, p25_us, median_us, p75_us, p90_us, max_us, mean_us, stdev_us, rel_iqr),
    ``contract`` (instrument, schedule, cache, statistic, warmup, iterations, ...), ``warnings``,
    ``notes``, ``flags``, ``stable``, ``integrity`` (verdict, checks), ``device``, ``params``."""

    def __init__(self, text):
        super().__init__(json.loads(text))
        object.__setattr__(self, "_text", text)

    def to_json(self):
        """The result exactly as caliber's core wrote it (the object of one result in
        `caliber bench --json`), as JSON text."""
        return self._text

    @property
    def verdict(self):
        """The integrity verdict: verified, partial, unverified or failed (docs/integrity.md)."""
        return self._values["integrity"]["verdict"]

    def __repr__(self):
        c = self._values["contract"]
        return "<caliber.Result {} {} us ({} over n={}; {}/{}/{}; integrity {})>".format(
            self._values["name"], self._values["value_us"], c["statistic"], self._values["summary"]["n"],
            c["instrument"], c["schedule"], c["cache"], self.verdict)
