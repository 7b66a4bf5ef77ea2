// verified_call_time on literal samples: the poisoned verified call compared with the others.
#include <gtest/gtest.h>

#include "integrity/verified_call_time.h"

namespace caliber::integrity {
namespace {

namespace check = integrity_check;

TEST(VerifiedCallTime, AVerifiedCallAsFastAsTheOthersPasses) {
  Integrity integ;
  check_verified_call_time(integ, {10, 11, 9, 10, 12}, 1, nullptr);
  const IntegrityCheck* c = integ.find(check::verified_call_time);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->outcome, CheckOutcome::passed);
  EXPECT_EQ(c->detail, "the verified call took 12 us; the other timed calls' median 10 us");
}

TEST(VerifiedCallTime, ASlowOneIsReTimedAndFailsWhenEveryPoisonedCallIsSlow) {
  Integrity integ;
  int retimed = 0;
  check_verified_call_time(integ, {1, 1, 1, 1, 100}, 1, [&] {
    ++retimed;
    return 100.0;
  });
  EXPECT_EQ(retimed, 3);
  const IntegrityCheck* c = integ.find(check::verified_call_time);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->outcome, CheckOutcome::failed);
  EXPECT_EQ(c->detail,
            "the verified call (outputs poisoned) took 100 us, 100x the median 1 us of the other 4 timed calls and "
            "100.0x the slowest, and 3 more poisoned calls took 100, 100, 100 us: the call does less work when its "
            "output already holds a result");
}

TEST(VerifiedCallTime, OneReTimedCallAtTheUsualSpeedClearsIt) {
  Integrity integ;
  std::vector<double> times = {50, 1};
  check_verified_call_time(integ, {1, 1, 1, 1, 30, 1}, 2, [&] {
    const double t = times.front();
    times.erase(times.begin());
    return t;
  });
  const IntegrityCheck* c = integ.find(check::verified_call_time);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->outcome, CheckOutcome::passed);
  EXPECT_EQ(c->detail,
            "the verified call took 30 us once, 30x the other timed calls' median 1 us; re-timed on poisoned outputs "
            "it took 1 us (re-timing 2 of 3): one slow reading, not work skipped");
}

TEST(VerifiedCallTime, SlowerThanTwentyTimesTheMedianButNotTwiceTheSlowestIsHonest) {
  Integrity integ;
  check_verified_call_time(integ, {1, 1, 1, 30, 25}, 1, [] { return 0.0; });
  EXPECT_EQ(integ.find(check::verified_call_time)->outcome, CheckOutcome::passed);
}

TEST(VerifiedCallTime, TooFewSamplesSayNothing) {
  Integrity integ;
  check_verified_call_time(integ, {1, 1, 100}, 1, nullptr);
  check_verified_call_time(integ, {1, 1, 1, 100}, 5, nullptr);  // no such sample
  check_verified_call_time(integ, {1, 1, 1, 100}, 0, nullptr);
  EXPECT_TRUE(integ.checks.empty());
}

}  // namespace
}  // namespace caliber::integrity
