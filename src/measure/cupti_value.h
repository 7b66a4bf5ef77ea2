// Which clock gives a cupti result's value (docs/cupti.md, Perturbation), from the measured
// perturbation: `event` always the events', `cupti` always CUPTI's; `auto` the events' only when
// they were measured, the medians' 95% intervals do not overlap and the events read shorter
// (tracing only adds time; events reading longer hold idle launch gaps), only when
// `events_see_all_work`: the call's work all ran on the measured stream, or the schedule replays
// a captured graph (whose work the capture joined to it). A call that issued work on other
// streams outside a graph is ordered by what it does uncaptured, which the census's capture
// cannot prove. And only when the events read shorter by no more than tracing can add
// (`tracing_bound_us`, measure/tracing_perturbation.h): beyond it the two instruments disagree,
// and instead of picking one the measurement fails its integrity (check instruments_agree).
#pragma once

#include <optional>
#include <string>

#include "caliber/contract.h"
#include "caliber/integrity.h"
#include "caliber/result.h"

namespace caliber::measurement {

// `reason` empty: nothing to say (no events measurement under auto or cupti).
// `instruments_agree`: under auto, where the events' value would replace CUPTI's, whether the
// difference is within the tracing bound (passed) or not (failed: use_events is false).
struct CuptiValueChoice {
  bool use_events = false;
  std::string reason;
  std::optional<IntegrityCheck> instruments_agree;
};

// `tracing_bound_us`: the most tracing is expected to add to one call, microseconds.
CuptiValueChoice choose_cupti_value(CuptiValue mode, const InstrumentPerturbation& p, bool events_see_all_work,
                                    const std::string& why_not_all_work, double tracing_bound_us);

}  // namespace caliber::measurement
