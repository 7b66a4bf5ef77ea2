#include <gtest/gtest.h>

#include "caliber/telemetry.h"

namespace caliber {
namespace {

TelemetrySample reading(int sm, int temp, double power, std::uint64_t reasons = 0) {
  TelemetrySample s;
  s.sm_clock_mhz = sm;
  s.mem_clock_mhz = 3201;
  s.temp_c = temp;
  s.power_w = power;
  s.util_pct = 100;
  s.throttle_reasons = reasons;
  return s;
}

TEST(TelemetrySummaryTest, MinMedianMaxClockAndPeaks) {
  const std::vector<TelemetrySample> r = {reading(1980, 41, 350.5), reading(1965, 44, 402.25),
                                          reading(1755, 47, 699.0, kThrottleSwPowerCap),
                                          reading(1980, 45, 410.0), reading(-1, -1, -1)};
  const TelemetrySummary s = summarize_telemetry(r, 10.0, 1980);
  EXPECT_TRUE(s.available);
  EXPECT_EQ(s.readings, 5);
  EXPECT_EQ(s.sm_clock_min_mhz, 1755);
  EXPECT_EQ(s.sm_clock_median_mhz, 1973);  // median of 1755, 1965, 1980, 1980 = 1972.5, rounded
  EXPECT_EQ(s.sm_clock_peak_mhz, 1980);
  EXPECT_EQ(s.max_temp_c, 47);
  EXPECT_DOUBLE_EQ(s.max_power_w, 699.0);
  EXPECT_EQ(s.throttle_reasons_seen, std::vector<std::string>{"sw_power_cap"});
  EXPECT_EQ(s.throttled_readings, 1);
  EXPECT_EQ(describe_telemetry(s),
            "telemetry: SM 1755/1973/1980 MHz (min/median/max of 5 readings every 10 ms; device max "
            "1980 MHz), max 47 C, max 699 W, reasons seen: sw_power_cap");
}

TEST(TelemetrySummaryTest, UnavailableSaysWhy) {
  const TelemetrySummary s = telemetry_unavailable("NVML not loaded: libnvidia-ml.so.1: cannot open");
  EXPECT_FALSE(s.available);
  EXPECT_EQ(describe_telemetry(s), "telemetry: unavailable (NVML not loaded: libnvidia-ml.so.1: cannot open)");
}

TEST(TelemetrySummaryTest, NothingReportedShowsQuestionMarks) {
  const std::vector<TelemetrySample> r = {reading(-1, -1, -1)};
  TelemetrySummary s = summarize_telemetry(r, 5.0, 0);
  s.flagged_samples = 3;
  s.discarded_samples = 3;
  EXPECT_EQ(describe_telemetry(s),
            "telemetry: SM ?/?/? MHz (min/median/max of 1 readings every 5 ms; device max 0 MHz), "
            "max ?, max ?, reasons seen: none; 3 samples flagged as throttled (3 discarded)");
}

}  // namespace
}  // namespace caliber
