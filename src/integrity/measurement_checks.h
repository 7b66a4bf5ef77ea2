// The checks of one measurement of a subject under one contract (docs/integrity.md). They start
// from what the untimed call established, judge its census for the contract, compare each
// captured graph with it, and end the measurement with verified samples:
//
//   poisoned:  the call runs on outputs caliber filled with NaN (an element left unwritten, or a
//              call that skipped its work, leaves NaN), and is judged like the untimed call; its
//              time is compared with the other samples' (integrity/verified_call_time.h);
//   fresh:     with a judge and a fresh input set, the call runs on the second set of input values
//              while its outputs still hold the previous call's valid result (a call that
//              remembers its result, or skips its work whenever its output already holds one,
//              leaves a result for the other inputs). The pipelined schedule has one window:
//              fresh when it exists.
//
// The measuring engine calls these between its timed windows, never inside one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "caliber/backend.h"
#include "caliber/contract.h"
#include "caliber/integrity.h"
#include "integrity/call_likeness.h"
#include "integrity/subject_checks.h"
#include "integrity/timed_call_audit.h"

namespace caliber::integrity {

class MeasurementChecks {
 public:
  // Judges the census for `contract` (IntegrityError when it cannot time the call truthfully).
  // `subject` has run its untimed check and must outlive this object. `entropy` chooses the
  // fresh inputs' nonce and the audited samples (integrity/timed_call_audit.h).
  MeasurementChecks(SubjectChecks& subject, const Contract& contract, Entropy entropy = system_entropy());

  // Fresh inputs and audits (integrity/timed_call_audit.h), when the subject can draw its inputs.
  bool audits_timed_calls() const { return audit_.has_value(); }
  void before_call() { audit_->before_call(); }
  std::optional<std::size_t> next_audit(std::size_t sample) { return audit_->next_audit(sample); }
  void audit(std::size_t sample) { audit_->audit(sample); }
  // Between the calls of the graph schedule's audit graph (captured): only when the outputs can
  // be poisoned without waiting for the device.
  bool poisons_between_calls() const { return audit_ && subject_.buffers().poisons_asynchronously(); }
  void poison_between_calls() { subject_.buffers().poison_outputs_async(); }
  // One input set per captured call of a graph (Subject::input_sets), with fresh inputs only.
  const std::function<std::size_t(std::size_t)>& input_sets() const {
    static const std::function<std::size_t(std::size_t)> none;
    return audit_ ? subject_.subject().input_sets : none;
  }

  // How many verified samples end the measurement (0: the outputs are not verified).
  std::size_t verified_samples() const { return stages_.size(); }
  // Outside every timed window, right before verified sample `stage`, and once its batch has
  // synchronized. The first also checks the inputs and the cache state the timed calls left.
  void before_verified_sample(std::size_t stage);
  void after_verified_sample(std::size_t stage);
  // A graph the engine captured for `calls` calls (IntegrityError when it misses the call's work).
  void check_graph(const GraphExec& graph, std::size_t calls);
  // Whether check_sample_times applies: a poisoned verified sample among others (not pipelined).
  bool judges_sample_times() const;
  // Judges the timed samples' durations against each other (calls_alike), then compares
  // the poisoned verified sample with the others; resample(stage) re-times a verified sample
  // exactly as before and returns its duration (microseconds).
  void check_sample_times(const std::vector<double>& samples_us,
                          const std::function<double(std::size_t stage)>& resample);
  // The calls inside the samples, where the timer told them apart (calls_alike, recorded by finish).
  void check_calls_within_samples(const CallsWithinSamples& calls);
  // Once the measurement returned: the cache state the timed calls left, or, for a callable
  // without declared buffers, one more traced call (does it still launch anything?).
  void finish();
  // The measurement threw: puts the original inputs back when the fresh ones are loaded. Never
  // throws (the measurement's own error is the one to report).
  void abandon() noexcept;

  const Integrity& record() const { return integ_; }

 private:
  void record_calls_within_samples(const CallLikeness& within);
  enum class Stage { poisoned, fresh };

  SubjectChecks& subject_;
  Schedule schedule_;
  Integrity integ_;
  std::vector<Stage> stages_;
  std::optional<TimedCallAudit> audit_;
  std::optional<CallLikeness> within_samples_;
  bool fresh_loaded_ = false;
  std::vector<std::uint64_t> fresh_sums_;  // of the fresh inputs, while they are loaded
};

}  // namespace caliber::integrity
