#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "backends/host_clock_timer.h"

namespace caliber {
namespace {

TEST(HostClockTimer, EachSampleIsStopMinusStartOnTheInjectedClock) {
  ManualClock clock(100.0);
  HostClockTimer timer(clock);
  EXPECT_EQ(timer.instrument(), Instrument::wallclock);
  EXPECT_TRUE(timer.reads_host_clock());
  timer.reset(2);
  timer.start(0);
  clock.advance_us(2.5);
  timer.stop(0);
  clock.advance_us(10.0);  // between samples: in no window
  timer.start(1);
  clock.advance_us(4.0);
  timer.stop(1);
  EXPECT_EQ(timer.collect_us(2), (std::vector<double>{2.5, 4.0}));
}

TEST(HostClockTimer, ResetClearsEarlierMarksAndBoundsTheSamples) {
  ManualClock clock;
  HostClockTimer timer(clock);
  timer.reset(1);
  timer.start(0);
  clock.advance_us(7.0);
  timer.stop(0);
  timer.reset(1);
  EXPECT_EQ(timer.collect_us(1), (std::vector<double>{0.0}));
  EXPECT_THROW(timer.start(1), std::out_of_range);
}

}  // namespace
}  // namespace caliber
