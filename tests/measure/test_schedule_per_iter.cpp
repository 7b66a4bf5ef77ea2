// per_iter: a window around each call, no sync between calls, one sync at the end of the batch.
#include <gtest/gtest.h>

#include "measure/schedule.h"
#include "support/fixed_contract.h"
#include "support/schedule_harness.h"

namespace caliber::measurement {
namespace {

using testing_support::ScheduleHarness;

TEST(SchedulePerIter, FlushesBetweenWindowsAndSyncsOnceAtTheEnd) {
  ScheduleHarness h(testing_support::fixed_cuda_contract(Schedule::per_iter, CachePolicy::cold, 2, 1));
  const std::vector<double> d = per_iter_schedule(h.site, *h.timer)->run(2, false);
  EXPECT_EQ(d, (std::vector<double>{5.0, 5.0}));
  const std::vector<std::string> want = {"flush", "start0", "call", "stop0", "flush", "start1", "call", "stop1", "sync"};
  EXPECT_EQ(h.backend.events, want);
  EXPECT_EQ(h.site.timed_calls(), 2u);
}

TEST(SchedulePerIter, EverySampleMayRunUntilTheBatchsSyncReturns) {
  ScheduleHarness h(testing_support::fixed_cuda_contract(Schedule::per_iter, CachePolicy::cold, 2, 1));
  per_iter_schedule(h.site, *h.timer)->run(2, false);
  // Windows open after each flush (at 1000 and 2005 us) and all close when the sync returns (2013 us).
  ASSERT_EQ(h.site.windows().size(), 2u);
  EXPECT_DOUBLE_EQ(h.site.windows()[0].begin_us, 1000.0);
  EXPECT_DOUBLE_EQ(h.site.windows()[1].begin_us, 2005.0);
  EXPECT_DOUBLE_EQ(h.site.windows()[0].end_us, 2013.0);
  EXPECT_DOUBLE_EQ(h.site.windows()[1].end_us, 2013.0);
}

TEST(SchedulePerIter, CallsCycleThroughTheInputCopiesUnderRotation) {
  ScheduleHarness h(testing_support::fixed_cuda_contract(Schedule::per_iter, CachePolicy::rotate, 4, 1));
  h.site.rotation() = InputRotation(3);
  per_iter_schedule(h.site, *h.timer)->run(4, false);
  std::vector<std::size_t> rot, index;
  for (const LaunchContext& c : h.backend.calls) {
    rot.push_back(c.rotation);
    index.push_back(c.call_index);
  }
  EXPECT_EQ(rot, (std::vector<std::size_t>{0, 1, 2, 0}));
  EXPECT_EQ(index, (std::vector<std::size_t>{0, 1, 2, 3}));
}

}  // namespace
}  // namespace caliber::measurement
