#include "runner/supervisor.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <sstream>

#include <fmt/format.h>

#include "core/atomic_file.h"
#include "core/entropy_seed.h"
#include "caliber/clock.h"
#include "caliber/config.h"
#include "caliber/errors.h"
#include "core/one_line.h"
#include "core/shared_library.h"
#include "core/subprocess.h"
#include "core/utc_time.h"
#include "identity/collect_run_identity.h"
#include "preflight/preflight.h"
#include "results/time_breakdown.h"
#include "runner/capture_failure.h"
#include "runner/cell_in_flight.h"
#include "runner/run_results_table.h"
#include "runner/supervisor_session.h"
#include "io/benchmark_results_json.h"
#include "io/benchmark_results_csv.h"

namespace caliber::runner {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// When this process started, near enough (static initialization, before main): what the run
// spent before its session began is reported in run_summary.json (session.start_up).
const double kProcessStartUs = steady_clock().now_us();

// This process's command line as one line of text, for the lock file.
std::string join_command_line() {
  std::string out;
  for (const std::string& a : current_command_line()) out += (out.empty() ? "" : " ") + a;
  return one_line(out);
}

}  // namespace

int Supervisor::run() {
  const std::optional<ConfigReplaySource> replay = preflight_and_plan();
  read_results_in_out(replay);
  settle_session_options();
  std::size_t already = 0;
  std::vector<PendingShape> pending = pending_cells(already);
  if (already > 0) {
    std::cerr << fmt::format("caliber run: resuming run {}: {} of {} cells already done\n", options_.run_id,
                             already, plan_.cells());
  }

  progress_ = std::make_unique<Progress>(std::cerr, ::isatty(STDERR_FILENO) == 1, steady_clock(), plan_.cells(),
                                         already);
  interrupts_ = std::make_unique<InterruptRequests>();
  // The first worker runs the device preflight and brings the run identity; nothing is written
  // into --out before both passed. A resume checks the identity even when no cell is left, so a
  // changed ledger, matrix or build is refused rather than summarized as the old run.
  if (!pending.empty() || resuming_) {
    if (auto code = ensure_worker()) {
      progress_->done();
      return *code;
    }
  }
  supersede_rerun_rows();
  appender_ = std::make_unique<BenchmarkResultsAppender>(results_file_, options_.keeps_samples());
  started_at_ = utc_timestamp_now();
  start_us_ = steady_clock().now_us();
  if (auto code = run_groups(std::move(pending))) {
    progress_->done();
    return *code;
  }
  if (worker_) {
    if (interrupted()) worker_->kill_now();  // it may be inside the next cell: that cell is not kept
    worker_->close_input();
    worker_->wait_exit();
    worker_.reset();
  }
  progress_->done();
  return finish();
}

std::optional<ConfigReplaySource> Supervisor::preflight_and_plan() {
  run_preflight({check_input_file({"shape ledger", options_.shape_ledger, {}}),
                 check_input_file({"baseline matrix", options_.baseline_matrix, {}})},
                std::cerr);
  plan_ = make_run_plan(options_);
  // A replay source that cannot be read is refused before anything is created (its device is
  // checked by the worker, which knows the device).
  std::optional<ConfigReplaySource> replay;
  if (options_.replay_configs) replay = read_config_replay_source(*options_.replay_configs, plan_.op_name);
  // Backend and contract options are checked here when that needs no device.
  std::optional<BackendKind> backend;
  if (options_.backend != "auto") {
    backend = parse_backend(options_.backend);
    make_run_contracts(options_, *backend);
  }
  std::vector<PreflightCheck> checks = plugin_preflight_checks(plan_, system_shared_libraries(), backend,
                                                               options_.start_timeout_s);
  checks.push_back(check_output_writable(options_.out, /*must_be_empty=*/false));
  run_preflight(checks, std::cerr);
  // One writer per --out, from before the existing rows are read to the last file written.
  lock_ = std::make_unique<OutDirectoryLock>(
      options_.out, fmt::format("pid {} since {}: {}", ::getpid(), utc_timestamp_now(), join_command_line()));

  results_file_ = (fs::path(options_.out) / kBenchmarkResultsFileName).string();
  require_writable_file(results_file_, "--out");
  for (const auto& n : plan_.notices) std::cerr << "caliber run: " << n << '\n';
  return replay;
}

void Supervisor::read_results_in_out(const std::optional<ConfigReplaySource>& replay) {
  if (fs::exists(results_file_) && fs::file_size(results_file_) > 0) {
    if (!options_.resume) {
      throw UsageError(fmt::format("{} already holds results: pass --resume to continue that run, or choose "
                                   "another --out",
                                   results_file_));
    }
    if (cut_torn_tail(results_file_)) {
      std::cerr << "caliber run: the last row of " << results_file_ << " was torn by an interruption; it is "
                << "dropped and its cell runs again\n";
    }
    existing_ = read_existing_results(results_file_);
    check_resume_keeps_configs(existing_, replay, results_file_);
    capture_denied_ = existing_.capture_denied;
    resuming_ = true;
  }
  if (options_.capture_denied) {
    for (const auto& [provider, why] : read_capture_denials(*options_.capture_denied)) {
      capture_denied_.emplace(provider, why);
    }
  }
  if (options_.rerun_cells) {
    // --rerun-cells (docs/batch.md): failed cells that run again; their rows are superseded
    // only after the identity check has passed (supersede_rerun_rows).
    if (!options_.resume) throw UsageError("--rerun-cells needs --resume");
    rerun_ = read_rerun_cells(*options_.rerun_cells);
    if (resuming_) check_rerun_cells(results_file_, rerun_, *options_.rerun_cells);
    for (const auto& cell : rerun_) existing_.cells.erase(cell);
  }
}

void Supervisor::settle_session_options() {
  if (!options_.run_id.empty() && !existing_.run_id.empty() && options_.run_id != existing_.run_id) {
    throw UsageError(fmt::format("--run-id {}: {} holds run {}", options_.run_id, results_file_, existing_.run_id));
  }
  if (options_.run_id.empty()) {
    options_.run_id = existing_.run_id.empty() ? make_run_id(utc_timestamp_now()) : existing_.run_id;
  }
  options_.events_fd = kEventsFd;
  // Drawn here unless pinned, not derived from anything a provider could know: the input values
  // and which output rows the reference check compares (docs/integrity.md). Every row records its
  // shape's seeds.
  seed_pinned_ = options_.seed != 0;
  verification_seed_pinned_ = options_.verification_seed != 0;
  options_.verification_seed = pinned_or_drawn(options_.verification_seed);
  options_.seed = pinned_or_drawn(options_.seed);
  rows_.run_id = options_.run_id;
  rows_.candidate_commit = options_.candidate_commit.value_or(CALIBER_GIT_REVISION);
  rows_.harness_version = harness_version();
  worker_command_ = worker_command(plan_);
  for (const auto& [name, value] : worker_command_.environment) ::setenv(name.c_str(), value.c_str(), 1);
}

std::vector<PendingShape> Supervisor::pending_cells(std::size_t& already) const {
  std::vector<PendingShape> pending;
  for (std::size_t i = 0; i < plan_.shapes.size(); ++i) {
    std::vector<std::string> todo;
    for (const MatrixProvider& p : plan_.matrix.providers) {
      if (existing_.cells.count({plan_.shapes[i].shape_id, p.name})) {
        ++already;
      } else {
        todo.push_back(p.name);
      }
    }
    if (!todo.empty()) pending.emplace_back(i, std::move(todo));
  }
  return pending;
}

void Supervisor::supersede_rerun_rows() {
  if (!resuming_ || rerun_.empty()) return;
  const std::size_t moved =
      supersede_rows(results_file_, (fs::path(options_.out) / kBenchmarkAttemptsFileName).string(), rerun_);
  if (moved > 0) {
    std::cerr << fmt::format("caliber run: {} failed cell(s) run again; their rows moved to {}\n", moved,
                             kBenchmarkAttemptsFileName);
  }
}

bool Supervisor::note_interrupt() {
  if (interrupted() && !interrupt_noted_) {
    interrupt_noted_ = true;
    progress_->note(fmt::format("caliber run: {}: the run stops after the cell it is measuring (its row is kept); "
                                "another signal stops it at once",
                                signal_name(interrupted())));
  }
  return false;
}

int Supervisor::finish() {
  const int signo = interrupted();
  std::error_code ec;
  if (signo && !fs::exists(results_file_, ec)) {
    std::cerr << fmt::format("caliber run: {} before the first cell: nothing was written into {}\n",
                             signal_name(signo), options_.out);
    return 128 + signo;
  }
  // The CSV and the account, a row at a time: a results file of any size in bounded memory.
  AtomicFiles files;
  std::ostream& csv = files.open((fs::path(options_.out) / kBenchmarkResultsCsvFileName).string());
  write_benchmark_results_csv_header(csv);
  PlannedRows planned(plan_);
  const TableCeilings ceilings =
      run_table_ceilings(options_.ceilings, worker_starts_ > 0 ? std::optional(rows_.device) : std::nullopt);
  ResultsTableBuilder table(ceilings.ceilings ? &*ceilings.ceilings : nullptr, ceilings.why_none);
  for_each_benchmark_result(results_file_, [&](std::string_view, const BenchmarkResultRow& row, long) {
    write_benchmark_results_csv_row(csv, row);
    planned.add(row);
    table.add(row);
  });
  const SessionAccount session = session_account(signo);
  // Where the run's time went, over every kept row; the ratios to the wall time only when this
  // session measured all of them.
  const TimeBreakdown& time = planned.time;
  const double time_wall_s = cells_this_session_ == planned.rows ? session.wall_s : 0.0;
  const json summary =
      run_summary_json(options_, plan_, rows_, worker_starts_ > 0, session, planned, time, time_wall_s);
  files.open((fs::path(options_.out) / kRunSummaryFileName).string()) << summary.dump(2) << '\n';
  const ResultsTable results = table.build();
  write_run_summary_markdown(files.open((fs::path(options_.out) / kRunSummaryMarkdownFileName).string()), plan_.op_name,
                             options_.run_id, run_totals_line(options_.out, plan_.cells(), planned, session), results);
  files.commit();
  clear_cell_in_flight(options_.out);  // no cell runs any more

  if (signo) {
    const std::size_t kept = planned.rows;
    std::cerr << fmt::format("caliber run: interrupted by {}: kept {} of {} cells ({} this session) in {}, with {} "
                             "and {}; --resume continues with the other {}\n",
                             signal_name(signo), kept, plan_.cells(), cells_this_session_, results_file_,
                             kBenchmarkResultsCsvFileName, kRunSummaryFileName, plan_.cells() - kept);
    return 128 + signo;
  }
  write_results_table_text(std::cout, results);
  print_run_totals(std::cerr, options_.out, plan_.cells(), planned, session, time, time_wall_s);
  return strict_ && planned.bad ? 1 : 0;
}

SessionAccount Supervisor::session_account(int signo) const {
  SessionAccount a;
  a.started_at = started_at_;
  a.wall_s = start_us_ > 0 ? (steady_clock().now_us() - start_us_) / 1e6 : 0.0;
  a.contract_s = contract_ms_ / 1000.0;
  a.cells = cells_this_session_;
  a.worker_starts = worker_starts_;
  a.device_server_runs = served_runs_;
  if (first_spawn_us_ > 0) a.before_first_worker_ms = (first_spawn_us_ - kProcessStartUs) / 1000.0;
  a.worker_ready_ms = worker_ready_ms_;
  a.first_worker_steps_ms = first_worker_steps_ms_;
  a.interrupted_by = signo;
  return a;
}

int run_benchmark(const RunOptions& options, bool strict) { return Supervisor(options, strict).run(); }

}  // namespace caliber::runner
