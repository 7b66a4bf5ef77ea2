// The regression tier: verdicts at the threshold, not-comparable shapes, and the row-level caliber
// check that refuses runs measured differently.
#include <gtest/gtest.h>

#include "caliber/regression_diff.h"
#include "support/report_rows.h"

namespace caliber {
namespace {

using testing_support::ledger_shape;
using testing_support::ok_result;

std::vector<BenchmarkResultRow> run(const std::vector<ShapeRow>& shapes, const std::vector<double>& candidate_us) {
  std::vector<BenchmarkResultRow> rows;
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    rows.push_back(ok_result(shapes[i], "caliber", candidate_us[i]));
    rows.push_back(ok_result(shapes[i], "cublas", 10.0));
  }
  return rows;
}

TEST(RegressionDiff, VerdictsAroundTheThreshold) {
  const std::vector<ShapeRow> ledger = {ledger_shape(1, 8), ledger_shape(2, 8), ledger_shape(3, 8), ledger_shape(4, 8)};
  // speedups before: 1.0 each; after: 10/11 (0.909: regressed), 10/10.4 (0.962: unchanged at 5%),
  // 10/9 (1.111: improved), missing candidate (not comparable).
  const auto before = compare_shapes(ledger, run(ledger, {10, 10, 10, 10}), "caliber", "before");
  auto after_rows = run(ledger, {11, 10.4, 9, 10});
  after_rows.erase(after_rows.begin() + 6);  // shape 4's candidate row
  const auto after = compare_shapes(ledger, after_rows, "caliber", "after");
  const RegressionDiff d = diff_runs(before, after, 0.05);
  ASSERT_EQ(d.shapes.size(), 4u);
  EXPECT_EQ(d.shapes[0].verdict, "regressed");
  EXPECT_NEAR(*d.shapes[0].ratio, 10.0 / 11.0, 1e-12);
  EXPECT_EQ(d.shapes[1].verdict, "unchanged");
  EXPECT_EQ(d.shapes[2].verdict, "improved");
  EXPECT_EQ(d.shapes[3].verdict, "not comparable");
  EXPECT_EQ(d.shapes[3].note, "after: candidate missing (no row in the results)");
  EXPECT_EQ(d.count("regressed"), 1u);
  EXPECT_EQ(diff_runs(before, after, 0.03).shapes[1].verdict, "regressed");  // 0.962 < 0.97
  const nlohmann::json j = to_json(d.shapes[0]);
  EXPECT_EQ(j["verdict"], "regressed");
  EXPECT_EQ(j["before_speedup_vs_best"], 1.0);
}

TEST(RegressionDiff, RowsMeasuredUnderAnotherContractOrDeviceAreRefused) {
  const std::vector<ShapeRow> ledger = {ledger_shape(1, 8)};
  const auto before = run(ledger, {10});
  EXPECT_TRUE(result_runs_differences(before, run(ledger, {12}), "caliber").empty());
  auto other = run(ledger, {10});
  other[0].kernel_only->contract.cache = CachePolicy::cold;
  other[0].gpu = "NVIDIA H100";
  const auto diffs = result_runs_differences(before, other, "caliber");
  ASSERT_EQ(diffs.size(), 2u);
  EXPECT_EQ(diffs[0].field, "device.name");
  EXPECT_EQ(diffs[1].field, "contracts[kernel_only].cache");
  EXPECT_EQ(diffs[1].before, "\"warm\"");
  EXPECT_EQ(diffs[1].after, "\"cold\"");
}

}  // namespace
}  // namespace caliber
