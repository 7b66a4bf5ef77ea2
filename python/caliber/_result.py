"""The core's Result, as Python reads it: attributes over the JSON object that `caliber bench
--json` writes for one result (schemas/results.schema.json). Nothing is recomputed here."""

import html
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

    def _repr_html_(self):
        """A notebook's view: the value with its interval, the contract, the verdict and each
        check, the warnings."""
        return _html(self._values)


def _cell(text):
    return html.escape(str(text))


def _html(r):
    c, s, integrity = r["contract"], r["summary"], r["integrity"]
    ci = r.get("median_ci95_us")
    interval = "median 95% interval [{:.4g}, {:.4g}] us".format(ci[0], ci[1]) if ci else "no 95% interval (too few samples)"
    contract = ", ".join("{}={}".format(k, json.dumps(v) if isinstance(v, (dict, list)) else v) for k, v in c.items())
    device = r.get("device", {})
    rows = [("value", "<b>{:.4g} us</b> ({} over n={}; {})".format(r["value_us"], _cell(c["statistic"]), s["n"],
                                                                   _cell(interval))),
            ("spread", "p10 {:.4g} · median {:.4g} · p90 {:.4g} us · rel IQR {:.3g}{}".format(
                s["p10_us"], s["median_us"], s["p90_us"], s["rel_iqr"], "" if r.get("stable") else " · <b>not stable</b>")),
            ("contract", _cell(contract)),
            ("device", _cell("{} {} ({})".format(device.get("backend", ""), device.get("name", ""),
                                                 device.get("arch", "")))),
            ("verdict", "<b>{}</b>: {}".format(_cell(integrity["verdict"]), "; ".join(
                "{} {}".format(_cell(k["name"]), _cell(k["outcome"])) for k in integrity.get("checks", []))))]
    for key in ("warnings", "notes"):
        if r.get(key):
            rows.append((key, "<br>".join(_cell(w) for w in r[key])))
    body = "".join("<tr><th style=\"text-align:left\">{}</th><td style=\"text-align:left\">{}</td></tr>".format(k, v)
                   for k, v in rows)
    return "<table><caption style=\"text-align:left\">caliber.Result <code>{}</code></caption>{}</table>".format(
        _cell(r["name"]), body)
