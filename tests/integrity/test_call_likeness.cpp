// calls_alike (integrity/call_likeness.h) on literal samples: a timed sample far faster than its
// siblings fails, slow samples do not.
#include <gtest/gtest.h>

#include <vector>

#include "integrity/call_likeness.h"

namespace caliber::integrity {
namespace {

TEST(CallLikeness, HonestSamplesWithSlowOutliersPass) {
  const std::vector<double> s = {100, 101, 99, 250, 100, 102, 98, 400};
  const CallLikeness l = judge_call_likeness(s);
  EXPECT_EQ(l.outcome, CheckOutcome::passed) << l.detail;
  EXPECT_EQ(l.detail, "every one of 8 timed samples took at least 1/10 of their median, 100 us (the fastest 98 us)");
}

TEST(CallLikeness, ASampleFasterThanHalfItsSiblingsFails) {
  // a call that skips its work now and then
  const std::vector<double> s = {100, 3, 100, 100, 3, 100, 101, 100, 2};
  const CallLikeness l = judge_call_likeness(s);
  EXPECT_EQ(l.outcome, CheckOutcome::failed);
  EXPECT_EQ(l.detail,
            "calls do not look alike: 3 of 9 timed samples took less than 1/10 of their median, 100 us (the fastest 2 "
            "us; samples 1, 4, 8): calls that did less than the work of the others");
}

TEST(CallLikeness, TheBoundaryIsATenthOfTheMedian) {
  // two modes 5x apart, the median in the slow one: an oversubscribed machine, not skipped work
  const std::vector<double> two_modes = {100, 100, 100, 20, 20};
  EXPECT_EQ(judge_call_likeness(two_modes).outcome, CheckOutcome::passed);
  const std::vector<double> at = {100, 100, 100, 10};
  EXPECT_EQ(judge_call_likeness(at).outcome, CheckOutcome::passed);
  const std::vector<double> below = {100, 100, 100, 9.99};
  EXPECT_EQ(judge_call_likeness(below).outcome, CheckOutcome::failed);
}

TEST(CallLikeness, ManyFastSamplesAreNamedUpToEight) {
  std::vector<double> s(30, 100.0);
  for (std::size_t i = 0; i < 10; ++i) s[i] = 1;
  const CallLikeness l = judge_call_likeness(s);
  EXPECT_NE(l.detail.find("samples 0, 1, 2, 3, 4, 5, 6, 7, ...)"), std::string::npos) << l.detail;
}

TEST(CallLikeness, TooFewSamplesAreNotJudged) {
  const std::vector<double> few = {100, 1, 1};
  const CallLikeness l = judge_call_likeness(few);
  EXPECT_EQ(l.outcome, CheckOutcome::not_run);
  EXPECT_EQ(l.detail, "3 timed samples: too few to say what a call typically takes");
}

}  // namespace
}  // namespace caliber::integrity
