// The calls inside one timed sample, told apart from the device's activity records
// (docs/integrity.md, "Calls alike"). A graph replay of N captured calls runs them one after the
// other. Under cache cold caliber's own flush records separate them (calls_of_sample); otherwise
// the replay's records, in start order, are cut into N equal runs: when every call issued the same
// number of records, run j is call j's (the graph orders each call after the previous one).
//
// Pure and CUDA-free: tests feed literal records.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "caliber/contract.h"
#include "core/kernel_attribution.h"

namespace caliber {

struct SampleCalls {
  // Each call's device time (the contract's reduction), in launch order, nanoseconds; nullopt
  // when the calls could not be told apart (why_not says why).
  std::optional<std::vector<double>> call_ns;
  std::string why_not;
  // The first call whose work (its records' names, sorted) differs from the sample's first
  // call's: "call 3 ran [k, k] where call 0 ran [k]"; empty when all ran the same.
  std::string unlike_work;
};

// `calls`: the calls the sample holds (>= 1).
SampleCalls split_sample_calls(const SampleActivity& sample, std::size_t calls, CuptiReduction reduction);

}  // namespace caliber
