// The measurement engine under caliber::measure: warmup, the schedule's set-up, the batches of
// samples the stopping rule asks for, the verified samples, and the summary, on any Backend.
// Its parts are units of their own: the schedules (schedule.h), the stopping rules
// (stopping_rule.h), the cache policies (cache_policy.h), device telemetry (sample_telemetry.h)
// and the summary (result_summary.h). The integrity layer (src/integrity) verifies a measurement
// through EngineHooks, which never run inside a timed window. Internal: callers use
// caliber::measure or measurement::CheckedSubject (measure/checked_subject.h).
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <vector>

#include "caliber/measure.h"
#include "measure/sample_telemetry.h"

namespace caliber::measurement {

// The points where code outside the engine runs during a measurement, all outside every timed
// window: between two batches of samples, around a verified sample, after a graph capture, and
// once every sample is taken.
struct EngineHooks {
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
  // After each batch of the stopping rule's samples has synchronized, before the next batch or
  // verified sample: a point where nothing of the measured call is in flight.
  std::function<void()> between_batches;
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

  // Before every call that is not part of a verified sample, outside every window: warmup and
  // eager timed calls (after the options' preparation, before a cold flush), before each graph
  // replay and before each pipelined window (docs/integrity.md, "Fresh inputs").
  std::function<void()> before_call;
  // The audits of timed calls. next_audit(n): the index (among the stopping rule's samples,
  // from 0) of the next audited sample at or after sample n, or none; the engine ends a batch
  // after an audited sample, and once the batch has synchronized calls audit(n), which judges
  // what that sample's last call left. Under the graph schedule, when audit_graph is set the
  // engine also captures an audit graph (its calls separated by poison_between_calls) and
  // replays it, untimed, right before audit(n): audit then judges what that replay left. Not
  // when the graph's calls have input sets of their own (input_sets): each call's outputs are
  // poisoned before every replay, and audit judges the timed replay's sets.
  std::function<std::optional<std::size_t>(std::size_t sample)> next_audit;
  std::function<void(std::size_t sample)> audit;
  std::function<void()> poison_between_calls;
  // Once the last sample was timed: the calls inside the samples, where the timer told them apart
  // (SampleTimer::calls_within_samples).
  std::function<void(const CallsWithinSamples&)> on_calls_within_samples;
  // Under the graph schedule with N > 1 calls per graph (cache not rotate): asked for N input
  // sets before the capture and for 1 after the measurement; returns how many it holds. With
  // more than one, call j of a graph gets LaunchContext::rotation = j (its own inputs and outputs).
  std::function<std::size_t(std::size_t sets)> input_sets;
};

// The entry checks of a measurement: the contract is for this backend, valid (ContractError),
// and possible on it (graphs).
void validate_measurement(Backend& backend, const Contract& contract, const MeasureOptions& options);

// Validates the contract and measures, with the backend's device telemetry (watch_device_telemetry);
// see caliber::measure for what is thrown.
Result run_measurement(Backend& backend, const Callable& call, const Contract& contract,
                       const MeasureOptions& options, const EngineHooks& hooks);
// The same with the telemetry `telemetry` gives.
Result run_measurement(Backend& backend, const Callable& call, const Contract& contract,
                       const MeasureOptions& options, const EngineHooks& hooks, const TelemetrySource& telemetry);

}  // namespace caliber::measurement
