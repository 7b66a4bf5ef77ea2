// One shard of a campaign (docs/batch.md): its caliber run, attempt after attempt, in its own
// process group with a time limit, until every cell has a final row. After each attempt the
// retry policy (retry_policy.h) picks the failed cells that run again (`caliber run --resume
// --rerun-cells`); a shard whose caliber run ended under a cell (a timeout of the whole shard, a
// crash of the runner itself) gets a failed row for that cell, so the next attempt goes on past
// it. Non-blocking: step() is called by the campaign's scheduler (several shards run side by
// side) or in a loop by a Slurm task.
#pragma once

#include <iosfwd>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "results/benchmark_results.h"
#include "campaign/campaign_manifest.h"
#include "core/subprocess.h"
#include "runner/cell_in_flight.h"
#include "runner/resume_cells.h"

namespace caliber::campaign {

struct CellRecord {
  std::optional<BenchmarkStatus> status;  // of its row; nullopt: no row yet
  std::string reason;
  std::string finished_at;
  // Which row it is: its end time (to the second), status, reason and wall time (to the bit). Two
  // runs of a cell ending in the same second still differ in their wall time.
  std::string row_identity;
  std::vector<std::string> failures;  // this session's failure signatures, oldest first
  int attempts = 0;                   // this session's attempts that produced a row
  bool final = false;                 // its row stands (ok, or a failure not retried)
  std::string final_why;              // why a failed row is not retried
};

// The cell a shard's caliber run was running when it ended without writing that cell's row.
struct CellInFlightAtEnd {
  runner::CellKey cell;
  // true: the run's cell_in_flight.json named it (the cell it was running); false: nothing said
  // which cell was running, and it is the first cell in plan order without a row (the shard's
  // next cell: the one it was running or would have run, when the run measures a cell at a time).
  bool named = false;
  // Milliseconds from its `start` to `ended_unix_ms` (0 when that is earlier: the system clock was
  // set back); 0 when not named, as nothing says when that cell began.
  double wall_time_ms = 0;
};

// Which cell a failed row is written for, when the caliber run of process `run_pid` ended
// abnormally at `ended_unix_ms` (system clock) with no row for some cells of `order`: the cell
// `in_flight` names when it was written by that process and names a cell of `order` without a
// row; otherwise the first cell of `order` without a row. nullopt when every cell has a row.
// (A shape's untimed calls run for every provider before any is timed, so while its third
// provider is in its untimed call the first two have no row yet.)
std::optional<CellInFlightAtEnd> cell_in_flight_at_end(const std::vector<runner::CellKey>& order,
                                                       const std::set<runner::CellKey>& with_rows,
                                                       const std::optional<runner::CellInFlight>& in_flight,
                                                       int run_pid, double ended_unix_ms);

class ShardRunner {
 public:
  enum class State { pending, running, done, refused };

  ShardRunner(ShardWork work, RetryPolicy policy, std::string executable, int session);
  ~ShardRunner();

  // Starts the next attempt when none runs and work is left; polls a running one and, when it
  // ended, decides what runs next. Returns true when anything changed (a row, an attempt).
  bool step();
  void terminate();  // SIGTERM to the running attempt's group (SIGKILL kill_after_s later)
  // The device server the next attempts' run is measured by (`caliber run --device-server`);
  // "" for a worker of the run's own.
  void set_device_server(std::string socket) { device_server_ = std::move(socket); }

  State state() const { return state_; }
  const ShardWork& work() const { return work_; }
  const std::map<runner::CellKey, CellRecord>& cells() const { return cells_; }
  int attempt() const { return attempt_; }
  int exit_code() const { return exit_code_; }  // of the last attempt; for refused: 2, 3 or 4
  const std::string& note() const { return note_; }  // why refused or stuck; "" otherwise
  double attempts_elapsed_s() const { return attempts_elapsed_s_; }  // this session's attempts, summed
  std::size_t rows() const;
  int pid() const;  // of the running attempt, else -1

  std::string results_file() const;

 private:
  double attempts_elapsed_s_ = 0;
  void load_rows(bool incremental);
  void start_attempt();
  void finish_attempt(const SubprocessResult& r);
  // The rows this attempt wrote: each cell's attempts, and whether it is final (retry policy).
  // Returns how many rows are new; `decisions` gets one entry per retryable failure.
  std::size_t settle_new_rows(nlohmann::json& decisions);
  // After an attempt: refused (its caliber run exited 2, 3 or 4), stopped (no row twice the same
  // way), or pending for the next one.
  void settle_state(const SubprocessResult& r, bool refused, std::size_t new_rows, const std::string& how);
  bool write_row_for_cell_in_flight(const std::string& how);

  ShardWork work_;
  RetryPolicy policy_;
  std::string executable_;
  std::string device_server_;
  int session_;
  State state_ = State::pending;
  std::map<runner::CellKey, CellRecord> cells_;
  std::vector<runner::CellKey> order_;  // plan order: shapes, then providers
  std::unique_ptr<ChildProcess> child_;
  int attempt_ = 0;
  int exit_code_ = 0;
  int attempt_pid_ = -1;  // of the last attempt's caliber run
  std::string note_;
  std::map<runner::CellKey, std::string> before_attempt_;  // row_identity of each row when the attempt started
  std::string last_silent_end_;  // how the previous attempt ended when it produced no row
  std::uintmax_t offset_ = 0;    // of the results file, read so far in this attempt
  std::uintmax_t file_inode_ = 0, file_device_ = 0;  // the results file that offset_ is into
};

const char* to_string(ShardRunner::State s);

}  // namespace caliber::campaign
