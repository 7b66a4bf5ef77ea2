// The decision table: one case per rule and its boundaries, exact verdicts and reasons.
#include <gtest/gtest.h>

#include "analysis/promotion_decision.h"

namespace caliber {
namespace {

DecisionShape hot(Bottleneck b, std::optional<double> speedup, const char* label = "s") {
  DecisionShape s;
  s.label = label;
  s.hot = true;
  s.category = b;
  s.candidate_status = BenchmarkStatus::ok;
  s.speedup_vs_best = speedup;
  s.best_baseline = "cublas";
  return s;
}

DecisionShape synthetic(Bottleneck b, std::optional<double> speedup) {
  DecisionShape s = hot(b, speedup, "syn");
  s.hot = false;
  return s;
}

DecisionInput input(std::vector<DecisionShape> shapes, std::optional<double> geomean) {
  DecisionInput in;
  in.shapes = std::move(shapes);
  in.hot_geomean = geomean;
  in.hot_geomean_basis = "unweighted";
  return in;
}

TEST(PromotionDecision, VerdictNames) {
  EXPECT_EQ(to_string(Verdict::promote), "promote");
  EXPECT_EQ(to_string(Verdict::promote_with_guardrails), "promote_with_guardrails");
  EXPECT_EQ(to_string(Verdict::tune_needed), "tune_needed");
  EXPECT_EQ(to_string(Verdict::rewrite_needed), "rewrite_needed");
  EXPECT_EQ(to_string(Verdict::blocked), "blocked");
}

TEST(PromotionDecision, RuleTable) {
  using B = Bottleneck;
  DecisionShape incorrect_synthetic = synthetic(B::baseline_unfair_or_unmatched, std::nullopt);
  incorrect_synthetic.candidate_status = BenchmarkStatus::incorrect;
  DecisionShape crashed = hot(B::implementation_gap, std::nullopt);
  crashed.candidate_status = BenchmarkStatus::oom;
  struct Case {
    const char* name;
    DecisionInput in;
    Verdict verdict;
    const char* rule;
    const char* reason;
  };
  const std::vector<Case> cases = {
      {"incorrect anywhere blocks, even on a synthetic shape",
       input({hot(B::ok, 2.0), incorrect_synthetic}, 2.0), Verdict::blocked, "D1",
       "the candidate failed correctness or integrity on 1 shape(s): no timing of it is trusted"},
      {"a crash on a hot shape blocks", input({hot(B::ok, 2.0), crashed}, 2.0), Verdict::blocked, "D2",
       "the candidate failed or ran out of memory on 1 of 2 hot shapes (50%)"},
      {"synthetic shapes alone take no decision, and block nothing",
       input({synthetic(B::ok, 3.0), synthetic(B::ok, 2.0)}, std::nullopt), Verdict::no_decision, "D3",
       "a promotion decision needs a ledger with provenance: hot (model-derived) shapes, i.e. rows with a model (take "
       "them from caliber ledger models, or give rows one with caliber ledger manual --model); this ledger has none, "
       "and synthetic and diagnostic shapes never decide"},
      {"hot shapes without a comparison", input({hot(B::measurement_issue, std::nullopt), synthetic(B::ok, 2.0)}, std::nullopt),
       Verdict::blocked, "D3",
       "none of the 1 hot (model-derived) shapes has a kernel-only comparison; shapes without a model, synthetic and "
       "diagnostic shapes never decide"},
      {"too many measurement issues",
       input({hot(B::ok, 1.2), hot(B::ok, 1.2), hot(B::measurement_issue, std::nullopt)}, 1.2), Verdict::blocked, "D4",
       "measurement_issue on 1 of 3 hot shapes (33%) (> 25%): re-measure before deciding"},
      {"every hot shape ok promotes, whatever the synthetic ones say",
       input({hot(B::ok, 0.97), hot(B::ok, 1.5), synthetic(B::tuning_gap, 0.5)}, 1.2), Verdict::promote, "D5",
       "every one of the 2 hot shapes is at parity or better (>= 0.95x of best); geomean vs best 1.200x (unweighted)"},
      {"a quarter not ok with a winning geomean: guardrails",
       input({hot(B::ok, 1.5, "a"), hot(B::ok, 1.5, "b"), hot(B::ok, 1.5, "c"), hot(B::tuning_gap, 0.8, "d")}, 1.1),
       Verdict::promote_with_guardrails, "D6",
       "geomean vs best 1.100x (unweighted) >= 1.0 and 1 of 4 hot shapes (25%) are not ok (<= 25%): promote, routing "
       "those shapes elsewhere"},
      {"more than a quarter not ok: no guardrails",
       input({hot(B::ok, 1.5), hot(B::ok, 1.5), hot(B::tuning_gap, 0.9), hot(B::tuning_gap, 0.9)}, 1.05),
       Verdict::tune_needed, "D8",
       "geomean vs best 1.050x (unweighted); 2 of 4 hot shapes (50%) are not ok and none needs a rewrite: tune them "
       "(see their classes)"},
      {"geomean below 0.8 needs a rewrite", input({hot(B::tuning_gap, 0.7), hot(B::ok, 1.0)}, 0.79),
       Verdict::rewrite_needed, "D7",
       "geomean vs best 0.790x (unweighted) < 0.8: tuning does not close a gap this wide"},
      {"geomean 0.8 is not a rewrite", input({hot(B::tuning_gap, 0.7), hot(B::ok, 1.0)}, 0.8), Verdict::tune_needed,
       "D8",
       "geomean vs best 0.800x (unweighted); 1 of 2 hot shapes (50%) are not ok and none needs a rewrite: tune them "
       "(see their classes)"},
      {"an algorithm gap needs a rewrite", input({hot(B::algorithm_gap, 0.45), hot(B::ok, 2.0)}, 0.95),
       Verdict::rewrite_needed, "D7", "algorithm_gap on 1 of 2 hot shapes (50%); geomean vs best 0.950x (unweighted)"},
      {"implementation gaps on most hot shapes need a rewrite",
       input({hot(B::implementation_gap, 0.9), hot(B::implementation_gap, 0.9), hot(B::ok, 1.0)}, 0.93),
       Verdict::rewrite_needed, "D7",
       "implementation_gap on 2 of 3 hot shapes (67%) (> 50%); geomean vs best 0.930x (unweighted)"},
      {"implementation gaps on half the hot shapes are tuning",
       input({hot(B::implementation_gap, 0.9), hot(B::ok, 1.0)}, 0.95), Verdict::tune_needed, "D8",
       "geomean vs best 0.950x (unweighted); 1 of 2 hot shapes (50%) are not ok and none needs a rewrite: tune them "
       "(see their classes)"},
  };
  for (const Case& c : cases) {
    const Decision d = decide(c.in);
    EXPECT_EQ(d.verdict, c.verdict) << c.name;
    EXPECT_EQ(d.rule, c.rule) << c.name;
    EXPECT_EQ(d.reason, c.reason) << c.name;
  }
}

TEST(PromotionDecision, GuardrailsNameEachShapeAndWhereItGoes) {
  using B = Bottleneck;
  DecisionShape unsupported = hot(B::implementation_gap, std::nullopt, "u");
  unsupported.candidate_status = BenchmarkStatus::unsupported;
  unsupported.best_baseline = "";
  std::vector<DecisionShape> shapes;
  for (int i = 0; i < 6; ++i) shapes.push_back(hot(B::ok, 1.4, "ok"));
  shapes.push_back(hot(B::tuning_gap, 0.8, "t"));
  shapes.push_back(unsupported);
  const Decision d = decide(input(shapes, 1.2));
  ASSERT_EQ(d.verdict, Verdict::promote_with_guardrails);
  EXPECT_EQ(d.guardrails, (std::vector<std::string>{"route t to cublas (tuning_gap, 0.800x of best)",
                                                    "route u to a baseline (implementation_gap)"}));
}

}  // namespace
}  // namespace caliber
