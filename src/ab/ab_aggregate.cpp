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

namespace {

// Every cell's rows indexed by shape key, and each key's first appearance (the ledger's order).
struct ShapeIndex {
  struct Seen {
    std::string label;
    int cells = 0;
  };
  std::map<std::string, Seen> seen;
  std::vector<std::string> order;
  std::vector<std::map<std::string, const ShapeMeasurement*>> a_rows, b_rows;  // per round
};

ShapeIndex index_shapes(const AbInput& in) {
  ShapeIndex ix;
  ix.a_rows.resize(in.rounds.size());
  ix.b_rows.resize(in.rounds.size());
  const auto note = [&](const ShapeMeasurement& m) {
    auto [it, inserted] = ix.seen.try_emplace(m.key);
    if (inserted) ix.order.push_back(m.key);
    it->second.label = m.label;
    ++it->second.cells;
  };
  for (std::size_t k = 0; k < in.rounds.size(); ++k) {
    for (const ShapeMeasurement& m : in.rounds[k].a.results.rows) {
      ix.a_rows[k][m.key] = &m;
      note(m);
    }
    for (const ShapeMeasurement& m : in.rounds[k].b.results.rows) {
      ix.b_rows[k][m.key] = &m;
      note(m);
    }
  }
  return ix;
}

// A shape is kept only when present, with a positive value, on both sides of every round.
bool measured_in_every_cell(const ShapeIndex& ix, const std::string& key, int all_cells) {
  bool complete = ix.seen.at(key).cells == all_cells;
  for (std::size_t k = 0; complete && k < ix.a_rows.size(); ++k) {
    complete = ix.a_rows[k].count(key) && ix.b_rows[k].count(key) && ix.a_rows[k].at(key)->value_us > 0 &&
               ix.b_rows[k].at(key)->value_us > 0;
  }
  return complete;
}

// One shape over the rounds: its per-round deltas (also appended to round_deltas), the sides'
// medians and spreads, the signed-rank test and the practical class.
ShapeAb shape_ab(const ShapeIndex& ix, const std::string& key, double alpha, const PracticalThresholds& thresholds,
                 std::vector<std::vector<double>>& round_deltas) {
  ShapeAb sh;
  sh.key = key;
  sh.label = ix.seen.at(key).label;
  std::vector<double> iqrs;
  for (std::size_t k = 0; k < ix.a_rows.size(); ++k) {
    const ShapeMeasurement& a = *ix.a_rows[k].at(key);
    const ShapeMeasurement& b = *ix.b_rows[k].at(key);
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
  return sh;
}

void count_shape(OpAb& out, const ShapeAb& sh) {
  out.gain_shapes += sh.practical == PracticalClass::gain;
  out.loss_shapes += sh.practical == PracticalClass::loss;
  out.neutral_shapes += sh.practical == PracticalClass::neutral;
  out.practically_unstable_shapes += sh.practical == PracticalClass::unstable;
  out.unstable_shapes += sh.sign_stable ? 0 : 1;
  out.faster_shapes += sh.verdict == AbVerdict::b_faster;
  out.slower_shapes += sh.verdict == AbVerdict::b_slower;
  out.undecided_shapes += sh.verdict == AbVerdict::undecided;
}

// Why the op has no report before any shape is looked at, or "".
std::string no_report_before_shapes(const AbInput& in, int rounds) {
  if (const std::string bad = first_bad_cell(in); !bad.empty()) {
    return bad + "; no report: a report missing rounds reads exactly like a complete one";
  }
  if (rounds < 2) return fmt::format("{} round(s): at least 2 are needed to say whether a verdict holds", rounds);
  return {};
}

}  // namespace

OpAb aggregate_ab(const AbInput& in, double alpha, const PracticalThresholds& thresholds) {
  OpAb out;
  out.op = in.op;
  out.alpha = alpha;
  out.thresholds = thresholds;
  out.rounds = static_cast<int>(in.rounds.size());
  out.no_report_reason = no_report_before_shapes(in, out.rounds);
  if (!out.no_report_reason.empty()) return out;

  const ShapeIndex ix = index_shapes(in);
  std::vector<std::vector<double>> round_deltas(in.rounds.size());
  std::vector<double> changes, side_spreads, cell_iqrs;
  for (const std::string& key : ix.order) {
    if (!measured_in_every_cell(ix, key, 2 * out.rounds)) {
      out.excluded_shapes.push_back(ix.seen.at(key).label);
      continue;
    }
    ShapeAb sh = shape_ab(ix, key, alpha, thresholds, round_deltas);
    if (sh.eager_fallback) {
      // Not pooled with kernel-only shapes: another quantity (launch overhead included).
      out.fallback_shapes.push_back(std::move(sh));
      continue;
    }
    count_shape(out, sh);
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
