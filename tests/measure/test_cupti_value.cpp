// Which clock gives a cupti result's value, on literal perturbations (docs/cupti.md, Perturbation).
#include <gtest/gtest.h>

#include "measure/cupti_value.h"

namespace caliber::measurement {
namespace {

InstrumentPerturbation perturbation(double cupti_us, double event_us, bool significant) {
  InstrumentPerturbation p;
  p.measured = true;
  p.cupti_median_us = cupti_us;
  p.event_median_us = event_us;
  p.delta_us = cupti_us - event_us;
  p.delta_pct = 100.0 * p.delta_us / event_us;
  p.significant = significant;
  return p;
}

TEST(CuptiValueRule, AutoTakesTheEventsOnlyWhenTracingMadeTheCallSlower) {
  // H200: scale_blocks 212.96 us under CUPTI, 197.7 us under events, intervals apart.
  const CuptiValueChoice slower = choose_cupti_value(CuptiValue::automatic, perturbation(212.96, 197.7, true), true);
  EXPECT_TRUE(slower.use_events);
  // Agreeing medians: CUPTI's value.
  const CuptiValueChoice agree = choose_cupti_value(CuptiValue::automatic, perturbation(113.2, 113.1, false), true);
  EXPECT_FALSE(agree.use_events);
  EXPECT_EQ(agree.reason, "CUPTI's value: the two medians agree within their 95% intervals");
  // A 1.7 us kernel whose per_iter events read 6.8 us: launch gaps, not perturbation.
  const CuptiValueChoice gaps = choose_cupti_value(CuptiValue::automatic, perturbation(1.75, 6.78, true), true);
  EXPECT_FALSE(gaps.use_events);
  EXPECT_EQ(gaps.reason,
            "CUPTI's value: events read 5.030 us longer, time the device spent idle between launches inside their "
            "window (tracing cannot make a call faster)");
}

// H200, CuptiTest.ReductionsOrderOnARealCall: a call whose 32 us kernel runs on a second stream
// read 7.4 us under events, which bracket only the tiny kernel on the measured stream. Work on
// other streams outside a graph keeps CUPTI's value, however far apart the medians are.
TEST(CuptiValueRule, WorkOnOtherStreamsOutsideAGraphKeepsCuptisValue) {
  const CuptiValueChoice off = choose_cupti_value(CuptiValue::automatic, perturbation(32.45, 7.36, true), false,
                                                  "1 of the call's 2 operations ran on other streams");
  EXPECT_FALSE(off.use_events);
  EXPECT_EQ(off.reason,
            "CUPTI's value: events read 25.090 us shorter, but they bracket the measured stream only, and 1 of the "
            "call's 2 operations ran on other streams");
  // An explicit cupti_value event still takes them (it is refused earlier when events cannot time the call).
  EXPECT_TRUE(choose_cupti_value(CuptiValue::event, perturbation(32.45, 7.36, true), false, "x").use_events);
}

TEST(CuptiValueRule, ExplicitChoicesAndAnUnmeasuredCompanion) {
  EXPECT_TRUE(choose_cupti_value(CuptiValue::event, perturbation(1.75, 6.78, true), true).use_events);
  EXPECT_FALSE(choose_cupti_value(CuptiValue::cupti, perturbation(212.96, 197.7, true), true).use_events);
  InstrumentPerturbation none;  // events could not measure the contract
  const CuptiValueChoice c = choose_cupti_value(CuptiValue::automatic, none, true);
  EXPECT_FALSE(c.use_events);
  EXPECT_TRUE(c.reason.empty());
}

}  // namespace
}  // namespace caliber::measurement
