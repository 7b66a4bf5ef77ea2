#include "core/iteration_bounds.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace caliber {
namespace {

IterationRule adaptive(double min_time_ms, double max_time_ms, double target) {
  IterationRule rule;
  rule.min_time_ms = min_time_ms;
  rule.max_time_ms = max_time_ms;
  rule.target_rel_halfwidth = target;
  return rule;
}

TEST(AdaptiveBounds, ValidBoundsHaveNoReason) {
  EXPECT_EQ(why_invalid_adaptive_bounds(IterationRule{}), std::nullopt);
  EXPECT_EQ(why_invalid_adaptive_bounds(adaptive(0, 0.5, 0.999)), std::nullopt);
  EXPECT_EQ(why_invalid_adaptive_bounds(adaptive(7, 7, 0.01)), std::nullopt);  // min time may equal max time
}

TEST(AdaptiveBounds, EachFaultInTheContractsWords) {
  EXPECT_EQ(why_invalid_adaptive_bounds(adaptive(-1, 10, 0.01)), "min time must be >= 0 ms (got -1)");
  EXPECT_EQ(why_invalid_adaptive_bounds(adaptive(0, 0, 0.01)), "max time must be > 0 ms (got 0)");
  EXPECT_EQ(why_invalid_adaptive_bounds(adaptive(20, 10.5, 0.01)), "min time (20 ms) exceeds max time (10.5 ms)");
  EXPECT_EQ(why_invalid_adaptive_bounds(adaptive(0, 10, 1)),
            "target precision must be in (0, 1) (got 1); 0.005 means +/-0.5% of the median");
  EXPECT_EQ(why_invalid_adaptive_bounds(adaptive(0, 10, 0)),
            "target precision must be in (0, 1) (got 0); 0.005 means +/-0.5% of the median");
}

TEST(AdaptiveBounds, NotANumberIsNeverInBounds) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_NE(why_invalid_adaptive_bounds(adaptive(nan, 10, 0.01)), std::nullopt);
  EXPECT_NE(why_invalid_adaptive_bounds(adaptive(0, nan, 0.01)), std::nullopt);
  EXPECT_NE(why_invalid_adaptive_bounds(adaptive(0, 10, nan)), std::nullopt);
}

TEST(AdaptiveBounds, TheFirstFaultIsNamedInTheOptionsWords) {
  // Two faults: the time bounds come before the precision.
  EXPECT_EQ(why_invalid_adaptive_bounds(adaptive(50, 10, 2), kAdaptiveBoundOptions),
            "--min-time-ms (50 ms) exceeds --max-time-ms (10 ms)");
  EXPECT_EQ(why_invalid_adaptive_bounds(adaptive(0, 10, 2), kAdaptiveBoundOptions),
            "--target-precision must be in (0, 1) (got 2); 0.005 means +/-0.5% of the median");
  EXPECT_EQ(why_invalid_adaptive_bounds(adaptive(0, -3, 0.5), kAdaptiveBoundOptions),
            "--max-time-ms must be > 0 ms (got -3)");
}

}  // namespace
}  // namespace caliber
