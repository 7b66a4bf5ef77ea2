#include "ab/ab_aggregate.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "caliber/statistics.h"

namespace caliber {
namespace {

const char* state_text(CellState s) {
  switch (s) {
    case CellState::ok: return "ok";
    case CellState::failed: return "failed";
    case CellState::timed_out: return "timed out";
    case CellState::refused: return "refused";
    case CellState::not_run: return "not run";
  }
  return "?";
}

int sign_of(double x) { return x > 0 ? 1 : (x < 0 ? -1 : 0); }

double spread_pct(const std::vector<double>& v) {
  const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  return *lo > 0 ? (*hi / *lo - 1.0) * 100.0 : 0.0;
}

// The first cell that keeps the op from a report, or "".
std::string first_bad_cell(const AbInput& in) {
  for (const RoundOutcome& r : in.rounds) {
    for (const auto& [side, cell] : {std::pair{"A", &r.a}, std::pair{"B", &r.b}}) {
      if (cell->state == CellState::ok) continue;
      return fmt::format("round {} side {} {}{}{}", r.round, side, state_text(cell->state),
                         cell->exit_code != 0 ? fmt::format(" (rc {})", cell->exit_code) : "",
                         cell->note.empty() ? "" : ": " + cell->note);
    }
  }
  if (static_cast<int>(in.rounds.size()) < in.rounds_planned) {
    return fmt::format("only {} of {} rounds ran", in.rounds.size(), in.rounds_planned);
  }
  return {};
}

}  // namespace

const char* to_string(AbVerdict v) {
  switch (v) {
    case AbVerdict::b_faster: return "B_FASTER";
    case AbVerdict::b_slower: return "B_SLOWER";
    case AbVerdict::undecided: return "UNDECIDED";
  }
  return "?";
}

const char* to_string(PracticalClass c) {
  switch (c) {
    case PracticalClass::gain: return "gain";
    case PracticalClass::loss: return "loss";
    case PracticalClass::neutral: return "neutral";
    case PracticalClass::unstable: return "unstable";
  }
  return "?";
}

PracticalClass practical_class(const std::vector<double>& delta_pct, const PracticalThresholds& t) {
  if (delta_pct.empty()) return PracticalClass::unstable;
  bool gain = true, loss = true, neutral = true;
  for (double d : delta_pct) {
    const double improvement = -d;
    gain = gain && improvement >= t.gain_pct;
    loss = loss && improvement <= -t.loss_pct;
    neutral = neutral && improvement > -t.loss_pct && improvement < t.gain_pct;
  }
  if (gain) return PracticalClass::gain;
  if (loss) return PracticalClass::loss;
  if (neutral) return PracticalClass::neutral;
  return PracticalClass::unstable;
}

OpAb aggregate_ab(const AbInput& in, double alpha, const PracticalThresholds& thresholds) {
  OpAb out;
  out.op = in.op;
  out.alpha = alpha;
  out.thresholds = thresholds;
  out.rounds = static_cast<int>(in.rounds.size());
  if (const std::string bad = first_bad_cell(in); !bad.empty()) {
    out.no_report_reason = bad + "; no report: a report missing rounds reads exactly like a complete one";
    return out;
  }
  if (out.rounds < 2) {
    out.no_report_reason = fmt::format("{} round(s): at least 2 are needed to say whether a verdict holds", out.rounds);
    return out;
  }

  // Index every cell by shape key; a shape is kept only when present on both sides of every round.
  struct Seen {
    std::string label;
    int cells = 0;
  };
  std::map<std::string, Seen> seen;
  std::vector<std::string> order;  // first appearance: the ledger's order, not the keys'
  const auto note = [&](const ShapeMeasurement& m) {
    auto [it, inserted] = seen.try_emplace(m.key);
    if (inserted) order.push_back(m.key);
    it->second.label = m.label;
    ++it->second.cells;
  };
  std::vector<std::map<std::string, const ShapeMeasurement*>> a_rows(in.rounds.size()), b_rows(in.rounds.size());
  for (std::size_t k = 0; k < in.rounds.size(); ++k) {
    for (const ShapeMeasurement& m : in.rounds[k].a.results.rows) {
      a_rows[k][m.key] = &m;
      note(m);
    }
    for (const ShapeMeasurement& m : in.rounds[k].b.results.rows) {
      b_rows[k][m.key] = &m;
      note(m);
    }
  }
  const int all_cells = 2 * out.rounds;
  std::vector<std::vector<double>> round_deltas(in.rounds.size());
  std::vector<double> changes, side_spreads, cell_iqrs;
  for (const std::string& key : order) {
    const Seen& s = seen.at(key);
    bool complete = s.cells == all_cells;
    for (std::size_t k = 0; complete && k < in.rounds.size(); ++k) {
      complete = a_rows[k].count(key) && b_rows[k].count(key) && a_rows[k][key]->value_us > 0 &&
                 b_rows[k][key]->value_us > 0;
    }
    if (!complete) {
      out.excluded_shapes.push_back(s.label);
      continue;
    }
    ShapeAb sh;
    sh.key = key;
    sh.label = s.label;
    std::vector<double> iqrs;
    for (std::size_t k = 0; k < in.rounds.size(); ++k) {
      const ShapeMeasurement& a = *a_rows[k][key];
      const ShapeMeasurement& b = *b_rows[k][key];
      sh.eager_fallback = sh.eager_fallback || a.eager_fallback || b.eager_fallback;
      sh.a_us.push_back(a.value_us);
      sh.b_us.push_back(b.value_us);
      sh.delta_pct.push_back((b.value_us / a.value_us - 1.0) * 100.0);
      round_deltas[k].push_back(sh.delta_pct.back());
      if (a.rel_iqr) iqrs.push_back(*a.rel_iqr * 100.0);
      if (b.rel_iqr) iqrs.push_back(*b.rel_iqr * 100.0);
    }
    sh.a_median_us = median(sh.a_us);
    sh.b_median_us = median(sh.b_us);
    sh.change_pct = (sh.b_median_us / sh.a_median_us - 1.0) * 100.0;
    const auto [lo, hi] = std::minmax_element(sh.delta_pct.begin(), sh.delta_pct.end());
    sh.delta_min_pct = *lo;
    sh.delta_max_pct = *hi;
    sh.round_spread_pct = *hi - *lo;
    sh.sign_stable = std::all_of(sh.delta_pct.begin(), sh.delta_pct.end(),
                                 [&](double d) { return sign_of(d) == sign_of(sh.delta_pct.front()); });
    sh.a_spread_pct = spread_pct(sh.a_us);
    sh.b_spread_pct = spread_pct(sh.b_us);
    if (!iqrs.empty()) sh.cell_rel_iqr_pct = median(iqrs);
    sh.test = wilcoxon_signed_rank(sh.delta_pct);
    if (sh.test.n > 0 && sh.test.p_two_sided < alpha) {
      sh.verdict = sh.test.w_plus > sh.test.w_minus ? AbVerdict::b_slower : AbVerdict::b_faster;
    }
    sh.practical = practical_class(sh.delta_pct, thresholds);
    if (sh.eager_fallback) {
      // Not pooled with kernel-only shapes: another quantity (launch overhead included).
      out.fallback_shapes.push_back(std::move(sh));
      continue;
    }
    out.gain_shapes += sh.practical == PracticalClass::gain;
    out.loss_shapes += sh.practical == PracticalClass::loss;
    out.neutral_shapes += sh.practical == PracticalClass::neutral;
    out.practically_unstable_shapes += sh.practical == PracticalClass::unstable;
    out.unstable_shapes += sh.sign_stable ? 0 : 1;
    out.faster_shapes += sh.verdict == AbVerdict::b_faster;
    out.slower_shapes += sh.verdict == AbVerdict::b_slower;
    out.undecided_shapes += sh.verdict == AbVerdict::undecided;
    changes.push_back(sh.change_pct);
    side_spreads.push_back(sh.a_spread_pct);
    side_spreads.push_back(sh.b_spread_pct);
    if (sh.cell_rel_iqr_pct) cell_iqrs.push_back(*sh.cell_rel_iqr_pct);
    out.shapes.push_back(std::move(sh));
  }
  // The smallest p any shape could reach with this many rounds (no ties): 2 / 2^rounds.
  out.min_attainable_p = std::min(1.0, 2.0 / static_cast<double>(1ull << std::min(out.rounds, 62)));
  if (out.shapes.empty()) {
    out.no_report_reason = out.fallback_shapes.empty()
                               ? "no shape was measured successfully on both sides in every round"
                               : "no kernel-only shape was measured on both sides in every round (only eager "
                                 "fallbacks, which are kept apart)";
    return out;
  }
  out.reported = true;
  for (const auto& d : round_deltas) out.per_round_median_delta_pct.push_back(median(d));
  out.median_change_pct = median(changes);
  out.median_side_spread_pct = median(side_spreads);
  if (!cell_iqrs.empty()) out.median_cell_rel_iqr_pct = median(cell_iqrs);
  return out;
}

}  // namespace caliber
