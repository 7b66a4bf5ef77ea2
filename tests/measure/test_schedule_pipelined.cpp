// pipelined: one window around N back-to-back calls; its one sample is the mean per call.
#include <gtest/gtest.h>

#include "measure/schedule.h"
#include "support/fixed_contract.h"
#include "support/schedule_harness.h"

namespace caliber::measurement {
namespace {

using testing_support::ScheduleHarness;

TEST(SchedulePipelined, OneWindowAroundNCallsIsOneSample) {
  ScheduleHarness h(testing_support::fixed_cuda_contract(Schedule::pipelined, CachePolicy::warm, 4, 1));
  const std::vector<double> d = pipelined_schedule(h.site, *h.timer)->run(4, false);
  EXPECT_EQ(d, std::vector<double>{5.0});  // 20 us / 4 calls
  const std::vector<std::string> want = {"start0", "call", "call", "call", "call", "stop0", "sync"};
  EXPECT_EQ(h.backend.events, want);
  EXPECT_EQ(h.site.timed_calls(), 4u);
  ASSERT_EQ(h.site.windows().size(), 1u);  // one sample, one window: from its start to the sync
  EXPECT_DOUBLE_EQ(h.site.windows()[0].begin_us, 0.0);
  EXPECT_DOUBLE_EQ(h.site.windows()[0].end_us, 23.0);
}

}  // namespace
}  // namespace caliber::measurement
