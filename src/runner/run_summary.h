// run_summary.json, the account of one session of `caliber run` (docs/runner.md): the run's
// statuses over its planned cells, where the session's time went, how its workers started; and
// the last line the run prints.
#pragma once

#include <cstddef>
#include <iosfwd>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "results/benchmark_results.h"
#include "results/time_breakdown.h"
#include "runner/result_rows.h"
#include "runner/run_options.h"
#include "runner/run_plan.h"

namespace caliber::runner {

inline constexpr const char* kRunSummaryFileName = "run_summary.json";

// The rows of the planned shapes (a results file may hold rows of shapes since removed from the
// ledger): their count per status, every status named, and where their time went. Counted a row
// at a time (add), so a results file of any size is accounted in bounded memory.
class PlannedRows {
 public:
  explicit PlannedRows(const RunPlan& plan);
  void add(const BenchmarkResultRow& row);  // a row of a shape the plan no longer has is left out

  std::map<std::string, std::size_t> statuses;
  std::size_t rows = 0;
  TimeBreakdown time;
  bool bad = false;  // a failed, incorrect or faster_than_physical row (--strict exits 1)

 private:
  std::set<std::string> planned_;
};
PlannedRows planned_rows(const std::vector<BenchmarkResultRow>& rows, const RunPlan& plan);

// What this session did, as the supervisor counted it.
struct SessionAccount {
  std::string started_at;    // UTC; "" when no cell was started
  double wall_s = 0;         // from the first cell's start
  double contract_s = 0;     // inside the contracts (the rows' wall times)
  std::size_t cells = 0;     // rows written this session
  int worker_starts = 0;
  int device_server_runs = 0;  // of them, those a device server took (--device-server)
  std::optional<double> before_first_worker_ms;  // from the process's start to its first worker's spawn
  std::vector<double> worker_ready_ms;           // per worker start: spawned until ready
  nlohmann::json first_worker_steps_ms;          // the first worker's start_up_ms (null: none)
  int interrupted_by = 0;    // the signal that stopped the run, 0 when none
};

// run_summary.json. `device` is known once a worker started; `time_wall_s` is the wall time the
// time breakdown is a share of (0 when this session did not measure every kept row).
nlohmann::json run_summary_json(const RunOptions& options, const RunPlan& plan, const RowProvenance& rows,
                                bool device_known, const SessionAccount& session, const PlannedRows& planned,
                                const TimeBreakdown& time, double time_wall_s);

// "540 cells (20 not_configured, 500 ok, 20 unsupported) in out/rmsnorm; 540 this session in 61.2 s
// wall, 44.0 s inside the contracts (harness overhead 39%)": the run's cells by status and time.
std::string run_totals_line(const std::string& out_dir, std::size_t cells_total, const PlannedRows& planned,
                            const SessionAccount& session);

// The last lines of a run that ended normally: its cells by status, the session's wall and
// contract time, and where the time went.
void print_run_totals(std::ostream& err, const std::string& out_dir, std::size_t cells_total,
                      const PlannedRows& planned, const SessionAccount& session, const TimeBreakdown& time,
                      double time_wall_s);

}  // namespace caliber::runner
