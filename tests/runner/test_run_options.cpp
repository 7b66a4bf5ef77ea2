#include "runner/run_options.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "caliber/errors.h"

namespace caliber::runner {
namespace {

std::string refusal(const RunOptions& o) {
  try {
    check_run_options(o);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "(accepted)";
}

RunOptions with(const std::function<void(RunOptions&)>& change) {
  RunOptions o;
  change(o);
  return o;
}

TEST(RunOptions, TheDefaultsAreAccepted) { EXPECT_EQ(refusal(RunOptions{}), "(accepted)"); }

TEST(RunOptions, TheAdaptiveRulesBoundsAreNamedByTheirOptions) {
  EXPECT_EQ(refusal(with([](RunOptions& o) { o.min_time_ms = 30; })),
            "--min-time-ms (30 ms) exceeds --max-time-ms (25 ms)");
  EXPECT_EQ(refusal(with([](RunOptions& o) { o.target_precision = 1; })),
            "--target-precision must be in (0, 1) (got 1); 0.005 means +/-0.5% of the median");
  // The sampling limits come first, each under its option.
  EXPECT_EQ(refusal(with([](RunOptions& o) { o.max_time_ms = 0; })), "--max-time-ms must be > 0 (got 0)");
  EXPECT_EQ(refusal(with([](RunOptions& o) { o.min_samples = 0; })), "--min-samples must be >= 1 (got 0)");
}

TEST(RunOptions, TheStartTimeoutIsAPositiveBoundedTime) {
  EXPECT_EQ(refusal(with([](RunOptions& o) { o.start_timeout_s = 0; })).find("--start-timeout-s"), 0u);
  EXPECT_EQ(refusal(with([](RunOptions& o) { o.start_timeout_s = -1; })).find("--start-timeout-s"), 0u);
  EXPECT_EQ(refusal(with([](RunOptions& o) { o.start_timeout_s = 2; })), "(accepted)");
}

// The worker's command line is readable by the code it measures (/proc/self/cmdline): the seeds
// are not on it (they come with each command).
TEST(RunOptions, TheWorkersCommandLineCarriesNoSeed) {
  RunOptions o;
  o.seed = 987654321;
  o.verification_seed = 0xabcdef12345ull;
  for (const std::string& a : o.worker_arguments()) {
    EXPECT_NE(a, "--seed");
    EXPECT_NE(a, "--verification-seed");
    EXPECT_EQ(a.find("987654321"), std::string::npos) << a;
    EXPECT_EQ(a.find("abcdef12345"), std::string::npos) << a;
  }
}

}  // namespace
}  // namespace caliber::runner
