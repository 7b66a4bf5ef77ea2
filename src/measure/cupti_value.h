// Which clock gives a cupti result's value (docs/cupti.md, Perturbation), from the measured
// perturbation: `event` always the events', `cupti` always CUPTI's; `auto` the events' only when
// they were measured, the medians' 95% intervals do not overlap and the events read shorter
// (tracing only adds time; events reading longer hold idle launch gaps), and only when
// `events_see_all_work`: the call's work all ran on the measured stream, or the schedule replays
// a captured graph (whose work the capture joined to it). A call that issued work on other
// streams outside a graph is ordered by what it does uncaptured, which the census's capture
// cannot prove.
#pragma once

#include <string>

#include "caliber/contract.h"
#include "caliber/result.h"

namespace caliber::measurement {

// `reason` empty: nothing to say (no events measurement under auto or cupti).
struct CuptiValueChoice {
  bool use_events = false;
  std::string reason;
};

CuptiValueChoice choose_cupti_value(CuptiValue mode, const InstrumentPerturbation& p, bool events_see_all_work,
                                    const std::string& why_not_all_work = "");

}  // namespace caliber::measurement
