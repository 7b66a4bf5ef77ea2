#include "measure/cupti_value.h"

#include <fmt/format.h>

namespace caliber::measurement {

CuptiValueChoice choose_cupti_value(CuptiValue mode, const InstrumentPerturbation& p, bool events_see_all_work,
                                    const std::string& why_not_all_work) {
  switch (mode) {
    case CuptiValue::event:
      return {true, "the events' value, as asked (cupti_value event)"};
    case CuptiValue::cupti:
      return {false, p.measured ? "CUPTI's value, as asked (cupti_value cupti)" : ""};
    case CuptiValue::automatic:
      break;
  }
  if (!p.measured) return {false, ""};
  if (!p.significant) return {false, "CUPTI's value: the two medians agree within their 95% intervals"};
  if (p.delta_us < 0) {
    // Tracing only adds time. Events reading longer than CUPTI measured something CUPTI does not
    // count: the gaps between launches the device spent idle inside the events' window (a short
    // kernel under per_iter or isolated). That is not the kernel-only time, so CUPTI's stands.
    return {false, fmt::format("CUPTI's value: events read {:.3f} us longer, time the device spent idle between "
                               "launches inside their window (tracing cannot make a call faster)",
                               -p.delta_us)};
  }
  if (!events_see_all_work) {
    return {false, fmt::format("CUPTI's value: events read {:.3f} us shorter, but they bracket the measured stream "
                               "only, and {}",
                               p.delta_us, why_not_all_work)};
  }
  return {true, "the events' value: events see all of the call's work (it ran on the measured stream, or is replayed "
                "from its captured graph) and the medians' 95% intervals do not overlap, so tracing moved the number"};
}

}  // namespace caliber::measurement
