// The one driver every measuring path goes through (caliber::measure, caliber run's cells,
// caliber bench, caliber calibrate): a subject (integrity/subject.h) measured with the checks
// that make its numbers trustworthy (docs/integrity.md). It runs the untimed verified call once,
// then for each contract builds the engine's hooks from the integrity checks of that
// measurement, runs the engine, and records what the checks found in Result::integrity. Under
// instrument cupti it also measures the instrument's perturbation (perturbation.h).
//
// Every check runs outside the timed windows.
#pragma once

#include "caliber/backend.h"
#include "caliber/integrity.h"
#include "caliber/measure.h"
#include "integrity/subject.h"
#include "integrity/subject_checks.h"

namespace caliber::measurement {

class CheckedSubject {
 public:
  // Refuses a subject the checks cannot keep (ContractError).
  CheckedSubject(Backend& backend, integrity::Subject subject);
  CheckedSubject(const CheckedSubject&) = delete;
  CheckedSubject& operator=(const CheckedSubject&) = delete;

  // The untimed verified call; runs once (measure() runs it first when it has not run).
  // DeviceError and the callable's own exceptions propagate.
  void run_untimed_check() { checks_.run_untimed_check(); }
  // What the untimed call established (empty before run_untimed_check).
  const Integrity& untimed_integrity() const { return checks_.untimed_integrity(); }
  const DeviceWorkCensus& census() const { return checks_.census(); }
  // The untimed call's output failed its judge, or a check of the untimed call failed.
  bool failed_before_timing() const { return checks_.failed_before_timing(); }

  // One measurement under `contract`, checked; Result::integrity holds the untimed call's checks
  // and this measurement's. Throws IntegrityError when the contract cannot time this call
  // truthfully, and whatever caliber::measure throws.
  // Under instrument cupti the same call is also measured with events (tracing off) and the
  // result carries the instrument's perturbation; its contract says which clock gave the value.
  Result measure(const Contract& contract, const MeasureOptions& options);

 private:
  Result measure_checked(const Contract& contract, const MeasureOptions& options);

  Backend& backend_;
  integrity::SubjectChecks checks_;
};

// caliber::measure's subject: the callable and the buffers MeasureOptions declares.
integrity::Subject subject_from_options(const Callable& call, const MeasureOptions& options);

}  // namespace caliber::measurement
