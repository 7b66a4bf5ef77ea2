// The measurement engine under caliber::measure: warmup, schedules, cache policies, the iteration
// rule, and the hooks through which the integrity layer (src/integrity) verifies a measurement
// without ever entering a timed window. Internal: callers use caliber::measure or
// integrity::CheckedSubject.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "caliber/measure.h"

namespace caliber::detail {

struct MeasurementHooks {
  // Set, the engine ends every measurement with `verified_samples` verified samples (stages
  // 0, 1, ...): fixed counts keep their count, the adaptive rule adds them after it stops; the
  // pipelined schedule has one, its only window (stage 0). before_verified_sample(stage) runs
  // outside every timed window, right before the sample's call (schedules isolated and per_iter,
  // host dispatch: before its preparation and flush), replay (graph, always graph 0) or window
  // (pipelined); after_verified_sample(stage) once its batch has synchronized. Verified samples
  // use input copy 0 (cache rotate).
  std::function<void(std::size_t stage)> before_verified_sample;
  std::function<void(std::size_t stage)> after_verified_sample;
  std::size_t verified_samples = 1;
  // Called after each graph capture with what the graph holds and how many calls it captured,
  // before its first replay; throws IntegrityError to refuse the graph.
  std::function<void(const GraphExec& graph, std::size_t calls)> on_graph_captured;
  // Sees every sample before the summary (with a verified sample, it is the last one).
  // resample_verified(stage) runs verified sample `stage` once more, exactly as before (its
  // before/after hooks included), and returns its duration; it is not added to the samples (a
  // check that suspects one sample re-times it instead of trusting a single reading).
  std::function<void(const std::vector<double>& samples_us,
                     const std::function<double(std::size_t stage)>& resample_verified)>
      on_samples;
};

// The entry checks of a measurement: the contract is for this backend, valid (ContractError),
// and possible on it (graphs).
void validate_measurement(Backend& backend, const Contract& contract, const MeasureOptions& options);

// Validates the contract and measures; see caliber::measure for what is thrown.
Result run_measurement(Backend& backend, const Callable& call, const Contract& contract,
                       const MeasureOptions& options, const MeasurementHooks& hooks);

}  // namespace caliber::detail
