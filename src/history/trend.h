// Trends: each series' points in order, the change points found in them (E-divisive means with
// a permutation test, history/change_points.h), and for each change the commit range it lies in
// and the commands that reproduce both sides. A series that continues another under a different
// contract, device or run identity says why it is a new series.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "history/change_points.h"
#include "history/history_store.h"

namespace caliber::history {

struct TrendChange {
  ChangePoint point;          // point.index: into SeriesTrend::values
  std::size_t before = 0;     // the last point before the change (into StoredSeries::points)
  std::size_t after = 0;      // the first point after it
  std::string direction;      // "slower" (the latency rose) or "faster"
  std::string reproduce_before, reproduce_after;  // commands for the two sides
};

struct SeriesTrend {
  const StoredSeries* series = nullptr;
  std::vector<std::size_t> measured;  // the points with a value (ok rows), in order
  std::vector<double> values;         // their values, us
  std::vector<TrendChange> changes;
  // Why this is a series of its own when an earlier series has the same name and params:
  // "continues series 3: contract schedule graph→per_iter"; empty when it is the first.
  std::string new_series_because;
};

struct Trends {
  std::vector<SeriesTrend> series;
  ChangePointSettings settings;
};

// The trends of every series of `history` (which must outlive the result).
Trends compute_trends(const History& history, const ChangePointSettings& settings);

// "git checkout <commit> && <command>": how to measure one side of a change again.
std::string reproduce_command(const StoredRun& run);

// The method and its false-alarm rate, for every output: "E-divisive means (Matteson & James
// 2014), permutation test of 199 permutations, false-alarm rate 1% per series, ...".
std::string method_text(const ChangePointSettings& settings);

}  // namespace caliber::history
