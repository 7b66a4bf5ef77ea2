// verified_call_time on literal samples: the poisoned verified call compared with the others.
#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

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

// A row says the check did not run, whatever the number of samples: the list of checks is the
// same on a fast machine and a slow one.
TEST(VerifiedCallTime, TooFewSamplesAreRecordedAsNotRun) {
  for (const auto& [samples, from_end, detail] :
       std::vector<std::tuple<std::vector<double>, std::size_t, std::string>>{
           {{1, 1, 100}, 1, "3 timed calls: too few to compare the verified call with the others"},
           {{1, 1, 1, 100}, 5, "no verified call among the 4 timed calls"},
           {{1, 1, 1, 100}, 0, "no verified call among the 4 timed calls"}}) {
    Integrity integ;
    check_verified_call_time(integ, samples, from_end, nullptr);
    ASSERT_EQ(integ.checks.size(), 1u);
    EXPECT_EQ(integ.checks[0].outcome, CheckOutcome::not_run);
    EXPECT_EQ(integ.checks[0].detail, detail);
  }
}

}  // namespace
}  // namespace caliber::integrity
