// isolated: each call alone, after its preparation and a full-device sync; nothing else in its window.
#include <gtest/gtest.h>

#include "measure/schedule.h"
#include "support/fixed_contract.h"
#include "support/schedule_harness.h"

namespace caliber::measurement {
namespace {

using testing_support::ScheduleHarness;

TEST(ScheduleIsolated, EachWindowHoldsTheCallAloneBetweenTwoSyncs) {
  ScheduleHarness h(testing_support::fixed_cuda_contract(Schedule::isolated, CachePolicy::cold, 2, 1));
  const std::vector<double> d = isolated_schedule(h.site, *h.timer)->run(2, false);
  EXPECT_EQ(d, (std::vector<double>{5.0, 5.0}));  // the call only: no flush (1000), no sync (3)
  const std::vector<std::string> want = {"flush", "sync", "start0", "call", "stop0", "sync",
                                         "flush", "sync", "start1", "call", "stop1", "sync"};
  EXPECT_EQ(h.backend.events, want);
  EXPECT_EQ(h.site.timed_calls(), 2u);
  // Each host window opens after the flush and sync (1000 + 3 us) and closes after the sync that
  // ends the call (5 + 3 us).
  ASSERT_EQ(h.site.windows().size(), 2u);
  EXPECT_DOUBLE_EQ(h.site.windows()[0].begin_us, 1003.0);
  EXPECT_DOUBLE_EQ(h.site.windows()[0].end_us, 1011.0);
  EXPECT_DOUBLE_EQ(h.site.windows()[1].begin_us, 2014.0);
  EXPECT_DOUBLE_EQ(h.site.windows()[1].end_us, 2022.0);
}

TEST(ScheduleIsolated, AHostClockTimerDrainsTheDeviceBeforeItStops) {
  Contract c = testing_support::fixed_cuda_contract(Schedule::isolated, CachePolicy::warm, 1, 1);
  c.instrument = Instrument::wallclock;
  ScheduleHarness h(c);
  const std::vector<double> d = isolated_schedule(h.site, *h.timer)->run(1, false);
  EXPECT_EQ(d, std::vector<double>{8.0});  // launch + run + the drain: what a waiting caller sees
  const std::vector<std::string> want = {"sync", "start0", "call", "sync", "stop0", "sync"};
  EXPECT_EQ(h.backend.events, want);
}

TEST(ScheduleIsolated, PreparationRunsBeforeTheSyncThatOpensTheWindow) {
  ScheduleHarness h(testing_support::fixed_cuda_contract(Schedule::isolated, CachePolicy::warm, 1, 1));
  h.prepare = [&h] { h.backend.log("prepare"); };
  isolated_schedule(h.site, *h.timer)->run(1, false);
  const std::vector<std::string> want = {"prepare", "sync", "start0", "call", "stop0", "sync"};
  EXPECT_EQ(h.backend.events, want);
}

}  // namespace
}  // namespace caliber::measurement
