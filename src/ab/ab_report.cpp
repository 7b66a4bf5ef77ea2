#include "ab/ab_report.h"

#include <ostream>

#include <fmt/format.h>

#include "core/unit_text.h"

namespace caliber {

std::string format_pct(double pct) { return fmt::format("{:+.2f}%", pct); }

namespace {

std::string opt_pct(const std::optional<double>& v) { return v ? fmt::format("{:.2f}%", *v) : std::string("-"); }

std::string p_text(const WilcoxonResult& t) { return t.n == 0 ? std::string("-") : fmt::format("{:.4f}", t.p_two_sided); }

// One line per shape: B against A over the rounds, the spreads, the test and the verdict.
void write_shape_table(std::ostream& out, const std::vector<ShapeAb>& shapes, bool noise_floor) {
  out << fmt::format("  {:>9}  {:>20}  {:>6}  {:>8}  {:>8}  {:>8}  {:>7}  {:>9}  {:>8}  {:>10}  {:>10}  {}\n",
                     "B vs A", "per-round [min,max]", "sign", "A spread", "B spread", "cell IQR", "p", "verdict",
                     "class", "A median", "B median", "shape");
  for (const ShapeAb& s : shapes) {
    out << fmt::format("  {:>9}  {:>20}  {:>6}  {:>8}  {:>8}  {:>8}  {:>7}  {:>9}  {:>8}  {:>10}  {:>10}  {}\n",
                       format_pct(s.change_pct),
                       fmt::format("[{}, {}]", format_pct(s.delta_min_pct), format_pct(s.delta_max_pct)),
                       s.sign_stable ? "stable" : "FLIPS", fmt::format("{:.2f}%", s.a_spread_pct),
                       fmt::format("{:.2f}%", s.b_spread_pct), opt_pct(s.cell_rel_iqr_pct), p_text(s.test),
                       noise_floor ? "noise" : to_string(s.verdict), noise_floor ? "noise" : to_string(s.practical),
                       format_us(s.a_median_us) + " us", format_us(s.b_median_us) + " us", s.label);
  }
}

// The op's lines under its tables: the medians, the machine's noise, the verdict counts.
void write_op_summary(std::ostream& out, const OpAb& op, bool noise_floor) {
  double lo = op.per_round_median_delta_pct.front(), hi = lo;
  for (double d : op.per_round_median_delta_pct) {
    lo = std::min(lo, d);
    hi = std::max(hi, d);
  }
  out << fmt::format("{}: {}B vs A {} (median over shapes); per-round medians {} .. {}\n", op.op,
                     noise_floor ? "noise floor: " : "", format_pct(op.median_change_pct), format_pct(lo), format_pct(hi));
  out << fmt::format("{}: machine noise: side spread over rounds {:.2f}% (median over shapes and sides){}\n", op.op,
                     op.median_side_spread_pct,
                     op.median_cell_rel_iqr_pct ? fmt::format(", within-cell IQR {:.2f}%", *op.median_cell_rel_iqr_pct)
                                                : std::string());
  out << fmt::format("{}: verdict stability: {}/{} shapes kept the sign of their delta in every round\n", op.op,
                     op.shapes.size() - static_cast<std::size_t>(op.unstable_shapes), op.shapes.size());
  if (!noise_floor) {
    out << fmt::format("{}: at alpha {} (Wilcoxon signed-rank over the {} per-round deltas, exact): {} B_FASTER, {} "
                       "B_SLOWER, {} UNDECIDED (undecided is not \"no difference\")\n",
                       op.op, op.alpha, op.rounds, op.faster_shapes, op.slower_shapes, op.undecided_shapes);
  }
  if (!noise_floor) {
    out << fmt::format("{}: practical size: {} gain, {} loss, {} neutral, {} unstable (thresholds +{:g}% / -{:g}%)\n",
                       op.op, op.gain_shapes, op.loss_shapes, op.neutral_shapes, op.practically_unstable_shapes,
                       op.thresholds.gain_pct, op.thresholds.loss_pct);
  }
}

// What keeps the op's verdicts from being conclusions, and the shapes left out.
void write_op_warnings(std::ostream& out, const OpAb& op) {
  if (op.unstable_shapes > 0) {
    out << fmt::format("!!! {}: {}/{} shapes changed the sign of their delta across rounds: their direction is not a "
                       "conclusion\n", op.op, op.unstable_shapes, op.shapes.size());
  }
  if (op.min_attainable_p >= op.alpha) {
    out << fmt::format("!!! {}: with {} rounds the smallest attainable p is {:.4f} >= alpha {}: no shape can be "
                       "decided; run more rounds (6 reach 0.031)\n", op.op, op.rounds, op.min_attainable_p, op.alpha);
  }
  if (!op.excluded_shapes.empty()) {
    out << fmt::format("{}: {} shape(s) left out (not measured on both sides in every round):", op.op,
                       op.excluded_shapes.size());
    for (const auto& s : op.excluded_shapes) out << "\n    " << s;
    out << '\n';
  }
}

}  // namespace

void write_ab_op_text(std::ostream& out, const OpAb& op, bool noise_floor) {
  if (!op.reported) {
    out << fmt::format("!!! {}: {}\n", op.op, op.no_report_reason);
    return;
  }
  out << fmt::format("== {}: {} rounds x {} shapes; delta = B / A - 1 per round (negative: B takes less time) ==\n",
                     op.op, op.rounds, op.shapes.size());
  if (noise_floor) {
    out << fmt::format("== A and B are identical: every delta below is this machine's noise floor for {}, not a "
                       "finding ==\n", op.op);
  }
  out << fmt::format("  practical size (every round): gain >= {:g}% less time, loss >= {:g}% more time, neutral "
                     "inside both, unstable otherwise\n",
                     op.thresholds.gain_pct, op.thresholds.loss_pct);
  write_shape_table(out, op.shapes, noise_floor);
  if (!op.fallback_shapes.empty()) {
    out << fmt::format("  {} shape(s) fell back from kernel-only to eager on both sides (eager medians: launch "
                       "overhead included); kept apart, not in the medians below:\n",
                       op.fallback_shapes.size());
    write_shape_table(out, op.fallback_shapes, noise_floor);
  }
  write_op_summary(out, op, noise_floor);
  write_op_warnings(out, op);
}

const char* ab_report_tsv_header() {
  return "op\tshape\tkey\trounds\ta_median_us\tb_median_us\tchange_pct\tdelta_min_pct\tdelta_max_pct\tsign_stable\t"
         "a_spread_pct\tb_spread_pct\tcell_rel_iqr_pct\twilcoxon_p\tverdict\tpractical_class\ttiming";
}

void write_ab_op_tsv_rows(std::ostream& out, const OpAb& op) {
  std::vector<const ShapeAb*> all;
  for (const ShapeAb& s : op.shapes) all.push_back(&s);
  for (const ShapeAb& s : op.fallback_shapes) all.push_back(&s);
  for (const ShapeAb* p : all) {
    const ShapeAb& s = *p;
    out << fmt::format("{}\t{}\t{}\t{}\t{:.6g}\t{:.6g}\t{:.4f}\t{:.4f}\t{:.4f}\t{}\t{:.4f}\t{:.4f}\t{}\t{:.6g}\t{}\t{}\t{}\n",
                       op.op, s.label, s.key, op.rounds, s.a_median_us, s.b_median_us, s.change_pct, s.delta_min_pct,
                       s.delta_max_pct, s.sign_stable ? "yes" : "no", s.a_spread_pct, s.b_spread_pct,
                       s.cell_rel_iqr_pct ? fmt::format("{:.4f}", *s.cell_rel_iqr_pct) : "", s.test.p_two_sided,
                       to_string(s.verdict), to_string(s.practical), s.eager_fallback ? "eager_fallback" : "kernel_only");
  }
}

nlohmann::json to_json(const OpAb& op) {
  using nlohmann::json;
  json j = {{"op", op.op},
            {"reported", op.reported},
            {"no_report_reason", op.no_report_reason},
            {"rounds", op.rounds},
            {"alpha", op.alpha},
            {"unstable_shapes", op.unstable_shapes},
            {"faster_shapes", op.faster_shapes},
            {"slower_shapes", op.slower_shapes},
            {"undecided_shapes", op.undecided_shapes},
            {"per_round_median_delta_pct", op.per_round_median_delta_pct},
            {"median_change_pct", op.median_change_pct},
            {"median_side_spread_pct", op.median_side_spread_pct},
            {"median_cell_rel_iqr_pct", op.median_cell_rel_iqr_pct ? json(*op.median_cell_rel_iqr_pct) : json(nullptr)},
            {"min_attainable_p", op.min_attainable_p},
            {"excluded_shapes", op.excluded_shapes},
            {"practical_thresholds", {{"gain_pct", op.thresholds.gain_pct}, {"loss_pct", op.thresholds.loss_pct}}},
            {"practical_counts",
             {{"gain", op.gain_shapes}, {"loss", op.loss_shapes}, {"neutral", op.neutral_shapes},
              {"unstable", op.practically_unstable_shapes}}},
            {"shapes", json::array()},
            {"fallback_shapes", json::array()}};
  std::vector<std::pair<const char*, const ShapeAb*>> all;
  for (const ShapeAb& s : op.shapes) all.emplace_back("shapes", &s);
  for (const ShapeAb& s : op.fallback_shapes) all.emplace_back("fallback_shapes", &s);
  for (const auto& [where, p] : all) {
    const ShapeAb& s = *p;
    j[where].push_back({{"key", s.key},
                        {"practical_class", to_string(s.practical)},
                        {"eager_fallback", s.eager_fallback},
                           {"label", s.label},
                           {"a_us", s.a_us},
                           {"b_us", s.b_us},
                           {"delta_pct", s.delta_pct},
                           {"a_median_us", s.a_median_us},
                           {"b_median_us", s.b_median_us},
                           {"change_pct", s.change_pct},
                           {"delta_min_pct", s.delta_min_pct},
                           {"delta_max_pct", s.delta_max_pct},
                           {"round_spread_pct", s.round_spread_pct},
                           {"sign_stable", s.sign_stable},
                           {"a_spread_pct", s.a_spread_pct},
                           {"b_spread_pct", s.b_spread_pct},
                           {"cell_rel_iqr_pct", s.cell_rel_iqr_pct ? json(*s.cell_rel_iqr_pct) : json(nullptr)},
                           {"wilcoxon", {{"n", s.test.n}, {"w_plus", s.test.w_plus}, {"w_minus", s.test.w_minus},
                                         {"p_two_sided", s.test.p_two_sided}}},
                           {"verdict", to_string(s.verdict)}});
  }
  return j;
}

}  // namespace caliber
