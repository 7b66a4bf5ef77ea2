#include "campaign/campaign_run.h"

#include <unistd.h>

#include <chrono>

#include <fmt/format.h>

#include "core/atomic_file.h"
#include "caliber/errors.h"
#include "campaign/batch.h"
#include "campaign/receipts.h"
#include "core/utc_time.h"

namespace caliber::campaign {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr double kPlainProgressS = 10;  // a progress line this often when stderr is not a terminal

json status_counts(const std::vector<std::unique_ptr<ShardRunner>>& runners, std::size_t* done, std::size_t* total) {
  std::map<std::string, std::size_t> counts;
  *done = 0;
  *total = 0;
  for (const auto& r : runners) {
    for (const auto& [key, c] : r->cells()) {
      ++*total;
      if (!c.status) continue;
      ++counts[std::string(to_string(*c.status))];
      if (c.final) ++*done;
    }
  }
  return counts;
}

}  // namespace

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string duration_text(double s) {
  if (!(s >= 0)) return "?";
  const long t = static_cast<long>(s + 0.5);
  return t >= 60 ? fmt::format("{}m{:02}s", t / 60, t % 60) : fmt::format("{}s", t);
}

Campaign::Campaign(Manifest manifest, std::ostream& err, int session, bool device_servers)
    : m_(std::move(manifest)), err_(err), session_(session), executable_(self_executable()),
      use_servers_(device_servers) {
  shards_ = manifest_shards(m_);
  const RetryPolicy policy = manifest_policy(m_);
  for (const ShardWork& w : shards_) runners_.push_back(std::make_unique<ShardRunner>(w, policy, executable_, session_));
  terminal_ = ::isatty(STDERR_FILENO) == 1;
}

void Campaign::run_all() {
  std::map<int, std::vector<std::size_t>> queue;  // device -> shards in manifest order
  for (std::size_t i = 0; i < runners_.size(); ++i) queue[runners_[i]->work().device].push_back(i);
  std::map<int, std::size_t> next;
  for (const auto& r : runners_) previous_rows_ += r->rows();
  {
    // Cells already final (a resumed campaign) are not this session's pace.
    std::size_t total = 0;
    status_counts(runners_, &done_at_start_, &total);
  }
  ran_here_ = true;
  started_s_ = now_s();
  write_status("running");
  while (true) {
    Pass pass;
    for (auto& [device, list] : queue) step_device(device, list, next[device], pass);
    for (const ShardRunner* r : pass.ended) after_attempt(*r);
    if (pass.changed) write_status("running");
    progress(false);
    if (!pass.busy) break;
    if (!pass.moved_on) usleep(static_cast<useconds_t>(kPollS * 1e6));
  }
  servers_.release_all();  // nothing more runs on the devices
}

int Campaign::finish(bool strict) {
  const MergedResults& merged = merge_for_finish();
  std::size_t done = 0, total = 0;
  const json counts = status_counts(runners_, &done, &total);
  const ShardTally tally = tally_shards();
  const bool complete = tally.missing == 0 && tally.code == 0;
  if (complete) write_seal(m_, merged);
  const TimeBreakdown& time = merged.time;
  // The ratios to the wall time hold only when this session produced every row.
  const double wall_s = ran_here_ && previous_rows_ == 0 ? now_s() - started_s_ : 0.0;
  const double attempts_s = note_time(time, wall_s);
  write_status(complete ? "sealed" : "incomplete");
  progress(true);
  print_time(time, wall_s, attempts_s);
  std::string text;
  for (auto it = counts.begin(); it != counts.end(); ++it) {
    text += fmt::format("{}{} {}", text.empty() ? "" : ", ", it.value().get<std::size_t>(), it.key());
  }
  err_ << fmt::format("caliber batch: {} cells ({}){} in {}; {}\n", total, text,
                      tally.missing ? fmt::format(", {} without a row", tally.missing) : "", m_.dir,
                      complete ? "sealed (campaign_seal.json)" : "not sealed: --resume continues it");
  if (tally.code != 0) return tally.code;
  if (!complete) return 1;
  return strict && tally.bad ? 1 : 0;
}

void Campaign::step_device(int device, const std::vector<std::size_t>& list, std::size_t& k, Pass& pass) {
  while (k < list.size()) {
    ShardRunner& r = *runners_[list[k]];
    if (r.state() == ShardRunner::State::done || r.state() == ShardRunner::State::refused) {
      ++k;
      continue;
    }
    const int attempt = r.attempt();
    const ShardRunner::State before = r.state();
    if (before == ShardRunner::State::pending) r.set_device_server(device_server(device));
    if (r.step()) pass.changed = true;
    pass.busy = true;
    if (r.attempt() != attempt || r.state() != before) {
      pass.moved_on = true;
      if (before == ShardRunner::State::running) {
        // An attempt that ended badly may have left its server inside a cell.
        if (r.exit_code() != 0) servers_.stop(device);
        // The device's next attempt starts first; this one's merge follows while it starts.
        pass.ended.push_back(&r);
        continue;
      }
    }
    break;
  }
}

const MergedResults& Campaign::merge_for_finish() {
  const double merge_from = now_s();
  if (!merged_) {
    merged_ = merge_shard_results(m_, shards_, err_);
    write_receipts(m_, shards_, *merged_, attempts());
  }
  merging_s_ += now_s() - merge_from;
  return *merged_;
}

Campaign::ShardTally Campaign::tally_shards() {
  ShardTally t;
  for (const auto& r : runners_) {
    if (r->state() == ShardRunner::State::refused && t.code == 0) t.code = r->exit_code();
    if (!r->note().empty()) err_ << fmt::format("caliber batch: shard {}: {}\n", r->work().name, r->note());
    for (const auto& [key, c] : r->cells()) {
      if (!c.status) ++t.missing;
      t.bad = t.bad || (c.status && (*c.status == BenchmarkStatus::failed || *c.status == BenchmarkStatus::incorrect ||
                                     *c.status == BenchmarkStatus::faster_than_physical));
    }
  }
  return t;
}

double Campaign::note_time(const TimeBreakdown& time, double wall_s) {
  time_ = to_json(time, wall_s);
  double attempts_s = 0;
  for (const auto& r : runners_) attempts_s += r->attempts_elapsed_s();
  if (ran_here_) {
    time_["campaign"] = {{"canary_s", canary_s_},
                         {"shard_attempts_s", attempts_s},
                         {"merging_s", merging_s_},
                         {"device_servers_started", servers_.started()}};
  }
  return attempts_s;
}

void Campaign::print_time(const TimeBreakdown& time, double wall_s, double attempts_s) {
  err_ << "caliber batch: time: " << describe(time, wall_s) << '\n';
  if (!ran_here_) return;
  err_ << fmt::format("caliber batch: time outside the cells: canary {:.2f} s, shard processes {:.2f} s (their "
                      "cells {:.2f} s), merging and receipts {:.2f} s; {}\n",
                      canary_s_, attempts_s, time.cells_wall_ms / 1e3, merging_s_,
                      use_servers_ ? fmt::format("{} device server start(s)", servers_.started())
                                   : std::string("a worker process per shard (--process-per-shard)"));
}

std::map<std::string, int> Campaign::attempts() const {
  std::map<std::string, int> a;
  for (const auto& r : runners_) {
    for (const auto& [key, c] : r->cells()) a[key.first + "/" + key.second] = c.attempts;
  }
  return a;
}

void Campaign::after_attempt(const ShardRunner& r) {
  // The merged set and the receipts follow every finished attempt: a kill loses nothing.
  const double from = now_s();
  struct Charge {
    double& to;
    double from;
    ~Charge() { to += now_s() - from; }
  } charge{merging_s_, from};
  try {
    // The first attempt of a session refreshes every receipt (an earlier session may have been
    // killed while writing them); later ones only their shard's, which is all an attempt changes.
    merged_ = merge_shard_results(m_, shards_, err_);
    write_receipts(m_, shards_, *merged_, attempts(),
                   merged_once_ ? std::optional<std::string>(r.work().name) : std::nullopt);
    merged_once_ = true;
  } catch (const CaliberMismatchError&) {
    throw;
  }
  progress_note(fmt::format("caliber batch: shard {} attempt {} ended (exit {}), {}/{} cells with a row",
                            r.work().name, r.attempt(), r.exit_code(), r.rows(), r.cells().size()));
}

void Campaign::write_status(const std::string& state) {
  std::size_t done = 0, total = 0;
  const json counts = status_counts(runners_, &done, &total);
  json shards = json::array();
  for (const auto& r : runners_) {
    std::size_t retrying = 0;
    for (const auto& [k, c] : r->cells()) retrying += c.status && !c.final ? 1 : 0;
    shards.push_back({{"name", r->work().name},
                      {"device", r->work().device},
                      {"state", to_string(r->state())},
                      {"attempt", r->attempt()},
                      {"pid", r->pid()},
                      {"cells", r->cells().size()},
                      {"rows", r->rows()},
                      {"retrying", retrying},
                      {"note", r->note()}});
  }
  const double elapsed = now_s() - started_s_;
  json status = {{"kind", "caliber.batch_status"},
                 {"schema_version", 1},
                 {"run_id", m_.frozen.at("run_id")},
                 {"manifest_sha256", m_.sha256},
                 {"session", session_},
                 {"state", state},
                 {"updated_at", utc_timestamp_now()},
                 {"elapsed_s", elapsed},
                 {"cells", {{"total", total}, {"final", done}, {"by_status", counts}}},
                 {"eta_s", eta_s(done, total)},
                 {"shards", shards}};
  if (!time_.is_null()) status["time"] = time_;
  write_file_atomically((fs::path(m_.dir) / kBatchStatusFileName).string(),
                        [&](std::ostream& out) { out << status.dump(2) << '\n'; });
}

json Campaign::eta_s(std::size_t done, std::size_t total) const {
  const double elapsed = now_s() - started_s_;
  const std::size_t this_session = done > done_at_start_ ? done - done_at_start_ : 0;
  if (this_session == 0) return nullptr;
  return elapsed / static_cast<double>(this_session) * static_cast<double>(total - done);
}

void Campaign::progress_note(const std::string& line) {
  if (terminal_) err_ << "\r\033[K";
  err_ << line << '\n';
  last_line_s_ = 0;
  progress(false);
}

void Campaign::progress(bool final_line) {
  const double t = now_s();
  if (!final_line && !terminal_ && t - last_line_s_ < kPlainProgressS) return;
  if (!final_line && terminal_ && t - last_line_s_ < 0.5) return;
  last_line_s_ = t;
  std::size_t done = 0, total = 0;
  const json counts = status_counts(runners_, &done, &total);
  std::size_t running = 0, finished = 0;
  for (const auto& r : runners_) {
    running += r->state() == ShardRunner::State::running ? 1 : 0;
    finished += r->state() == ShardRunner::State::done || r->state() == ShardRunner::State::refused ? 1 : 0;
  }
  std::string by;
  for (auto it = counts.begin(); it != counts.end(); ++it) {
    by += fmt::format("{}{} {}", by.empty() ? "" : ", ", it.value().get<std::size_t>(), it.key());
  }
  const json eta = eta_s(done, total);
  const std::string line = fmt::format(
      "caliber batch: {}/{} cells final ({:.0f}%){}; shards {} running, {} done of {}; {} elapsed, ETA {}", done,
      total, total ? 100.0 * static_cast<double>(done) / static_cast<double>(total) : 100.0,
      by.empty() ? "" : " [" + by + "]", running, finished, runners_.size(), duration_text(t - started_s_),
      eta.is_null() ? "?" : duration_text(eta.get<double>()));
  if (terminal_ && !final_line) {
    err_ << "\r\033[K" << line << std::flush;
  } else {
    if (terminal_) err_ << "\r\033[K";
    err_ << line << '\n';
  }
}

}  // namespace caliber::campaign
