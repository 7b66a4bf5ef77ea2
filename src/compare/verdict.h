// The statistical verdict of one compared row: SAME, FASTER, SLOWER or UNKNOWN, from the
// practical threshold (relative AND absolute) combined with the Mann-Whitney U test on the raw
// samples. docs/gate.md "Statistical verdict" states the rules and why.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "compare/rank_test.h"
#include "compare/thresholds.h"

namespace caliber::compare {

enum class Verdict { same, faster, slower, unknown };
std::string_view to_string(Verdict v);  // "SAME", "FASTER", "SLOWER", "UNKNOWN"
// FASTER or SLOWER: the verdict says the latency moved.
inline bool is_move(Verdict v) { return v == Verdict::faster || v == Verdict::slower; }

// How the raw latency moved, and whether the move exceeds the practical threshold.
struct LatencyChange {
  double baseline_us = 0;
  double current_us = 0;
  double delta_us = 0;        // current - baseline
  double delta_pct = 0;       // 100 (current - baseline) / baseline; +-inf when the baseline is 0
  bool slower_beyond = false; // delta_pct > relative_pct AND delta_us > absolute_us
  bool faster_beyond = false; // -delta_pct > relative_pct AND -delta_us > absolute_us
};
LatencyChange latency_change(double baseline_us, double current_us, const PracticalThreshold& t);

struct StatisticalVerdict {
  Verdict verdict = Verdict::same;
  std::string basis;                 // why, e.g. "p=0.0012 < 0.05 (exact, 20 vs 20 samples)"
  std::optional<RankTestResult> test;  // when both sides carry samples
};

// - within the practical threshold: SAME (whatever the test says: not a change that matters);
// - beyond it, without samples on both sides: SLOWER/FASTER from the threshold alone (the rule
//   for formats without raw samples, docs/gate.md);
// - beyond it, fewer than min_samples on a side: UNKNOWN (too few samples to decide);
// - beyond it, p < alpha: SLOWER/FASTER; p >= alpha: UNKNOWN (the samples overlap).
StatisticalVerdict decide_verdict(const LatencyChange& change, std::span<const double> baseline_samples,
                                  std::span<const double> current_samples,
                                  const StatisticsSettings& settings);

// "0.0012", "<0.0001".
std::string format_p_value(double p);

}  // namespace caliber::compare
