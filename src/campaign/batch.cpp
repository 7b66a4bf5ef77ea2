#include "campaign/batch.h"

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <iostream>
#include <map>
#include <random>
#include <set>

#include <fmt/format.h>

#include "core/atomic_file.h"
#include "matrix/baseline_matrix.h"
#include "caliber/errors.h"
#include "caliber/run_identity.h"
#include "campaign/campaign_manifest.h"
#include "campaign/device_servers.h"
#include "campaign/merge_results.h"
#include "campaign/receipts.h"
#include "campaign/shard_runner.h"
#include "campaign/slurm.h"
#include "core/json_fields.h"
#include "core/option_list.h"
#include "core/subprocess.h"
#include "core/utc_time.h"
#include "identity/collect_run_identity.h"
#include "results/time_breakdown.h"
#include "io/baseline_matrix_yaml.h"

namespace caliber::campaign {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// How often running shards are looked at (a poll reads only the rows appended since the last):
// a shard's attempt that ended is seen within this, and the device's next attempt starts at once.
constexpr double kPollS = 0.01;
constexpr double kPlainProgressS = 10;  // a progress line this often when stderr is not a terminal

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string duration_text(double s) {
  if (!(s >= 0)) return "?";
  const long t = static_cast<long>(s + 0.5);
  return t >= 60 ? fmt::format("{}m{:02}s", t / 60, t % 60) : fmt::format("{}s", t);
}

// The backend a campaign runs on: "auto" is resolved by `caliber devices --json` in a child, so
// this process never initializes CUDA (docs/runner.md, "Crashes").
std::string resolve_backend(const std::string& backend) {
  if (backend != "auto") return std::string(to_string(parse_backend(backend)));
  SubprocessOptions o;
  o.argv = {self_executable(), "devices", "--json"};
  o.capture_stdout = true;
  o.timeout_s = 120;
  const SubprocessResult r = run_subprocess(o);
  if (r.exit_code != 0) throw Error(fmt::format("--backend auto: caliber devices --json exited {}", r.exit_code));
  return parse_json_document(r.captured_stdout, "(caliber devices --json)").at("default_backend").get<std::string>();
}

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

// The canary: one cell that must pass before any shard starts (docs/campaigns.md).
// `device_server`: the canary device's server (its run is measured there, and the server's start,
// opening the device, is paid before the shards); "" for a worker of the canary's own.
bool run_canary(const Manifest& m, const std::string& executable, std::ostream& err,
                const std::string& device_server = "") {
  const json& c = m.frozen.at("canary");
  const fs::path dir = fs::absolute(m.dir) / c.at("dir").get<std::string>();
  fs::remove_all(dir);  // the canary's own run; never part of the campaign's results
  fs::create_directories(dir);
  SubprocessOptions o;
  o.argv = {executable, "run"};
  for (const json& a : c.at("run_arguments")) o.argv.push_back(a.get<std::string>());
  if (!device_server.empty()) o.argv.insert(o.argv.end(), {"--device-server", device_server});
  o.stdout_path = (dir / "run.log").string();
  const RetryPolicy policy = manifest_policy(m);
  o.timeout_s = std::min(policy.shard_timeout_s, policy.cell_timeout_s + 120);
  o.kill_after_s = policy.kill_after_s;
  o.die_with_parent = true;
  ChildProcess child(o);
  const SubprocessResult r = child.wait();
  const std::string provider = c.at("provider").get<std::string>();
  const std::string shape = c.at("shape_id").get<std::string>();
  std::string why;
  if (r.exit_code != 0) {
    why = fmt::format("its caliber run {} (see {})",
                      r.timed_out ? "timed out" : fmt::format("exited {}", r.exit_code), o.stdout_path);
  } else {
    std::string why_missing;
    const auto identity = find_run_identity(dir.string(), &why_missing);
    const std::string sha = m.frozen.at("harness").at("executable_sha256").get<std::string>();
    if (!identity || identity->harness.executable_sha256 != sha) {
      why = "it was not measured by the manifest's caliber binary";
    } else {
      why = "no row for it";
      for (const ResultLine& l : read_result_lines((dir / kBenchmarkResultsFileName).string())) {
        if (l.row.shape_id != shape || l.row.provider != provider) continue;
        why = l.row.benchmark_status == BenchmarkStatus::ok && !l.row.integrity.failed()
                  ? ""
                  : fmt::format("{}: {}", to_string(l.row.benchmark_status), l.row.status_reason.value_or(""));
      }
    }
  }
  if (!why.empty()) {
    err << fmt::format("caliber batch: canary {} / {} / {} failed: {}; nothing else runs\n", c.at("op").get<std::string>(),
                       shape, provider, why);
    return false;
  }
  err << fmt::format("caliber batch: canary {} / {} / {} ok\n", c.at("op").get<std::string>(), shape, provider);
  return true;
}

class Campaign {
 public:
  Campaign(Manifest manifest, std::ostream& err, int session, bool device_servers = false)
      : m_(std::move(manifest)), err_(err), session_(session), executable_(self_executable()),
        use_servers_(device_servers) {
    shards_ = manifest_shards(m_);
    const RetryPolicy policy = manifest_policy(m_);
    for (const ShardWork& w : shards_) runners_.push_back(std::make_unique<ShardRunner>(w, policy, executable_, session_));
    terminal_ = ::isatty(STDERR_FILENO) == 1;
  }

  // Runs every shard to its end: shards of one device one after the other, devices side by side.
  void run_all() {
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
      bool changed = false, busy = false, moved_on = false;
      std::vector<const ShardRunner*> ended;  // attempts that ended in this pass
      for (auto& [device, list] : queue) {
        std::size_t& k = next[device];
        while (k < list.size()) {
          ShardRunner& r = *runners_[list[k]];
          if (r.state() == ShardRunner::State::done || r.state() == ShardRunner::State::refused) {
            ++k;
            continue;
          }
          const int attempt = r.attempt();
          const ShardRunner::State before = r.state();
          if (before == ShardRunner::State::pending) r.set_device_server(device_server(device));
          if (r.step()) changed = true;
          busy = true;
          if (r.attempt() != attempt || r.state() != before) {
            moved_on = true;
            if (before == ShardRunner::State::running) {
              // An attempt that ended badly may have left its server inside a cell.
              if (r.exit_code() != 0) servers_.stop(device);
              // The device's next attempt starts first; this one's merge follows while it starts.
              ended.push_back(&r);
              continue;
            }
          }
          break;
        }
      }
      for (const ShardRunner* r : ended) after_attempt(*r);
      if (changed) write_status("running");
      progress(false);
      if (!busy) break;
      if (!moved_on) usleep(static_cast<useconds_t>(kPollS * 1e6));
    }
    servers_.release_all();  // nothing more runs on the devices
  }

  // Merges the shards, refreshes the receipts, seals a complete campaign. Returns the exit code.
  int finish(bool strict) {
    // The last attempt's merge and receipts stand (each attempt refreshed its shard's); without an
    // attempt in this session, everything is merged and every receipt refreshed here.
    const double merge_from = now_s();
    if (!merged_) {
      merged_ = merge_shard_results(m_, shards_, err_);
      write_receipts(m_, shards_, *merged_, attempts());
    }
    const MergedResults& merged = *merged_;
    merging_s_ += now_s() - merge_from;
    std::size_t done = 0, total = 0;
    const json counts = status_counts(runners_, &done, &total);
    int code = 0;
    std::size_t missing = 0;
    bool bad = false;
    for (const auto& r : runners_) {
      if (r->state() == ShardRunner::State::refused && code == 0) code = r->exit_code();
      if (!r->note().empty()) err_ << fmt::format("caliber batch: shard {}: {}\n", r->work().name, r->note());
      for (const auto& [key, c] : r->cells()) {
        if (!c.status) ++missing;
        bad = bad || (c.status && (*c.status == BenchmarkStatus::failed || *c.status == BenchmarkStatus::incorrect ||
                                   *c.status == BenchmarkStatus::faster_than_physical));
      }
    }
    const bool complete = missing == 0 && code == 0;
    if (complete) write_seal(m_, merged);
    std::vector<const BenchmarkResultRow*> rows;
    for (const ResultLine& l : merged.lines) rows.push_back(&l.row);
    const TimeBreakdown time = time_breakdown(rows);
    // The ratios to the wall time hold only when this session produced every row.
    const double wall_s = ran_here_ && previous_rows_ == 0 ? now_s() - started_s_ : 0.0;
    time_ = to_json(time, wall_s);
    // Where the campaign's wall time went outside the cells: the shards' processes (their
    // cells included), the merging of results and the receipts after each attempt; the rest is
    // the batch waiting between polls and starting processes.
    double attempts_s = 0;
    for (const auto& r : runners_) attempts_s += r->attempts_elapsed_s();
    if (ran_here_) {
      time_["campaign"] = {{"canary_s", canary_s_},
                           {"shard_attempts_s", attempts_s},
                           {"merging_s", merging_s_},
                           {"device_servers_started", servers_.started()}};
    }
    write_status(complete ? "sealed" : "incomplete");
    progress(true);
    err_ << "caliber batch: time: " << describe(time, wall_s) << '\n';
    if (ran_here_) {
      err_ << fmt::format("caliber batch: time outside the cells: canary {:.2f} s, shard processes {:.2f} s (their "
                          "cells {:.2f} s), merging and receipts {:.2f} s; {}\n",
                          canary_s_, attempts_s, time.cells_wall_ms / 1e3, merging_s_,
                          use_servers_ ? fmt::format("{} device server start(s)", servers_.started())
                                       : std::string("a worker process per shard (--process-per-shard)"));
    }
    std::string text;
    for (auto it = counts.begin(); it != counts.end(); ++it) {
      text += fmt::format("{}{} {}", text.empty() ? "" : ", ", it.value().get<std::size_t>(), it.key());
    }
    err_ << fmt::format("caliber batch: {} cells ({}){} in {}; {}\n", total, text,
                        missing ? fmt::format(", {} without a row", missing) : "", m_.dir,
                        complete ? "sealed (campaign_seal.json)" : "not sealed: --resume continues it");
    if (code != 0) return code;
    if (!complete) return 1;
    return strict && bad ? 1 : 0;
  }

  const std::vector<ShardWork>& shards() const { return shards_; }
  // The socket of `device`'s server, started when none runs; "" without device servers.
  std::string device_server(int device) { return use_servers_ ? servers_.ensure(device) : ""; }
  void set_canary_s(double s) { canary_s_ = s; }
  const Manifest& manifest() const { return m_; }

 private:
  std::map<std::string, int> attempts() const {
    std::map<std::string, int> a;
    for (const auto& r : runners_) {
      for (const auto& [key, c] : r->cells()) a[key.first + "/" + key.second] = c.attempts;
    }
    return a;
  }

  void after_attempt(const ShardRunner& r) {
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

  void write_status(const std::string& state) {
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

  json eta_s(std::size_t done, std::size_t total) const {
    const double elapsed = now_s() - started_s_;
    const std::size_t this_session = done > done_at_start_ ? done - done_at_start_ : 0;
    if (this_session == 0) return nullptr;
    return elapsed / static_cast<double>(this_session) * static_cast<double>(total - done);
  }

  void progress_note(const std::string& line) {
    if (terminal_) err_ << "\r\033[K";
    err_ << line << '\n';
    last_line_s_ = 0;
    progress(false);
  }

  void progress(bool final_line) {
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

  Manifest m_;
  std::ostream& err_;
  int session_;
  std::string executable_;
  bool use_servers_;
  std::vector<ShardWork> shards_;
  std::vector<std::unique_ptr<ShardRunner>> runners_;
  // One measuring process per device for all of its shards (docs/batch.md).
  DeviceServers servers_{executable_, m_.frozen.at("backend").get<std::string>(), m_.dir};
  bool terminal_ = false;
  double started_s_ = now_s();
  double last_line_s_ = 0;
  std::size_t done_at_start_ = 0;
  bool ran_here_ = false;          // run_all ran the shards in this process (not Slurm)
  std::size_t previous_rows_ = 0;  // rows the results held before this session ran
  json time_;                      // where the time went, once the campaign ended (results/time_breakdown.h)
  double merging_s_ = 0;           // merging the shards' results and writing receipts
  std::optional<MergedResults> merged_;  // after the last attempt that ended
  bool merged_once_ = false;              // every receipt was refreshed in this session
  double canary_s_ = 0;            // the canary's run, before the shards
};

int previous_session(const std::string& dir) {
  const fs::path p = fs::path(dir) / kBatchStatusFileName;
  std::error_code ec;
  if (!fs::exists(p, ec)) return 0;
  return parse_json_document(read_text_file(p.string()), p.string()).value("session", 0);
}

void print_plan(std::ostream& out, const CampaignPlan& plan, const Manifest& m, const TimeBudget& budget) {
  out << fmt::format("campaign {} (manifest sha256 {})\n", m.frozen.at("run_id").get<std::string>(), m.sha256);
  out << fmt::format("  backend {}, devices {}, {} op(s), {} shard(s), {} cells\n",
                     m.frozen.at("backend").get<std::string>(), m.frozen.at("devices").dump(), plan.jobs.size(),
                     plan.shards.size(), plan.cells());
  for (const CampaignShard& s : plan.shards) {
    out << fmt::format("  shard {:<16} device {}  {} shape(s) x {} provider(s) = {} cells ({} runnable)\n", s.name,
                       s.device, s.shapes.size(), plan.jobs[s.job].plan.matrix.providers.size(), s.cells,
                       s.runnable_cells);
  }
  const json& c = m.frozen.at("canary");
  out << fmt::format("  canary: {} / {} / {} on device {}\n", c.at("op").get<std::string>(),
                     c.at("shape_id").get<std::string>(), c.at("provider").get<std::string>(), c.at("device").get<int>());
  out << fmt::format("  time budget: expected {} (busiest device), worst case {} (every attempt at its limit)\n",
                     duration_text(budget.expected_s), duration_text(budget.worst_case_s));
  for (const auto& [device, s] : budget.expected_per_device_s) {
    out << fmt::format("    device {}: {}\n", device, duration_text(s));
  }
}

int run_slurm(Campaign& campaign, const BatchOptions& o, double worst_case_s, std::ostream& err) {
  const Manifest& m = campaign.manifest();
  const fs::path dir = fs::absolute(m.dir);
  const fs::path slurm = dir / "slurm";
  fs::create_directories(slurm);
  const std::string exe = self_executable();
  const std::string name = "caliber-" + m.frozen.at("run_id").get<std::string>().substr(0, 16);
  SbatchJob canary{name + "-canary", (slurm / "canary.log").string(), "", o.slurm_args,
                   {exe, "__batch-task", "--campaign", dir.string(), "--canary"}};
  SbatchJob array{name, (slurm / "task-%a.log").string(), fmt::format("0-{}", campaign.shards().size() - 1),
                  o.slurm_args, {exe, "__batch-task", "--campaign", dir.string(), "--task", "{task}"}};
  const std::string canary_script = (slurm / "canary.sbatch").string();
  const std::string array_script = (slurm / "shards.sbatch").string();
  write_file_atomically(canary_script, [&](std::ostream& out) { out << sbatch_script(canary); });
  write_file_atomically(array_script, [&](std::ostream& out) { out << sbatch_script(array); });
  const std::string canary_id = submit_sbatch(canary_script);
  const std::string array_id = submit_sbatch(array_script, canary_id);
  write_file_atomically((slurm / "jobs.json").string(), [&](std::ostream& out) {
    out << json{{"canary", canary_id}, {"shards", array_id}, {"submitted_at", utc_timestamp_now()}}.dump(2) << '\n';
  });
  err << fmt::format("caliber batch: submitted canary job {} and shard array {} ({} task(s)); waiting\n", canary_id,
                     array_id, campaign.shards().size());
  const double wait_s = o.slurm_wait_s > 0 ? o.slurm_wait_s : worst_case_s + 600;
  if (!wait_for_slurm_jobs({canary_id, array_id}, wait_s)) {
    err << fmt::format("caliber batch: the Slurm jobs did not end within {:.0f} s; cancelled\n", wait_s);
  }
  return -1;  // the caller merges what the tasks left
}

}  // namespace

int run_batch(const BatchOptions& input, std::ostream& out, std::ostream& err) {
  BatchOptions o = input;
  if (o.run.out.empty()) throw UsageError("--out is required");
  const fs::path dir = o.run.out;
  const bool has_manifest = fs::exists(dir / kManifestFileName);
  if (has_manifest && !o.run.resume && !o.dry_run) {
    throw UsageError(fmt::format("{} already holds a campaign: pass --resume to continue it, or choose another --out",
                                 dir.string()));
  }
  if (o.run.resume && !has_manifest) {
    throw UsageError(fmt::format("--resume: {} holds no campaign ({} is missing)", dir.string(), kManifestFileName));
  }
  std::optional<Manifest> stored;
  if (has_manifest) {
    stored = read_manifest(dir.string());
  }
  const HarnessFingerprint harness = this_harness();
  if (stored && o.run.resume) {
    const std::string sha = stored->frozen.at("harness").at("executable_sha256").get<std::string>();
    if (sha != harness.executable_sha256) {
      err << fmt::format("!!! [caliber] harness.executable_sha256: A={} (the campaign), B={} (this caliber)\n", sha,
                         harness.executable_sha256);
      throw CaliberMismatchError(fmt::format("{} was frozen for another caliber binary; resume it with that binary",
                                             dir.string()));
    }
  }
  std::string backend, run_id;
  if (stored && o.run.resume) {
    backend = stored->frozen.at("backend").get<std::string>();
    if (o.run.backend != "auto" && o.run.backend != backend) {
      throw UsageError(fmt::format("--backend {}: the campaign runs on {}", o.run.backend, backend));
    }
    run_id = stored->frozen.at("run_id").get<std::string>();
    if (o.run.verification_seed == 0) {
      o.run.verification_seed = std::stoull(stored->frozen.at("seeds").at("verification").get<std::string>(), nullptr, 16);
    }
  } else {
    backend = resolve_backend(o.run.backend);
    run_id = make_run_id(utc_timestamp_now());
    while (o.run.verification_seed == 0) {
      std::random_device entropy;
      o.run.verification_seed = (static_cast<std::uint64_t>(entropy()) << 32) ^ entropy();
    }
  }
  o.run.backend = backend;

  // The campaign's ledger: inside the campaign for a real run, a temporary file for a dry run.
  std::string ledger;
  std::string temporary;
  if (o.run.resume) {
    ledger = (dir / kCampaignLedgerPath).string();
  } else if (o.dry_run) {
    temporary = (fs::temp_directory_path() / fmt::format("caliber-batch-dry-run-{}.jsonl", ::getpid())).string();
    ledger = temporary;
  } else {
    fs::create_directories(dir / "inputs");
    ledger = (dir / kCampaignLedgerPath).string();
  }
  struct RemoveTemporary {
    std::string path;
    ~RemoveTemporary() {
      std::error_code ec;
      if (!path.empty()) fs::remove(path, ec);
    }
  } remove_temporary{temporary};
  // Reading the matrices first registers the descriptions of ops of your own (docs/user-ops.md),
  // which the ledger's rows of those ops need.
  for (const std::string& file : split_option_list(o.run.baseline_matrix, "--baseline-matrix")) {
    read_baseline_matrix(file);
  }
  if (!o.run.resume) write_campaign_ledger(
      [&] {
        std::vector<std::string> files;
        std::size_t start = 0;
        while (true) {
          const auto comma = o.run.shape_ledger.find(',', start);
          files.push_back(o.run.shape_ledger.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
          if (comma == std::string::npos) break;
          start = comma + 1;
        }
        return files;
      }(),
      ledger);
  const CampaignPlan plan = make_campaign_plan(o, ledger);
  Manifest m;
  m.frozen = make_frozen_manifest(o, plan, backend, run_id, harness);
  m.sha256 = manifest_sha256(m.frozen);
  m.created_at = utc_timestamp_now();
  m.command = current_command_line();
  m.dir = dir.string();
  if (stored && o.run.resume) {
    if (const std::string d = first_difference(stored->frozen, m.frozen); !d.empty()) {
      throw UsageError(fmt::format("--resume: {} was frozen with other options or inputs: {} differs "
                                   "({}); resume with the campaign's command",
                                   (dir / kManifestFileName).string(), d, "see its `command`"));
    }
    m = *stored;
    if (fs::exists(dir / kSealFileName)) {
      throw UsageError(fmt::format("{} is sealed ({}): its results are final; re-account it (caliber campaign "
                                   "reaccount) or start another campaign",
                                   dir.string(), kSealFileName));
    }
  }
  const RetryPolicy policy = manifest_policy(m);
  const TimeBudget budget = estimate_time_budget(plan, o.run.max_time_ms, policy.cell_timeout_s, policy.shard_timeout_s,
                                                 policy.retries);
  if (o.dry_run) {
    print_plan(out, plan, m, budget);
    out << "dry run: nothing was run or written\n";
    return 0;
  }
  if (!o.run.resume) write_manifest(dir.string(), m);  // frozen before anything runs
  const int session = previous_session(dir.string()) + 1;
  print_plan(err, plan, m, budget);
  Campaign campaign(m, err, session, !o.process_per_shard && !o.slurm);
  if (o.slurm) {
    run_slurm(campaign, o, budget.worst_case_s, err);
    const std::string canary_log = (dir / kCanaryDirName / "canary_ok").string();
    if (!fs::exists(canary_log)) {
      err << "caliber batch: the canary did not pass (see slurm/canary.log); the shards did not run\n";
      return 1;
    }
    Campaign merged(m, err, session);  // re-reads every shard as the tasks left it
    return merged.finish(o.strict);
  }
  const double canary_from = now_s();
  if (!run_canary(m, self_executable(), err, campaign.device_server(m.frozen.at("canary").at("device").get<int>()))) {
    return 1;
  }
  campaign.set_canary_s(now_s() - canary_from);
  campaign.run_all();
  return campaign.finish(o.strict);
}

int run_batch_task(const std::string& campaign_dir, int task, std::ostream& err) {
  const Manifest m = read_manifest(campaign_dir);
  const HarnessFingerprint harness = this_harness();
  const std::string sha = m.frozen.at("harness").at("executable_sha256").get<std::string>();
  if (sha != harness.executable_sha256) {
    err << fmt::format("!!! [caliber] harness.executable_sha256: A={} (the campaign manifest), B={} (this node's "
                       "caliber)\n",
                       sha, harness.executable_sha256);
    throw CaliberMismatchError("this task's caliber is not the binary the campaign manifest names");
  }
  if (task < 0) {
    const bool ok = run_canary(m, harness.executable, err);
    if (ok) {
      write_file_atomically((fs::path(campaign_dir) / kCanaryDirName / "canary_ok").string(),
                            [&](std::ostream& out) { out << m.sha256 << '\n'; });
    }
    return ok ? 0 : 1;
  }
  const std::vector<ShardWork> shards = manifest_shards(m);
  if (static_cast<std::size_t>(task) >= shards.size()) {
    throw UsageError(fmt::format("--task {}: the campaign has {} shard(s)", task, shards.size()));
  }
  const int session = previous_session(campaign_dir) + 1;
  ShardRunner runner(shards[static_cast<std::size_t>(task)], manifest_policy(m), harness.executable, session);
  while (runner.state() != ShardRunner::State::done && runner.state() != ShardRunner::State::refused) {
    const int attempt = runner.attempt();
    const ShardRunner::State before = runner.state();
    runner.step();
    if (runner.attempt() == attempt && runner.state() == before) usleep(static_cast<useconds_t>(kPollS * 1e6));
  }
  err << fmt::format("caliber batch task {}: shard {} {}: {}/{} cells with a row{}\n", task, runner.work().name,
                     to_string(runner.state()), runner.rows(), runner.cells().size(),
                     runner.note().empty() ? "" : " (" + runner.note() + ")");
  if (runner.state() == ShardRunner::State::refused) return runner.exit_code();
  return runner.rows() == runner.cells().size() ? 0 : 1;
}

}  // namespace caliber::campaign
