// caliber bench's measurement driver: which (kernel x cache x schedule) combinations of a base
// contract are measured, and measuring them, one built-in workload per kernel (and rotation),
// each behind the integrity checks. The command line (src/cli/cmd_bench.cpp) turns its options
// into a BenchPlanRequest and BenchRunOptions, and prints and writes what comes back.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "caliber/backend.h"
#include "caliber/contract.h"
#include "caliber/instrument_policy.h"
#include "caliber/result.h"
#include "integrity/device_ceilings.h"

namespace caliber::bench {

// One measurement: a built-in kernel under a contract.
struct BenchCombination {
  std::string kernel;
  Contract contract;
  bool cupti_tracing = false;  // keep CUPTI tracing on while measuring with another instrument
};

// Every kernel under every (cache, schedule) of `base`, each once per tracing mode.
struct BenchPlanRequest {
  Contract base;
  std::vector<std::string> kernels;
  std::vector<CachePolicy> caches;
  std::vector<Schedule> schedules;
  std::vector<bool> tracing;
  // The schedules or the caches were "all": a combination the contract rules refuse is skipped,
  // with its reason, instead of refusing the whole request.
  bool skip_refused = false;
};

struct BenchPlan {
  // Kernel, then cache, then schedule, then tracing mode; empty when every one was skipped.
  std::vector<BenchCombination> combinations;
  // "skipped schedule=S cache=C: <why_invalid>", each line once, in the order met.
  std::vector<std::string> skipped;
};

// Throws ContractError for a refused combination, unless skip_refused.
BenchPlan plan_bench(const BenchPlanRequest& request);

struct BenchRunOptions {
  std::uint64_t size_bytes = 0;  // bytes of one input (copy, scale)
  std::uint64_t seed = 1;        // of the random inputs
  // Gate self-test: launches per call beyond the first (a deliberately slower run, recorded as a
  // warning on every result).
  std::int64_t extra_launches = 0;
  InstrumentSelection instrument_selection;
  bool keep_samples = false;
  bool telemetry = true;
  double telemetry_period_ms = 10.0;  // milliseconds
  bool keep_telemetry_samples = false;
  // The device's calibrated ceilings (caliber calibrate), when there are: they refine the
  // theoretical ones every result's physical bound uses (docs/integrity.md).
  std::optional<DeviceCeilings> calibrated_ceilings;
};

// Called after each measurement with the combination and every result so far (the last is its).
using BenchProgress = std::function<void(const BenchCombination&, const std::vector<Result>& results)>;

// Measures the combinations in order on `backend`. A workload is built (and its output checked
// once, untimed) whenever the kernel or the rotation changes; throws DeviceError when that check
// fails. Results that failed an integrity check are returned as they are (Result::integrity).
// Every result's physical bound is checked (physically_possible) on the bytes its kernel moves.
std::vector<Result> run_bench_plan(Backend& backend, const std::vector<BenchCombination>& combinations,
                                   const BenchRunOptions& options, const BenchProgress& progress);

}  // namespace caliber::bench
