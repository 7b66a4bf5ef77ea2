// caliber ab: side A and side B over the same inputs for N rounds, each cell in its own process,
// the order alternating or randomized-balanced per round; identities checked before any latency
// is read; a report per op only when every round of it finished (docs/ab.md).
//
// Layout of the output directory:
//   ab_plan.json             the plan: sides, cell command, rounds and their order, seed
//   status.tsv               one line per finished cell, appended as it finishes
//   <op>/r<k>_<A|B>/         one cell: its results, run identity, code fingerprint, cell.log
//   ab_report.txt|tsv|json   the report
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "ab/ab_aggregate.h"
#include "ab/cell_command.h"
#include "ab/cell_results.h"
#include "ab/cell_run.h"
#include "ab/round_order.h"

namespace caliber {

struct AbPlan {
  std::vector<std::string> ops;
  std::string shape_ledger;  // {ledger}; "" when the cells need none
  std::string cell_command = kDefaultCellCommand;
  int rounds = 6;
  RoundOrder order = RoundOrder::alternate;
  std::uint64_t seed = 1;  // never 0 in a plan (ab_seed)
  double cell_timeout_s = 1800;
  double kill_after_s = 30;
  std::string out_dir;
  AbSide a{'A', {}, {}, {}, {}};
  AbSide b{'B', {}, {}, {}, {}};
  bool allow_caliber_mismatch = false;
  bool allow_no_code_diff = false;
  double alpha = 0.05;
  PracticalThresholds practical;  // --gain-pct / --loss-pct (docs/ab.md, "Practical size")
  // --resume: continue the A/B in out_dir (its ab_plan.json must be this plan); finished cells
  // (a status.tsv line) are read back, interrupted ones run again from an empty directory.
  bool resume = false;
  // The NVML index whose telemetry is traced across the whole A/B (telemetry_trace_s<k>.csv);
  // -1: no trace.
  int telemetry_device = 0;
  double telemetry_period_ms = 1000;
};

// The A/B's seed: `pinned` when non-zero; with --resume, the one out_dir's ab_plan.json recorded;
// else drawn from the operating system's entropy.
std::uint64_t ab_seed(std::uint64_t pinned, const std::string& out_dir, bool resume);

// A content signature of a side (binary and plugin bytes, matrix bytes, environment): equal
// signatures mean the two sides are the same thing, and the A/B measures the noise floor.
std::string side_signature(const AbSide& side);

// Expands every cell's command up front (so a placeholder a side cannot fill is refused before
// anything runs) and returns the cells of one op in execution order.
std::vector<CellSpec> plan_op_cells(const AbPlan& plan, const std::string& op);

struct AbRunResult {
  std::vector<OpAb> ops;
  std::vector<std::string> skipped_no_code_diff;  // ops stopped after round 1 because the code was identical
  int exit_code = 0;  // 0: every op reported or deliberately skipped; 1: some op has no report
};

// Runs the plan. The report goes to `report` (and to <out>/ab_report.*), progress to `progress`.
// Throws CaliberMismatchError (exit 4) when identities differ and the plan does not allow it.
AbRunResult run_ab(const AbPlan& plan, CellRunner& runner, const CellResultsReader& reader, std::ostream& report,
                   std::ostream& progress);

// The plan as JSON (ab_plan.json; screen_plan.json).
nlohmann::json ab_plan_json(const AbPlan& plan, bool identical_sides);

// Prints the caliber check of two cells ("A"/"B" or as labelled) and refuses per the plan.
void check_cells_comparable(const CellRun& x, const CellRun& y, bool allow_mismatch, std::ostream& out,
                            const std::string& label_x, const std::string& label_y);

}  // namespace caliber
