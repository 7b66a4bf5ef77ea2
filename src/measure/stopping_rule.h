// When sampling stops (docs/iteration-rule.md), as units the engine asks around each batch:
// a fixed count, or the adaptive rule. Time is given to them, never read by them, so they are
// tested with literal elapsed times.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "caliber/contract.h"
#include "core/sampling_limits.h"

namespace caliber::measurement {

inline constexpr std::size_t kMaxBatch = 10000;  // samples between two synchronizations
// Hard cap on stored samples: the bound the options are refused beyond.
inline constexpr auto kMaxSamples = static_cast<std::size_t>(kMaxSampleCount);

class StoppingRule {
 public:
  virtual ~StoppingRule() = default;
  // The size of the next batch (>= 1), given the samples taken so far and the host time sampling
  // has spent (microseconds); 0 only when the rule asks for no sample at all.
  virtual std::size_t next_batch(std::size_t taken, double elapsed_us) = 0;
  // After a batch: whether sampling stops, given every sample so far (microseconds) and the host
  // time spent.
  virtual bool done(const std::vector<double>& samples_us, double elapsed_us) = 0;
  // Once done: Result::stop_reason, and what the result must warn about.
  virtual std::string stop_reason() const = 0;
  virtual std::vector<std::string> warnings() const { return {}; }
};

// Exactly `samples` samples, in batches of at most kMaxBatch.
std::unique_ptr<StoppingRule> fixed_count_rule(std::size_t samples);
// The adaptive rule of docs/iteration-rule.md with the contract's parameters.
std::unique_ptr<StoppingRule> adaptive_rule(const IterationRule& rule);

}  // namespace caliber::measurement
