// Speedups per shape: the definition, usability of rows, best baseline, geomeans and weights.
#include <gtest/gtest.h>

#include <cmath>

#include "caliber/errors.h"
#include "analysis/shape_comparison.h"
#include "support/report_rows.h"

namespace caliber {
namespace {

using testing_support::ledger_shape;
using testing_support::ok_result;
using testing_support::status_result;

TEST(ShapeComparison, SpeedupIsBaselineOverCandidateAgainstEachAndTheBest) {
  const ShapeRow s = ledger_shape(4096, 4096);
  const auto set = compare_shapes({s}, {ok_result(s, "caliber", 20), ok_result(s, "naive", 40), ok_result(s, "cublas", 25)},
                                  "caliber", "r.jsonl");
  ASSERT_EQ(set.baselines, (std::vector<std::string>{"naive", "cublas"}));
  const ShapeComparison& c = set.shapes.at(0);
  EXPECT_DOUBLE_EQ(*c.speedup_vs[0], 2.0);   // 40 / 20
  EXPECT_DOUBLE_EQ(*c.speedup_vs[1], 1.25);  // 25 / 20
  EXPECT_EQ(c.best_baseline, "cublas");
  EXPECT_DOUBLE_EQ(*c.speedup_vs_best, 1.25);
  EXPECT_FALSE(c.sub_parity());
}

TEST(ShapeComparison, UnusableRowsAreNeverInASpeedupAndSayWhy) {
  const ShapeRow s = ledger_shape(4096, 4096);
  BenchmarkResultRow unstable = ok_result(s, "fast_but_noisy", 5);
  unstable.stable = false;
  unstable.p10_us = 4.0;
  unstable.p90_us = 6.0;
  BenchmarkResultRow incorrect = ok_result(s, "wrong", 1);
  incorrect.benchmark_status = BenchmarkStatus::incorrect;
  incorrect.correct = false;
  incorrect.status_reason = "output failed the correctness check";
  incorrect.correctness_error = "12 non-finite outputs";
  const auto set = compare_shapes(
      {s}, {ok_result(s, "caliber", 20), unstable, incorrect, status_result(s, "cudnn", BenchmarkStatus::failed, "boom"),
            ok_result(s, "naive", 30)},
      "caliber", "r.jsonl");
  const ShapeComparison& c = set.shapes.at(0);
  // "wrong" ran one shape and was incorrect there: it is no baseline at all (below).
  ASSERT_EQ(set.baselines, (std::vector<std::string>{"fast_but_noisy", "cudnn", "naive"}));
  EXPECT_EQ(c.baselines[0].exclusion, "unstable: p90/p10 = 1.50 > 1.2");
  EXPECT_EQ(c.not_baselines.at(0).exclusion, "incorrect: output failed the correctness check; 12 non-finite outputs");
  EXPECT_EQ(c.baselines[1].exclusion, "failed: boom");
  EXPECT_TRUE(c.baselines[2].usable());
  EXPECT_FALSE(c.speedup_vs[0]);
  EXPECT_FALSE(c.speedup_vs[1]);
  EXPECT_EQ(c.best_baseline, "naive");  // the faster but excluded rows are not "best"
  EXPECT_DOUBLE_EQ(*c.speedup_vs_best, 1.5);
}

// A provider wrong wherever it ran is no baseline: not listed, compared or charted as one; one
// wrong on some shapes stays a baseline, counted, and is compared only where it is correct.
TEST(ShapeComparison, AProviderWrongWhereverItRanIsNotABaseline) {
  const ShapeRow a = ledger_shape(4096, 4096);
  const ShapeRow b = ledger_shape(4096, 4096, "llama-3-8b", Stage::prefill, SourceKind::model_config, DType::fp32);
  auto wrong = [](const ShapeRow& s, const std::string& provider) {
    BenchmarkResultRow r = ok_result(s, provider, 1);
    r.benchmark_status = BenchmarkStatus::incorrect;
    r.correct = false;
    r.status_reason = "output failed the correctness check";
    return r;
  };
  const auto set = compare_shapes(
      {a, b},
      {ok_result(a, "caliber", 20), wrong(a, "negative_control"), wrong(a, "half_wrong"), ok_result(a, "naive", 40),
       ok_result(b, "caliber", 20), wrong(b, "negative_control"), ok_result(b, "half_wrong", 30),
       status_result(b, "naive", BenchmarkStatus::unsupported, "no fp32")},
      "caliber", "r.jsonl");
  EXPECT_EQ(set.baselines, (std::vector<std::string>{"half_wrong", "naive"}));
  ASSERT_EQ(set.not_baselines.size(), 1u);
  EXPECT_EQ(set.not_baselines[0].provider, "negative_control");
  EXPECT_EQ(set.not_baselines[0].reason, "incorrect on every shape it ran (2 of 2)");
  ASSERT_EQ(set.partly_wrong.size(), 1u);
  EXPECT_EQ(set.partly_wrong[0].provider, "half_wrong");
  EXPECT_EQ(set.partly_wrong[0].wrong, 1u);
  EXPECT_EQ(set.partly_wrong[0].ran, 2u);
  EXPECT_EQ(set.provider_label("negative_control"), "negative_control (not a baseline)");
  EXPECT_EQ(set.shapes[0].cells().size(), 4u);  // its cells are still there, after the baselines'
  EXPECT_EQ(set.shapes[0].cells().back()->provider, "negative_control");
  EXPECT_EQ(set.shapes[0].best_baseline, "naive");
  EXPECT_DOUBLE_EQ(*set.shapes[1].speedup_vs_best, 1.5);  // half_wrong where it is correct
}

TEST(ShapeComparison, AShapeIsNamedWithItsDtype) {
  const ShapeRow s = ledger_shape(4096, 8192);
  const auto set = compare_shapes({s}, {ok_result(s, "caliber", 20)}, "caliber", "r.jsonl");
  EXPECT_EQ(set.shapes[0].args_label(), "m=4096 n=8192");
  EXPECT_EQ(set.shapes[0].label(), "bf16 m=4096 n=8192");
  EXPECT_EQ(shape_label("fp32", nlohmann::json{{"n", 1}, {"m", 2}, {"eps", 1e-5}, {"axis", "rows"}}),
            "fp32 m=2 n=1 axis=rows");
  EXPECT_EQ(shape_label_of_text("fp16", ""), "fp16");
}

TEST(ShapeComparison, MissingCellsAndAnUnusableCandidateGiveNoSpeedup) {
  const ShapeRow a = ledger_shape(4096, 4096);
  const ShapeRow b = ledger_shape(8192, 4096);
  BenchmarkResultRow cand = ok_result(a, "caliber", 10);
  cand.stable.reset();
  const auto set = compare_shapes({a, b}, {cand, ok_result(a, "naive", 30)}, "caliber", "r.jsonl");
  EXPECT_EQ(set.shapes[0].candidate.exclusion, "stability not recorded");
  EXPECT_FALSE(set.shapes[0].speedup_vs_best);
  EXPECT_EQ(set.shapes[1].candidate.exclusion, "missing (no row in the results)");
  EXPECT_EQ(set.shapes[1].baselines[0].exclusion, "missing (no row in the results)");
}

TEST(ShapeComparison, EagerSpeedupUsesEagerMedians) {
  const ShapeRow s = ledger_shape(1, 4096, "llama-3-8b", Stage::decode);
  const auto set = compare_shapes({s}, {ok_result(s, "caliber", 4, 10.0), ok_result(s, "vendor", 3, 8.0),
                                        ok_result(s, "naive", 6, 7.0)},
                                  "caliber", "r.jsonl");
  EXPECT_EQ(set.shapes[0].best_baseline, "vendor");
  EXPECT_EQ(set.shapes[0].best_eager_baseline, "naive");
  EXPECT_DOUBLE_EQ(*set.shapes[0].eager_speedup_vs_best, 0.7);
}

// A row timed eagerly because its kernel-only measurement failed reports its eager median as
// median_us: it is never a kernel-only speedup's candidate or baseline (nor the "best"), and still
// counts in the eager comparison.
TEST(ShapeComparison, RowsTimedEagerlyAreNeverInAKernelOnlySpeedup) {
  const ShapeRow s = ledger_shape(4096, 4096);
  auto eager_only = [&](const std::string& provider, double eager_us) {
    BenchmarkResultRow r = ok_result(s, provider, eager_us, eager_us);
    r.kernel_only.reset();
    r.host_overhead_us.reset();
    r.capture_failure = CaptureFailure{CaptureFailureClass::recoverable, "graph capture: cudaErrorStreamCaptureUnsupported"};
    return r;
  };
  {
    const auto set = compare_shapes({s}, {ok_result(s, "caliber", 20, 24), eager_only("fallback", 5), ok_result(s, "naive", 40, 44)},
                                    "caliber", "r.jsonl");
    const ShapeComparison& c = set.shapes.at(0);
    EXPECT_FALSE(c.speedup_vs[0]);
    EXPECT_DOUBLE_EQ(*c.speedup_vs[1], 2.0);
    EXPECT_EQ(c.best_baseline, "naive");  // not the faster-looking eager row
    EXPECT_DOUBLE_EQ(*c.speedup_vs_best, 2.0);
    EXPECT_EQ(c.best_eager_baseline, "fallback");  // eager against eager is like for like
    EXPECT_DOUBLE_EQ(*c.eager_speedup_vs_best, 5.0 / 24.0);
  }
  {
    const auto set = compare_shapes({s}, {eager_only("caliber", 10), ok_result(s, "naive", 40, 44)}, "caliber", "r.jsonl");
    const ShapeComparison& c = set.shapes.at(0);
    EXPECT_FALSE(c.speedup_vs[0]);
    EXPECT_FALSE(c.speedup_vs_best);
    EXPECT_DOUBLE_EQ(*c.eager_speedup_vs_best, 4.4);
  }
}

TEST(ShapeComparison, TheLastRowOfACellMeasuredTwiceIsUsedAndListed) {
  const ShapeRow s = ledger_shape(4096, 4096);
  BenchmarkResultRow again = ok_result(s, "caliber", 10);
  again.run_id = "run-2";
  const auto set = compare_shapes({s}, {ok_result(s, "caliber", 20), ok_result(s, "naive", 40), again}, "caliber",
                                  "r.jsonl");
  EXPECT_EQ(set.run_ids, (std::vector<std::string>{"run-1", "run-2"}));
  EXPECT_EQ(set.superseded_cells, (std::vector<std::string>{s.shape_id + " caliber"}));
  EXPECT_DOUBLE_EQ(*set.shapes[0].speedup_vs_best, 4.0);
}

TEST(ShapeComparison, RefusesAShapeOutsideTheLedgerAndAnUnknownCandidate) {
  const ShapeRow a = ledger_shape(4096, 4096);
  const ShapeRow b = ledger_shape(1, 1);
  try {
    compare_shapes({a}, {ok_result(a, "caliber", 1), ok_result(b, "caliber", 1)}, "caliber", "r.jsonl", {1, 3});
    FAIL() << "accepted a row of a shape outside the ledger";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "r.jsonl:3: field 'shape_id': shape " + b.shape_id +
                                         " is not in the shape ledger (report a run with the ledger it ran)");
  }
  try {
    compare_shapes({a}, {ok_result(a, "naive", 1)}, "caliber", "r.jsonl");
    FAIL() << "accepted a candidate without rows";
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()), "--candidate caliber: no row of the results has this provider (providers: naive)");
  }
}

TEST(ShapeComparison, HotShapesAreModelDerivedOnly) {
  EXPECT_TRUE(is_hot_shape(ledger_shape(1, 2)));
  EXPECT_TRUE(is_hot_shape(ledger_shape(1, 2, "m", Stage::decode, SourceKind::manual)));
  EXPECT_FALSE(is_hot_shape(ledger_shape(1, 2, std::nullopt)));
  EXPECT_FALSE(is_hot_shape(ledger_shape(1, 2, "m", Stage::synthetic)));
  EXPECT_FALSE(is_hot_shape(ledger_shape(1, 2, "m", Stage::diagnostic)));
  EXPECT_FALSE(is_hot_shape(ledger_shape(1, 2, "m", Stage::prefill, SourceKind::synthetic)));
  EXPECT_FALSE(is_hot_shape(ledger_shape(1, 2, "m", Stage::prefill, SourceKind::diagnostic)));
}

TEST(ShapeComparison, OpaqueBaselinesAreLabelled) {
  const ShapeRow s = ledger_shape(4096, 4096);
  BenchmarkResultRow vendor = ok_result(s, "vendor", 10);
  vendor.provider_detail = "vendor 2.1 (OPAQUE backend branch)";
  const auto set = compare_shapes({s}, {ok_result(s, "caliber", 10), vendor, ok_result(s, "naive", 10)}, "caliber",
                                  "r.jsonl");
  EXPECT_EQ(set.opaque_baselines, (std::vector<std::string>{"vendor"}));
  EXPECT_EQ(set.provider_label("vendor"), "vendor (opaque)");
  EXPECT_EQ(set.provider_label("naive"), "naive");
}

TEST(GeometricMean, OfLiteralValues) {
  EXPECT_DOUBLE_EQ(*geometric_mean({2.0, 8.0}), 4.0);
  EXPECT_NEAR(*geometric_mean({0.5, 2.0, 1.0}), 1.0, 1e-15);
  EXPECT_FALSE(geometric_mean({}));
}

TEST(WeightedGeometricMean, RuleTable) {
  ShapeRow a = ledger_shape(1, 2), b = ledger_shape(3, 4);
  const std::vector<double> values = {2.0, 0.5};
  struct Case {
    const char* name;
    ShapeWeight wa, wb;
    std::optional<double> value;
    const char* field;
    const char* not_available;
  };
  const std::vector<Case> cases = {
      {"no weights", {}, {}, std::nullopt, "", "n/a: no weights"},
      {"one shape lacks every weight", {std::nullopt, 1.0, std::nullopt}, {}, std::nullopt, "", "n/a: weights on 1 of 2 shapes"},
      // exp((3 ln 2 + 1 ln 0.5) / 4) = 2^(2/4)
      {"baseline_time_weight", {std::nullopt, std::nullopt, 3.0}, {std::nullopt, std::nullopt, 1.0}, std::sqrt(2.0),
       "baseline_time_weight", ""},
      {"baseline_time_weight first", {1, 1.0, 3.0}, {3, 3.0, 1.0}, std::sqrt(2.0), "baseline_time_weight", ""},
      {"traffic when time weights are partial", {1, 1.0, 3.0}, {3, 3.0, std::nullopt}, 1.0 / std::sqrt(2.0),
       "traffic_weight", ""},
      {"occurrences last", {1, std::nullopt, std::nullopt}, {1, std::nullopt, std::nullopt}, 1.0, "occurrences", ""},
      {"zero weights", {0, std::nullopt, std::nullopt}, {0, std::nullopt, std::nullopt}, std::nullopt, "occurrences",
       "n/a: occurrences sums to 0"},
  };
  for (const Case& c : cases) {
    a.weight = c.wa;
    b.weight = c.wb;
    const WeightedGeomean w = weighted_geometric_mean({&a, &b}, values);
    ASSERT_EQ(w.value.has_value(), c.value.has_value()) << c.name;
    if (c.value) EXPECT_NEAR(*w.value, *c.value, 1e-12) << c.name;
    EXPECT_EQ(w.weight_field, c.field) << c.name;
    EXPECT_EQ(w.not_available, c.not_available) << c.name;
  }
}

}  // namespace
}  // namespace caliber
