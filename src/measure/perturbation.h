// The perturbation of instrument cupti (docs/cupti.md, Perturbation): the same call measured
// again under events with CUPTI's tracing off, the two medians compared, and the clock that gives
// the result's value chosen (cupti_value.h).
#pragma once

#include <functional>
#include <string>

#include "caliber/backend.h"
#include "caliber/contract.h"
#include "caliber/measure.h"
#include "caliber/result.h"

namespace caliber::measurement {

// The events contract that measures a cupti contract's perturbation: instrument event, the same
// cache policy, warmup and iteration rule, in the events' tightest window: isolated (each call
// alone, its launch gated) for isolated and per_iter contracts and for graph + cold with several
// calls per graph; the same graph replays otherwise. `note` (optional) receives the sentence a
// result adds when the schedule changed ("; the events timed ...").
Contract perturbation_events_contract(const Contract& cupti_contract, std::string* note = nullptr);

// One checked measurement of the same subject under another contract.
using MeasureChecked = std::function<Result(const Contract& contract, const MeasureOptions& options)>;

// Measures what the cupti result `r` measured under perturbation_events_contract and records
// Result::instrument_perturbation. When the events' value is chosen, `r` becomes the events'
// result with CUPTI's attribution, kernel breakdown, notes, warnings and integrity kept; its
// contract says which clock gave the value. `census`: the untimed call's (do events see all of
// its work?). ContractError when cupti_value event is asked and events cannot measure the call.
void attach_perturbation(Result& r, const Contract& contract, const MeasureOptions& options,
                         const DeviceWorkCensus& census, const MeasureChecked& measure_checked);

}  // namespace caliber::measurement
