// How a measured cell ends (docs/integrity.md): its status and reason from the integrity record
// its measurements left and the correctness check its row kept.
#pragma once

#include <optional>
#include <string>

#include "results/benchmark_results.h"
#include "caliber/integrity.h"

namespace caliber::runner {

struct CellVerdict {
  bool correct = false;                          // the row's `correct`
  std::optional<std::string> correctness_error;  // the row's correctness_error, when it has one
  BenchmarkStatus status = BenchmarkStatus::ok;
  std::optional<std::string> reason;  // nullopt when ok
};

// - the output failed the check before timing (or it did not run): incorrect, in the judge's words;
// - a later check found wrong or incomplete outputs or changed inputs: incorrect;
// - faster than the device can move the bytes or do the flops: faster_than_physical;
// - any other failed check (a cache state left behind, no work after timing): failed;
// - else ok.
CellVerdict cell_verdict(const Integrity& integrity, const std::optional<CorrectnessCheck>& correctness);

// Whether the first failed check of the record makes the row incorrect (it ran, its output
// cannot be trusted) rather than its measurement failed.
bool integrity_failure_is_incorrect(const Integrity& integrity);

}  // namespace caliber::runner
