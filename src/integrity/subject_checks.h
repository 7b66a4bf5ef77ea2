// The integrity checks of one subject (docs/integrity.md), outside every timed window:
//
//   untimed call:   inputs checksummed, outputs poisoned, one call under the backend's census of
//                   device work, outputs judged (reference or recorded), every output element
//                   scanned, inputs and cache state compared, restored when changed;
//   each contract:  MeasurementChecks (integrity/measurement_checks.h) judges the census for the
//                   contract, compares captured graphs with it, and runs the verified samples on
//                   poisoned outputs (and fresh inputs when the subject has them), with what this
//                   class keeps: the census, the buffers' original values, the output check.
//
// The measuring itself (src/measure) calls these checks through the engine's hooks.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "caliber/backend.h"
#include "caliber/contract.h"
#include "caliber/integrity.h"
#include "integrity/output_check.h"
#include "integrity/subject.h"
#include "integrity/subject_buffers.h"

namespace caliber::integrity {

class SubjectChecks {
 public:
  // Refuses a subject the checks cannot keep (ContractError; see SubjectBuffers).
  SubjectChecks(Backend& backend, Subject subject);
  SubjectChecks(const SubjectChecks&) = delete;
  SubjectChecks& operator=(const SubjectChecks&) = delete;

  Backend& backend() { return backend_; }
  const Subject& subject() const { return subject_; }
  // false when the subject turned the checks off (to measure what they cost).
  bool enabled() const { return subject_.checks; }

  // A verified sample must be one call: several calls per sample apply an in-place update several
  // times before the check, whose reference is one update of the original values (ContractError).
  void require_verifiable(const Contract& contract) const;

  // The untimed verified call; runs once. DeviceError and the callable's own exceptions propagate.
  void run_untimed_check();
  // What the untimed call established (empty before run_untimed_check).
  const Integrity& untimed_integrity() const { return untimed_; }
  const DeviceWorkCensus& census() const { return census_; }
  // The untimed call's output failed its judge, or a check of the untimed call failed.
  bool failed_before_timing() const { return untimed_.failed(); }
  // The record of a measurement with the checks off: the untimed call's, and that nothing after
  // it was verified.
  Integrity unchecked_record() const;

  // What one measurement's checks use.
  SubjectBuffers& buffers() { return buffers_; }
  OutputCheck& outputs() { return outputs_; }
  const std::vector<std::uint64_t>& original_input_sums() const { return input_sums_; }
  bool has_fresh_inputs() const { return buffers_.declared() && subject_.judge && subject_.load_fresh_inputs; }
  // Compares the inputs with `expected`; on a change records the check failed with `when` and
  // restores the original values.
  void check_inputs(Integrity& integ, const std::vector<std::uint64_t>& expected, const std::string& when);
  // Compares the device's cache state with the one before the untimed call; restores it if changed.
  void check_cache_state(Integrity& integ, const std::string& when);
  // The census of one call after warmup, taken once (when a graph looked short).
  const DeviceWorkCensus& steady_census();
  // The census of one more call (the look after timing at a callable without declared buffers).
  DeviceWorkCensus census_one_more_call();

 private:
  void call_once();
  // Checks off: only the correctness call a judge needs, as before there were integrity checks.
  void run_correctness_call();

  Backend& backend_;
  Subject subject_;
  SubjectBuffers buffers_;
  OutputCheck outputs_;
  bool untimed_done_ = false;
  Integrity untimed_;
  DeviceWorkCensus census_;
  std::optional<DeviceWorkCensus> steady_census_;  // taken after warmup when a graph looked short
  std::vector<std::uint64_t> input_sums_;          // of the original inputs
  std::optional<std::string> cache_before_;
  std::size_t calls_ = 0;
};

}  // namespace caliber::integrity
