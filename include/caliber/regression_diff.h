// The regression tier (seed 001): two runs of the same frozen ledger, the per-shape kernel-only
// speedup of the candidate against the best baseline in each, and what moved.
//
// A shape moved when new/old speedup differs from 1 by more than the threshold (default 5%):
// "regressed" below, "improved" above, "unchanged" within; "not comparable" when either run has
// no speedup for it (the reason is given). docs/reports.md ("Regression tier").
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "caliber/benchmark_results.h"
#include "caliber/shape_comparison.h"

namespace caliber {

inline constexpr double kDefaultMoveThreshold = 0.05;

struct ShapeMove {
  std::string shape_id;
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

// A difference that makes two runs' latencies incomparable: "field: before=X, after=Y".
struct RunDifference {
  std::string field;
  std::string before;
  std::string after;
};

// What the results rows themselves say about the two runs' caliber: backend, device name and
// architecture, and the candidate's kernel-only and eager contracts must match.
// HOOK (issue 7): every comparing command must call the run-identity refusal
// (caliber::check_runs_comparable on the two runs' run_identity.json) BEFORE any latency is read;
// `caliber report --against` calls this function at that point, and the lead adds that call here
// when issue 7 lands. Until then these row-level checks are the refusal.
std::vector<RunDifference> result_runs_differences(const std::vector<BenchmarkResultRow>& before,
                                                   const std::vector<BenchmarkResultRow>& after,
                                                   const std::string& candidate);

}  // namespace caliber
