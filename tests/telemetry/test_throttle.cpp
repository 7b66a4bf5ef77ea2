// Throttle detection on literal readings: which readings are throttled, and which measured
// samples may have run during one.
#include <gtest/gtest.h>

#include "caliber/errors.h"
#include "caliber/telemetry.h"

namespace caliber {
namespace {

TelemetrySample reading(double t_ms, int sm_mhz, std::uint64_t reasons = 0) {
  TelemetrySample s;
  s.timestamp_ms = t_ms;
  s.sm_clock_mhz = sm_mhz;
  s.throttle_reasons = reasons;
  return s;
}

TEST(Throttle, ReasonNamesFollowNvmlBits) {
  EXPECT_EQ(throttle_reason_names(kThrottleSwPowerCap | kThrottleHwThermalSlowdown),
            (std::vector<std::string>{"sw_power_cap", "hw_thermal_slowdown"}));
  EXPECT_EQ(describe_throttle_reasons(0), "none");
  EXPECT_EQ(describe_throttle_reasons(kThrottleGpuIdle | 0x200), "gpu_idle|unknown_0x200");
  EXPECT_EQ(parse_throttle_reason("hw_power_brake_slowdown"), 0x80u);
  EXPECT_EQ(parse_throttle_reason("unknown_0x200"), 0x200u);
  EXPECT_THROW(parse_throttle_reason("too_hot"), UsageError);
  EXPECT_THROW(parse_throttle_reason("unknown_0x3"), UsageError);  // not a single bit
}

TEST(Throttle, AReadingIsThrottledBelowNinetyPercentOrUnderPowerOrThermalLimits) {
  const int max = 1980;
  EXPECT_FALSE(reading_is_throttled(reading(0, 1980), max));
  EXPECT_FALSE(reading_is_throttled(reading(0, 1782), max));  // exactly 90%
  EXPECT_TRUE(reading_is_throttled(reading(0, 1781), max));
  EXPECT_TRUE(reading_is_throttled(reading(0, 1980, kThrottleSwPowerCap), max));
  EXPECT_TRUE(reading_is_throttled(reading(0, 1980, kThrottleHwThermalSlowdown), max));
  // Idle clocks say nothing about a running kernel; sync boost and app clocks are not limits.
  EXPECT_FALSE(reading_is_throttled(reading(0, 345, kThrottleGpuIdle), max));
  EXPECT_FALSE(reading_is_throttled(reading(0, 1980, kThrottleSyncBoost), max));
  // Unknown clock or unknown maximum: only reasons count.
  EXPECT_FALSE(reading_is_throttled(reading(0, -1), max));
  EXPECT_FALSE(reading_is_throttled(reading(0, 900), 0));
  ThrottleRule strict;
  strict.min_sm_clock_fraction = 0.99;
  EXPECT_TRUE(reading_is_throttled(reading(0, 1950), max, strict));
}

TEST(Throttle, SamplesAreFlaggedByTheReadingsThatOverlapThem) {
  // Readings every 10 ms; the one at 20 ms is power-capped.
  const std::vector<TelemetrySample> r = {reading(0, 1980), reading(10, 1980),
                                          reading(20, 1700, kThrottleSwPowerCap), reading(30, 1980),
                                          reading(40, 1980)};
  const std::vector<SampleWindow> w = {
      {1, 5},    // between readings 0 and 10, started under a good reading
      {12, 18},  // started after the good 10 ms reading, ended before the throttled one
      {15, 25},  // the throttled reading lies inside
      {22, 28},  // started while the 20 ms reading (throttled) was the latest state
      {31, 39},  // back to normal
      {5, 45},   // a long window of a per_iter batch: includes the throttled reading
  };
  EXPECT_EQ(flag_throttled_samples(w, r, 1980),
            (std::vector<bool>{false, false, true, true, false, true}));
}

TEST(Throttle, TheReasonsDuringTheSamplesAreThoseOfTheReadingsThatCanFlagThem) {
  // Readings at 0, 10, 20, 30, 40 ms. Samples [11, 12] and [13, 21]: the readings they can see
  // are 10 (the state they started in) and 20 (inside the second). The power cap at 0 ms and the
  // thermal slowdown at 40 ms are outside every sample; the sync boost at 10 ms is not a reason
  // of the rule (power and thermal only).
  const std::vector<TelemetrySample> r = {
      reading(0, 1500, kThrottleSwPowerCap), reading(10, 1980, kThrottleSyncBoost),
      reading(20, 1700, kThrottleHwSlowdown | kThrottleGpuIdle), reading(30, 1980),
      reading(40, 1400, kThrottleSwThermalSlowdown)};
  const std::vector<SampleWindow> w = {{11, 12}, {13, 21}};
  EXPECT_EQ(throttle_reasons_during(w, r), kThrottleHwSlowdown);
  // A window starting before the first reading sees the readings inside it only.
  EXPECT_EQ(throttle_reasons_during(std::vector<SampleWindow>{{-5, 1}}, r), kThrottleSwPowerCap);
  EXPECT_EQ(throttle_reasons_during(std::vector<SampleWindow>{{31, 35}}, r), 0u);
  EXPECT_EQ(throttle_reasons_during(w, {}), 0u);
}

TEST(Throttle, NoReadingsFlagNothing) {
  const std::vector<SampleWindow> w = {{0, 1}};
  EXPECT_EQ(flag_throttled_samples(w, {}, 1980), std::vector<bool>{false});
}

}  // namespace
}  // namespace caliber
