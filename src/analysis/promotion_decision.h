// The promotion decision: one verdict for the candidate, tied to the data by an ordered rule
// table (docs/reports.md, "Decision"). It is taken on HOT (model-derived) shapes only: synthetic
// and diagnostic shapes alone never decide, though a correctness failure on any shape blocks.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/bottleneck_classification.h"

namespace caliber {

// no_decision: the ledger has no hot shape, so no promotion can be decided from it (a manual ledger
// without models); the per-shape comparisons still stand.
enum class Verdict { promote, promote_with_guardrails, tune_needed, rewrite_needed, blocked, no_decision };
std::string_view to_string(Verdict v);

// Thresholds of the decision table.
inline constexpr double kMaxMeasurementIssueShare = 0.25;  // of hot shapes, before the decision is blocked
inline constexpr double kMaxGuardrailShare = 0.25;         // of hot shapes routed elsewhere by guardrails
inline constexpr double kRewriteGeomean = 0.80;            // hot geomean vs best below this: rewrite
inline constexpr double kMaxImplementationGapShare = 0.50; // of hot shapes, before a rewrite is needed

struct DecisionShape {
  std::string label;                   // shape id, for the guardrail list
  bool hot = false;
  Bottleneck category = Bottleneck::ok;
  std::optional<BenchmarkStatus> candidate_status;
  std::optional<double> speedup_vs_best;
  std::string best_baseline;
};

struct DecisionInput {
  std::vector<DecisionShape> shapes;
  // Geometric mean of the kernel-only speedup vs best over the hot shapes that have one
  // (weighted when the ledger weights every such shape, else unweighted), and how it was taken.
  std::optional<double> hot_geomean;
  std::string hot_geomean_basis;  // "unweighted, 5 hot shapes" / "weighted by baseline_time_weight, 5 hot shapes"
};

struct Decision {
  Verdict verdict = Verdict::blocked;
  std::string rule;    // "D4"
  std::string reason;  // the rule applied to the data, with numbers
  std::vector<std::string> guardrails;  // promote_with_guardrails: what to route or re-measure
};

Decision decide(const DecisionInput& in);

}  // namespace caliber
