#include "runner/supervisor_session.h"

#include <algorithm>
#include <filesystem>
#include <iostream>

#include <fmt/format.h>

#include "caliber/clock.h"
#include "caliber/errors.h"
#include "caliber/result_json.h"
#include "caliber/run_identity_json.h"
#include "core/json_fields.h"
#include "core/one_line.h"
#include "core/sha256.h"
#include "core/subprocess.h"
#include "identity/collect_run_identity.h"
#include "preflight/preflight.h"
#include "runner/worker_token.h"

namespace caliber::runner {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// A device server is idle between runs: it answers at once, or after its device opened.
constexpr double kServerAnswerTimeoutS = 120;

}  // namespace

std::optional<int> Supervisor::ensure_worker() {
  if (worker_) return std::nullopt;
  std::string how;
  for (int attempt = 0; attempt < 2; ++attempt) {
    const double spawned_us = start_worker();
    std::string line;
    const auto r = worker_->read_line(line, options_.start_timeout_s, [this] { return interrupted(); });
    if (r == WorkerProcess::ReadResult::interrupted) {
      worker_->kill_now();
      worker_->wait_exit();
      worker_.reset();
      return finish();
    }
    std::optional<int> code;
    if (r == WorkerProcess::ReadResult::line && settled_by_first_event(line, spawned_us, code)) return code;
    // Timed out, or its first line was no start (a forged line): a worker still running is ended.
    if (r != WorkerProcess::ReadResult::eof) worker_->kill_now();
    how = worker_->wait_exit();
    if (worker_->served()) server_refused_ = true;  // the next try starts a worker of its own
    worker_.reset();
    progress_->note(fmt::format("caliber run: the measuring worker did not start ({})", how));
  }
  std::cerr << fmt::format("caliber run: failed: the measuring worker did not start twice in a row ({})\n", how);
  return 1;
}

double Supervisor::start_worker() {
  RunOptions worker_options = options_;
  worker_options.start_checks = !identity_checked_;
  std::vector<std::string> arguments = worker_command_.arguments;
  const auto a = worker_options.worker_arguments();
  arguments.insert(arguments.end(), a.begin(), a.end());
  const double spawned_us = steady_clock().now_us();
  if (first_spawn_us_ == 0) first_spawn_us_ = spawned_us;
  if (options_.device_server && !server_refused_) connect_to_device_server(a);
  if (!worker_) worker_ = std::make_unique<WorkerProcess>(worker_command_.executable, arguments, kEventsFd);
  // The channel's token first: the worker reads it before it loads any provider code.
  token_ = make_worker_token();
  worker_->send_token(token_);
  ++worker_starts_;
  return spawned_us;
}

void Supervisor::connect_to_device_server(const std::vector<std::string>& worker_arguments) {
  std::string why = "the run's providers run in a Python worker";
  if (!worker_command_.python) {
    worker_ = WorkerProcess::connect_to_server(*options_.device_server, worker_arguments, kServerAnswerTimeoutS, &why);
  } else {
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

bool Supervisor::settled_by_first_event(const std::string& line, double spawned_us, std::optional<int>& code) {
  std::string forged;
  const std::optional<json> authentic = authentic_event(line, token_, &forged);
  if (!authentic) {
    progress_->note("caliber run: the measuring worker's start: " + forged);
    return false;
  }
  const json& ev = *authentic;
  const std::string kind = ev.value("event", "");
  if (kind == "ready") {
    worker_ready_ms_.push_back((steady_clock().now_us() - spawned_us) / 1000.0);
    if (first_worker_steps_ms_.is_null()) first_worker_steps_ms_ = ev.value("start_up_ms", json::object());
    rows_.device = device_from_json(ev.at("device"), "(worker events)", 0, "device");
    if (!identity_checked_) {
      settle_identity(run_identity_from_json(ev.at("identity"), "(worker events)"));
      identity_checked_ = true;
    }
    code = std::nullopt;
    return true;
  }
  if (kind == "preflight_failed") {
    std::vector<PreflightError::Failure> failures;
    for (const json& f : ev.at("failures")) {
      // A Python worker names the provider entry it could not use; the matrix says where it is.
      const std::string origin = f.contains("entry") && f.at("entry").is_string() ? worker_entry_origin(plan_, f.at("entry").get<std::string>()) : "";
      failures.push_back({f.at("check").get<std::string>(), origin + f.at("detail").get<std::string>()});
    }
    worker_->wait_exit();
    worker_.reset();
    throw PreflightError(std::move(failures));
  }
  if (kind == "fatal") {
    std::cerr << "caliber run: error: " << one_line(ev.value("message", "")) << '\n';
    worker_->wait_exit();
    worker_.reset();
    code = std::max(1, ev.value("exit_code", 1));  // a fatal end is never a success
    return true;
  }
  return false;
}

void Supervisor::settle_identity(RunIdentity identity) {
  identity.run_id = options_.run_id;
  identity.command = current_command_line();
  const std::string path = (fs::path(options_.out) / kRunIdentityFileName).string();
  if (!resuming_) {
    identity.run_checks = run_checks(std::nullopt);
    write_run_identity(path, identity);
    return;
  }
  std::string why_missing;
  const std::optional<RunIdentity> recorded = find_run_identity(options_.out, &why_missing);
  if (recorded && recorded->run_id != options_.run_id) {
    throw CaliberMismatchError(fmt::format("--resume: {} belongs to run {}, {} to run {}: they are not one run", path,
                                           recorded->run_id, results_file_, options_.run_id));
  }
  identity.run_checks = run_checks(recorded);
  check_resume_identity(recorded, why_missing, identity, options_.out, results_file_, std::cerr);
}

RunChecks Supervisor::run_checks(const std::optional<RunIdentity>& recorded) {
  // A resumed session measures on the run's input values unless --seed says otherwise (then the
  // resume check refuses the difference).
  if (recorded && recorded->run_checks && !seed_pinned_) options_.seed = recorded->run_checks->input_seed;
  if (recorded && !recorded->run_checks) {
    progress_->note("caliber run: --resume: the run's identity predates run_checks: its seeds and --integrity "
                    "cannot be compared with this session's");
  }
  RunChecks c;
  c.integrity = options_.integrity_mode();
  c.input_seed = options_.seed;
  c.verification_seed = verification_seed_pinned_
                            ? "sha256:" + sha256_hex(fmt::format("{:016x}", options_.verification_seed))
                            : "drawn";
  return c;
}

}  // namespace caliber::runner
