// Which instrument measures: the one named, or for "auto" the most trustworthy one available.
// Never a silent switch: the choice, its reason and any fallback are recorded in the Result.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "caliber/contract.h"
#include "caliber/result.h"

namespace caliber {

struct InstrumentSelection {
  Instrument instrument = Instrument::wallclock;
  InstrumentChoice choice;  // requested, reason (kernel_tracing is filled by the measurement)
  std::string warning;      // non-empty when auto fell back to a less trustworthy instrument
};

// Why instrument `i` cannot be used on a backend here, or nullopt when it can.
using InstrumentProbe = std::function<std::optional<std::string>(Instrument)>;

// requested: "auto", an instrument name, or "" for the backend's default (event on cuda,
// wallclock on host).
//  - auto on cuda: cupti when available, else event with the reason and a warning;
//  - auto on host: wallclock ("not applicable": the host backend has no other instrument);
//  - a named instrument that is unavailable: ContractError with the reason.
// Unknown names throw UsageError.
InstrumentSelection select_instrument(std::string_view requested, BackendKind backend,
                                      const InstrumentProbe& unavailable);

}  // namespace caliber
