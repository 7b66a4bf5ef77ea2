// What a result says about the device while it was measured.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "caliber/statistics.h"
#include "caliber/telemetry.h"

namespace caliber {

TelemetrySummary summarize_telemetry(std::span<const TelemetrySample> readings, double period_ms,
                                     int sm_clock_max_mhz, const ThrottleRule& rule) {
  TelemetrySummary s;
  s.available = true;
  s.period_ms = period_ms;
  s.readings = static_cast<std::int64_t>(readings.size());
  s.sm_clock_max_mhz = sm_clock_max_mhz;
  std::vector<double> sm;
  std::uint64_t reasons = 0;
  for (const TelemetrySample& r : readings) {
    if (r.sm_clock_mhz >= 0) sm.push_back(r.sm_clock_mhz);
    s.max_temp_c = std::max(s.max_temp_c, r.temp_c);
    s.max_power_w = std::max(s.max_power_w, r.power_w);
    reasons |= r.throttle_reasons;
    if (reading_is_throttled(r, sm_clock_max_mhz, rule)) ++s.throttled_readings;
  }
  if (!sm.empty()) {
    const auto [lo, hi] = std::minmax_element(sm.begin(), sm.end());
    s.sm_clock_min_mhz = static_cast<int>(*lo);
    s.sm_clock_peak_mhz = static_cast<int>(*hi);
    s.sm_clock_median_mhz = static_cast<int>(std::lround(median(sm)));
  }
  s.throttle_reasons_seen = throttle_reason_names(reasons);
  return s;
}

TelemetrySummary telemetry_unavailable(std::string reason) {
  TelemetrySummary s;
  s.available = false;
  s.unavailable_reason = std::move(reason);
  return s;
}

std::string describe_telemetry(const TelemetrySummary& s) {
  if (!s.available) return fmt::format("telemetry: unavailable ({})", s.unavailable_reason);
  auto value = [](auto v, const char* unit) {
    return v < 0 ? std::string("?") : fmt::format("{:g}{}", static_cast<double>(v), unit);
  };
  std::string reasons;
  for (const auto& r : s.throttle_reasons_seen) reasons += (reasons.empty() ? "" : "|") + r;
  std::string out = fmt::format(
      "telemetry: SM {}/{}/{} MHz (min/median/max of {} readings every {:g} ms; device max {} MHz), "
      "max {}, max {}, reasons seen: {}",
      value(s.sm_clock_min_mhz, ""), value(s.sm_clock_median_mhz, ""), value(s.sm_clock_peak_mhz, ""),
      s.readings, s.period_ms, s.sm_clock_max_mhz, value(s.max_temp_c, " C"),
      value(std::round(s.max_power_w), " W"), reasons.empty() ? "none" : reasons);
  if (s.flagged_samples > 0) {
    out += fmt::format("; {} samples flagged as throttled", s.flagged_samples);
    if (s.discarded_samples > 0) out += fmt::format(" ({} discarded)", s.discarded_samples);
  }
  return out;
}

}  // namespace caliber
