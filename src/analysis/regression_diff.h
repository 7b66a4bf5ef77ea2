// The regression tier (docs/reports.md): two runs of the same frozen ledger, the per-shape kernel-only
// speedup of the candidate against the best baseline in each, and what moved.
//
// A shape moved when new/old speedup differs from 1 by more than the threshold (default 5%):
// "regressed" below, "improved" above, "unchanged" within; "not comparable" when either run has
// no speedup for it (the reason is given). docs/reports.md ("Regression tier").
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "results/benchmark_results.h"
#include "caliber/caliber_check.h"
#include "analysis/shape_comparison.h"

namespace caliber {

inline constexpr double kDefaultMoveThreshold = 0.05;

struct ShapeMove {
  std::string shape_id;
  std::string dtype;
  std::string args;
  std::string stage;
  std::string model;  // "-" when none
  std::optional<double> before_speedup;
  std::optional<double> after_speedup;
  std::string before_best;  // best baseline in each run, labelled "(opaque)" when so ("" when none)
  std::string after_best;
  std::optional<double> before_candidate_us;
  std::optional<double> after_candidate_us;
  std::optional<double> ratio;  // after / before speedup
  std::string verdict;          // regressed | improved | unchanged | not comparable
  std::string note;             // why not comparable
};

struct RegressionDiff {
  double threshold = kDefaultMoveThreshold;
  std::vector<ShapeMove> shapes;  // ledger order
  std::size_t count(const std::string& verdict) const;
};

RegressionDiff diff_runs(const ComparisonSet& before, const ComparisonSet& after,
                         double threshold = kDefaultMoveThreshold);

// One JSON object per shape (regressions.jsonl).
nlohmann::json to_json(const ShapeMove& move);

// The caliber of two runs is checked on their run identities (caliber::check_runs_comparable,
// include/caliber/caliber_check.h) before any latency is read. What an identity cannot know is
// which rows a results file holds: this lists each field (backend, device.name, device.arch,
// device.driver_version, device.runtime_version) in which rows of `results_file` state something
// other than `identity`, once per field, naming the first such row's line and how many rows differ.
// `row_lines[i]` is the line of rows[i] (empty: lines are not named).
std::vector<CaliberDifference> rows_unlike_identity(const std::vector<BenchmarkResultRow>& rows,
                                                    const std::vector<long>& row_lines, const RunIdentity& identity,
                                                    const std::string& results_file);

}  // namespace caliber
