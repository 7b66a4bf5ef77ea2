// What a campaign runs (docs/batch.md): ops x ledgers x matrices x devices, as jobs (one op over
// the campaign's ledger with that op's matrix) cut into shards (one per device slot, shapes by
// their stable hash, ledger/shard.h), and cells (shape x provider). Built identically by
// `caliber batch`, its --resume and every Slurm task, from the same options, without a device.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "ledger/shard.h"
#include "runner/run_options.h"
#include "runner/run_plan.h"

namespace caliber::campaign {

// The options of `caliber batch`. `run` holds every caliber run option; its op, shape_ledger
// and baseline_matrix are comma lists here, its out is the campaign directory.
struct BatchOptions {
  runner::RunOptions run;
  std::string devices = "0";        // --devices: one shard slot per entry; "0,0" = two shards on device 0
  int retries = 2;                  // --retries
  double shard_timeout_s = 3600;    // --shard-timeout-s: one attempt of one shard's caliber run
  double kill_after_s = 30;         // --kill-after-s: SIGTERM, then SIGKILL of the group this much later
  std::optional<std::string> canary;  // --canary OP/PROVIDER
  bool dry_run = false;
  // --process-per-shard: each shard's run opens the device in a worker of its own, as caliber run
  // alone does, instead of the device's server (docs/batch.md, "One process per device").
  bool process_per_shard = false;
  bool strict = false;
  bool slurm = false;
  std::vector<std::string> slurm_args;  // --slurm-arg (repeatable): passed to sbatch
  double slurm_wait_s = 0;              // 0: the plan's worst-case bound
};

struct CampaignJob {
  std::string op;
  std::string baseline_matrix;  // as given
  runner::RunPlan plan;         // every shape of the op (not sharded)
};

struct CampaignShard {
  std::size_t job = 0;
  ShardSpec spec;
  int device = 0;
  std::vector<std::size_t> shapes;  // indices into jobs[job].plan.shapes, ledger order
  std::string name;                 // "rmsnorm/s0"
  std::string dir;                  // relative to the campaign: "shards/rmsnorm/s0"
  std::size_t cells = 0;            // shapes x providers
  std::size_t runnable_cells = 0;   // of providers enabled and selected (the ones that take time)
};

struct CanaryCell {
  std::size_t job = 0;
  std::string shape_id;
  std::string provider;
};

struct CampaignPlan {
  std::string out;                 // the campaign directory
  std::string shape_ledger;        // the campaign's ledger (inputs/shape_ledger.jsonl, or a temporary one)
  std::vector<int> devices;
  std::vector<CampaignJob> jobs;
  std::vector<CampaignShard> shards;  // job-major, then slot
  CanaryCell canary;
  std::size_t cells() const;
};

// "0,1" -> {0, 1}. Throws UsageError.
std::vector<int> parse_devices(const std::string& text);

// The campaign's ledger: one ledger is used byte for byte (its SHA-256 is the run identity's);
// several become their union in ledger order, a shape id kept once. Throws InputError when two
// ledgers disagree on a shape id's row.
void write_campaign_ledger(const std::vector<std::string>& ledgers, const std::string& path);

// Reads the matrices, pairs each op with its matrix (by op_type), builds each job's plan over
// `campaign_ledger` with the run options, shards it, picks the canary. UsageError/InputError.
CampaignPlan make_campaign_plan(const BatchOptions& options, const std::string& campaign_ledger);

// The caliber run options of one shard (no --resume, no --rerun-cells: the attempt adds them).
runner::RunOptions shard_run_options(const BatchOptions& options, const CampaignPlan& plan,
                                     const CampaignShard& shard, const std::string& run_id);
// The canary's: its op, --limit 1, --providers <canary>, on the first device.
runner::RunOptions canary_run_options(const BatchOptions& options, const CampaignPlan& plan,
                                      const std::string& out_dir, const std::string& run_id);
// `caliber run` arguments (after the subcommand) for these options: the worker's argument list
// without the worker's own flags, so a new option of caliber run reaches the shards unchanged.
std::vector<std::string> caliber_run_arguments(const runner::RunOptions& o);

// Estimated time budget (docs/batch.md, "Dry run"): expected = per runnable cell both
// measurements' sampling limit (2 x max-time-ms) plus a per-cell harness cost, plus a process
// start per shard; worst case = every attempt of every shard at its limit. Device slots run in
// parallel (shards of one device one after the other), so the campaign's time is its busiest
// device's.
struct TimeBudget {
  double expected_s = 0;
  double worst_case_s = 0;
  std::vector<std::pair<int, double>> expected_per_device_s;  // device -> seconds
};
inline constexpr double kHarnessCostPerCellS = 0.05;   // inputs, reference, checks, row (host figures)
inline constexpr double kShardStartS = 0.5;            // process start, preflight, identity
TimeBudget estimate_time_budget(const CampaignPlan& plan, double max_time_ms, double cell_timeout_s,
                                double shard_timeout_s, int retries);

}  // namespace caliber::campaign
