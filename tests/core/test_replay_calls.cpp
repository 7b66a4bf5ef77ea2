// The calls inside a timed sample told apart from its records (core/replay_calls.h), on literal
// records: a replay's calls cut by launch order, or at caliber's own flush records.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/replay_calls.h"

namespace caliber {
namespace {

DeviceActivity kernel(std::string name, std::uint64_t start, std::uint64_t end) {
  DeviceActivity a;
  a.name = std::move(name);
  a.start_ns = start;
  a.end_ns = end;
  return a;
}

TEST(ReplayCalls, AReplayIsCutIntoItsCallsByLaunchOrder) {
  SampleActivity s;
  // recorded out of order: the cut follows the start times
  s.counted = {kernel("b", 1100, 1400), kernel("a", 0, 1000), kernel("a", 2000, 3000), kernel("b", 3100, 3300)};
  const SampleCalls c = split_sample_calls(s, 2, CuptiReduction::busy);
  ASSERT_TRUE(c.call_ns.has_value()) << c.why_not;
  EXPECT_EQ(*c.call_ns, (std::vector<double>{1300, 1200}));
  EXPECT_EQ(c.unlike_work, "");
}

TEST(ReplayCalls, CallsThatRanOtherKernelsAreNamed) {
  SampleActivity s;
  s.counted = {kernel("work", 0, 1000), kernel("work", 1000, 2000), kernel("early_exit", 2000, 2100),
               kernel("early_exit", 2100, 2200)};
  const SampleCalls c = split_sample_calls(s, 4, CuptiReduction::sum);
  ASSERT_TRUE(c.call_ns.has_value());
  EXPECT_EQ(c.unlike_work, "call 2 ran [early_exit] where call 0 ran [work]");
}

TEST(ReplayCalls, ConcurrentKernelsOfOneCallMayStartInEitherOrder) {
  SampleActivity s;
  s.counted = {kernel("main", 0, 100), kernel("side", 10, 90), kernel("side", 200, 290), kernel("main", 205, 300)};
  const SampleCalls c = split_sample_calls(s, 2, CuptiReduction::busy);
  ASSERT_TRUE(c.call_ns.has_value());
  EXPECT_EQ(c.unlike_work, "");
  EXPECT_EQ(*c.call_ns, (std::vector<double>{100, 100}));
}

TEST(ReplayCalls, ARecordCountThatNoCallCountDividesIsNotSplit) {
  SampleActivity s;
  s.counted = {kernel("a", 0, 10), kernel("a", 20, 30), kernel("a", 40, 50)};
  const SampleCalls c = split_sample_calls(s, 2, CuptiReduction::busy);
  EXPECT_FALSE(c.call_ns.has_value());
  EXPECT_EQ(c.why_not, "3 records for 2 calls: the calls issued different amounts of work, or nothing marks where "
                       "each ends");
}

TEST(ReplayCalls, CaliberOwnFlushRecordsSeparateTheCallsOfAColdReplay) {
  SampleActivity s;
  // flush, call (two kernels), flush, call (one kernel): cut at the flushes, not by count
  s.excluded = {kernel("flush", 0, 100), kernel("flush", 500, 600)};
  s.counted = {kernel("a", 100, 200), kernel("b", 200, 300), kernel("a", 600, 700)};
  const SampleCalls c = split_sample_calls(s, 2, CuptiReduction::sum);
  ASSERT_TRUE(c.call_ns.has_value());
  EXPECT_EQ(*c.call_ns, (std::vector<double>{200, 100}));
  EXPECT_EQ(c.unlike_work, "call 1 ran [a] where call 0 ran [a, b]");
}

}  // namespace
}  // namespace caliber
