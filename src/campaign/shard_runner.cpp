#include "campaign/shard_runner.h"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "core/atomic_file.h"
#include "caliber/errors.h"
#include "caliber/run_identity.h"
#include "campaign/retry_policy.h"
#include "core/json_fields.h"
#include "core/utc_time.h"
#include "runner/capture_failure.h"
#include "runner/result_rows.h"
#include "io/benchmark_results_json.h"

namespace caliber::campaign {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr const char* kShardLogFileName = "run.log";
constexpr const char* kAttemptsLogFileName = "attempts.jsonl";
constexpr const char* kRerunFileName = "rerun_cells.tsv";

// The last line of the shard's log that says why caliber run refused (exit 2, 3 or 4).
std::string refusal_line(const std::string& log) {
  std::ifstream in(log);
  std::string line, found;
  while (std::getline(in, line)) {
    if (line.find("error") != std::string::npos || line.find("PREFLIGHT_FAILED") != std::string::npos ||
        line.find("[caliber]") != std::string::npos || line.find("refused") != std::string::npos) {
      found = line;
    }
  }
  return found;
}

std::string describe_end(const SubprocessResult& r, double timeout_s) {
  if (r.timed_out) return fmt::format("was stopped at --shard-timeout-s {:g} s", timeout_s);
  if (r.exit_code > 128) return fmt::format("was killed by signal {}", r.exit_code - 128);
  return fmt::format("exited {}", r.exit_code);
}

}  // namespace

std::optional<CellInFlightAtEnd> cell_in_flight_at_end(const std::vector<runner::CellKey>& order,
                                                       const std::set<runner::CellKey>& with_rows,
                                                       const std::optional<runner::CellInFlight>& in_flight,
                                                       int run_pid, double ended_unix_ms) {
  if (in_flight && in_flight->pid == run_pid) {
    const runner::CellKey named{in_flight->shape_id, in_flight->provider};
    if (!with_rows.count(named) && std::find(order.begin(), order.end(), named) != order.end()) {
      return CellInFlightAtEnd{named, true, std::max(0.0, ended_unix_ms - in_flight->started_unix_ms)};
    }
  }
  for (const runner::CellKey& key : order) {
    if (!with_rows.count(key)) return CellInFlightAtEnd{key, false, 0.0};
  }
  return std::nullopt;
}

const char* to_string(ShardRunner::State s) {
  switch (s) {
    case ShardRunner::State::pending: return "pending";
    case ShardRunner::State::running: return "running";
    case ShardRunner::State::done: return "done";
    case ShardRunner::State::refused: return "refused";
  }
  return "?";
}

ShardRunner::ShardRunner(ShardWork work, RetryPolicy policy, std::string executable, int session)
    : work_(std::move(work)), policy_(policy), executable_(std::move(executable)), session_(session) {
  for (const ShapeRow& s : work_.shapes) {
    for (const std::string& p : work_.providers) {
      order_.push_back({s.shape_id, p});
      cells_[{s.shape_id, p}];
    }
  }
  // What an earlier session left: failed rows run again (the cutoff counts this session only),
  // every other row stands.
  load_rows(false);
  for (auto& [key, c] : cells_) {
    if (c.status) c.final = !is_retryable(*c.status);
  }
}

ShardRunner::~ShardRunner() = default;

std::string ShardRunner::results_file() const { return (fs::path(work_.dir) / kBenchmarkResultsFileName).string(); }

std::size_t ShardRunner::rows() const {
  std::size_t n = 0;
  for (const auto& [k, c] : cells_) n += c.status ? 1 : 0;
  return n;
}

int ShardRunner::pid() const { return child_ ? child_->pid() : -1; }

void ShardRunner::load_rows(bool incremental) {
  const std::string file = results_file();
  std::ifstream in(file, std::ios::binary);
  struct stat st {};
  if (!in || ::stat(file.c_str(), &st) != 0) return;
  const auto size = static_cast<std::uintmax_t>(st.st_size);
  // The runner rewrites the file by atomic rename when failed rows run again (--rerun-cells) and
  // cuts a torn last row in place: read from the start when the file is another one or shorter
  // than what was read, or when the byte before the offset does not end a row. (Rows appended
  // quickly after a rewrite made an offset into the old file land inside a row of the new one.)
  bool restart = !incremental || size < offset_ || st.st_ino != file_inode_ || st.st_dev != file_device_;
  if (!restart && offset_ > 0) {
    char before = 0;
    in.seekg(static_cast<std::streamoff>(offset_ - 1));
    restart = !in.get(before) || before != '\n';
  }
  file_inode_ = st.st_ino;
  file_device_ = st.st_dev;
  if (restart) {
    offset_ = 0;
    if (!incremental) {
      for (auto& [k, c] : cells_) c.status.reset();
    }
  }
  if (size == offset_) return;
  in.clear();
  in.seekg(static_cast<std::streamoff>(offset_));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto last_newline = text.rfind('\n');
  if (last_newline == std::string::npos) return;  // only a row being written
  text.resize(last_newline + 1);
  // A row is read by the runner's strict reader; one the runner is still writing is not there yet.
  std::map<std::string, std::string> denials;
  for (const BenchmarkResultRow& r : parse_benchmark_results(text, file)) {
    const auto it = cells_.find({r.shape_id, r.provider});
    if (it == cells_.end()) continue;  // not this shard's (never written by the runner)
    it->second.status = r.benchmark_status;
    it->second.reason = r.status_reason.value_or("");
    it->second.finished_at = r.finished_at;
    it->second.row_identity = fmt::format("{}|{}|{}|{:a}", r.finished_at, to_string(r.benchmark_status),
                                          r.status_reason.value_or(""), r.cell_wall_time_ms);
    if (auto why = runner::capture_denial_from(r)) denials.emplace(r.provider, *why);
  }
  // What a shard learns, every later attempt of the op's shards starts with (docs/batch.md).
  if (!denials.empty() && !work_.capture_denied_file.empty()) runner::merge_capture_denials(work_.capture_denied_file, denials);
  offset_ += text.size();
}

bool ShardRunner::step() {
  if (state_ == State::done || state_ == State::refused) return false;
  if (!child_) {
    start_attempt();
    return true;
  }
  const std::size_t before = rows();
  if (child_->poll()) {
    const SubprocessResult r = child_->result();
    child_.reset();
    finish_attempt(r);
    return true;
  }
  load_rows(true);
  return rows() != before;
}

void ShardRunner::terminate() {
  if (child_) child_->terminate();
}

void ShardRunner::start_attempt() {
  std::set<runner::CellKey> rerun;
  for (const auto& [key, c] : cells_) {
    if (c.status && !c.final) rerun.insert(key);
  }
  const bool work_left = !rerun.empty() || rows() < cells_.size();
  if (!work_left) {
    state_ = State::done;
    return;
  }
  fs::create_directories(work_.dir);
  ++attempt_;
  std::vector<std::string> argv = {executable_, "run"};
  argv.insert(argv.end(), work_.run_arguments.begin(), work_.run_arguments.end());
  std::error_code ec;
  if (fs::exists(results_file(), ec) && fs::file_size(results_file(), ec) > 0) argv.push_back("--resume");
  if (!work_.capture_denied_file.empty() && fs::exists(work_.capture_denied_file, ec)) {
    argv.insert(argv.end(), {"--capture-denied", work_.capture_denied_file});
  }
  if (!rerun.empty()) {
    const std::string list = (fs::path(work_.dir) / kRerunFileName).string();
    runner::write_rerun_cells(list, rerun);
    argv.insert(argv.end(), {"--rerun-cells", list});
  }
  if (!device_server_.empty()) argv.insert(argv.end(), {"--device-server", device_server_});
  const std::string log = (fs::path(work_.dir) / kShardLogFileName).string();
  {
    std::ofstream header(log, std::ios::app);
    header << fmt::format("== caliber batch: shard {} session {} attempt {} ({} cell(s) run again) at {}\n",
                          work_.name, session_, attempt_, rerun.size(), utc_timestamp_now());
  }
  before_attempt_.clear();
  for (const auto& [key, c] : cells_) {
    if (c.status) before_attempt_[key] = c.row_identity;
  }
  offset_ = 0;
  // What says which cell the run is measuring is this attempt's only (written at its cells' starts).
  runner::clear_cell_in_flight(work_.dir);
  SubprocessOptions o;
  o.argv = argv;
  o.stdout_path = log;
  o.timeout_s = policy_.shard_timeout_s;
  o.kill_after_s = policy_.kill_after_s;
  o.die_with_parent = true;
  child_ = std::make_unique<ChildProcess>(o);
  attempt_pid_ = child_->pid();
  state_ = State::running;
}

bool ShardRunner::write_row_for_cell_in_flight(const std::string& how) {
  const double ended_unix_ms = unix_ms_now();  // the attempt ended within one poll (10 ms) of this
  std::string why_missing;
  const std::optional<RunIdentity> identity = find_run_identity(work_.dir, &why_missing);
  if (!identity) return false;  // it never got as far as its first worker: no cell was in flight
  std::set<runner::CellKey> with_rows;
  for (const auto& [key, c] : cells_) {
    if (c.status) with_rows.insert(key);
  }
  const std::optional<CellInFlightAtEnd> at_end =
      cell_in_flight_at_end(order_, with_rows, runner::read_cell_in_flight(work_.dir), attempt_pid_, ended_unix_ms);
  if (!at_end) return false;
  runner::RowProvenance prov;
  prov.run_id = identity->run_id;
  prov.candidate_commit = work_.candidate_commit;
  prov.harness_version = runner::harness_version();
  prov.device = identity->device;
  const ShapeRow* shape = nullptr;
  for (const ShapeRow& s : work_.shapes) {
    if (s.shape_id == at_end->cell.first) shape = &s;
  }
  BenchmarkResultRow row = runner::base_row(prov, *shape, at_end->cell.second);
  row.provider_detail = "unknown: the shard ended before reporting it";
  row.benchmark_status = BenchmarkStatus::failed;
  row.status_reason = fmt::format(
      "the shard's caliber run {} before this cell's row was written (caliber batch: {})", how,
      at_end->named ? fmt::format("the cell it was running, per its {}", runner::kCellInFlightFileName)
                    : fmt::format("the shard's next cell; no {} said which cell it was running",
                                  runner::kCellInFlightFileName));
  // From the cell's start to the run's end; 0 when nothing says when the cell began.
  row.cell_wall_time_ms = at_end->wall_time_ms;
  // The run creates its results file after its identity: killed in between, there is none yet.
  std::error_code ec;
  if (fs::exists(results_file(), ec)) runner::cut_torn_tail(results_file());
  BenchmarkResultsAppender(results_file(), false).append(row);
  return true;
}

void ShardRunner::finish_attempt(const SubprocessResult& r) {
  exit_code_ = r.exit_code;
  attempts_elapsed_s_ += r.elapsed_s;
  const bool refused = !r.timed_out && (r.exit_code == 2 || r.exit_code == 3 || r.exit_code == 4);
  std::error_code ec;
  if (fs::exists(results_file(), ec)) runner::cut_torn_tail(results_file());
  load_rows(false);
  const std::string how = describe_end(r, policy_.shard_timeout_s);
  const bool abnormal = r.timed_out || r.exit_code != 0;
  if (!refused && abnormal && rows() < cells_.size() && write_row_for_cell_in_flight(how)) load_rows(false);

  json decisions = json::array();
  const std::size_t new_rows = settle_new_rows(decisions);
  LineAppender((fs::path(work_.dir) / kAttemptsLogFileName).string())
      .append(json{{"session", session_},
                   {"attempt", attempt_},
                   {"finished_at", utc_timestamp_now()},
                   {"exit_code", r.exit_code},
                   {"timed_out", r.timed_out},
                   {"elapsed_s", r.elapsed_s},
                   {"new_rows", new_rows},
                   {"failures", decisions}}
                  .dump());
  settle_state(r, refused, new_rows, how);
}

std::size_t ShardRunner::settle_new_rows(json& decisions) {
  std::size_t new_rows = 0;
  for (const runner::CellKey& key : order_) {
    CellRecord& c = cells_.at(key);
    if (!c.status) continue;
    const auto was = before_attempt_.find(key);
    if (was != before_attempt_.end() && was->second == c.row_identity) continue;  // not from this attempt
    ++new_rows;
    ++c.attempts;
    if (!is_retryable(*c.status)) {
      c.final = true;
      continue;
    }
    c.failures.push_back(failure_signature(*c.status, c.reason));
    const RetryDecision d = decide_retry(c.failures, policy_.retries);
    c.final = !d.retry;
    c.final_why = d.why;
    decisions.push_back({{"shape_id", key.first}, {"provider", key.second}, {"signature", c.failures.back()},
                         {"retry", d.retry}, {"why", d.why}});
  }
  return new_rows;
}

void ShardRunner::settle_state(const SubprocessResult& r, bool refused, std::size_t new_rows, const std::string& how) {
  const std::string log = (fs::path(work_.dir) / kShardLogFileName).string();
  if (refused) {
    state_ = State::refused;
    const std::string line = refusal_line(log);
    note_ = fmt::format("caliber run exited {}{} (see {})", r.exit_code, line.empty() ? "" : ": " + line, log);
    return;
  }
  if (new_rows == 0) {
    // No row at all: the runner dies before its first cell. Twice the same way is deterministic.
    if (how == last_silent_end_) {
      state_ = State::done;
      note_ = fmt::format("stopped: the shard's caliber run {} twice without a row (see {})", how, log);
      return;
    }
    last_silent_end_ = how;
  } else {
    last_silent_end_.clear();
  }
  state_ = State::pending;  // the next step() starts another attempt or finds nothing left
}

}  // namespace caliber::campaign
