#include "caliber/instrument_policy.h"

#include <fmt/format.h>

#include "caliber/errors.h"

namespace caliber {

InstrumentSelection select_instrument(std::string_view requested, BackendKind backend,
                                      const InstrumentProbe& unavailable) {
  InstrumentSelection s;
  if (requested.empty()) {
    s.instrument = default_contract(backend).instrument;
    s.choice.requested = std::string(to_string(s.instrument));
    s.choice.reason = fmt::format("default of the {} backend", to_string(backend));
    if (auto why = unavailable(s.instrument)) {
      throw ContractError(fmt::format("instrument {} is not available: {}", to_string(s.instrument), *why));
    }
    return s;
  }
  s.choice.requested = std::string(requested);
  if (requested != "auto") {
    s.instrument = parse_instrument(requested);
    if (auto why = unavailable(s.instrument)) {
      throw ContractError(fmt::format("instrument {} is not available: {}{}", requested, *why,
                                      s.instrument == Instrument::cupti && backend == BackendKind::cuda
                                          ? " (use --instrument event, or auto to fall back to it "
                                            "with the reason recorded)"
                                          : ""));
    }
    s.choice.reason = "requested";
    return s;
  }
  if (backend == BackendKind::host) {
    s.instrument = Instrument::wallclock;
    s.choice.reason = "not applicable: the host backend times host work with the wallclock "
                      "instrument only";
    return s;
  }
  if (auto why = unavailable(Instrument::cupti)) {
    s.instrument = Instrument::event;
    s.choice.reason = fmt::format("auto: cupti unavailable ({}); fell back to event", *why);
    s.warning = fmt::format(
        "instrument auto fell back to event because cupti is unavailable ({}): event pairs time "
        "the launching stream only, including gaps between the call's kernels",
        *why);
    return s;
  }
  s.instrument = Instrument::cupti;
  s.choice.reason = "auto: cupti available";
  return s;
}

}  // namespace caliber
