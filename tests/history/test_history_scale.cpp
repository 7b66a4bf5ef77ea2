// The history at scale: runs of many points added, then read back and a trend computed over every
// series, timed. The unit suite runs it small (20,000 points); CALIBER_HISTORY_SCALE_POINTS=1000000
// gives the figures of docs/history.md ("At scale"). Every run checks what it read: every point,
// and the injected steps found at their run.
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <iostream>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "history/trend.h"
#include "support/history_records.h"

namespace caliber::history {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

std::size_t scale_points() {
  const char* env = std::getenv("CALIBER_HISTORY_SCALE_POINTS");
  return env && *env ? std::stoul(env) : 20000;
}

class HistoryScaleTest : public ::testing::TestWithParam<std::string> {};

TEST_P(HistoryScaleTest, PointsAddedReadAndTrendedWithTheStepsFound) {
  std::string skip;
  const std::string location = testing_support::fresh_history(GetParam(), "scale", &skip);
  if (location.empty()) GTEST_SKIP() << skip;
  const std::size_t points = scale_points();
  const std::size_t series = std::min<std::size_t>(1000, points / 20);
  const std::size_t runs = points / series;
  const std::size_t step_at = runs * 3 / 5;
  // The series are made once: the time measured is the store's, not the test's record building.
  std::vector<SeriesRecord> kinds;
  for (std::size_t s = 0; s < series; ++s) {
    kinds.push_back(testing_support::literal_series({"op", 0, "s" + std::to_string(s)}, "id"));
  }
  HistoryStore store(location);
  const auto t_add = Clock::now();
  for (std::size_t r = 0; r < runs; ++r) {
    const std::string date = fmt::format("2026-01-01T{:02}:{:02}:{:02}Z", r / 3600, r / 60 % 60, r % 60);
    RunRecord run = testing_support::literal_run("r" + std::to_string(r), date, "c" + std::to_string(r), {});
    run.points.resize(series);
    for (std::size_t s = 0; s < series; ++s) {
      const double noise = 1 + 0.01 * std::sin(1.7 * static_cast<double>(r * 31 + s) + 0.3);
      const double step = (s % 100 == 0 && r >= step_at) ? 1.2 : 1.0;  // one series in 100 regresses
      run.points[s].series = kinds[s];
      run.points[s].value_us = 10.0 * noise * step;
      run.points[s].status = "ok";
    }
    store.add(run);
  }
  const double add_s = seconds_since(t_add);
  const auto t_read = Clock::now();
  const History h = store.read();
  const double read_s = seconds_since(t_read);
  const auto t_trend = Clock::now();
  const Trends trends = compute_trends(h, {});
  const double trend_s = seconds_since(t_trend);

  std::size_t read_points = 0, stepped_found = 0, false_alarms = 0;
  for (const SeriesTrend& t : trends.series) {
    read_points += t.values.size();
    const bool stepped = (t.series->id - 1) % 100 == 0;
    if (stepped && t.changes.size() == 1 && t.changes[0].point.index == step_at) ++stepped_found;
    if (!stepped && !t.changes.empty()) ++false_alarms;
  }
  EXPECT_EQ(read_points, runs * series);
  EXPECT_EQ(stepped_found, (series + 99) / 100);
  EXPECT_LE(false_alarms, series / 20) << "more than 5% of flat series alarmed at alpha 1%";
  std::cout << fmt::format("history scale [{}]: {} points ({} runs x {} series): add {:.2f} s, read {:.2f} s, "
                           "trend {:.2f} s; {} of {} steps found at their run, {} false alarms\n",
                           GetParam(), runs * series, runs, series, add_s, read_s, trend_s, stepped_found,
                           (series + 99) / 100, false_alarms);
}

INSTANTIATE_TEST_SUITE_P(Databases, HistoryScaleTest, ::testing::Values("sqlite", "postgresql"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace caliber::history
