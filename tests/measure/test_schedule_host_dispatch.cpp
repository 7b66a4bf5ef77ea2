// host dispatch: the host clock around the launch only; the device is drained outside the sample.
#include <gtest/gtest.h>

#include "measure/schedule.h"
#include "support/fixed_contract.h"
#include "support/schedule_harness.h"

namespace caliber::measurement {
namespace {

using testing_support::ScheduleHarness;

TEST(ScheduleHostDispatch, TheDrainIsOutsideEverySample) {
  Contract c = testing_support::fixed_cuda_contract(Schedule::isolated, CachePolicy::warm, 2, 1);
  c.instrument = Instrument::wallclock;
  c.quantity = Quantity::host_dispatch;
  ScheduleHarness h(c);
  const std::vector<double> d = host_dispatch_schedule(h.site)->run(2, false);
  // The recording call moves the clock by 5 us; the syncs (3 us each) are not in the samples.
  EXPECT_EQ(d, (std::vector<double>{5.0, 5.0}));
  const std::vector<std::string> want = {"sync", "call", "sync", "sync", "call", "sync"};
  EXPECT_EQ(h.backend.events, want);
  EXPECT_EQ(h.site.timed_calls(), 2u);
  // The window runs from the launch until the drain after it returned.
  ASSERT_EQ(h.site.windows().size(), 2u);
  EXPECT_DOUBLE_EQ(h.site.windows()[0].begin_us, 3.0);
  EXPECT_DOUBLE_EQ(h.site.windows()[0].end_us, 11.0);
}

}  // namespace
}  // namespace caliber::measurement
