// The background sampler with a scripted reader, an injected clock and a pacer that allows a
// fixed number of periods: deterministic, and no sleeps.
#include <gtest/gtest.h>

#include <stdexcept>

#include "telemetry/telemetry_sampler.h"

namespace caliber {
namespace {

// Reading k reports SM clock 1000 + k and moves the clock by 10 ms (the time a period takes).
class ScriptedReader final : public TelemetryReader {
 public:
  explicit ScriptedReader(ManualClock& clock, int fail_at = -1) : clock_(clock), fail_at_(fail_at) {}
  TelemetrySample read() override {
    if (reads_ == fail_at_) throw std::runtime_error("device fell off the bus");
    TelemetrySample s;
    s.sm_clock_mhz = 1000 + reads_++;
    clock_.advance_us(10000);
    return s;
  }
  int sm_clock_max_mhz() const override { return 1980; }
  std::string source() const override { return "scripted"; }
  int reads() const { return reads_; }

 private:
  ManualClock& clock_;
  int fail_at_;
  int reads_ = 0;
};

// Lets `periods` periods pass, then reports the sampler stopped.
class CountingPacer final : public TelemetryPacer {
 public:
  explicit CountingPacer(int periods) : left_(periods) {}
  bool wait(double period_ms) override {
    seen_period_ms = period_ms;
    return left_-- > 0;
  }
  void interrupt() override { ++interrupts; }
  double seen_period_ms = 0;
  int interrupts = 0;

 private:
  int left_;
};

TEST(TelemetrySamplerTest, FirstReadingAtStartThenOnePerPeriodThenALastOneAtStop) {
  ManualClock clock(5000);
  ScriptedReader reader(clock);
  CountingPacer pacer(3);
  TelemetrySampler sampler(reader, clock, 10.0, &pacer);
  sampler.start();
  const std::vector<TelemetrySample> r = sampler.stop();
  ASSERT_EQ(r.size(), 5u);  // start + 3 periods + stop
  for (std::size_t i = 0; i < r.size(); ++i) {
    EXPECT_EQ(r[i].sm_clock_mhz, 1000 + static_cast<int>(i));
    // Each reading is stamped after the read returns: 10, 20, ... ms after the origin.
    EXPECT_DOUBLE_EQ(r[i].timestamp_ms, 10.0 * static_cast<double>(i + 1));
  }
  EXPECT_DOUBLE_EQ(sampler.origin_us(), 5000.0);
  EXPECT_DOUBLE_EQ(pacer.seen_period_ms, 10.0);
  EXPECT_EQ(pacer.interrupts, 1);
  EXPECT_EQ(sampler.error(), "");
}

TEST(TelemetrySamplerTest, AFailingReaderStopsSamplingAndSaysWhy) {
  ManualClock clock;
  ScriptedReader reader(clock, 2);
  CountingPacer pacer(5);
  TelemetrySampler sampler(reader, clock, 10.0, &pacer);
  sampler.start();
  const std::vector<TelemetrySample> r = sampler.stop();
  EXPECT_EQ(r.size(), 2u);  // readings 0 and 1; the third read threw, nothing after it
  EXPECT_EQ(sampler.error(), "device fell off the bus");
  EXPECT_EQ(reader.reads(), 2);
}

TEST(TelemetrySamplerTest, DestroyingARunningSamplerStopsItsThread) {
  ManualClock clock;
  ScriptedReader reader(clock);
  CountingPacer pacer(0);
  {
    TelemetrySampler sampler(reader, clock, 10.0, &pacer);
    sampler.start();
  }  // no stop(): the destructor joins
  EXPECT_EQ(reader.reads(), 1);
}

TEST(TelemetrySamplerTest, RealTimePacerReturnsFalseOnceInterrupted) {
  RealTimePacer pacer;
  pacer.interrupt();
  EXPECT_FALSE(pacer.wait(60000.0));  // would wait a minute if the interrupt were lost
}

}  // namespace
}  // namespace caliber
