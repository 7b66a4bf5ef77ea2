// Trends from a stored history: a step injected at a known run is found at that run with its
// commit range and the commands for both sides; pure noise gives none; a series that continues
// another under another contract or run identity says why.
#include <cmath>
#include <random>

#include <gtest/gtest.h>

#include "history/trend.h"
#include "history/trend_render.h"
#include "support/history_records.h"

namespace caliber::history {
namespace {

using testing_support::literal_date;
using testing_support::literal_run;

// Deterministic noise: +-1% around 1 (a fixed sequence, the same on every standard library).
double jitter(int i) { return 1.0 + 0.01 * std::sin(1.7 * i + 0.3) * std::cos(0.9 * i); }

History history_with_step(int runs, int step_at, double step) {
  HistoryStore store(testing_support::fresh_dir("history_trend") + "/h.sqlite");
  for (int i = 0; i < runs; ++i) {
    const double v = 100.0 * jitter(i) * (i >= step_at ? 1 + step : 1.0);
    const double flat = 50.0 * jitter(i + 7);
    store.add(literal_run("r" + std::to_string(i), literal_date(i), "commit" + std::to_string(i),
                          {{"gemm", v}, {"copy", flat}}));
  }
  return store.read();
}

TEST(Trend, AStepIsFoundAtItsRunWithItsCommitRangeAndTheCommandsForBothSides) {
  const History h = history_with_step(40, 23, 0.15);
  const Trends trends = compute_trends(h, {});
  ASSERT_EQ(trends.series.size(), 2u);
  const SeriesTrend& gemm = trends.series[0];
  ASSERT_EQ(gemm.changes.size(), 1u);
  const TrendChange& c = gemm.changes[0];
  EXPECT_EQ(c.point.index, 23u);
  EXPECT_EQ(h.run_of(gemm.series->points[c.before]).commit, "commit22");
  EXPECT_EQ(h.run_of(gemm.series->points[c.after]).commit, "commit23");
  EXPECT_EQ(c.direction, "slower");
  EXPECT_NEAR(c.point.relative, 0.15, 0.02);
  EXPECT_LE(c.point.p_value, 0.01);
  EXPECT_EQ(c.reproduce_before, "git checkout commit22 && caliber run --out /runs/r22");
  EXPECT_EQ(c.reproduce_after, "git checkout commit23 && caliber run --out /runs/r23");
  EXPECT_TRUE(trends.series[1].changes.empty()) << "a flat series raised an alarm";
}

TEST(Trend, TheJsonAndTextCarryTheChangeAndTheMethod) {
  const History h = history_with_step(30, 12, -0.2);
  const Trends trends = compute_trends(h, {});
  const nlohmann::json j = trend_json(trends, h);
  EXPECT_EQ(j["kind"], "caliber.history.trend");
  EXPECT_EQ(j["alpha"], 0.01);
  const nlohmann::json& change = j["series"][0]["changes"].at(0);
  EXPECT_EQ(change["direction"], "faster");
  EXPECT_EQ(change["commits"]["first_after"], "commit12");
  EXPECT_EQ(change["commits"]["last_before"], "commit11");
  std::ostringstream text;
  write_trend_text(text, trends, h);
  EXPECT_NE(text.str().find("faster -2"), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("E-divisive means"), std::string::npos);
  EXPECT_NE(text.str().find("commits commit11..commit12"), std::string::npos) << text.str();
}

TEST(Trend, TheReportMarksTheChangeInItsPlotAndNamesBothSides) {
  const History h = history_with_step(40, 23, 0.15);
  const std::string page = trend_html(compute_trends(h, {}), h, "gemm <history>");
  EXPECT_NE(page.find("<title>gemm &lt;history&gt;</title>"), std::string::npos);
  EXPECT_NE(page.find("data-changes=\"1\""), std::string::npos);
  EXPECT_NE(page.find("data-changes=\"0\""), std::string::npos);
  EXPECT_NE(page.find("class=\"change\""), std::string::npos) << "the change's line in the plot";
  EXPECT_NE(page.find(">slower +1"), std::string::npos);
  EXPECT_NE(page.find("git checkout commit23 &amp;&amp; caliber run --out /runs/r23"), std::string::npos);
  EXPECT_EQ(page.find("<script"), std::string::npos);
  EXPECT_EQ(page.find("http://") , page.find("http://www.w3.org/2000/svg")) << "only the SVG namespace";
}

TEST(Trend, ANewContractOrRunIdentityStartsASeriesThatSaysWhy) {
  HistoryStore store(testing_support::fresh_dir("history_why") + "/h.sqlite");
  store.add(literal_run("a", literal_date(0), "c0", {{"gemm", 10.0}}));
  store.add(literal_run("b", literal_date(1), "c1", {{"gemm", 10.0, "s1", "per_iter"}}));
  store.add(literal_run("c", literal_date(2), "c2", {{"gemm", 10.0, "s1", "per_iter"}},
                        R"({"device.driver_version":"570.9"})"));
  const History h = store.read();
  const Trends trends = compute_trends(h, {});
  ASSERT_EQ(trends.series.size(), 3u);
  EXPECT_EQ(trends.series[0].new_series_because, "");
  EXPECT_EQ(trends.series[1].new_series_because, "continues series 1: contract schedule graph→per_iter");
  EXPECT_EQ(trends.series[2].new_series_because,
            "continues series 2: run identity device.driver_version 560.1→570.9");
}

TEST(Trend, FailedPointsAreKeptButNotTested) {
  HistoryStore store(testing_support::fresh_dir("history_failed") + "/h.sqlite");
  for (int i = 0; i < 12; ++i) {
    store.add(literal_run("r" + std::to_string(i), literal_date(i), "c", {{"gemm", 10.0, "s1", "graph",
                                                                           i == 4 ? "failed" : "ok"}}));
  }
  const History h = store.read();
  const Trends trends = compute_trends(h, {});
  EXPECT_EQ(trends.series[0].series->points.size(), 12u);
  EXPECT_EQ(trends.series[0].values.size(), 11u);
  EXPECT_TRUE(trends.series[0].changes.empty());
}

}  // namespace
}  // namespace caliber::history
