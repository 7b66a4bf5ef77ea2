// The adaptive rule of docs/iteration-rule.md, with the elapsed time given as literal numbers.
#include <gtest/gtest.h>

#include "measure/stopping_rule.h"

namespace caliber::measurement {
namespace {

IterationRule defaults() {
  IterationRule r;  // min_samples 20, min_time_ms 20, max_time_ms 1000, target +/-0.5%
  EXPECT_EQ(r.min_samples, 20);
  EXPECT_EQ(r.min_time_ms, 20.0);
  EXPECT_EQ(r.max_time_ms, 1000.0);
  EXPECT_EQ(r.target_rel_halfwidth, 0.005);
  return r;
}

TEST(AdaptiveStoppingRule, TheFirstBatchIsOneSampleThenTheMinimumIsFilled) {
  const auto rule = adaptive_rule(defaults());
  EXPECT_EQ(rule->next_batch(0, 0.0), 1u);
  EXPECT_EQ(rule->next_batch(1, 100.0), 19u);  // up to min_samples
}

TEST(AdaptiveStoppingRule, BatchesGrowGeometricallyWithinTheTimeBudgetAndTheBatchCap) {
  const auto rule = adaptive_rule(defaults());
  EXPECT_EQ(rule->next_batch(40, 4000.0), 20u);      // n / 2
  EXPECT_EQ(rule->next_batch(100, 990000.0), 1u);    // 9.9 ms a sample, 10 ms left: one more
  EXPECT_EQ(rule->next_batch(100000, 1.0), 10000u);  // at most 10,000 between two syncs
  EXPECT_EQ(rule->next_batch(9999997, 1.0), 3u);     // and never past ten million samples
}

TEST(AdaptiveStoppingRule, StopsWhenThePrecisionIsReachedAfterTheMinimumSamplesAndTime) {
  const auto rule = adaptive_rule(defaults());
  const std::vector<double> same(20, 5.0);  // a zero-width interval
  EXPECT_FALSE(rule->done(std::vector<double>(19, 5.0), 20000.0));  // one sample short
  EXPECT_FALSE(rule->done(same, 19999.0));                          // 1 us short of min_time
  EXPECT_TRUE(rule->done(same, 20000.0));
  EXPECT_EQ(rule->stop_reason(), "target precision reached");
  EXPECT_TRUE(rule->warnings().empty());
}

TEST(AdaptiveStoppingRule, StopsAtMaxTimeWithThePrecisionItReached) {
  const auto rule = adaptive_rule(defaults());
  std::vector<double> two_modes;
  for (int i = 0; i < 20; ++i) two_modes.push_back(i % 2 ? 15.0 : 5.0);  // the median never settles
  EXPECT_FALSE(rule->done(two_modes, 999999.0));
  EXPECT_TRUE(rule->done(two_modes, 1000000.0));
  EXPECT_EQ(rule->stop_reason(), "max time reached");
  EXPECT_EQ(rule->warnings(), std::vector<std::string>{"max time 1000 ms reached before the median's 95% CI narrowed "
                                                       "to +/-0.5% (reached +/-50%)"});
}

TEST(AdaptiveStoppingRule, StopsAtMaxTimeSayingHowManyOfTheMinimumSamplesItGot) {
  const auto rule = adaptive_rule(defaults());
  EXPECT_TRUE(rule->done({5.0, 5.0, 5.0}, 10.0e6));  // 10 s: past the grown budget's cap
  EXPECT_EQ(rule->stop_reason(),
            "max time reached (the budget grown from 1000 ms to 2000 ms for the 20 minimum samples of a 3.33e+03 ms "
            "call)");
  EXPECT_EQ(rule->warnings(),
            std::vector<std::string>{"max time 2000 ms reached with only 3 of 20 minimum samples (the budget grown "
                                     "from 1000 ms to 2000 ms for the 20 minimum samples of a 3.33e+03 ms call)"});
}

TEST(AdaptiveStoppingRule, ASlowCallsBudgetGrowsToItsMinimumSamplesUpToTheCap) {
  IterationRule r = defaults();
  r.min_samples = 6;
  r.max_time_ms = 25;
  const auto rule = adaptive_rule(r);
  // One 80 ms sample: the 25 ms budget is spent, but 6 samples of 80 ms fit the grown 480 ms.
  EXPECT_EQ(rule->next_batch(1, 80000.0), 5u);
  EXPECT_FALSE(rule->done({80000.0}, 80000.0));
  std::vector<double> six = {80000.0, 82000.0, 78000.0, 81000.0, 79000.0, 80500.0};  // +/-2.5%: short of +/-0.5%
  EXPECT_TRUE(rule->done(six, 480500.0));  // the budget spent, the precision not reached
  EXPECT_NE(rule->stop_reason().find("grown from 25 ms to 480 ms for the 6 minimum samples of a 80.1 ms call"),
            std::string::npos)
      << rule->stop_reason();
  // A fast call keeps its 25 ms.
  const auto fast = adaptive_rule(r);
  EXPECT_TRUE(fast->done({10.0, 30.0, 10.0, 30.0, 10.0, 30.0, 10.0, 30.0}, 25000.0));
  EXPECT_EQ(fast->stop_reason(), "max time reached");
}

}  // namespace
}  // namespace caliber::measurement
