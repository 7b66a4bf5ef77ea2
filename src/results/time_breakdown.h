// Where the time of a results set went (docs/batch.md, "Where the time goes"): the session's
// wall time next to the cells' wall time and the time inside the contracts, and each cell phase
// (CellPhases) summed and per cell. caliber batch writes it into batch_status.json, caliber run
// into run_summary.json, and both print it when they end.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "results/benchmark_results.h"

namespace caliber {

struct TimeBreakdown {
  std::size_t rows = 0;              // every row of the results
  std::size_t rows_with_phases = 0;  // rows whose cell ran (they carry cell_phases_ms)
  CellPhases phases;                 // summed over those rows, milliseconds
  double cells_wall_ms = 0;          // cell_wall_time_ms summed over every row
  double inside_contracts_ms = 0;    // the measurements' own wall_time_ms (eager and kernel-only)

  void add(const BenchmarkResultRow& row);  // one more row (a results set read a row at a time)
};

TimeBreakdown time_breakdown(const std::vector<const BenchmarkResultRow*>& rows);

// wall_s: the wall time of the session that produced every row (0: unknown, e.g. a resumed
// campaign, where the ratios to it are left out).
nlohmann::json to_json(const TimeBreakdown& t, double wall_s);
// One line: the totals, the ratio of campaign wall time to the time inside the contracts, and
// the mean per cell of each phase.
std::string describe(const TimeBreakdown& t, double wall_s);

}  // namespace caliber
