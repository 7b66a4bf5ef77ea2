#include "runner/run_options.h"

#include <fmt/format.h>

#include "caliber/errors.h"
#include "core/iteration_bounds.h"
#include "core/sampling_limits.h"

namespace caliber::runner {

void check_run_options(const RunOptions& o) {
  require_count_option(o.warmup, "--warmup", kMaxWarmupCalls);
  require_count_option(o.min_samples, "--min-samples", kMaxSampleCount);
  require_time_option(o.min_time_ms, "--min-time-ms", /*positive=*/false);
  require_time_option(o.max_time_ms, "--max-time-ms", /*positive=*/true);
  IterationRule rule;
  rule.min_time_ms = o.min_time_ms;
  rule.max_time_ms = o.max_time_ms;
  rule.target_rel_halfwidth = o.target_precision;
  if (auto why = why_invalid_adaptive_bounds(rule, kAdaptiveBoundOptions)) throw UsageError(*why);
  require_cell_timeout_option(o.cell_timeout_s, "--cell-timeout-s");
  require_cell_timeout_option(o.start_timeout_s, "--start-timeout-s");
  if (o.device < 0) throw UsageError(fmt::format("--device must be >= 0 (got {})", o.device));
  if (o.limit && *o.limit < 1) throw UsageError(fmt::format("--limit must be >= 1 (got {})", *o.limit));
}

std::string RunOptions::integrity_mode() const {
  return !integrity_checks ? "off" : fresh_inputs ? "on" : "fixed-inputs";
}

std::vector<std::string> RunOptions::worker_arguments() const {
  std::vector<std::string> a = {"--op", op, "--shape-ledger", shape_ledger, "--baseline-matrix", baseline_matrix,
                                "--out", out, "--backend", backend, "--device", std::to_string(device)};
  // Not the seeds: a command line is readable by the measured code (/proc/self/cmdline); they come
  // with each command, on the channel the worker reads (seeds_command).

  auto add = [&](const char* name, const std::optional<std::string>& v) {
    if (v) {
      a.push_back(name);
      a.push_back(*v);
    }
  };
  add("--stages", stages);
  add("--ceilings", ceilings);
  if (limit) {
    a.push_back("--limit");
    a.push_back(std::to_string(*limit));
  }
  add("--providers", providers);
  add("--candidate-commit", candidate_commit);
  if (samples) a.push_back("--samples");
  if (no_samples) a.push_back("--no-samples");
  if (integrity_mode() != "on") a.insert(a.end(), {"--integrity", integrity_mode()});
  if (allow_shared_device) a.push_back("--allow-shared-device");
  add("--profile-range", profile_range);
  add("--shard", shard);
  add("--replay-configs", replay_configs);
  a.insert(a.end(), {"--warmup", std::to_string(warmup), "--min-samples", std::to_string(min_samples),
                     "--min-time-ms", fmt::format("{}", min_time_ms), "--max-time-ms",
                     fmt::format("{}", max_time_ms), "--target-precision", fmt::format("{}", target_precision),
                     "--graph-calls", graph_calls});
  add("--kernel-only-instrument", kernel_only_instrument);
  add("--kernel-only-schedule", kernel_only_schedule);
  add("--kernel-only-cache", kernel_only_cache);
  add("--eager-instrument", eager_instrument);
  add("--eager-schedule", eager_schedule);
  add("--eager-cache", eager_cache);
  a.insert(a.end(), {"--run-id", run_id, "--events-fd", std::to_string(events_fd)});
  if (start_checks) a.push_back("--start-checks");
  return a;
}

}  // namespace caliber::runner
