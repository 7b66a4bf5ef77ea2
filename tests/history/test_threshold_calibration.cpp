// Thresholds calibrated from a synthetic history whose noise is known; series with too little
// history are refused; what is written is a thresholds file compare reads and matches the row.
#include <cmath>
#include <random>

#include <gtest/gtest.h>

#include "compare/thresholds.h"
#include "history/threshold_calibration.h"
#include "support/gaussian.h"
#include "support/history_records.h"

namespace caliber::history {
namespace {

using testing_support::literal_date;
using testing_support::literal_run;

History noisy_history(int runs, int short_runs) {
  HistoryStore store(testing_support::fresh_dir("history_calibrate") + "/h.sqlite");
  testing_support::Gaussian gaussian(11);
  for (int i = 0; i < runs; ++i) {
    std::vector<testing_support::LiteralPoint> points = {{"gemm", 200.0 * std::exp(0.02 * gaussian())}};
    if (i >= runs - short_runs) points.push_back({"conv", 50.0});
    store.add(literal_run("r" + std::to_string(i), literal_date(i), "c" + std::to_string(i), points));
  }
  return store.read();
}

TEST(ThresholdCalibration, ThresholdsFollowTheKnownNoiseAndShortSeriesAreRefused) {
  const History h = noisy_history(200, 4);
  const Trends trends = compute_trends(h, {});
  const Calibration c = calibrate_thresholds(trends, h, NoiseSettings{});
  ASSERT_EQ(c.rules, 1u);
  ASSERT_EQ(c.refused.size(), 1u);
  EXPECT_EQ(c.refused[0].why, "4 measured runs; 10 needed");
  const nlohmann::json& rule = c.thresholds["architectures"]["sm_90"]["rules"].at(0);
  // Run-to-run differences of lognormal noise sigma 2%: sigma sqrt(2) * 2%; 4 of them: ~12%.
  const double expected = 100 * (std::exp(4 * std::sqrt(2.0) * 0.02) - 1);
  EXPECT_NEAR(rule["relative_pct"].get<double>(), expected, 0.15 * expected);
  EXPECT_NEAR(rule["absolute_us"].get<double>(), 4 * std::sqrt(2.0) * 0.02 * 200, 0.15 * 22.6);
  const std::string calibration = rule["calibration"];
  EXPECT_NE(calibration.find("200 runs from 2026-01-01T00:00:00Z"), std::string::npos) << calibration;
  EXPECT_NE(calibration.find("robust sigmas"), std::string::npos) << calibration;
}

TEST(ThresholdCalibration, TheFileIsOneCompareReadsAndItsRuleMatchesTheRow) {
  const History h = noisy_history(30, 0);
  const Trends trends = compute_trends(h, {});
  const Calibration c = calibrate_thresholds(trends, h, NoiseSettings{});
  const compare::Thresholds t = compare::parse_thresholds(c.thresholds.dump(2), "calibrated.json");
  compare::CompareRow row;
  row.name = "gemm";
  row.params = {{"shape_id", "s1"}, {"provider", "mine"}};
  row.contract["quantity"] = "device_time";
  row.contract["instrument"] = "cupti";
  row.contract["schedule"] = "graph";
  row.contract["cache"] = "cold";
  row.contract["statistic"] = "median";
  ASSERT_NE(t.rule_for(row, "sm_90"), nullptr);
  row.contract["schedule"] = "per_iter";
  EXPECT_EQ(t.rule_for(row, "sm_90"), nullptr) << "a rule for another contract";
}

TEST(ThresholdCalibration, OnlyTheRunsAfterTheLastChangePointCount) {
  HistoryStore store(testing_support::fresh_dir("history_calibrate_step") + "/h.sqlite");
  for (int i = 0; i < 30; ++i) {
    const double v = (i < 22 ? 100.0 : 130.0) * (1 + 0.002 * ((i * 7) % 5));
    store.add(literal_run("r" + std::to_string(i), literal_date(i), "c", {{"gemm", v}}));
  }
  const History h = store.read();
  const Calibration c = calibrate_thresholds(compute_trends(h, {}), h, NoiseSettings{});
  ASSERT_EQ(c.refused.size(), 1u);
  EXPECT_EQ(c.refused[0].why, "8 measured runs since its last change point; 10 needed");
}

}  // namespace
}  // namespace caliber::history
