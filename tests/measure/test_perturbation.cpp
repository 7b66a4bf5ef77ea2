// The events contract that measures a cupti contract's perturbation (docs/cupti.md, Perturbation).
#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "caliber/errors.h"
#include "measure/perturbation.h"

namespace caliber::measurement {
namespace {

TEST(PerturbationEvents, EachCallAloneExceptWarmGraphReplays) {
  Contract c;
  c.instrument = Instrument::cupti;
  c.cupti_value = CuptiValue::automatic;
  c.warmup = 7;
  const auto events_for = [&](Schedule schedule, CachePolicy cache, std::int64_t graph_calls, std::string* note) {
    Contract k = c;
    k.schedule = schedule;
    k.cache = cache;
    k.graph_calls = graph_calls;
    return perturbation_events_contract(k, note);
  };
  std::string note = "x";
  // per_iter: each call alone, gated (+1.1% vs ncu per_iter, +0.7% isolated on the H200).
  Contract e = events_for(Schedule::per_iter, CachePolicy::cold, 16, &note);
  EXPECT_EQ(e.instrument, Instrument::event);
  EXPECT_EQ(e.schedule, Schedule::isolated);
  EXPECT_EQ(e.cache, CachePolicy::cold);
  EXPECT_EQ(e.warmup, 7);
  EXPECT_EQ(e.cupti_value, CuptiValue::automatic);
  EXPECT_EQ(note, "; the events timed each call alone (isolated, its launch gated)");
  // graph + cold with several calls per graph: the flushes are captured between them.
  e = events_for(Schedule::graph, CachePolicy::cold, 10, &note);
  EXPECT_EQ(e.schedule, Schedule::isolated);
  EXPECT_EQ(note, "; the events timed each call alone (isolated: the flush before it, outside the window) where "
                  "CUPTI replayed 10 per graph with the flushes captured between them");
  // graph + warm, and graph + cold with one call per graph: the same replays.
  for (const auto& [cache, calls] : {std::pair{CachePolicy::warm, std::int64_t{10}}, std::pair{CachePolicy::cold, std::int64_t{1}}}) {
    e = events_for(Schedule::graph, cache, calls, &note);
    EXPECT_EQ(e.schedule, Schedule::graph);
    EXPECT_EQ(e.graph_calls, calls);
    EXPECT_EQ(note, "");
  }
  // isolated stays isolated.
  e = events_for(Schedule::isolated, CachePolicy::warm, 16, &note);
  EXPECT_EQ(e.schedule, Schedule::isolated);
  EXPECT_EQ(note, "");
}


// A cupti result and an events result as a measurement would leave them.
Result result(double median_us, double lo_us, double hi_us, const std::string& note) {
  Result r;
  r.summary.median_us = median_us;
  r.median_ci95_us = Interval{lo_us, hi_us};
  r.notes = {note};
  r.warnings = {note + " warning"};
  r.wall_time_ms = 1;
  r.timed_calls = 10;
  return r;
}

Contract cupti_contract(CuptiValue value) {
  Contract c = default_contract(BackendKind::cuda);
  c.instrument = Instrument::cupti;
  c.schedule = Schedule::per_iter;
  c.cupti_value = value;
  return c;
}

DeviceWorkCensus on_the_stream() {
  DeviceWorkCensus c;
  c.observed = true;
  c.kernels = 1;
  return c;
}

TEST(Perturbation, TheEventsValueTakesTheEventsSamplesAndKeepsCuptisNotes) {
  Result r = result(212.96, 212.5, 213.5, "cupti");
  // scale_blocks: one 262,144-block kernel per call (tracing adds at most 32.79 us), and a memset.
  r.kernels = {KernelStat{"scale_blocks", 10, 0, 0, 262144}, KernelStat{"[memset]", 10, 0, 0, 0}};
  Contract asked;
  MeasureOptions seen;
  MeasureOptions o;
  o.keep_activity_tracing_on = true;
  attach_perturbation(r, cupti_contract(CuptiValue::automatic), o, on_the_stream(),
                      [&](const Contract& c, const MeasureOptions& eo) {
                        asked = c;
                        seen = eo;
                        return result(197.7, 197.5, 198.0, "events");
                      });
  EXPECT_EQ(asked.instrument, Instrument::event);
  EXPECT_EQ(asked.schedule, Schedule::isolated);  // per_iter's events: each call alone
  EXPECT_FALSE(seen.keep_activity_tracing_on);
  ASSERT_TRUE(r.instrument_perturbation.has_value());
  EXPECT_TRUE(r.instrument_perturbation->applied);
  EXPECT_TRUE(r.instrument_perturbation->significant);
  EXPECT_DOUBLE_EQ(r.summary.median_us, 197.7);
  EXPECT_EQ(r.contract.schedule, Schedule::per_iter);  // the contract asked, with the clock that gave the value
  EXPECT_EQ(r.contract.cupti_value, CuptiValue::event);
  EXPECT_EQ(r.kernels.size(), 2u);
  ASSERT_EQ(r.notes.size(), 3u);
  EXPECT_EQ(r.notes[0], "cupti");
  EXPECT_EQ(r.notes[1], "events");
  EXPECT_EQ(r.notes[2], "value from events with CUPTI's tracing off (197.7 us; CUPTI read 212.96 us, +7.72%); the "
                        "events timed each call alone (isolated, its launch gated): docs/cupti.md, Perturbation");
  EXPECT_EQ(r.warnings, (std::vector<std::string>{"cupti warning", "events warning"}));
  EXPECT_DOUBLE_EQ(r.wall_time_ms, 2.0);
  EXPECT_EQ(r.timed_calls, 20u);
  const IntegrityCheck* agree = r.integrity.find(integrity_check::instruments_agree);
  ASSERT_NE(agree, nullptr);
  EXPECT_EQ(agree->outcome, CheckOutcome::passed);
}

// The events read 62.96 us below CUPTI on a call of one one-block kernel, whose tracing adds at
// most 3.3 us: no value is taken from the events, and the measurement fails its integrity.
TEST(Perturbation, EventsFarBelowWhatTracingCanAddFailTheMeasurement) {
  Result r = result(212.96, 212.5, 213.5, "cupti");
  r.kernels = {KernelStat{"one_block", 10, 0, 0, 1}};
  attach_perturbation(r, cupti_contract(CuptiValue::automatic), {}, on_the_stream(),
                      [](const Contract&, const MeasureOptions&) { return result(150.0, 149.5, 150.5, "events"); });
  ASSERT_TRUE(r.instrument_perturbation.has_value());
  EXPECT_FALSE(r.instrument_perturbation->applied);
  EXPECT_DOUBLE_EQ(r.summary.median_us, 212.96);
  EXPECT_EQ(r.contract.cupti_value, CuptiValue::cupti);
  EXPECT_TRUE(r.integrity.failed());
  const std::string detail =
      "events read 62.960 us below CUPTI (150 us against 212.96 us), more than the 3.300 us tracing can add to the "
      "call's launches: the instruments disagree, and neither value is taken";
  EXPECT_EQ(r.integrity.first_failure(), "instruments_agree: " + detail);
  EXPECT_EQ(r.instrument_perturbation->reason, "no value chosen: " + detail);
}

TEST(Perturbation, OverlappingMediansKeepCuptisValueAndAddTheEventsCost) {
  Result r = result(113.2, 112.0, 114.0, "cupti");
  attach_perturbation(r, cupti_contract(CuptiValue::automatic), {}, on_the_stream(),
                      [](const Contract&, const MeasureOptions&) { return result(113.1, 112.5, 113.5, "events"); });
  EXPECT_DOUBLE_EQ(r.summary.median_us, 113.2);
  EXPECT_EQ(r.contract.cupti_value, CuptiValue::cupti);
  EXPECT_EQ(r.notes, std::vector<std::string>{"cupti"});
  EXPECT_DOUBLE_EQ(r.wall_time_ms, 2.0);
  EXPECT_EQ(r.timed_calls, 10u);
  EXPECT_EQ(r.instrument_perturbation->reason, "CUPTI's value: the two medians agree within their 95% intervals");
}

TEST(Perturbation, EventsThatCannotTimeTheCallLeaveCuptisValueAndSayWhy) {
  const auto refused = [](const Contract&, const MeasureOptions&) -> Result {
    throw IntegrityError("work_on_stream", "work forked from the measured stream is not joined back");
  };
  Result r = result(32.45, 32.0, 33.0, "cupti");
  attach_perturbation(r, cupti_contract(CuptiValue::automatic), {}, on_the_stream(), refused);
  ASSERT_TRUE(r.instrument_perturbation.has_value());
  EXPECT_FALSE(r.instrument_perturbation->measured);
  EXPECT_EQ(r.instrument_perturbation->reason,
            "events cannot time this call: work forked from the measured stream is not joined back");
  EXPECT_EQ(r.contract.cupti_value, CuptiValue::cupti);
  // Asked for the events' value, there is none to give.
  Result asked = result(32.45, 32.0, 33.0, "cupti");
  EXPECT_THROW(attach_perturbation(asked, cupti_contract(CuptiValue::event), {}, on_the_stream(), refused),
               ContractError);
}

}  // namespace
}  // namespace caliber::measurement
