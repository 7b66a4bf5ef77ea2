#include "runner/supervisor.h"

#include <fcntl.h>
#include <unistd.h>

#include <filesystem>
#include <iostream>
#include <map>
#include <random>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "core/atomic_file.h"
#include "results/benchmark_results.h"
#include "caliber/caliber_check.h"
#include "caliber/clock.h"
#include "caliber/config.h"
#include "caliber/errors.h"
#include "caliber/result_json.h"
#include "caliber/run_identity.h"
#include "caliber/run_identity_json.h"
#include "core/json_fields.h"
#include "core/one_line.h"
#include "core/shared_library.h"
#include "core/subprocess.h"
#include "core/utc_time.h"
#include "identity/collect_run_identity.h"
#include "preflight/preflight.h"
#include "results/time_breakdown.h"
#include "runner/capture_failure.h"
#include "runner/cell_in_flight.h"
#include "runner/config_replay.h"
#include "runner/interrupt.h"
#include "runner/out_lock.h"
#include "runner/progress.h"
#include "runner/resume_cells.h"
#include "runner/result_rows.h"
#include "runner/run_plan.h"
#include "runner/worker.h"
#include "runner/worker_command.h"
#include "runner/worker_process.h"
#include "io/benchmark_results_json.h"
#include "io/benchmark_results_csv.h"

namespace caliber::runner {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
// A shape of the plan (its index) and its cells still to run (provider names).
using ShapeCells = std::pair<std::size_t, std::vector<std::string>>;

constexpr int kEventsFd = 3;
constexpr const char* kRunSummaryFileName = "run_summary.json";
constexpr double kReadyTimeoutS = 300;  // opening a device (and loading libraries) can take a while
// A device server is idle between runs: it answers at once, or after its device opened.
constexpr double kServerAnswerTimeoutS = 120;
// When this process started, near enough (static initialization, before main): what the run
// spent before its session began is reported in run_summary.json (session.start_up).
const double kProcessStartUs = steady_clock().now_us();

struct ExistingResults {
  std::string run_id;
  std::set<std::pair<std::string, std::string>> cells;  // (shape_id, provider)
  std::map<std::string, std::string> capture_denied;    // provider -> why (runner/capture_failure.h)
  // How its rows' configs were fixed (runner/config_replay.h): nullopt when no row has one;
  // true when they replay another run's (replayed or not_in_replay_source), false when recorded.
  std::optional<bool> replaying_configs;
  std::map<std::pair<std::string, std::string>, std::string> replayed_keys;  // (shape_id, provider) -> key
};

// This process's command line as one line of text, for the lock file.
std::string join_command_line() {
  std::string out;
  for (const std::string& a : current_command_line()) out += (out.empty() ? "" : " ") + a;
  return one_line(out);
}

// The rows of the run being resumed (the reader refuses a file with rows of two runs).
ExistingResults read_existing(const std::string& file) {
  ExistingResults e;
  for (BenchmarkResultRow& r : read_benchmark_results(file)) {
    e.run_id = r.run_id;
    e.cells.insert({r.shape_id, r.provider});
    if (auto why = capture_denial_from(r)) e.capture_denied.emplace(r.provider, *why);
    if (r.config) {
      e.replaying_configs = r.config->pinning != ConfigPinning::recorded;
      if (r.config->pinning == ConfigPinning::replayed) e.replayed_keys[{r.shape_id, r.provider}] = r.config->key;
    }
  }
  return e;
}

// A resumed run keeps the configs its rows ran with: a recording run is resumed without
// --replay-configs, a replaying one with a source that pins every replayed row to the same key.
void check_resume_keeps_configs(const ExistingResults& e, const std::optional<ConfigReplaySource>& source,
                                const std::string& results_file) {
  if (!e.replaying_configs) return;
  if (*e.replaying_configs && !source) {
    throw CaliberMismatchError(fmt::format("{}: its rows replay the configs of another run; resume it with the same "
                                           "--replay-configs",
                                           results_file));
  }
  if (!*e.replaying_configs && source) {
    throw CaliberMismatchError(fmt::format("{}: its rows recorded their own configs; --replay-configs {} would make "
                                           "the rest of the run pinned: resume it without --replay-configs",
                                           results_file, source->dir));
  }
  if (!source) return;
  for (const auto& [cell, key] : e.replayed_keys) {
    const std::optional<ProviderConfig> now = pinned_config_for(*source, cell.first, cell.second);
    if (!now || now->key != key) {
      throw CaliberMismatchError(fmt::format("{}: --replay-configs {} pins {} / {} to '{}', the rows already written "
                                             "ran '{}': resume it with the --replay-configs it started with",
                                             results_file, source->dir, cell.first, cell.second,
                                             now ? now->key : "nothing", key));
    }
  }
}

// Fields a resume must keep beyond the caliber of docs/identity.md: the rows already written were
// measured with these providers and this matrix, and a resumed run is one run.
constexpr const char* kResumeOnlyFields[] = {"inputs.baseline_matrix", "providers"};

void add_resume_differences(const RunIdentity& recorded, const RunIdentity& current, CaliberComparison& c) {
  for (const IdentityField& f : identity_fields()) {
    for (const char* name : kResumeOnlyFields) {
      if (f.name != name) continue;
      const std::string a = f.value(recorded), b = f.value(current);
      if (a != b) c.differences.push_back({std::string(f.name), a, b});
    }
  }
}

class Supervisor {
 public:
  Supervisor(RunOptions options, bool strict) : options_(std::move(options)), strict_(strict) {}

  int run() {
    // Preflight, parent half (docs/preflight.md): the input files are there (their content is read
    // next, and an error in it is exit 2), every plugin loads with this ABI, the output directory
    // takes files. The device half runs in the first worker: this process never initializes CUDA.
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
    std::vector<PreflightCheck> checks = plugin_preflight_checks(plan_, system_shared_libraries(), backend);
    checks.push_back(check_output_writable(options_.out, /*must_be_empty=*/false));
    run_preflight(checks, std::cerr);
    // One writer per --out, from before the existing rows are read to the last file written.
    lock_ = std::make_unique<OutDirectoryLock>(
        options_.out, fmt::format("pid {} since {}: {}", ::getpid(), utc_timestamp_now(), join_command_line()));

    results_file_ = (fs::path(options_.out) / kBenchmarkResultsFileName).string();
    require_writable_file(results_file_, "--out");
    for (const auto& n : plan_.notices) std::cerr << "caliber run: " << n << '\n';

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
      existing_ = read_existing(results_file_);
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
      // only after the identity check below has passed.
      if (!options_.resume) throw UsageError("--rerun-cells needs --resume");
      rerun_ = read_rerun_cells(*options_.rerun_cells);
      if (resuming_) check_rerun_cells(read_benchmark_results(results_file_), rerun_, *options_.rerun_cells);
      for (const auto& cell : rerun_) existing_.cells.erase(cell);
    }
    if (!options_.run_id.empty() && !existing_.run_id.empty() && options_.run_id != existing_.run_id) {
      throw UsageError(fmt::format("--run-id {}: {} holds run {}", options_.run_id, results_file_, existing_.run_id));
    }
    if (options_.run_id.empty()) {
      options_.run_id = existing_.run_id.empty() ? make_run_id(utc_timestamp_now()) : existing_.run_id;
    }
    options_.events_fd = kEventsFd;
    // Drawn here, not derived from anything a provider could know: which output rows the
    // reference check compares (docs/integrity.md). Every row records its shape's seed.
    while (options_.verification_seed == 0) {
      std::random_device entropy;
      options_.verification_seed = (static_cast<std::uint64_t>(entropy()) << 32) ^ entropy();
    }
    rows_.run_id = options_.run_id;
    rows_.candidate_commit = options_.candidate_commit.value_or(CALIBER_GIT_REVISION);
    rows_.harness_version = harness_version();
    worker_command_ = worker_command(plan_);
    for (const auto& [name, value] : worker_command_.environment) ::setenv(name.c_str(), value.c_str(), 1);

    std::vector<ShapeCells> pending;
    std::size_t already = 0;
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
    if (resuming_ && !rerun_.empty()) {
      const std::size_t moved = supersede_rows(
          results_file_, (fs::path(options_.out) / kBenchmarkAttemptsFileName).string(), rerun_);
      if (moved > 0) {
        std::cerr << fmt::format("caliber run: {} failed cell(s) run again; their rows moved to {}\n", moved,
                                 kBenchmarkAttemptsFileName);
      }
    }
    appender_ = std::make_unique<BenchmarkResultsAppender>(results_file_, options_.samples);
    started_at_ = utc_timestamp_now();
    start_us_ = steady_clock().now_us();
    // Groups of consecutive shapes, one command each (the worker may share a trace among them).
    std::vector<std::vector<ShapeCells>> groups;
    for (std::size_t i = 0; i < pending.size(); ++i) {
      if (i % kMaxShapesPerTrace == 0) groups.emplace_back();
      groups.back().push_back(std::move(pending[i]));
    }
    for (std::size_t i = 0; i < groups.size(); ++i) {
      if (interrupted()) break;
      if (auto code = run_group(groups[i], i + 1 < groups.size() ? &groups[i + 1] : nullptr)) {
        progress_->done();
        return *code;
      }
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

 private:
  // Starts a worker and waits for it to report its device: nothing when it is ready, else the
  // exit code the run stops with.
  std::optional<int> ensure_worker() {
    if (worker_) return std::nullopt;
    std::string how;
    for (int attempt = 0; attempt < 2; ++attempt) {
      RunOptions worker_options = options_;
      worker_options.start_checks = !identity_checked_;
      std::vector<std::string> arguments = worker_command_.arguments;
      const auto a = worker_options.worker_arguments();
      arguments.insert(arguments.end(), a.begin(), a.end());
      const double spawned_us = steady_clock().now_us();
      if (first_spawn_us_ == 0) first_spawn_us_ = spawned_us;
      if (options_.device_server && !server_refused_) {
        // A device server measures with the caliber of its own executable, the plain worker: a
        // run whose worker is another program (Python providers) starts its own.
        std::string why = "the run's providers run in a Python worker";
        if (!worker_command_.python) {
          worker_ = WorkerProcess::connect_to_server(*options_.device_server, a, kServerAnswerTimeoutS, &why);
        } else {
          // The server holds the device: it steps aside, or this run's worker would share it.
          std::string not_retired;
          if (!WorkerProcess::retire_server(*options_.device_server, kServerAnswerTimeoutS, &not_retired)) {
            why += fmt::format(" (asking the server to exit: {})", not_retired);
          } else {
            why += "; the server exited";
          }
        }
        if (worker_) {
          ++served_runs_;
        } else {
          server_refused_ = true;
          progress_->note(fmt::format("caliber run: device server {}: {}; this run starts its own worker",
                                      *options_.device_server, why));
        }
      }
      if (!worker_) worker_ = std::make_unique<WorkerProcess>(worker_command_.executable, arguments, kEventsFd);
      ++worker_starts_;
      std::string line;
      const auto r = worker_->read_line(line, kReadyTimeoutS, [this] { return interrupted(); });
      if (r == WorkerProcess::ReadResult::interrupted) {
        worker_->kill_now();
        worker_->wait_exit();
        worker_.reset();
        return finish();
      }
      if (r == WorkerProcess::ReadResult::line) {
        const json ev = parse_json_document(line, "(worker events)");
        const std::string kind = ev.value("event", "");
        if (kind == "ready") {
          worker_ready_ms_.push_back((steady_clock().now_us() - spawned_us) / 1000.0);
          if (first_worker_steps_ms_.is_null()) first_worker_steps_ms_ = ev.value("start_up_ms", json::object());
          rows_.device = device_from_json(ev.at("device"), "(worker events)", 0, "device");
          if (!identity_checked_) {
            settle_identity(run_identity_from_json(ev.at("identity"), "(worker events)"));
            identity_checked_ = true;
          }
          return std::nullopt;
        }
        if (kind == "preflight_failed") {
          std::vector<PreflightError::Failure> failures;
          for (const json& f : ev.at("failures")) failures.push_back({f.at("check").get<std::string>(), f.at("detail").get<std::string>()});
          worker_->wait_exit();
          worker_.reset();
          throw PreflightError(std::move(failures));
        }
        if (kind == "fatal") {
          std::cerr << "caliber run: error: " << one_line(ev.value("message", "")) << '\n';
          worker_->wait_exit();
          worker_.reset();
          return ev.value("exit_code", 1);
        }
      }
      if (r == WorkerProcess::ReadResult::timeout) worker_->kill_now();
      how = worker_->wait_exit();
      if (worker_->served()) server_refused_ = true;  // the next try starts a worker of its own
      worker_.reset();
      progress_->note(fmt::format("caliber run: the measuring worker did not start ({})", how));
    }
    std::cerr << fmt::format("caliber run: failed: the measuring worker did not start twice in a row ({})\n", how);
    return 1;
  }

  // The run identity of this session (collected by the first worker): written into --out for a
  // new run; for --resume, compared with the identity of the run being continued (the caliber
  // check of docs/identity.md: a difference, or a missing identity, refuses with exit 4).
  void settle_identity(RunIdentity identity) {
    identity.run_id = options_.run_id;
    identity.command = current_command_line();
    const std::string path = (fs::path(options_.out) / kRunIdentityFileName).string();
    if (!resuming_) {
      write_run_identity(path, identity);
      return;
    }
    std::string why_missing;
    const std::optional<RunIdentity> recorded = find_run_identity(options_.out, &why_missing);
    CaliberComparison c = compare_identities(recorded, identity, why_missing);
    if (recorded) add_resume_differences(*recorded, identity, c);
    if (!c.comparable() || !c.hazards.empty()) {
      std::cerr << fmt::format("caliber run: --resume: A = the run in {} ({}), B = this session\n", options_.out,
                               recorded ? recorded->run_id : "no identity");
    }
    print_caliber_differences(c, std::cerr);
    if (!c.comparable()) {
      // A resume appends to one run: no option makes rows of two different runs one run.
      throw CaliberMismatchError(fmt::format(
          "{} cannot be resumed by this session ({}; see the !!! [caliber] lines): resume with the same build, "
          "device, contracts, ledger and matrix, or choose another --out",
          results_file_,
          c.differences.size() == 1 ? "field " + c.differences.front().field + " differs"
                                    : fmt::format("{} fields differ", c.differences.size())));
    }
  }

  // A provider denied graph capture by this row is denied it for the rest of the run.
  void learn_capture_denial(const BenchmarkResultRow& row) {
    if (auto why = capture_denial_from(row)) {
      if (capture_denied_.emplace(row.provider, *why).second) {
        progress_->note(fmt::format("caliber run: {}: {}; its next cells are timed eagerly", row.provider, *why));
      }
    }
  }

  // The command of a group of shapes (runner/worker.h): each shape's cells still to run.
  json group_command(const std::vector<ShapeCells>& group) const {
    json shapes = json::array();
    for (const auto& [index, providers] : group) {
      if (providers.empty()) continue;
      shapes.push_back({{"shape_index", index}, {"shape_id", plan_.shapes[index].shape_id}, {"providers", providers}});
    }
    return {{"shapes", shapes}, {"capture_denied", capture_denied_}};
  }

  void record(const BenchmarkResultRow& row, const std::string& label) {
    appender_->append(row);
    learn_capture_denial(row);
    ++cells_this_session_;
    if (row.kernel_only) contract_ms_ += row.kernel_only->wall_time_ms;
    if (row.eager) contract_ms_ += row.eager->wall_time_ms;
    progress_->finished(row, label);
  }

  // A row for a cell whose worker could not report one.
  void record_failed(const ShapeRow& shape, const std::string& provider, const std::string& reason, double started_us) {
    BenchmarkResultRow row = base_row(rows_, shape, provider);
    row.provider_detail = "unknown: the worker ended before reporting it";
    row.benchmark_status = BenchmarkStatus::failed;
    row.status_reason = reason;
    row.cell_wall_time_ms = (steady_clock().now_us() - started_us) / 1000.0;
    record(row, shape_label(shape));
  }

  // Says which cell runs now in --out (runner/cell_in_flight.h), for whoever sees this process
  // killed with its worker: nothing of this process runs then to write its row. A cell whose
  // timing starts right after its untimed call (no other provider's between) keeps its first
  // start: one write per cell then, about 20 us.
  void note_cell_in_flight(const std::string& shape_id, const std::string& provider) {
    if (named_in_flight_ == CellKey{shape_id, provider}) return;
    named_in_flight_ = CellKey{shape_id, provider};
    CellInFlight c;
    c.run_id = options_.run_id;
    c.pid = static_cast<int>(::getpid());
    c.shape_id = shape_id;
    c.provider = provider;
    c.started_at = utc_timestamp_now();
    c.started_unix_ms = unix_ms_now();
    write_cell_in_flight(options_.out, c);
  }

  // Runs a group of shapes (at most kMaxShapesPerTrace: the worker may run their untimed calls
  // under one trace, runner/shape_runner.h). `next`: the group after this one, whose command goes
  // to the worker as soon as this group's last row is in, before that row is written to disk (an
  // fdatasync per row): the worker never waits for this process's disk between groups.
  std::optional<int> run_group(std::vector<ShapeCells> group, const std::vector<ShapeCells>* next) {
    const auto left = [&] {
      std::size_t n = 0;
      for (const auto& [index, providers] : group) n += providers.size();
      return n;
    };
    const auto shape_of = [&](const std::string& shape_id) -> ShapeCells* {
      for (ShapeCells& g : group) {
        if (plan_.shapes[g.first].shape_id == shape_id) return &g;
      }
      return nullptr;
    };
    int deaths_between_cells = 0;
    while (left() > 0 && !interrupted()) {
      if (auto code = ensure_worker()) return code;
      std::optional<std::pair<std::size_t, std::string>> in_flight;  // (shape index, provider)
      double in_flight_us = steady_clock().now_us();
      std::string ended;  // why the worker is gone, when it is
      const bool sent_ahead = sent_ahead_ == std::make_pair(group.front().first, worker_starts_);
      sent_ahead_.reset();
      std::size_t shapes_sent = 0;
      for (const auto& g : group) shapes_sent += !g.second.empty();
      if (!sent_ahead && !worker_->send_line(group_command(group).dump())) ended = "it stopped reading commands";
      std::size_t shapes_done = 0;
      while (ended.empty()) {
        std::string line;
        const auto r = worker_->read_line(line, options_.cell_timeout_s, [this] { return note_interrupt(); });
        if (r == WorkerProcess::ReadResult::timeout) {
          worker_->kill_now();
          ended = fmt::format("no result within --cell-timeout-s {} s; the worker was killed", options_.cell_timeout_s);
          break;
        }
        if (r == WorkerProcess::ReadResult::eof) {
          ended = "the worker process died";
          break;
        }
        const json ev = parse_json_document(line, "(worker events)");
        const std::string kind = ev.value("event", "");
        if (kind == "start") {
          const std::string shape_id = ev.value("shape_id", "");
          const ShapeCells* g = shape_of(shape_id);
          if (!g) throw Error(fmt::format("the worker started a cell of a shape it was not given ({})", shape_id));
          in_flight = std::make_pair(g->first, ev.value("provider", ""));
          in_flight_us = steady_clock().now_us();
          note_cell_in_flight(shape_id, in_flight->second);
          progress_->started(shape_label(plan_.shapes[g->first]), in_flight->second);
        } else if (kind == "row") {
          const BenchmarkResultRow row = benchmark_result_from_json(ev.at("row"), "(worker events)", 0);
          ShapeCells* g = shape_of(row.shape_id);
          const auto it = g ? std::find(g->second.begin(), g->second.end(), row.provider) : std::vector<std::string>::iterator{};
          if (!g || it == g->second.end()) {
            throw Error(fmt::format("the worker reported an unexpected cell ({}, {})", row.shape_id, row.provider));
          }
          g->second.erase(it);
          if (left() == 0 && next && !interrupted()) {
            learn_capture_denial(row);  // the next group's command carries what this row taught
            if (worker_->send_line(group_command(*next).dump())) {
              sent_ahead_ = std::make_pair(next->front().first, worker_starts_);
            }
          }
          record(row, shape_label(plan_.shapes[g->first]));
          in_flight.reset();
          if (interrupted()) return std::nullopt;  // this row is kept; the worker is stopped by run()
        } else if (kind == "shape_done") {
          if (!ev.value("healthy", true)) {
            const std::string how = worker_->wait_exit();
            if (worker_->served()) server_refused_ = true;
            worker_.reset();
            progress_->note(fmt::format("caliber run: the device became unusable ({}); a fresh worker continues",
                                        how));
            break;
          }
          if (++shapes_done >= shapes_sent) break;
        } else if (kind == "fatal") {
          std::cerr << "caliber run: error: " << one_line(ev.value("message", "")) << '\n';
          return ev.value("exit_code", 1);
        }
      }
      if (ended.empty()) continue;
      const std::string how = worker_->wait_exit();
      // A server that died or was killed is gone: this run goes on with workers of its own.
      if (worker_->served()) server_refused_ = true;
      worker_.reset();
      if (in_flight) {
        const ShapeRow& shape = plan_.shapes[in_flight->first];
        const std::string label = shape_label(shape);
        record_failed(shape, in_flight->second, fmt::format("{} ({}) while running this cell", ended, how),
                      in_flight_us);
        for (ShapeCells& g : group) {
          if (g.first != in_flight->first) continue;
          g.second.erase(std::find(g.second.begin(), g.second.end(), in_flight->second));
        }
        progress_->note(fmt::format("caliber run: {} / {}: {} ({}); a fresh worker continues", label,
                                    in_flight->second, ended, how));
      } else if (++deaths_between_cells >= 2) {
        // It dies before reaching any cell of these shapes: record them all rather than loop.
        for (ShapeCells& g : group) {
          for (const auto& p : g.second) {
            record_failed(plan_.shapes[g.first], p, fmt::format("{} ({}) before this cell started, twice", ended, how),
                          in_flight_us);
          }
          g.second.clear();
        }
      }
    }
    return std::nullopt;
  }

  // The signal that asked the run to stop (0 when none).
  int interrupted() const { return interrupts_ ? interrupts_->requested() : 0; }
  // While a cell runs: says once that the run stops after it; never gives up the wait.
  bool note_interrupt() {
    if (interrupted() && !interrupt_noted_) {
      interrupt_noted_ = true;
      progress_->note(fmt::format("caliber run: {}: the run stops after the cell it is measuring (its row is kept); "
                                  "another signal stops it at once",
                                  signal_name(interrupted())));
    }
    return false;
  }

  // The CSV projection and run_summary.json, written together (all or nothing), and the last
  // line. An interrupted run says what it kept and exits 128 + the signal.
  int finish() {
    const int signo = interrupted();
    std::error_code ec;
    if (signo && !fs::exists(results_file_, ec)) {
      std::cerr << fmt::format("caliber run: {} before the first cell: nothing was written into {}\n",
                               signal_name(signo), options_.out);
      return 128 + signo;
    }
    const std::vector<BenchmarkResultRow> rows = read_benchmark_results(results_file_);
    const std::string csv_file = (fs::path(options_.out) / kBenchmarkResultsCsvFileName).string();
    std::ostringstream csv;
    write_benchmark_results_csv(csv, rows);

    std::map<std::string, std::size_t> statuses;
    for (BenchmarkStatus s : all_benchmark_statuses()) statuses[std::string(to_string(s))] = 0;
    std::set<std::string> planned;
    for (const ShapeRow& s : plan_.shapes) planned.insert(s.shape_id);
    bool bad = false;
    std::size_t kept = 0;
    for (const auto& r : rows) {
      if (!planned.count(r.shape_id)) continue;
      ++kept;
      ++statuses[std::string(to_string(r.benchmark_status))];
      bad = bad || r.benchmark_status == BenchmarkStatus::failed || r.benchmark_status == BenchmarkStatus::incorrect ||
            r.benchmark_status == BenchmarkStatus::faster_than_physical;
    }
    const double wall_s = start_us_ > 0 ? (steady_clock().now_us() - start_us_) / 1e6 : 0.0;
    const double contract_s = contract_ms_ / 1000.0;
    // Where the run's time went, over every kept row; the ratios to the wall time only when this
    // session measured all of them.
    std::vector<const BenchmarkResultRow*> kept_rows;
    for (const auto& r : rows) {
      if (planned.count(r.shape_id)) kept_rows.push_back(&r);
    }
    const TimeBreakdown time = time_breakdown(kept_rows);
    const double time_wall_s = cells_this_session_ == kept_rows.size() ? wall_s : 0.0;
    json summary = {
        {"schema_version", 1},
        {"kind", "caliber.run_summary"},
        {"run_id", options_.run_id},
        {"op", options_.op},
        {"kernel", plan_.matrix.kernel},
        {"shape_ledger", options_.shape_ledger},
        {"baseline_matrix", options_.baseline_matrix},
        {"device", worker_starts_ > 0 ? to_json(rows_.device) : json(nullptr)},
        {"harness_version", rows_.harness_version},
        {"candidate_commit", rows_.candidate_commit},
        {"session",
         {{"started_at", started_at_},
          {"finished_at", utc_timestamp_now()},
          {"wall_time_s", wall_s},
          {"contract_time_s", contract_s},
          {"harness_overhead", contract_s > 0 ? json(wall_s / contract_s - 1.0) : json(nullptr)},
          {"cells", cells_this_session_},
          {"cells_per_minute", wall_s > 0 ? json(60.0 * static_cast<double>(cells_this_session_) / wall_s) : json(nullptr)},
          {"worker_starts", worker_starts_},
          // Of them, runs a device server measured on the device it held open (docs/batch.md).
          {"device_server_runs", served_runs_},
          // Milliseconds: from the process's start to its first worker's spawn, each worker's start
          // until it reported its device ready, and the first worker's steps (docs/runner.md).
          {"start_up",
           {{"before_first_worker_ms",
             first_spawn_us_ > 0 ? json((first_spawn_us_ - kProcessStartUs) / 1000.0) : json(nullptr)},
            {"worker_ready_ms", worker_ready_ms_},
            {"first_worker_steps_ms", first_worker_steps_ms_.is_null() ? json::object() : first_worker_steps_ms_}}},
          {"interrupted_by", signo ? json(signal_name(signo)) : json(nullptr)}}},
        {"cells_total", plan_.cells()},
        {"statuses", statuses},
        {"time", to_json(time, time_wall_s)},
        {"notices", plan_.notices},
    };
    write_files_atomically({{csv_file, csv.str()},
                            {(fs::path(options_.out) / kRunSummaryFileName).string(), summary.dump(2) + "\n"}});
    clear_cell_in_flight(options_.out);  // no cell runs any more

    if (signo) {
      std::cerr << fmt::format("caliber run: interrupted by {}: kept {} of {} cells ({} this session) in {}, with {} "
                               "and {}; --resume continues with the other {}\n",
                               signal_name(signo), kept, plan_.cells(), cells_this_session_, results_file_,
                               kBenchmarkResultsCsvFileName, kRunSummaryFileName, plan_.cells() - kept);
      return 128 + signo;
    }
    std::string counts;
    for (const auto& [k, v] : statuses) {
      if (v) counts += fmt::format("{}{} {}", counts.empty() ? "" : ", ", v, k);
    }
    std::cerr << fmt::format("caliber run: {} cells ({}) in {}; {} this session in {:.1f} s wall, {:.1f} s inside "
                             "the contracts (harness overhead {})\n",
                             plan_.cells(), counts, options_.out, cells_this_session_, wall_s, contract_s,
                             contract_s > 0 ? fmt::format("{:.0f}%", 100.0 * (wall_s / contract_s - 1.0)) : "n/a");
    std::cerr << "caliber run: time: " << describe(time, time_wall_s) << '\n';
    return strict_ && bad ? 1 : 0;
  }

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
  json first_worker_steps_ms_;           // the first worker's start_up_ms
};

}  // namespace

int run_benchmark(const RunOptions& options, bool strict) { return Supervisor(options, strict).run(); }

}  // namespace caliber::runner
