// The retry policy on literal failures: only failed cells retry, at most 1 + retries attempts,
// and the same failure twice stops them.
#include <gtest/gtest.h>

#include "campaign/retry_policy.h"

namespace caliber::campaign {
namespace {

TEST(RetryPolicy, OnlyFailedCellsAreRetried) {
  EXPECT_TRUE(is_retryable(BenchmarkStatus::failed));
  for (BenchmarkStatus s : {BenchmarkStatus::ok, BenchmarkStatus::incorrect, BenchmarkStatus::faster_than_physical,
                            BenchmarkStatus::oom, BenchmarkStatus::skipped, BenchmarkStatus::unsupported,
                            BenchmarkStatus::not_configured}) {
    EXPECT_FALSE(is_retryable(s)) << to_string(s);
  }
}

TEST(RetryPolicy, SignaturesMaskNumbersButKeepWords) {
  EXPECT_EQ(failure_signature(BenchmarkStatus::failed, "no result within --cell-timeout-s 2.5 s; pid 1234"),
            "failed: no result within --cell-timeout-s # s; pid #");
  EXPECT_EQ(failure_signature(BenchmarkStatus::failed, "illegal address at 0x7ffd1234abcd"),
            "failed: illegal address at 0x#");
  EXPECT_NE(failure_signature(BenchmarkStatus::failed, "signal 11 (Segmentation fault)"),
            failure_signature(BenchmarkStatus::failed, "signal 6 (Aborted)"));
  EXPECT_EQ(failure_signature(BenchmarkStatus::failed, "signal 6 (Aborted) after 10 ms"),
            failure_signature(BenchmarkStatus::failed, "signal 6 (Aborted) after 12 ms"));
}

TEST(RetryPolicy, TheSameFailureTwiceStops) {
  EXPECT_TRUE(decide_retry({"failed: crash"}, 3).retry);
  const RetryDecision twice = decide_retry({"failed: crash", "failed: crash"}, 3);
  EXPECT_FALSE(twice.retry);
  EXPECT_EQ(twice.why, "deterministic: the same failure twice");
  EXPECT_TRUE(decide_retry({"failed: crash", "failed: hang"}, 3).retry);
  EXPECT_FALSE(decide_retry({"failed: crash", "failed: hang", "failed: crash"}, 5).retry);
}

TEST(RetryPolicy, RetriesAreBounded) {
  EXPECT_FALSE(decide_retry({"failed: a"}, 0).retry);
  EXPECT_TRUE(decide_retry({"failed: a"}, 1).retry);
  const RetryDecision d = decide_retry({"failed: a", "failed: b"}, 1);
  EXPECT_FALSE(d.retry);
  EXPECT_EQ(d.why, "retries exhausted (2 attempt(s), --retries 1)");
  EXPECT_TRUE(decide_retry({"failed: a", "failed: b"}, 2).retry);
  EXPECT_FALSE(decide_retry({}, 2).retry);
}

}  // namespace
}  // namespace caliber::campaign
