// The bounds of the sampling and timeout options (bench, run, ab, calibrate).
#include "core/sampling_limits.h"

#include <gtest/gtest.h>

#include "caliber/errors.h"

namespace caliber {
namespace {

std::string refusal(const std::function<void()>& check) {
  try {
    check();
  } catch (const UsageError& e) {
    return e.what();
  }
  return "(accepted)";
}

TEST(SamplingLimits, CountsTimesAndTimeoutsAreBounded) {
  EXPECT_EQ(refusal([] { require_count_option(0, "--iters", kMaxSampleCount); }), "--iters must be >= 1 (got 0)");
  EXPECT_EQ(refusal([] { require_count_option(kMaxSampleCount + 1, "--iters", kMaxSampleCount); }),
            "--iters must be <= 10000000 (got 10000001)");
  EXPECT_EQ(refusal([] { require_count_option(kMaxSampleCount, "--iters", kMaxSampleCount); }), "(accepted)");
  EXPECT_EQ(refusal([] { require_time_option(0, "--min-time-ms", false); }), "(accepted)");
  EXPECT_EQ(refusal([] { require_time_option(0, "--max-time-ms", true); }), "--max-time-ms must be > 0 (got 0)");
  EXPECT_EQ(refusal([] { require_time_option(1e307, "--min-time-ms", false); }),
            "--min-time-ms must be <= 3600000 (one hour; got 1e+307)");
  EXPECT_EQ(refusal([] { require_cell_timeout_option(1e300, "--cell-timeout"); }),
            "--cell-timeout must be in (0, 604800] (a week; got 1e+300)");
  EXPECT_EQ(refusal([] { require_cell_timeout_option(300, "--cell-timeout-s"); }), "(accepted)");
}

}  // namespace
}  // namespace caliber
