// Options of `caliber run` (docs/runner.md), shared by the parent and its measuring worker.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace caliber::runner {

struct RunOptions {
  std::string op;
  std::string shape_ledger;
  std::string baseline_matrix;
  std::string out;
  std::string backend = "auto";
  int device = 0;
  std::optional<std::string> stages;     // comma list of ledger stages
  std::optional<std::int64_t> limit;     // first N shapes after filtering
  // The input values' seed (each shape derives its own); 0: the parent draws one per run.
  std::uint64_t seed = 0;
  // Draws the output rows compared with the reference (docs/integrity.md); the parent draws it at
  // random for each run unless given, and every row records the seed of its shape.
  std::uint64_t verification_seed = 0;
  // The device ceilings file for the physical-bound check (default: the calibrate default file).
  std::optional<std::string> ceilings;
  // false: only the correctness check before timing, no integrity checks (docs/integrity.md, to
  // measure what they cost); every row then says its number was not verified.
  bool integrity_checks = true;
  // false (--integrity fixed-inputs): the timed calls keep the inputs of the untimed call (no
  // fresh inputs, no audits), to measure what those cost; every row's verdict is then partial.
  bool fresh_inputs = true;
  bool resume = false;
  std::optional<std::string> providers;  // comma list: run only these; the others are skipped
  std::optional<std::string> candidate_commit;
  // Raw samples in the rows: at most kKeptSamples per measurement by default
  // (results/kept_samples.h), all of them with `samples` (--samples), none with `no_samples`.
  bool samples = false;
  bool no_samples = false;
  bool keeps_samples() const { return !no_samples; }

  // The two contracts (docs/runner.md gives the defaults per backend).
  std::int64_t warmup = 3;
  std::int64_t min_samples = 10;
  double min_time_ms = 2.0;
  double max_time_ms = 25.0;
  double target_precision = 0.01;
  std::string graph_calls = "auto";  // or a count
  std::optional<std::string> kernel_only_instrument, kernel_only_schedule, kernel_only_cache;
  std::optional<std::string> eager_instrument, eager_schedule, eager_cache;

  double cell_timeout_s = 300.0;  // a cell running longer is killed and recorded as failed
  // How long a provider may take to start: the preflight's load of each plugin (its constructors
  // and entry, in a child process), and a worker's start up to its ready line (opening the
  // device, importing a Python provider's file). A start past it is a failure, not a wait.
  double start_timeout_s = 300.0;
  bool allow_shared_device = false;  // device_exclusive preflight: warn instead of failing
  // caliber profile: after the correctness check, one more call of each provider inside an NVTX
  // range of this name, so ncu profiles exactly that call. Code fingerprints are off then (ncu
  // owns CUPTI).
  std::optional<std::string> profile_range;
  // "K/N": only the shapes whose stable hash falls in shard K of N (docs/batch.md); the parent and
  // the worker filter alike.
  std::optional<std::string> shard;
  // Parent only: with --resume, these failed cells run again (resume_cells.h, docs/batch.md).
  std::optional<std::string> rerun_cells;
  // Parent only: providers denied graph capture from the start (runner/capture_failure.h): caliber
  // batch passes what earlier shards of the campaign learned.
  std::optional<std::string> capture_denied;
  // Parent only: the Unix socket of a device server (runner/device_server.h) that measures this
  // run on the device it holds open, instead of a worker of this run's own; caliber batch passes
  // it. When no server answers there, the run starts its own worker and says so.
  std::optional<std::string> device_server;
  // A run directory whose recorded provider configs this run pins (runner/config_replay.h);
  // default from CALIBER_REPLAY_CONFIGS.
  std::optional<std::string> replay_configs;

  // Set by the parent for its worker.
  std::string run_id;
  int events_fd = -1;
  // The first worker of a session runs the device preflight (device_visible, device_exclusive,
  // the libraries the contracts need) and collects the run identity before it opens the device.
  bool start_checks = false;

  // The command line that reproduces these options for a worker (without the subcommand).
  // --integrity as given: on, fixed-inputs or off.
  std::string integrity_mode() const;
  std::vector<std::string> worker_arguments() const;
};

// The options' values that need no file or device: counts >= 1 and within the sampling limits
// (core/sampling_limits.h), times within one hour, min <= max, the precision in (0, 1), a cell
// timeout of at most a week, a device index >= 0, --limit >= 1. UsageError naming the option;
// checked before anything is created.
void check_run_options(const RunOptions& options);

}  // namespace caliber::runner
