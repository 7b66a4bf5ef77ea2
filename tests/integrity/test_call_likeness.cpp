// calls_alike (integrity/call_likeness.h) on literal samples: a timed sample far faster than its
// siblings fails, slow samples do not.
#include <gtest/gtest.h>

#include <optional>
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

// Inside a sample (a graph replay's calls, told apart by the tracer): one call did the work and
// its siblings launched the same kernel and left early; the replay's output is right.
TEST(CallLikeness, OneCallOfAReplayDoingTheWorkFailsTheCheck) {
  CallsWithinSamples c;
  c.call_us = {{50, 52, 49, 51}, {260, 3, 3, 3}};
  const std::optional<CallLikeness> l = judge_calls_within_samples(c);
  ASSERT_TRUE(l.has_value());
  EXPECT_EQ(l->outcome, CheckOutcome::failed);
  EXPECT_EQ(l->detail, "calls do not look alike: call 0 of sample 1 took 260 us where its 4 calls' median took 3 us "
                       "(more than 10x apart: one call did work its siblings did not)");
}

TEST(CallLikeness, CallsOfAReplayWithinTenfoldAndAlikeInWorkPass) {
  CallsWithinSamples c;
  c.call_us = {{30, 10, 10, 10}, {10, 10, 11, 9}};  // the first call of a replay may pay for the cache
  c.not_told_apart = 1;
  c.told_apart_by = "CUPTI's records of each replay";
  c.work_compared = true;
  const std::optional<CallLikeness> l = judge_calls_within_samples(c);
  ASSERT_TRUE(l.has_value());
  EXPECT_EQ(l->outcome, CheckOutcome::passed) << l->detail;
  EXPECT_EQ(l->detail, "the 4 calls inside each of 2 samples (CUPTI's records of each replay) took within 10x of "
                       "their sample's median, and ran the same kernels (the widest: call 0 of sample 0 at 3x) (1 "
                       "more samples could not be split)");
}

// Events tell the calls apart by time only: the detail does not claim their kernels were compared.
TEST(CallLikeness, CallsToldApartByMarksAreJudgedOnTimeAndSaySo) {
  CallsWithinSamples c;
  c.call_us = {{4, 4, 5}, {4, 2, 4}};
  c.told_apart_by = "events around each call of the replays at the audits";
  const std::optional<CallLikeness> l = judge_calls_within_samples(c);
  ASSERT_TRUE(l.has_value());
  EXPECT_EQ(l->outcome, CheckOutcome::passed) << l->detail;
  EXPECT_EQ(l->detail, "the 3 calls inside each of 2 samples (events around each call of the replays at the audits) "
                       "took within 10x of their sample's median (the widest: call 1 of sample 1 at 2x)");
  c.call_us.push_back({40, 3, 3});
  EXPECT_EQ(judge_calls_within_samples(c)->outcome, CheckOutcome::failed);
}

TEST(CallLikeness, ACallThatRanOtherKernelsFailsWhateverItsTime) {
  CallsWithinSamples c;
  c.call_us = {{10, 10}};
  c.unlike_work = "in sample 0, call 1 ran [early_exit] where call 0 ran [work]";
  const std::optional<CallLikeness> l = judge_calls_within_samples(c);
  ASSERT_TRUE(l.has_value());
  EXPECT_EQ(l->outcome, CheckOutcome::failed);
  EXPECT_EQ(l->detail, "calls do not look alike: in sample 0, call 1 ran [early_exit] where call 0 ran [work] (the "
                       "calls of one sample ran different work)");
}

TEST(CallLikeness, NothingSeenInsideTheSamplesIsNoJudgement) {
  EXPECT_FALSE(judge_calls_within_samples(CallsWithinSamples{}).has_value());
  CallsWithinSamples unsplit;
  unsplit.not_told_apart = 3;
  const std::optional<CallLikeness> l = judge_calls_within_samples(unsplit);
  ASSERT_TRUE(l.has_value());
  EXPECT_EQ(l->outcome, CheckOutcome::not_run);
  EXPECT_EQ(l->detail, "the calls inside 3 samples could not be told apart");
}

}  // namespace
}  // namespace caliber::integrity
