// What a measurement's samples say, written into its Result: the summary and the contract's
// statistic, stability, the median's 95% interval and whether the stopping rule's precision claim
// still holds, the warnings that go with them, and the notes that say how the schedule shaped the
// number.
#pragma once

#include <vector>

#include "caliber/contract.h"
#include "caliber/result.h"

namespace caliber::measurement {

// DeviceError when a duration is not finite or negative.
void require_valid_durations(const std::vector<double>& samples_us);

// Result::summary, value_us, stable, median_ci95_us, stop_reason (a precision claim the samples
// reported no longer support is withdrawn), their flags and warnings. too_many_flagged: telemetry
// flagged too many samples as throttled for the result to be stable.
void summarize_samples(Result& r, const std::vector<double>& samples_us, const Contract& contract,
                       bool too_many_flagged);

// The notes of host dispatch, wallclock on cuda, pipelined and graph.
void add_schedule_notes(Result& r, const Contract& contract);

}  // namespace caliber::measurement
