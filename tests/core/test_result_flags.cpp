// Why a result or a results row is not stable, said from what happened (its flags), on literal
// results: a throttled result is never explained by a spread it does not have.
#include <gtest/gtest.h>

#include "results/benchmark_results.h"
#include "core/result_flags.h"
#include "analysis/shape_comparison.h"
#include "support/report_rows.h"

namespace caliber {
namespace {

Result unstable(double p10_us, double p90_us, std::vector<std::string> flags) {
  Result r;
  r.summary.n = 40;
  r.summary.p10_us = p10_us;
  r.summary.p90_us = p90_us;
  r.stable = false;
  r.flags = std::move(flags);
  return r;
}

TEST(ResultFlags, AStableResultNeedsNoReason) {
  Result r = unstable(10, 10.5, {});
  r.stable = true;
  EXPECT_EQ(instability_reason(r), "");
}

TEST(ResultFlags, ThrottledSamplesExplainAResultWhoseSpreadIsFine) {
  Result r = unstable(10, 10.5, {"throttled:sw_power_cap", "throttled:hw_slowdown", "unstable:throttled"});
  r.telemetry.flagged_samples = 37;
  EXPECT_EQ(instability_reason(r), "37 of 40 samples may have run throttled (sw_power_cap, hw_slowdown)");
  // Under throttle policy discard the flagged samples left the summary: 40 kept + 5 discarded.
  r.telemetry.flagged_samples = 5;
  r.telemetry.discarded_samples = 5;
  EXPECT_EQ(instability_reason(r), "5 of 45 samples may have run throttled (sw_power_cap, hw_slowdown)");
  EXPECT_TRUE(has_flag(r, kFlagUnstableThrottled));
  EXPECT_FALSE(has_flag(r, kFlagUnstableSpread));
  EXPECT_EQ(throttled_flag("sw_thermal_slowdown"), "throttled:sw_thermal_slowdown");
}

TEST(ResultFlags, BothReasonsAreSaid) {
  Result r = unstable(10, 15, {"unstable:throttled", "unstable:spread"});
  r.telemetry.flagged_samples = 8;
  EXPECT_EQ(instability_reason(r), "8 of 40 samples may have run throttled; p90/p10 = 1.50 > 1.2");
}

TEST(ResultFlags, AResultWithoutFlagsIsExplainedOnlyByASpreadItHas) {
  // A file written before flags existed: the spread explains it when it exceeds 1.2 ...
  EXPECT_EQ(instability_reason(unstable(10, 13, {})), "p90/p10 = 1.30 > 1.2");
  // ... and otherwise the reason is not invented.
  EXPECT_EQ(instability_reason(unstable(10, 10.5, {})), "reason not recorded (p90/p10 = 1.05 is within 1.2)");
  EXPECT_EQ(instability_reason(unstable(0, 0, {})), "reason not recorded");
  EXPECT_EQ(instability_reason(unstable(0, 3, {"unstable:spread"})), "p90/p10 > 1.2 (p10 = 0)");
}

TEST(ResultFlags, ARowSaysWhatItsPrimaryMeasurementSays) {
  const ShapeRow shape = testing_support::ledger_shape(8, 4096);
  BenchmarkResultRow row = testing_support::ok_result(shape, "caliber", 20.0);
  row.stable = false;
  row.p10_us = 19.9;
  row.p90_us = 20.9;  // 1.05: not the reason
  row.kernel_only->stable = false;
  row.kernel_only->flags = {"throttled:sw_power_cap", "unstable:throttled"};
  row.kernel_only->telemetry.flagged_samples = 3;
  EXPECT_EQ(row_flags(row), row.kernel_only->flags);
  EXPECT_EQ(row_instability_reason(row), "3 of 3 samples may have run throttled (sw_power_cap)");
  EXPECT_EQ(exclusion_reason(row), "unstable: 3 of 3 samples may have run throttled (sw_power_cap)");
  // Without a kept measurement only the row's quantiles are left.
  row.kernel_only.reset();
  EXPECT_TRUE(row_flags(row).empty());
  EXPECT_EQ(row_instability_reason(row), "reason not recorded (p90/p10 = 1.05 is within 1.2)");
  row.stable = true;
  EXPECT_EQ(row_instability_reason(row), "");
}

}  // namespace
}  // namespace caliber
