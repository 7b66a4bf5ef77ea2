#include "campaign/campaign_plan.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <map>
#include <set>

#include <fmt/format.h>

#include "core/atomic_file.h"
#include "matrix/baseline_matrix.h"
#include "caliber/errors.h"
#include "ledger/shape_ledger.h"
#include "core/json_fields.h"
#include "core/option_list.h"
#include "io/shape_ledger_json.h"
#include "io/baseline_matrix_yaml.h"

namespace caliber::campaign {
namespace {

namespace fs = std::filesystem;

}  // namespace

std::size_t CampaignPlan::cells() const {
  std::size_t n = 0;
  for (const CampaignShard& s : shards) n += s.cells;
  return n;
}

std::vector<int> parse_devices(const std::string& text) {
  std::vector<int> out;
  for (const std::string& item : split_option_list(text, "--devices")) {
    int v = -1;
    const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
    if (ec != std::errc() || end != item.data() + item.size() || v < 0) {
      throw UsageError(fmt::format("--devices '{}': '{}' is not a device index", text, item));
    }
    out.push_back(v);
  }
  return out;
}

void write_campaign_ledger(const std::vector<std::string>& ledgers, const std::string& path) {
  if (ledgers.size() == 1) {
    const std::string bytes = read_text_file(ledgers.front());
    read_shape_ledger(ledgers.front());  // strictly, before anything is frozen
    write_file_atomically(path, [&](std::ostream& out) { out << bytes; });
    return;
  }
  std::vector<ShapeRow> rows;
  std::map<std::string, std::pair<std::string, std::string>> seen;  // shape id -> (file, row JSON)
  for (const std::string& file : ledgers) {
    for (ShapeRow& row : read_shape_ledger(file)) {
      const std::string text = to_json(row).dump();
      const auto it = seen.find(row.shape_id);
      if (it == seen.end()) {
        seen[row.shape_id] = {file, text};
        rows.push_back(std::move(row));
      } else if (it->second.second != text) {
        throw InputError(file, row.line, "shape_id",
                         fmt::format("{} is also in {} with other fields: one campaign has one row per shape id",
                                     row.shape_id, it->second.first));
      }
    }
  }
  write_shape_ledger(path, rows);
}

namespace {

void check_batch_options(const BatchOptions& o) {
  if (o.run.shard) throw UsageError("--shard: caliber batch shards the shapes itself (--devices)");
  if (o.run.profile_range) throw UsageError("--profile-range: profile one cell with caliber profile, not a campaign");
  if (o.run.rerun_cells) throw UsageError("--rerun-cells: caliber batch chooses the cells it runs again");
  if (o.retries < 0) throw UsageError(fmt::format("--retries must be >= 0 (got {})", o.retries));
  if (!(o.shard_timeout_s > 0)) throw UsageError("--shard-timeout-s must be > 0");
  if (!(o.kill_after_s >= 0)) throw UsageError("--kill-after-s must be >= 0");
}

// One run plan per op of --op, each with the one --baseline-matrix that is for that op.
std::vector<CampaignJob> campaign_jobs(const BatchOptions& o, const std::string& campaign_ledger) {
  const std::vector<std::string> ops = split_option_list(o.run.op, "--op");
  std::map<std::string, std::string> matrix_of;  // op -> matrix file
  for (const std::string& file : split_option_list(o.run.baseline_matrix, "--baseline-matrix")) {
    const BaselineMatrix m = read_baseline_matrix(file);
    if (std::find(ops.begin(), ops.end(), m.op_type) == ops.end()) {
      throw UsageError(fmt::format("--baseline-matrix {} is for op {}, which is not in --op {}", file, m.op_type,
                                   o.run.op));
    }
    if (!matrix_of.emplace(m.op_type, file).second) {
      throw UsageError(fmt::format("--baseline-matrix: {} and {} are both for op {}: a campaign has one matrix per op "
                                   "(compare two matrices with caliber ab --a-matrix/--b-matrix)",
                                   matrix_of[m.op_type], file, m.op_type));
    }
  }
  std::vector<CampaignJob> jobs;
  std::set<std::string> seen_ops;
  for (const std::string& op : ops) {
    if (!seen_ops.insert(op).second) throw UsageError(fmt::format("--op {}: {} is listed twice", o.run.op, op));
    const auto it = matrix_of.find(op);
    if (it == matrix_of.end()) throw UsageError(fmt::format("--op {}: no --baseline-matrix is for op {}", o.run.op, op));
    runner::RunOptions r = o.run;
    r.op = op;
    r.baseline_matrix = it->second;
    r.shape_ledger = campaign_ledger;
    jobs.push_back({op, it->second, runner::make_run_plan(r)});
  }
  return jobs;
}

// Each job's shapes spread over the device slots (by shape id); a slot without shapes has no shard.
std::vector<CampaignShard> campaign_shards(const std::vector<CampaignJob>& jobs, const std::vector<int>& devices) {
  std::vector<CampaignShard> shards;
  const std::size_t slots = devices.size();
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    const CampaignJob& job = jobs[j];
    std::size_t runnable_providers = 0;
    for (const MatrixProvider& p : job.plan.matrix.providers) {
      runnable_providers += p.enabled && job.plan.selected_provider(p.name) ? 1 : 0;
    }
    for (std::size_t k = 0; k < slots; ++k) {
      CampaignShard s;
      s.job = j;
      s.spec = {k, slots};
      s.device = devices[k];
      for (std::size_t i = 0; i < job.plan.shapes.size(); ++i) {
        if (shard_of(job.plan.shapes[i].shape_id, slots) == k) s.shapes.push_back(i);
      }
      if (s.shapes.empty()) continue;  // more slots than shapes: nothing to run there
      s.name = fmt::format("{}/s{}", job.op, k);
      s.dir = fmt::format("shards/{}/s{}", job.op, k);
      s.cells = s.shapes.size() * job.plan.matrix.providers.size();
      s.runnable_cells = s.shapes.size() * runnable_providers;
      shards.push_back(std::move(s));
    }
  }
  return shards;
}

// The canary: the first shape of the first op (or of --canary's op) with its provider (--canary's,
// else the op's reference provider when runnable, else its first runnable one).
CanaryCell pick_canary(const BatchOptions& o, const std::vector<CampaignJob>& jobs) {
  std::string canary_op = jobs.front().op, canary_provider;
  if (o.canary) {
    const auto slash = o.canary->find('/');
    if (slash == std::string::npos) throw UsageError(fmt::format("--canary '{}': expected OP/PROVIDER", *o.canary));
    canary_op = o.canary->substr(0, slash);
    canary_provider = o.canary->substr(slash + 1);
  }
  const auto job_it =
      std::find_if(jobs.begin(), jobs.end(), [&](const CampaignJob& j) { return j.op == canary_op; });
  if (job_it == jobs.end()) throw UsageError(fmt::format("--canary {}: {} is not in --op", *o.canary, canary_op));
  const runner::RunPlan& cp = job_it->plan;
  const auto runnable = [&](const MatrixProvider* p) { return p && p->enabled && cp.selected_provider(p->name); };
  if (canary_provider.empty()) {
    if (runnable(cp.matrix.find(cp.matrix.reference_provider))) {
      canary_provider = cp.matrix.reference_provider;
    } else {
      for (const MatrixProvider& p : cp.matrix.providers) {
        if (runnable(&p)) {
          canary_provider = p.name;
          break;
        }
      }
    }
    if (canary_provider.empty()) {
      throw UsageError(fmt::format("op {}: no provider is enabled and selected, so no canary cell can pass", canary_op));
    }
  } else if (!runnable(cp.matrix.find(canary_provider))) {
    throw UsageError(fmt::format("--canary {}: {} is not an enabled, selected provider of {}", *o.canary,
                                 canary_provider, job_it->baseline_matrix));
  }
  return {static_cast<std::size_t>(job_it - jobs.begin()), cp.shapes.front().shape_id, canary_provider};
}

}  // namespace

CampaignPlan make_campaign_plan(const BatchOptions& o, const std::string& campaign_ledger) {
  check_batch_options(o);
  CampaignPlan plan;
  plan.out = o.run.out;
  plan.shape_ledger = campaign_ledger;
  plan.devices = parse_devices(o.devices);
  plan.jobs = campaign_jobs(o, campaign_ledger);
  plan.shards = campaign_shards(plan.jobs, plan.devices);
  plan.canary = pick_canary(o, plan.jobs);
  return plan;
}

std::vector<std::string> caliber_run_arguments(const runner::RunOptions& o) {
  std::vector<std::string> a = o.worker_arguments();
  for (std::size_t i = 0; i < a.size();) {
    if (a[i] == "--events-fd") {
      a.erase(a.begin() + static_cast<std::ptrdiff_t>(i), a.begin() + static_cast<std::ptrdiff_t>(i) + 2);
    } else if (a[i] == "--start-checks" || (a[i] == "--run-id" && i + 1 < a.size() && a[i + 1].empty())) {
      a.erase(a.begin() + static_cast<std::ptrdiff_t>(i), a.begin() + static_cast<std::ptrdiff_t>(i) + (a[i] == "--run-id" ? 2 : 1));
    } else {
      ++i;
    }
  }
  if (o.resume) a.push_back("--resume");
  if (o.rerun_cells) a.insert(a.end(), {"--rerun-cells", *o.rerun_cells});
  a.insert(a.end(), {"--cell-timeout-s", fmt::format("{}", o.cell_timeout_s)});
  a.insert(a.end(), {"--start-timeout-s", fmt::format("{}", o.start_timeout_s)});
  // The campaign's input seed (its manifest's); the verification seed only when the user pinned it
  // (a drawn one is drawn by the shard's run, on no command line). A worker's command line carries
  // neither.
  a.insert(a.end(), {"--seed", std::to_string(o.seed)});
  if (o.verification_seed != 0) a.insert(a.end(), {"--verification-seed", fmt::format("{:016x}", o.verification_seed)});
  return a;
}

runner::RunOptions shard_run_options(const BatchOptions& o, const CampaignPlan& plan, const CampaignShard& shard,
                                     const std::string& run_id) {
  runner::RunOptions r = o.run;
  const CampaignJob& job = plan.jobs[shard.job];
  r.op = job.op;
  r.baseline_matrix = fs::absolute(job.baseline_matrix).string();
  r.shape_ledger = fs::absolute(plan.shape_ledger).string();
  r.out = (fs::absolute(plan.out) / shard.dir).string();
  r.device = shard.device;
  r.shard = to_string(shard.spec);
  r.run_id = run_id;
  r.resume = false;
  r.rerun_cells.reset();
  r.events_fd = -1;
  r.start_checks = false;
  return r;
}

runner::RunOptions canary_run_options(const BatchOptions& o, const CampaignPlan& plan, const std::string& out_dir,
                                      const std::string& run_id) {
  runner::RunOptions r = o.run;
  const CampaignJob& job = plan.jobs[plan.canary.job];
  r.op = job.op;
  r.baseline_matrix = fs::absolute(job.baseline_matrix).string();
  r.shape_ledger = fs::absolute(plan.shape_ledger).string();
  r.out = fs::absolute(out_dir).string();
  r.device = plan.devices.front();
  r.shard.reset();
  r.limit = 1;
  r.providers = plan.canary.provider;
  r.run_id = run_id;
  r.resume = false;
  r.rerun_cells.reset();
  r.events_fd = -1;
  r.start_checks = false;
  return r;
}

TimeBudget estimate_time_budget(const CampaignPlan& plan, double max_time_ms, double cell_timeout_s,
                                double shard_timeout_s, int retries) {
  TimeBudget b;
  std::map<int, double> expected, worst;
  for (const CampaignShard& s : plan.shards) {
    const double cells = static_cast<double>(s.runnable_cells);
    expected[s.device] += kShardStartS + cells * (2.0 * max_time_ms / 1000.0 + kHarnessCostPerCellS);
    // Every attempt of the shard at its limit; an attempt cannot outlast its cells' own limits.
    const double attempt_s = std::min(shard_timeout_s, kShardStartS + cells * cell_timeout_s);
    worst[s.device] += static_cast<double>(1 + retries) * attempt_s;
  }
  for (const auto& [device, s] : expected) {
    b.expected_per_device_s.emplace_back(device, s);
    b.expected_s = std::max(b.expected_s, s);
  }
  for (const auto& [device, s] : worst) b.worst_case_s = std::max(b.worst_case_s, s);
  // The canary: one cell before everything.
  b.expected_s += kShardStartS + 2.0 * max_time_ms / 1000.0 + kHarnessCostPerCellS;
  b.worst_case_s += std::min(shard_timeout_s, kShardStartS + cell_timeout_s);
  return b;
}

}  // namespace caliber::campaign
