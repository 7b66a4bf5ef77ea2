// The regression tier: verdicts at the threshold, not-comparable shapes, and the row-level check
// of what a run identity cannot know (which rows a results file holds).
#include <gtest/gtest.h>

#include "analysis/regression_diff.h"
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

// The identity of the runs made by run() above: the rows state the same backend and device.
RunIdentity identity_of_run() {
  RunIdentity id;
  id.device.backend = BackendKind::cuda;
  id.device.name = "NVIDIA H200";
  id.device.arch = "sm_90";
  return id;
}

TEST(RegressionDiff, RowsMeasuredElsewhereThanTheirIdentitySaysAreDifferences) {
  const std::vector<ShapeRow> ledger = {ledger_shape(1, 8), ledger_shape(2, 8)};
  auto rows = run(ledger, {10, 10});
  EXPECT_TRUE(rows_unlike_identity(rows, {1, 2, 3, 4}, identity_of_run(), "after.jsonl").empty());
  rows[1].gpu = "NVIDIA H100";
  rows[3].gpu = "NVIDIA H100";
  rows[2].driver_version = "12.8";
  const auto diffs = rows_unlike_identity(rows, {1, 2, 3, 4}, identity_of_run(), "after.jsonl");
  ASSERT_EQ(diffs.size(), 2u);
  EXPECT_EQ(diffs[0].field, "after.jsonl:2 device.name (2 rows differ)");
  EXPECT_EQ(diffs[0].a, "NVIDIA H200");
  EXPECT_EQ(diffs[0].b, "NVIDIA H100");
  EXPECT_EQ(diffs[1].field, "after.jsonl:3 device.driver_version");
  EXPECT_EQ(diffs[1].a, "");
  EXPECT_EQ(diffs[1].b, "12.8");
  // Without line numbers the file alone is named.
  EXPECT_EQ(rows_unlike_identity(rows, {}, identity_of_run(), "after.jsonl")[1].field,
            "after.jsonl device.driver_version");
  RunIdentity host = identity_of_run();
  host.device.backend = BackendKind::host;
  EXPECT_EQ(rows_unlike_identity(run(ledger, {10, 10}), {}, host, "x.jsonl")[0].field, "x.jsonl backend (4 rows differ)");
}

}  // namespace
}  // namespace caliber
