#include "screen/screen_verdict.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "caliber/statistics.h"

namespace caliber {

const char* to_string(ScreenVerdict v) {
  switch (v) {
    case ScreenVerdict::code_changed: return "CODE_CHANGED";
    case ScreenVerdict::no_code_diff: return "NO_CODE_DIFF";
    case ScreenVerdict::no_kernel: return "NO_KERNEL";
    case ScreenVerdict::no_rows: return "NO_ROWS";
    case ScreenVerdict::unscreened: return "UNSCREENED";
  }
  return "?";
}

ScreenDecision screen_verdict(const ScreenSide& a, const ScreenSide& b) {
  ScreenDecision d;
  const CellOutcome &ca = a.cell, &cb = b.cell;
  if (ca.state != CellState::ok || cb.state != CellState::ok || ca.results.rows_ok == 0 || cb.results.rows_ok == 0) {
    d.verdict = ScreenVerdict::no_rows;
    if (ca.state == CellState::timed_out || cb.state == CellState::timed_out) {
      d.note = fmt::format("a cell hit the time limit (rc A={}, B={}): a cost problem, not a verdict on the change; "
                           "find out why it is slow", ca.exit_code, cb.exit_code);
    } else {
      d.note = fmt::format("nothing comparable was measured (rc A={}, B={}; ok rows A={}, B={}): fix runnability "
                           "first (often a dtype or shape the provider does not support)",
                           ca.exit_code, cb.exit_code, ca.results.rows_ok, cb.results.rows_ok);
    }
    return d;
  }
  if (!a.fingerprint || !b.fingerprint) {
    d.verdict = ScreenVerdict::unscreened;
    d.note = fmt::format("{} recorded no code fingerprint: whether the executed code changed is unknown",
                         !a.fingerprint ? (!b.fingerprint ? "sides A and B" : "side A") : "side B");
    d.print_delta = true;
    d.delta_label = "one pair, code difference unknown (not a result)";
    return d;
  }
  if (a.fingerprint->code.empty() || b.fingerprint->code.empty()) {
    d.verdict = ScreenVerdict::no_kernel;
    d.note = fmt::format("rows were measured but {} executed no device code: the change had nothing to act on. "
                         "This does not mean the change is inert, nor that the op has no kernel",
                         a.fingerprint->code.empty() ? (b.fingerprint->code.empty() ? "sides A and B" : "side A") : "side B");
    return d;
  }
  std::string not_comparable;
  if (compare_code(*a.fingerprint, *b.fingerprint, &not_comparable) == CodeComparison::not_comparable) {
    d.verdict = ScreenVerdict::unscreened;
    d.note = fmt::format("code fingerprints not comparable ({}): whether the executed code changed is unknown",
                         not_comparable);
    d.print_delta = true;
    d.delta_label = "one pair, code difference unknown (not a result)";
    return d;
  }
  if (a.fingerprint->digest() == b.fingerprint->digest()) {
    d.verdict = ScreenVerdict::no_code_diff;
    d.note = "both sides executed byte-identical code: N rounds would measure noise and report it as "
             "\"no difference\". Check that the switch is spelled right and reaches this op";
    d.print_delta = true;
    d.delta_label = "noise floor of this op (identical code; not a result)";
    return d;
  }
  d.verdict = ScreenVerdict::code_changed;
  d.note = "the executed code differs: worth a multi-round A/B (caliber ab --rounds 6)";
  d.print_delta = true;
  d.delta_label = "one pair (not yet a verdict)";
  return d;
}

PairDelta pair_delta(const CellResults& a, const CellResults& b) {
  std::map<std::string, double> av;
  for (const ShapeMeasurement& m : a.rows) av[m.key] = m.value_us;
  std::vector<double> deltas;
  for (const ShapeMeasurement& m : b.rows) {
    const auto it = av.find(m.key);
    if (it == av.end() || !(it->second > 0) || !(m.value_us > 0)) continue;
    deltas.push_back((m.value_us / it->second - 1.0) * 100.0);
  }
  PairDelta p;
  p.shapes = static_cast<int>(deltas.size());
  if (deltas.empty()) return p;
  p.median_pct = median(deltas);
  const auto [lo, hi] = std::minmax_element(deltas.begin(), deltas.end());
  p.min_pct = *lo;
  p.max_pct = *hi;
  return p;
}

}  // namespace caliber
