// fixed:N: exactly N samples, in batches of at most 10,000.
#include <gtest/gtest.h>

#include "measure/stopping_rule.h"

namespace caliber::measurement {
namespace {

TEST(FixedCountRule, BatchesOfAtMostTenThousandUntilTheCount) {
  const auto rule = fixed_count_rule(25000);
  EXPECT_EQ(rule->next_batch(0, 0.0), 10000u);
  EXPECT_EQ(rule->next_batch(10000, 1e9), 10000u);  // time does not matter
  EXPECT_EQ(rule->next_batch(20000, 0.0), 5000u);
  EXPECT_FALSE(rule->done(std::vector<double>(24999, 1.0), 0.0));
  EXPECT_TRUE(rule->done(std::vector<double>(25000, 1.0), 0.0));
  EXPECT_EQ(rule->stop_reason(), "fixed count");
  EXPECT_TRUE(rule->warnings().empty());
}

TEST(FixedCountRule, NoSampleAtAllWhenTheCountIsZero) {
  // A fixed count whose samples are all verified ones leaves the rule nothing to take.
  EXPECT_EQ(fixed_count_rule(0)->next_batch(0, 0.0), 0u);
}

}  // namespace
}  // namespace caliber::measurement
