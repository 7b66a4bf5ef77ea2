// Where a results set's time went, on literal rows: phases summed over the cells that ran, the
// measurements' own wall time as "inside the contracts", ratios only with the session's wall time.
#include <gtest/gtest.h>

#include "results/time_breakdown.h"

namespace caliber {
namespace {

BenchmarkResultRow ran(double wall_ms, CellPhases phases, double eager_ms, double kernel_only_ms) {
  BenchmarkResultRow r;
  r.cell_wall_time_ms = wall_ms;
  r.cell_phases = phases;
  r.eager = Result{};
  r.eager->wall_time_ms = eager_ms;
  r.kernel_only = Result{};
  r.kernel_only->wall_time_ms = kernel_only_ms;
  return r;
}

TEST(TimeBreakdown, SumsThePhasesOfTheCellsThatRan) {
  const BenchmarkResultRow a = ran(100, {10, 4, 1, 5, 70, 10}, 30, 42);
  const BenchmarkResultRow b = ran(60, {0, 0, 1, 3, 50, 6}, 20, 32);
  BenchmarkResultRow skipped;  // never ran: no phases, no measurements
  skipped.cell_wall_time_ms = 0.5;
  const TimeBreakdown t = time_breakdown({&a, &b, &skipped});
  EXPECT_EQ(t.rows, 3u);
  EXPECT_EQ(t.rows_with_phases, 2u);
  EXPECT_DOUBLE_EQ(t.cells_wall_ms, 160.5);
  EXPECT_DOUBLE_EQ(t.inside_contracts_ms, 124);
  EXPECT_EQ(t.phases, (CellPhases{10, 4, 2, 8, 120, 16}));

  const nlohmann::json j = to_json(t, 0.3);
  EXPECT_DOUBLE_EQ(j["wall_ms"].get<double>(), 300);
  EXPECT_DOUBLE_EQ(j["wall_over_contracts"].get<double>(), 300.0 / 124.0);
  EXPECT_DOUBLE_EQ(j["wall_over_timing"].get<double>(), 300.0 / 120.0);
  EXPECT_DOUBLE_EQ(j["cells_per_minute"].get<double>(), 600);
  EXPECT_DOUBLE_EQ(j["per_cell_ms"]["timing"].get<double>(), 60);
  EXPECT_DOUBLE_EQ(j["phases_ms"]["inputs"].get<double>(), 10);
  EXPECT_EQ(describe(t, 0.3),
            "wall 0.3 s (600 cells/min), cells 0.2 s, inside the contracts 0.1 s (wall 2.42x the contracts, 2.50x their "
            "timing phase); "
            "per cell that ran (2), ms: inputs 5.00, reference 2.00, correctness 1.00, untimed_check 4.00, "
            "timing 60.00, fresh_inputs 0.00, other 8.00");
}

TEST(TimeBreakdown, WithoutTheSessionsWallTimeThereAreNoRatios) {
  const BenchmarkResultRow a = ran(100, {10, 4, 1, 5, 70, 10}, 30, 42);
  const nlohmann::json j = to_json(time_breakdown({&a}), 0);
  EXPECT_FALSE(j.contains("wall_ms"));
  EXPECT_FALSE(j.contains("cells_per_minute"));
  EXPECT_EQ(describe(time_breakdown({&a}), 0),
            "cells 0.1 s, inside the contracts 0.1 s; per cell that ran (1), ms: inputs 10.00, reference 4.00, "
            "correctness 1.00, untimed_check 5.00, timing 70.00, fresh_inputs 0.00, other 10.00");
  EXPECT_EQ(describe(time_breakdown({}), 0), "cells 0.0 s, inside the contracts 0.0 s");
}

}  // namespace
}  // namespace caliber
