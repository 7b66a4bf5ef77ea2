// The schedule a contract gets, and the two steps every timed schedule shares.
#include <gtest/gtest.h>

#include <stdexcept>

#include "measure/schedule.h"
#include "support/fixed_contract.h"
#include "support/schedule_harness.h"

namespace caliber::measurement {
namespace {

using testing_support::ScheduleHarness;

TEST(Schedule, TheContractsScheduleIsTheUnit) {
  ScheduleHarness h(testing_support::fixed_cuda_contract(Schedule::per_iter, CachePolicy::warm, 2, 1));
  make_schedule(h.site, h.timer.get(), {})->run(2, false);
  EXPECT_EQ(h.backend.events, (std::vector<std::string>{"start0", "call", "stop0", "start1", "call", "stop1", "sync"}));
}

TEST(Schedule, HostDispatchIsTimedByTheHostClockWhateverTheSchedule) {
  Contract c = testing_support::fixed_cuda_contract(Schedule::per_iter, CachePolicy::warm, 1, 1);
  c.instrument = Instrument::wallclock;
  c.quantity = Quantity::host_dispatch;
  ScheduleHarness h(c);
  make_schedule(h.site, nullptr, {})->run(1, false);
  EXPECT_EQ(h.backend.events, (std::vector<std::string>{"sync", "call", "sync"}));
}

TEST(Schedule, DeviceTimeNeedsATimer) {
  ScheduleHarness h(testing_support::fixed_cuda_contract(Schedule::isolated, CachePolicy::warm, 1, 1));
  EXPECT_THROW(make_schedule(h.site, nullptr, {}), std::logic_error);
}

TEST(Schedule, OnlyAHostClockTimerDrainsTheDeviceBeforeStopping) {
  ScheduleHarness events(testing_support::fixed_cuda_contract(Schedule::isolated, CachePolicy::warm, 1, 1));
  events.timer->reset(1);
  stop_window(events.site, *events.timer, 0);
  EXPECT_EQ(events.backend.events, std::vector<std::string>{"stop0"});

  Contract c = testing_support::fixed_cuda_contract(Schedule::isolated, CachePolicy::warm, 1, 1);
  c.instrument = Instrument::wallclock;
  ScheduleHarness wall(c);
  wall.timer->reset(1);
  stop_window(wall.site, *wall.timer, 0);
  EXPECT_EQ(wall.backend.events, (std::vector<std::string>{"sync", "stop0"}));
}

}  // namespace
}  // namespace caliber::measurement
