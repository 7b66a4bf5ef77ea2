#include "campaign/batch.h"

#include <unistd.h>

#include <filesystem>
#include <optional>
#include <ostream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/created_directories.h"
#include "core/atomic_file.h"
#include "core/entropy_seed.h"
#include "matrix/baseline_matrix.h"
#include "caliber/errors.h"
#include "campaign/campaign_manifest.h"
#include "campaign/campaign_run.h"
#include "campaign/canary.h"
#include "campaign/receipts.h"
#include "campaign/slurm.h"
#include "core/json_fields.h"
#include "core/option_list.h"
#include "core/subprocess.h"
#include "core/utc_time.h"
#include "identity/collect_run_identity.h"
#include "io/baseline_matrix_yaml.h"
#include "runner/out_lock.h"

namespace caliber::campaign {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

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

namespace {

// --out holds a campaign exactly when --resume (or --dry-run) says it does. Returns whether it does.
bool check_out_dir(const BatchOptions& o, const fs::path& dir) {
  if (o.run.out.empty()) throw UsageError("--out is required");
  const bool has_manifest = fs::exists(dir / kManifestFileName);
  if (has_manifest && !o.run.resume && !o.dry_run) {
    throw UsageError(fmt::format("{} already holds a campaign: pass --resume to continue it, or choose another --out",
                                 dir.string()));
  }
  if (o.run.resume && !has_manifest) {
    throw UsageError(fmt::format("--resume: {} holds no campaign ({} is missing)", dir.string(), kManifestFileName));
  }
  return has_manifest;
}

// A campaign is resumed only by the caliber binary it was frozen for.
void check_frozen_harness(const Manifest& stored, const HarnessFingerprint& harness, const fs::path& dir,
                          std::ostream& err) {
  const std::string sha = stored.frozen.at("harness").at("executable_sha256").get<std::string>();
  if (sha != harness.executable_sha256) {
    err << fmt::format("!!! [caliber] harness.executable_sha256: A={} (the campaign), B={} (this caliber)\n", sha,
                       harness.executable_sha256);
    throw CaliberMismatchError(fmt::format("{} was frozen for another caliber binary; resume it with that binary",
                                           dir.string()));
  }
}

// The campaign's backend and run id, and its input seed in o: the resumed campaign's, or new ones
// (the backend resolved, the input seed drawn unless pinned). The verification seed is drawn by
// each shard's run unless pinned: no file or command line of the campaign holds it.
std::pair<std::string, std::string> settle_backend_and_run_id(BatchOptions& o, const std::optional<Manifest>& resumed) {
  std::string backend, run_id;
  if (resumed) {
    backend = resumed->frozen.at("backend").get<std::string>();
    if (o.run.backend != "auto" && o.run.backend != backend) {
      throw UsageError(fmt::format("--backend {}: the campaign runs on {}", o.run.backend, backend));
    }
    run_id = resumed->frozen.at("run_id").get<std::string>();
    // A pinned verification seed must be given again (the manifest keeps only its hash, and the
    // rebuilt manifest is compared with it); a drawn one is drawn anew by each shard's run.
    if (o.run.seed == 0) o.run.seed = resumed->frozen.at("seeds").at("inputs").get<std::uint64_t>();
  } else {
    backend = resolve_backend(o.run.backend);
    run_id = make_run_id(utc_timestamp_now());
    o.run.seed = pinned_or_drawn(o.run.seed);
  }
  o.run.backend = backend;
  return {backend, run_id};
}

// --shape-ledger's comma-separated files, in order.
std::vector<std::string> shape_ledger_files(const std::string& list) {
  std::vector<std::string> files;
  std::size_t start = 0;
  while (true) {
    const auto comma = list.find(',', start);
    files.push_back(list.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return files;
}

// A file removed when the campaign's setup ends (the dry run's ledger).
struct RemoveTemporary {
  std::string path;
  ~RemoveTemporary() {
    std::error_code ec;
    if (!path.empty()) fs::remove(path, ec);
  }
};

// The campaign's ledger: inside the campaign for a real run (written unless resumed), a temporary
// file for a dry run (`temporary` removes it).
std::string campaign_ledger(const BatchOptions& o, const fs::path& dir, RemoveTemporary& temporary) {
  std::string ledger;
  if (o.run.resume) {
    ledger = (dir / kCampaignLedgerPath).string();
  } else if (o.dry_run) {
    temporary.path = (fs::temp_directory_path() / fmt::format("caliber-batch-dry-run-{}.jsonl", ::getpid())).string();
    ledger = temporary.path;
  } else {
    fs::create_directories(dir / "inputs");
    ledger = (dir / kCampaignLedgerPath).string();
  }
  // Reading the matrices first registers the descriptions of ops of your own (docs/user-ops.md),
  // which the ledger's rows of those ops need.
  for (const std::string& file : split_option_list(o.run.baseline_matrix, "--baseline-matrix")) {
    read_baseline_matrix(file);
  }
  if (!o.run.resume) write_campaign_ledger(shape_ledger_files(o.run.shape_ledger), ledger);
  return ledger;
}

// The manifest of this campaign: the stored one when resumed (it must be what these options and
// inputs freeze, and not sealed), else a new one.
Manifest campaign_manifest(const BatchOptions& o, const CampaignPlan& plan, const fs::path& dir,
                           const std::pair<std::string, std::string>& backend_and_run_id,
                           const HarnessFingerprint& harness, const std::optional<Manifest>& resumed) {
  Manifest m;
  m.frozen = make_frozen_manifest(o, plan, backend_and_run_id.first, backend_and_run_id.second, harness);
  m.sha256 = manifest_sha256(m.frozen);
  m.created_at = utc_timestamp_now();
  m.command = current_command_line();
  m.dir = dir.string();
  if (!resumed) return m;
  if (const std::string d = first_difference(resumed->frozen, m.frozen); !d.empty()) {
    throw UsageError(fmt::format("--resume: {} was frozen with other options or inputs: {} differs "
                                 "({}); resume with the campaign's command",
                                 (dir / kManifestFileName).string(), d, "see its `command`"));
  }
  if (fs::exists(dir / kSealFileName)) {
    throw UsageError(fmt::format("{} is sealed ({}): its results are final; re-account it (caliber campaign "
                                 "reaccount) or start another campaign",
                                 dir.string(), kSealFileName));
  }
  return *resumed;
}

// A resume verifies before it merges: rows edited after their receipts were written are not
// merged, receipted and sealed again (exit 4, the first problems named).
void refuse_rows_unlike_their_receipts(const Manifest& m) {
  const std::vector<std::string> problems = resume_problems(m);
  if (problems.empty()) return;
  throw CaliberMismatchError(fmt::format(
      "--resume: {} row(s) or receipt(s) of {} changed after they were written: {}{}; its results cannot be "
      "continued (caliber campaign verify lists them; start another campaign)",
      problems.size(), m.dir, problems.front(), problems.size() > 1 ? fmt::format(" (and {} more)", problems.size() - 1) : ""));
}

// --slurm: the canary and the shards as Slurm jobs, then what their tasks left, merged here.
int run_campaign_on_slurm(Campaign& campaign, const BatchOptions& o, const Manifest& m, int session,
                          double worst_case_s, std::ostream& err) {
  run_slurm(campaign, o, worst_case_s, err);
  const std::string canary_log = (fs::path(m.dir) / kCanaryDirName / "canary_ok").string();
  if (!fs::exists(canary_log)) {
    err << "caliber batch: the canary did not pass (see slurm/canary.log); the shards did not run\n";
    return 1;
  }
  Campaign merged(m, err, session);  // re-reads every shard as the tasks left it
  return merged.finish(o.strict);
}

}  // namespace

int run_batch(const BatchOptions& input, std::ostream& out, std::ostream& err) {
  BatchOptions o = input;
  const fs::path dir = o.run.out;
  const bool has_manifest = check_out_dir(o, dir);
  // One writer per campaign directory, as caliber run has per --out: a second batch, or a resume
  // while the campaign runs, is refused before it reads or writes anything there.
  std::optional<runner::OutDirectoryLock> lock;
  if (!o.dry_run) {
    require_writable_directory(dir.string(), "--out");
    create_output_directories(dir.string(), "--out");
    lock.emplace(dir.string(), fmt::format("pid {} since {}: {}", ::getpid(), utc_timestamp_now(),
                                           fmt::join(current_command_line(), " ")));
  }
  std::optional<Manifest> resumed;  // the stored manifest of a resumed campaign
  if (has_manifest) resumed = read_manifest(dir.string());
  if (!o.run.resume) resumed.reset();
  const HarnessFingerprint harness = this_harness();
  if (resumed) check_frozen_harness(*resumed, harness, dir, err);
  const auto backend_and_run_id = settle_backend_and_run_id(o, resumed);
  RemoveTemporary temporary;
  const std::string ledger = campaign_ledger(o, dir, temporary);
  const CampaignPlan plan = make_campaign_plan(o, ledger);
  const Manifest m = campaign_manifest(o, plan, dir, backend_and_run_id, harness, resumed);
  const RetryPolicy policy = manifest_policy(m);
  const TimeBudget budget = estimate_time_budget(plan, o.run.max_time_ms, policy.cell_timeout_s, policy.shard_timeout_s,
                                                 policy.retries);
  if (o.dry_run) {
    print_plan(out, plan, m, budget);
    out << "dry run: nothing was run or written\n";
    return 0;
  }
  if (!o.run.resume) write_manifest(dir.string(), m);  // frozen before anything runs
  if (o.run.resume) refuse_rows_unlike_their_receipts(m);
  const int session = previous_session(dir.string()) + 1;
  print_plan(err, plan, m, budget);
  Campaign campaign(m, err, session, !o.process_per_shard && !o.slurm);
  if (o.slurm) return run_campaign_on_slurm(campaign, o, m, session, budget.worst_case_s, err);
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
