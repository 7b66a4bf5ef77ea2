// The parent process of `caliber run` (runner/supervisor.h) as one object: the session (preflight,
// what --out holds, the run summary; supervisor.cpp), the measuring worker's start
// (supervisor_worker_start.cpp), and the cells, run group by group (supervisor_cells.cpp).
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "results/benchmark_results.h"
#include "caliber/run_identity.h"
#include "runner/config_replay.h"
#include "runner/interrupt.h"
#include "runner/out_lock.h"
#include "runner/progress.h"
#include "runner/result_rows.h"
#include "runner/resume_cells.h"
#include "runner/resume_check.h"
#include "runner/run_options.h"
#include "runner/run_plan.h"
#include "runner/run_summary.h"
#include "runner/worker_command.h"
#include "runner/worker_process.h"
#include "io/benchmark_results_json.h"

namespace caliber::runner {

// A shape of the plan (its index) and its cells still to run (provider names).
using PendingShape = std::pair<std::size_t, std::vector<std::string>>;

// The descriptor the worker writes its events to (runner/worker.h).
inline constexpr int kEventsFd = 3;

class Supervisor {
 public:
  Supervisor(RunOptions options, bool strict) : options_(std::move(options)), strict_(strict) {}

  int run();

 private:
  // --- the session: supervisor.cpp
  // Preflight, parent half (docs/preflight.md): the input files are there (their content is read
  // next, and an error in it is exit 2), every plugin loads with this ABI, the output directory
  // takes files. The device half runs in the first worker: this process never initializes CUDA.
  // Then --out is locked. Returns the configs to replay (--replay-configs).
  std::optional<ConfigReplaySource> preflight_and_plan();

  // What --out already holds (--resume continues it), the graph-capture denials the run starts
  // with, and the failed cells that run again (--rerun-cells).
  void read_results_in_out(const std::optional<ConfigReplaySource>& replay);

  // The run id (the resumed run's, or a new one), the verification seed, what every row records,
  // and the worker's command and environment.
  void settle_session_options();

  // The cells without a row yet, shape by shape in plan order; `already`: how many have one.
  std::vector<PendingShape> pending_cells(std::size_t& already) const;

  // --rerun-cells, once the identity check has passed: the failed rows leave the results.
  void supersede_rerun_rows();

  // The signal that asked the run to stop (0 when none).
  int interrupted() const { return interrupts_ ? interrupts_->requested() : 0; }
  // While a cell runs: says once that the run stops after it; never gives up the wait.
  bool note_interrupt();

  // The CSV projection and run_summary.json, written together (all or nothing), and the last
  // line. An interrupted run says what it kept and exits 128 + the signal.
  int finish();

  SessionAccount session_account(int signo) const;

  // --- the measuring worker's start: supervisor_worker_start.cpp

  // Starts a worker and waits for it to report its device: nothing when it is ready, else the
  // exit code the run stops with.
  std::optional<int> ensure_worker();

  // Starts a worker: the device server's (--device-server, when it can serve this run) or a
  // process of its own. Returns when it was asked for (steady clock, microseconds).
  double start_worker();

  // A device server measures with the caliber of its own executable, the plain worker: a run
  // whose worker is another program (Python providers) starts its own, and the server, which holds
  // the device, is asked to step aside (or this run's worker would share it).
  void connect_to_device_server(const std::vector<std::string>& worker_arguments);

  // A starting worker's first event. True when it settles the start: `code` is then nullopt for a
  // worker ready to measure, or the exit code the run stops with (the worker's fatal error);
  // a failed device preflight throws PreflightError.
  bool settled_by_first_event(const std::string& line, double spawned_us, std::optional<int>& code);

  // The run identity of this session (collected by the first worker): written into --out for a
  // new run; for --resume, compared with the identity of the run being continued (the caliber
  // check of docs/identity.md: a difference, or a missing identity, refuses with exit 4).
  void settle_identity(RunIdentity identity);
  // What this session draws and checks with (RunChecks); on resume, the run's input seed unless
  // --seed is given.
  RunChecks run_checks(const std::optional<RunIdentity>& recorded);

  // --- the cells, group by group: supervisor_cells.cpp

  // Groups of consecutive shapes, one command each (the worker may share a trace among them),
  // run in turn until one stops the run (its exit code) or a signal does.
  std::optional<int> run_groups(std::vector<PendingShape> pending);

  // A provider denied graph capture by this row is denied it for the rest of the run.
  void learn_capture_denial(const BenchmarkResultRow& row);

  // The command of a group of shapes (runner/worker.h): each shape's cells still to run.
  nlohmann::json group_command(const std::vector<PendingShape>& group) const;

  // Appends the row (fsynced) and counts it.
  void record(const BenchmarkResultRow& row, const std::string& label);

  // A row for a cell whose worker could not report one.
  void record_failed(const ShapeRow& shape, const std::string& provider, const std::string& reason, double started_us);

  // Says which cell runs now in --out (runner/cell_in_flight.h), for whoever sees this process
  // killed with its worker: nothing of this process runs then to write its row. A cell whose
  // timing starts right after its untimed call (no other provider's between) keeps its first
  // start: one write per cell then, about 20 us.
  void note_cell_in_flight(const std::string& shape_id, const std::string& provider);

  // The cell the worker said it started and has not reported yet.
  struct CellInProgress {
    std::optional<std::pair<std::size_t, std::string>> cell;  // (shape index, provider)
    double since_us = 0;
  };
  // Whether the group's run stops the run (with exit_code, or nullopt: interrupted).
  struct GroupStop {
    bool stop = false;
    std::optional<int> exit_code;
  };

  // Runs a group of shapes (at most kMaxShapesPerTrace: the worker may run their untimed calls
  // under one trace, runner/shape_runner.h). `next`: the group after this one, whose command goes
  // to the worker as soon as this group's last row is in, before that row is written to disk (an
  // fdatasync per row): the worker never waits for this process's disk between groups.
  std::optional<int> run_group(std::vector<PendingShape> group, const std::vector<PendingShape>* next);

  static std::size_t cells_left(const std::vector<PendingShape>& group);
  PendingShape* shape_of(std::vector<PendingShape>& group, const std::string& shape_id) const;

  // Sends the group's command (unless it went ahead) and follows the worker's events until every
  // shape sent is done, the device became unusable, or the worker is gone (`ended` says why).
  GroupStop follow_group(std::vector<PendingShape>& group, const std::vector<PendingShape>* next,
                         CellInProgress& in_flight, std::string& ended);

  // The worker started a cell: it is the one in flight.
  void cell_started(std::vector<PendingShape>& group, const nlohmann::json& ev, CellInProgress& in_flight);

  // Records a row the worker reported (after sending the next group's command ahead when it is
  // the group's last). True when the run was interrupted: the row is kept, the run stops.
  bool row_reported(std::vector<PendingShape>& group, const std::vector<PendingShape>* next, const nlohmann::json& ev,
                    CellInProgress& in_flight);

  // The worker is gone (`ended`): the cell it was in gets a failed row; a worker that dies twice
  // before reaching any cell of the group fails them all rather than loop.
  void after_worker_ended(std::vector<PendingShape>& group, const CellInProgress& in_flight, const std::string& ended,
                          int& deaths_between_cells);

  RunOptions options_;
  bool strict_;
  RunPlan plan_;
  std::string results_file_;
  ExistingResults existing_;
  std::map<std::string, std::string> capture_denied_;  // provider -> why, for the rest of the run
  std::set<CellKey> rerun_;  // --rerun-cells
  std::optional<CellKey> named_in_flight_;  // the cell cell_in_flight.json names
  RowProvenance rows_;
  bool resuming_ = false;          // --resume continues a run whose rows are in --out
  std::string token_;               // the current worker's channel token (runner/worker_token.h)
  bool seed_pinned_ = false;       // --seed given (else drawn, or on resume the run's own)
  bool verification_seed_pinned_ = false;
  bool identity_checked_ = false;  // the first worker's identity is settled
  WorkerCommand worker_command_;
  std::unique_ptr<BenchmarkResultsAppender> appender_;
  std::unique_ptr<Progress> progress_;
  std::unique_ptr<WorkerProcess> worker_;
  std::unique_ptr<OutDirectoryLock> lock_;
  std::unique_ptr<InterruptRequests> interrupts_;
  bool interrupt_noted_ = false;
  std::string started_at_;
  double start_us_ = 0;
  double contract_ms_ = 0;
  std::size_t cells_this_session_ = 0;
  int worker_starts_ = 0;
  int served_runs_ = 0;          // worker starts a device server took (--device-server)
  bool server_refused_ = false;  // the device server did not answer, or its run ended early
  // The shape whose command was sent ahead, and to which worker start (worker_starts_ then).
  std::optional<std::pair<std::size_t, int>> sent_ahead_;
  std::vector<double> worker_ready_ms_;  // per worker start: spawned until ready
  double first_spawn_us_ = 0;
  nlohmann::json first_worker_steps_ms_;           // the first worker's start_up_ms
};

}  // namespace caliber::runner
