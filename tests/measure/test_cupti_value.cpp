// Which clock gives a cupti result's value, on literal perturbations (docs/cupti.md, Perturbation),
// and the bound on how far below CUPTI the events may read (measure/tracing_perturbation.h).
#include <gtest/gtest.h>

#include "measure/cupti_value.h"
#include "measure/tracing_perturbation.h"

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

// One call of one kernel of `blocks` blocks: the tracing bound of scale_blocks (262,144 blocks) is
// (2.2 + 262144 x 75e-6) x 1.5 = 32.7912 us; of a one-block kernel (2.2 + 75e-6) x 1.5 = 3.3001125 us.
double bound_of_one_kernel(std::uint64_t blocks) {
  return expected_tracing_perturbation_us({KernelStat{"k", 10, 0, 0, blocks}}, 10);
}

CuptiValueChoice automatic(const InstrumentPerturbation& p, double bound_us = bound_of_one_kernel(262144)) {
  return choose_cupti_value(CuptiValue::automatic, p, true, "", bound_us);
}

TEST(CuptiTracingPerturbation, PerLaunchAndPerBlockCostsPerCallTimesTheMargin) {
  EXPECT_DOUBLE_EQ(bound_of_one_kernel(262144), 32.7912);
  EXPECT_DOUBLE_EQ(bound_of_one_kernel(1), 3.3001125);
  // Two launches per call of the big kernel and two memsets (no blocks): (2 x 21.8608 + 2 x 2.2) x 1.5.
  const std::vector<KernelStat> kernels = {KernelStat{"scale", 20, 0, 0, 262144}, KernelStat{"[memset]", 20, 0, 0, 0}};
  EXPECT_DOUBLE_EQ(expected_tracing_perturbation_us(kernels, 10), 72.1824);
  // No timed calls recorded: the launches are taken as one call's.
  EXPECT_DOUBLE_EQ(expected_tracing_perturbation_us({KernelStat{"k", 1, 0, 0, 0}}, 0), 3.3);
  EXPECT_DOUBLE_EQ(expected_tracing_perturbation_us({}, 10), 0.0);
}

TEST(CuptiValueRule, AutoTakesTheEventsOnlyWhenTracingMadeTheCallSlower) {
  // H200: scale_blocks 212.96 us under CUPTI, 197.7 us under events, intervals apart: 15.26 us is
  // within the 32.79 us tracing can add to its 262,144 blocks.
  const CuptiValueChoice slower = automatic(perturbation(212.96, 197.7, true));
  EXPECT_TRUE(slower.use_events);
  EXPECT_EQ(slower.reason,
            "the events' value: events see all of the call's work (it ran on the measured stream, or is replayed "
            "from its captured graph) and the medians' 95% intervals do not overlap, so tracing moved the number");
  ASSERT_TRUE(slower.instruments_agree.has_value());
  EXPECT_EQ(*slower.instruments_agree,
            (IntegrityCheck{"instruments_agree", CheckOutcome::passed,
                            "events read 15.260 us below CUPTI, within the 32.791 us tracing can add"}));
  // Agreeing medians: CUPTI's value.
  const CuptiValueChoice agree = automatic(perturbation(113.2, 113.1, false));
  EXPECT_FALSE(agree.use_events);
  EXPECT_EQ(agree.reason, "CUPTI's value: the two medians agree within their 95% intervals");
  EXPECT_FALSE(agree.instruments_agree.has_value());
  // A 1.7 us kernel whose per_iter events read 6.8 us: launch gaps, not perturbation.
  const CuptiValueChoice gaps = automatic(perturbation(1.75, 6.78, true));
  EXPECT_FALSE(gaps.use_events);
  EXPECT_EQ(gaps.reason,
            "CUPTI's value: events read 5.030 us longer, time the device spent idle between launches inside their "
            "window (tracing cannot make a call faster)");
  EXPECT_FALSE(gaps.instruments_agree.has_value());
}

TEST(CuptiValueRule, AutoTakesTheEventsUpToTheTracingBoundInclusive) {
  // One one-block kernel per call: tracing adds at most 3.3001125 us.
  const CuptiValueChoice at = automatic(perturbation(10.5, 7.5, true), 3.0);
  EXPECT_TRUE(at.use_events);
  ASSERT_TRUE(at.instruments_agree.has_value());
  EXPECT_EQ(at.instruments_agree->outcome, CheckOutcome::passed);
  EXPECT_TRUE(automatic(perturbation(10.0, 7.0, true), bound_of_one_kernel(1)).use_events);
}

// A call whose events read far below CUPTI, more than tracing can add: the instruments disagree,
// and the measurement fails instead of taking either number.
TEST(CuptiValueRule, AutoFailsWhenTheEventsReadBelowWhatTracingCanExplain) {
  const CuptiValueChoice c = automatic(perturbation(212.96, 150.0, true), bound_of_one_kernel(1));
  EXPECT_FALSE(c.use_events);
  const std::string detail =
      "events read 62.960 us below CUPTI (150 us against 212.96 us), more than the 3.300 us tracing can add to the "
      "call's launches: the instruments disagree, and neither value is taken";
  EXPECT_EQ(c.reason, "no value chosen: " + detail);
  ASSERT_TRUE(c.instruments_agree.has_value());
  EXPECT_EQ(*c.instruments_agree, (IntegrityCheck{"instruments_agree", CheckOutcome::failed, detail}));
  // Just past the bound.
  EXPECT_EQ(automatic(perturbation(10.5, 7.49, true), 3.0).instruments_agree->outcome, CheckOutcome::failed);
  // No kernel traced: tracing can add nothing, so any significant difference is a disagreement.
  EXPECT_EQ(automatic(perturbation(2.0, 1.5, true), expected_tracing_perturbation_us({}, 10)).instruments_agree->outcome,
            CheckOutcome::failed);
}

// H200, CuptiTest.ReductionsOrderOnARealCall: a call whose 32 us kernel runs on a second stream
// read 7.4 us under events, which bracket only the tiny kernel on the measured stream. Work on
// other streams outside a graph keeps CUPTI's value, however far apart the medians are (the
// events missed work: that is no disagreement about the same work).
TEST(CuptiValueRule, WorkOnOtherStreamsOutsideAGraphKeepsCuptisValue) {
  const CuptiValueChoice off = choose_cupti_value(CuptiValue::automatic, perturbation(32.45, 7.36, true), false,
                                                  "1 of the call's 2 operations ran on other streams", 3.3);
  EXPECT_FALSE(off.use_events);
  EXPECT_EQ(off.reason,
            "CUPTI's value: events read 25.090 us shorter, but they bracket the measured stream only, and 1 of the "
            "call's 2 operations ran on other streams");
  EXPECT_FALSE(off.instruments_agree.has_value());
  // An explicit cupti_value event still takes them (it is refused earlier when events cannot time the call).
  const CuptiValueChoice asked = choose_cupti_value(CuptiValue::event, perturbation(32.45, 7.36, true), false, "x", 3.3);
  EXPECT_TRUE(asked.use_events);
  EXPECT_FALSE(asked.instruments_agree.has_value());
}

TEST(CuptiValueRule, ExplicitChoicesAndAnUnmeasuredCompanion) {
  const CuptiValueChoice event = choose_cupti_value(CuptiValue::event, perturbation(1.75, 6.78, true), true, "", 3.3);
  EXPECT_TRUE(event.use_events);
  EXPECT_EQ(event.reason, "the events' value, as asked (cupti_value event)");
  // cupti_value cupti: CUPTI's, however far below the events read.
  const CuptiValueChoice cupti = choose_cupti_value(CuptiValue::cupti, perturbation(212.96, 150.0, true), true, "", 3.3);
  EXPECT_FALSE(cupti.use_events);
  EXPECT_EQ(cupti.reason, "CUPTI's value, as asked (cupti_value cupti)");
  EXPECT_FALSE(cupti.instruments_agree.has_value());
  InstrumentPerturbation none;  // events could not measure the contract
  EXPECT_EQ(choose_cupti_value(CuptiValue::cupti, none, true, "", 3.3).reason, "");
  const CuptiValueChoice c = choose_cupti_value(CuptiValue::automatic, none, true, "", 3.3);
  EXPECT_FALSE(c.use_events);
  EXPECT_TRUE(c.reason.empty());
  EXPECT_FALSE(c.instruments_agree.has_value());
}

}  // namespace
}  // namespace caliber::measurement
