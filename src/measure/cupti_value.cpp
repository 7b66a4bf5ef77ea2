#include "measure/cupti_value.h"

#include <fmt/format.h>

namespace caliber::measurement {

namespace {

// Events read shorter than CUPTI and see all of the call's work: their value replaces CUPTI's
// when tracing can explain the difference, and the measurement fails when it cannot.
CuptiValueChoice judge_events_shorter(const InstrumentPerturbation& p, double tracing_bound_us) {
  const std::string name(integrity_check::instruments_agree);
  if (p.delta_us > tracing_bound_us) {
    const std::string detail = fmt::format(
        "events read {:.3f} us below CUPTI ({} us against {} us), more than the {:.3f} us tracing can add to the "
        "call's launches: the instruments disagree, and neither value is taken",
        p.delta_us, p.event_median_us, p.cupti_median_us, tracing_bound_us);
    return {false, "no value chosen: " + detail, IntegrityCheck{name, CheckOutcome::failed, detail}};
  }
  return {true,
          "the events' value: events see all of the call's work (it ran on the measured stream, or is replayed "
          "from its captured graph) and the medians' 95% intervals do not overlap, so tracing moved the number",
          IntegrityCheck{name, CheckOutcome::passed,
                         fmt::format("events read {:.3f} us below CUPTI, within the {:.3f} us tracing can add",
                                     p.delta_us, tracing_bound_us)}};
}

}  // namespace

CuptiValueChoice choose_cupti_value(CuptiValue mode, const InstrumentPerturbation& p, bool events_see_all_work,
                                    const std::string& why_not_all_work, double tracing_bound_us) {
  switch (mode) {
    case CuptiValue::event:
      return {true, "the events' value, as asked (cupti_value event)", std::nullopt};
    case CuptiValue::cupti:
      return {false, p.measured ? "CUPTI's value, as asked (cupti_value cupti)" : "", std::nullopt};
    case CuptiValue::automatic:
      break;
  }
  if (!p.measured) return {false, "", std::nullopt};
  if (!p.significant) return {false, "CUPTI's value: the two medians agree within their 95% intervals", std::nullopt};
  if (p.delta_us < 0) {
    // Tracing only adds time. Events reading longer than CUPTI measured something CUPTI does not
    // count: the gaps between launches the device spent idle inside the events' window (a short
    // kernel under per_iter or isolated). That is not the kernel-only time, so CUPTI's stands.
    return {false, fmt::format("CUPTI's value: events read {:.3f} us longer, time the device spent idle between "
                               "launches inside their window (tracing cannot make a call faster)",
                               -p.delta_us),
            std::nullopt};
  }
  if (!events_see_all_work) {
    return {false, fmt::format("CUPTI's value: events read {:.3f} us shorter, but they bracket the measured stream "
                               "only, and {}",
                               p.delta_us, why_not_all_work),
            std::nullopt};
  }
  return judge_events_shorter(p, tracing_bound_us);
}

}  // namespace caliber::measurement
