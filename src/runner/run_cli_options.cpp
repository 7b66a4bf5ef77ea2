// caliber run's options on a CLI11 command (runner/run_cli_options.h).
#include "runner/run_cli_options.h"

#include <string>

namespace caliber::runner {

namespace {

// The raw samples the rows keep (results/kept_samples.h).
void add_sample_options(CLI::App* cmd, RunOptions& o) {
  auto* all_samples = cmd->add_flag("--samples", o.samples,
                                    "Keep every raw sample of both measurements in every row (default: at most 128 "
                                    "per measurement, an evenly spread subsample: docs/contract.md)");
  cmd->add_flag("--no-samples", o.no_samples,
                "Keep no raw samples in the rows (smaller files; caliber compare then has no rank test)")
      ->excludes(all_samples);
}

}  // namespace

void add_run_options(CLI::App* cmd, RunOptions& o) {
  cmd->add_option("--op", o.op, "rmsnorm | layernorm | softmax | gemm, or an op of your own (the matrix's op_description, docs/user-ops.md)")->required();
  cmd->add_option("--shape-ledger", o.shape_ledger, "shape_ledger.jsonl")->required();
  cmd->add_option("--baseline-matrix", o.baseline_matrix, "baseline_matrix.yaml")->required();
  cmd->add_option("--out", o.out,
                  "Output directory: benchmark_results.{jsonl,csv}, run_identity.json, run_summary.json")
      ->required();
  cmd->add_option("--backend", o.backend, "host | cuda | auto (cuda when a GPU is visible)")->capture_default_str();
  cmd->add_option("--device", o.device, "Device index")->capture_default_str();
  cmd->add_option("--stages", o.stages, "Only these ledger stages (comma list: prefill,decode,mixed,synthetic,...)");
  cmd->add_option("--limit", o.limit, "Only the first N shapes that pass the filters");
  cmd->add_option("--seed", o.seed,
                  "Seed of the random inputs (each shape derives its own); default (0): drawn at random per run and "
                  "recorded in every row");
  cmd->add_option_function<std::string>(
         "--verification-seed",
         [&o](const std::string& text) {
           std::size_t used = 0;
           try {
             o.verification_seed = std::stoull(text, &used, 16);
           } catch (const std::exception&) {
             used = 0;
           }
           if (used == 0 || used != text.size() || text.size() > 16) {
             throw CLI::ValidationError("--verification-seed", "expected up to 16 hex digits, got '" + text + "'");
           }
         },
         "Seed (hex) of the rows compared with the reference; default: drawn at random per run and recorded in "
         "every row (docs/integrity.md)");
  cmd->add_option("--ceilings", o.ceilings,
                  "Device ceilings file for the physical-bound check (default: caliber calibrate's default file)");
  cmd->add_option_function<std::string>(
         "--integrity",
         [&o](const std::string& v) {
           if (v != "on" && v != "off" && v != "fixed-inputs") {
             throw CLI::ValidationError("--integrity", "expected on, off or fixed-inputs, got '" + v + "'");
           }
           o.integrity_checks = v != "off";
           o.fresh_inputs = v == "on";
         },
         "on (default) | off | fixed-inputs: off runs only the correctness check before timing, to measure what "
         "the integrity checks cost (every row then says its number was not verified); fixed-inputs keeps every "
         "check but the fresh inputs and audits of the timed calls, to measure what those cost (every row then "
         "says its inputs were fixed: verdict partial) (docs/integrity.md)");
  cmd->add_flag("--resume", o.resume, "Continue the run in --out: finished cells are skipped");
  cmd->add_option("--providers", o.providers,
                  "Run only these providers (comma list); the matrix's others are recorded as skipped");
  cmd->add_option("--candidate-commit", o.candidate_commit,
                  "Revision of the code under test (default: caliber's own git revision)");
  add_sample_options(cmd, o);
  cmd->add_option("--warmup", o.warmup, "Untimed calls before each measurement (>= 1)")->capture_default_str();
  cmd->add_option("--min-samples", o.min_samples, "Adaptive rule: minimum samples")->capture_default_str();
  cmd->add_option("--min-time-ms", o.min_time_ms, "Adaptive rule: minimum sampling time per measurement, ms")
      ->capture_default_str();
  cmd->add_option("--max-time-ms", o.max_time_ms, "Adaptive rule: maximum sampling time per measurement, ms")
      ->capture_default_str();
  cmd->add_option("--target-precision", o.target_precision,
                  "Adaptive rule: stop when the median's 95% CI is within +/- this fraction")
      ->capture_default_str();
  cmd->add_option("--graph-calls", o.graph_calls,
                  "Calls per graph replay of the kernel-only contract: auto (from the eager median, docs/runner.md) "
                  "or a count")
      ->capture_default_str();
  cmd->add_option("--kernel-only-instrument", o.kernel_only_instrument, "Default: event (cuda), wallclock (host)");
  cmd->add_option("--kernel-only-schedule", o.kernel_only_schedule, "Default: graph (cuda), per_iter (host)");
  cmd->add_option("--kernel-only-cache", o.kernel_only_cache, "Default: warm");
  cmd->add_option("--eager-instrument", o.eager_instrument, "Default: event (cuda), wallclock (host)");
  cmd->add_option("--eager-schedule", o.eager_schedule, "Default: per_iter (cuda), isolated (host)");
  cmd->add_option("--eager-cache", o.eager_cache, "Default: warm");
  cmd->add_option("--profile-range", o.profile_range,
                  "Profiler gate (caliber profile): after the correctness check, one more call of each provider "
                  "inside an NVTX range of this name");
  cmd->add_option("--cell-timeout-s", o.cell_timeout_s,
                  "A cell with no result after this many seconds is killed and recorded as failed")
      ->capture_default_str();
  cmd->add_option("--start-timeout-s", o.start_timeout_s,
                  "A provider's start may take this many seconds: loading each plugin in the preflight, and the "
                  "measuring worker's start (a Python provider's import); past it the run fails")
      ->capture_default_str();
  cmd->add_flag("--allow-shared-device", o.allow_shared_device,
                "Measure even when another compute process is on the device (preflight warns instead of failing)");
  cmd->add_option("--shard", o.shard,
                  "K/N: only the shapes whose stable hash falls in shard K of N (caliber batch, docs/batch.md)");
  cmd->add_option("--replay-configs", o.replay_configs,
                  "A run directory whose recorded configs (cuBLASLt's algorithm, an autotuner's choice) this run "
                  "pins, cell by cell (docs/runner.md, \"Configs recorded and replayed\"); caliber ab sets it")
      ->envname("CALIBER_REPLAY_CONFIGS");
}

void add_worker_options(CLI::App* cmd, RunOptions& o) {
  add_run_options(cmd, o);
  cmd->add_option("--run-id", o.run_id)->required();
  cmd->add_option("--events-fd", o.events_fd)->required();
  cmd->add_flag("--start-checks", o.start_checks);
}

}  // namespace caliber::runner
