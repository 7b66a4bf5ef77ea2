#include "measure/perturbation.h"

#include <optional>
#include <utility>

#include <fmt/format.h>

#include "caliber/errors.h"
#include "measure/cupti_value.h"
#include "measure/tracing_perturbation.h"

namespace caliber::measurement {
namespace {

// The events' result, or nothing with why not in `why_not`. The cupti timer's tracing ended with
// its measurement: this one runs with tracing off.
std::optional<Result> measure_under_events(const Contract& events, const MeasureOptions& options,
                                           const MeasureChecked& measure_checked, std::string& why_not) {
  if (auto why = why_invalid(events, static_cast<bool>(options.prepare))) {
    why_not = "events cannot measure this contract: " + *why;
    return std::nullopt;
  }
  MeasureOptions eo = options;
  eo.instrument_selection.reset();
  eo.keep_activity_tracing_on = false;
  try {
    Result e = measure_checked(events, eo);
    if (!e.integrity.failed()) return e;
    why_not = "the events measurement failed an integrity check: " + e.integrity.first_failure();
  } catch (const IntegrityError& x) {
    why_not = std::string("events cannot time this call: ") + x.what();
  } catch (const ContractError& x) {
    why_not = std::string("events cannot measure this contract: ") + x.what();
  }
  return std::nullopt;
}

InstrumentPerturbation compare_medians(const Result& traced, const Result& events) {
  InstrumentPerturbation p;
  p.cupti_median_us = traced.summary.median_us;
  p.measured = true;
  p.event_median_us = events.summary.median_us;
  p.delta_us = p.cupti_median_us - p.event_median_us;
  p.delta_pct = p.event_median_us > 0 ? 100.0 * p.delta_us / p.event_median_us : 0.0;
  p.significant = traced.median_ci95_us && events.median_ci95_us &&
                  (traced.median_ci95_us->lo > events.median_ci95_us->hi ||
                   traced.median_ci95_us->hi < events.median_ci95_us->lo);
  return p;
}

// Why events around the measured stream may miss some of the call's work ("" when they see it
// all: it all ran on the measured stream). Outside a graph, work on other streams is ordered by
// what the call does uncaptured.
std::string why_not_all_work(const DeviceWorkCensus& census) {
  if (!census.observed) {
    return "the streams the call's work ran on were not observed (" + census.why_not_observed + ")";
  }
  if (census.off_stream > 0) {
    return fmt::format("{} of the call's {} operations ran on other streams", census.off_stream, census.work());
  }
  return "";
}

// The events' samples give the value; CUPTI's attribution and kernel breakdown stay.
void take_events_value(Result& r, Result events, const Contract& contract, const InstrumentPerturbation& p,
                       const std::string& schedule_note) {
  Result traced = std::move(r);
  r = std::move(events);
  r.contract = contract;
  r.instrument = traced.instrument;
  r.kernels = std::move(traced.kernels);
  r.kernel_set_changes = traced.kernel_set_changes;
  r.notes.insert(r.notes.begin(), traced.notes.begin(), traced.notes.end());
  r.notes.push_back(fmt::format("value from events with CUPTI's tracing off ({} us; CUPTI read {} us, {:+.2f}%){}: "
                                "docs/cupti.md, Perturbation",
                                p.event_median_us, p.cupti_median_us, p.delta_pct, schedule_note));
  r.warnings.insert(r.warnings.begin(), traced.warnings.begin(), traced.warnings.end());
  r.integrity.merge(traced.integrity);
  r.wall_time_ms += traced.wall_time_ms;
  r.timed_calls += traced.timed_calls;
}

}  // namespace

Contract perturbation_events_contract(const Contract& cupti_contract, std::string* note) {
  Contract events = cupti_contract;
  events.instrument = Instrument::event;
  events.cupti_value = CuptiValue::automatic;
  // The window that holds the least besides the call: each call alone, its launch gated
  // (isolated), for isolated and per_iter calls and for graphs of cold calls; graph replays of
  // warm calls, where N calls per replay amortize its launch. Under per_iter the start event waits
  // on the previous call's stop and flush, not on the gate: +1.1% on a 196 us kernel on the H200
  // against +0.7% isolated; graph + cold with several calls per graph captures the flush between
  // them, and one call per graph keeps each replay's launch in the window (+2.4%)
  // (docs/gpu/instruments.md).
  std::string why;
  if (events.schedule == Schedule::per_iter) {
    events.schedule = Schedule::isolated;
    why = "; the events timed each call alone (isolated, its launch gated)";
  } else if (events.schedule == Schedule::graph && events.cache == CachePolicy::cold && events.graph_calls > 1) {
    events.schedule = Schedule::isolated;
    why = fmt::format(
        "; the events timed each call alone (isolated: the flush before it, outside the window) where CUPTI "
        "replayed {} per graph with the flushes captured between them",
        cupti_contract.graph_calls);
  }
  if (note) *note = std::move(why);
  return events;
}

void attach_perturbation(Result& r, const Contract& contract, const MeasureOptions& options,
                         const DeviceWorkCensus& census, const MeasureChecked& measure_checked) {
  // The same call and cache policy under events, in the events' tightest window.
  std::string schedule_note;
  const Contract events = perturbation_events_contract(contract, &schedule_note);
  std::string why_not;
  std::optional<Result> e = measure_under_events(events, options, measure_checked, why_not);
  InstrumentPerturbation p;
  if (e) {
    p = compare_medians(r, *e);
  } else {
    p.cupti_median_us = r.summary.median_us;
    p.reason = why_not;
  }
  // Events see the work only when the measured stream orders all of it (the census proved that,
  // or the events measurement above would have been refused).
  if (contract.cupti_value == CuptiValue::event && !e) throw ContractError("cupti value event: " + why_not);
  // Events see all of the call's work when it all ran on the measured stream, or when they time
  // replays of the captured graph (the capture joined the forked work to the stream).
  const std::string not_all_work = why_not_all_work(census);
  const bool events_see_all_work = events.schedule == Schedule::graph || not_all_work.empty();
  // The most tracing can add to one call: the bound on how far below CUPTI the events may read.
  const double tracing_bound_us = expected_tracing_perturbation_us(r.kernels, r.timed_calls);
  const CuptiValueChoice choice =
      choose_cupti_value(contract.cupti_value, p, events_see_all_work, not_all_work, tracing_bound_us);
  if (!choice.reason.empty()) p.reason = choice.reason;
  p.applied = choice.use_events;
  if (choice.use_events) {
    take_events_value(r, std::move(*e), contract, p, schedule_note);
  } else if (e) {
    r.integrity.merge(e->integrity);
    r.wall_time_ms += e->wall_time_ms;
  }
  if (const auto& agree = choice.instruments_agree) r.integrity.record(agree->name, agree->outcome, agree->detail);
  r.contract.cupti_value = choice.use_events ? CuptiValue::event : CuptiValue::cupti;
  r.instrument_perturbation = p;
}

}  // namespace caliber::measurement
