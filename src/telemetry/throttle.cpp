// Throttle detection: which readings say the device was slowed down, and which measured samples
// may have run during such a reading. docs/telemetry.md explains the rule and its defaults.
#include <algorithm>
#include <array>
#include <utility>

#include <fmt/format.h>

#include "caliber/errors.h"
#include "caliber/telemetry.h"

namespace caliber {
namespace {

constexpr std::array<std::pair<std::uint64_t, const char*>, 9> kReasonNames{{
    {kThrottleGpuIdle, "gpu_idle"},
    {kThrottleApplicationsClocksSetting, "applications_clocks_setting"},
    {kThrottleSwPowerCap, "sw_power_cap"},
    {kThrottleHwSlowdown, "hw_slowdown"},
    {kThrottleSyncBoost, "sync_boost"},
    {kThrottleSwThermalSlowdown, "sw_thermal_slowdown"},
    {kThrottleHwThermalSlowdown, "hw_thermal_slowdown"},
    {kThrottleHwPowerBrakeSlowdown, "hw_power_brake_slowdown"},
    {kThrottleDisplayClockSetting, "display_clock_setting"},
}};

}  // namespace

std::vector<std::string> throttle_reason_names(std::uint64_t reasons) {
  std::vector<std::string> out;
  for (int bit = 0; bit < 64; ++bit) {
    const std::uint64_t mask = std::uint64_t{1} << bit;
    if (!(reasons & mask)) continue;
    std::string name = fmt::format("unknown_{:#x}", mask);
    for (const auto& [m, n] : kReasonNames) {
      if (m == mask) name = n;
    }
    out.push_back(std::move(name));
  }
  return out;
}

std::string describe_throttle_reasons(std::uint64_t reasons) {
  if (reasons == 0) return "none";
  std::string out;
  for (const auto& n : throttle_reason_names(reasons)) out += (out.empty() ? "" : "|") + n;
  return out;
}

std::uint64_t parse_throttle_reason(const std::string& name) {
  for (const auto& [m, n] : kReasonNames) {
    if (name == n) return m;
  }
  if (name.rfind("unknown_0x", 0) == 0) {
    std::size_t used = 0;
    try {
      const std::uint64_t v = std::stoull(name.substr(8), &used, 16);
      if (used == name.size() - 8 && v != 0 && (v & (v - 1)) == 0) return v;
    } catch (const std::exception&) {
    }
  }
  throw UsageError(fmt::format("unknown throttle reason '{}'", name));
}

bool reading_is_throttled(const TelemetrySample& r, int sm_clock_max_mhz, const ThrottleRule& rule) {
  if (r.throttle_reasons & rule.reasons) return true;
  const bool idle = (r.throttle_reasons & kThrottleGpuIdle) != 0;
  if (idle || r.sm_clock_mhz < 0 || sm_clock_max_mhz <= 0) return false;
  return r.sm_clock_mhz < rule.min_sm_clock_fraction * sm_clock_max_mhz;
}

namespace {

// For each window, the readings that can say it ran throttled: [first, last) is the last reading
// at or before the window began (the state the sample started in) and every reading inside it.
template <typename Visit>
void for_each_window_reading(std::span<const SampleWindow> windows, std::span<const TelemetrySample> readings,
                             Visit&& visit) {
  // Index of the first reading later than t.
  auto first_after = [&](double t) {
    return static_cast<std::size_t>(
        std::upper_bound(readings.begin(), readings.end(), t,
                         [](double v, const TelemetrySample& r) { return v < r.timestamp_ms; }) -
        readings.begin());
  };
  for (std::size_t i = 0; i < windows.size(); ++i) {
    const std::size_t a = first_after(windows[i].begin_ms);
    const std::size_t b = std::max(a, first_after(windows[i].end_ms));
    visit(i, a > 0 ? a - 1 : a, b);
  }
}

}  // namespace

std::vector<bool> flag_throttled_samples(std::span<const SampleWindow> windows,
                                         std::span<const TelemetrySample> readings,
                                         int sm_clock_max_mhz, const ThrottleRule& rule) {
  // throttled_before[k]: throttled readings among readings[0, k).
  std::vector<std::size_t> throttled_before(readings.size() + 1, 0);
  for (std::size_t k = 0; k < readings.size(); ++k) {
    throttled_before[k + 1] =
        throttled_before[k] + (reading_is_throttled(readings[k], sm_clock_max_mhz, rule) ? 1 : 0);
  }
  std::vector<bool> flags(windows.size(), false);
  for_each_window_reading(windows, readings, [&](std::size_t i, std::size_t first, std::size_t last) {
    flags[i] = throttled_before[last] > throttled_before[first];
  });
  return flags;
}

std::uint64_t throttle_reasons_during(std::span<const SampleWindow> windows,
                                      std::span<const TelemetrySample> readings, const ThrottleRule& rule) {
  // Mark the readings some window can see (a difference array over reading indices, so the cost
  // is windows + readings however much the windows of a batch overlap), then union their reasons.
  std::vector<std::int64_t> opened(readings.size() + 1, 0);
  for_each_window_reading(windows, readings, [&](std::size_t, std::size_t first, std::size_t last) {
    ++opened[first];
    --opened[last];
  });
  std::uint64_t reasons = 0;
  std::int64_t open = 0;
  for (std::size_t k = 0; k < readings.size(); ++k) {
    open += opened[k];
    if (open > 0) reasons |= readings[k].throttle_reasons & rule.reasons;
  }
  return reasons;
}

}  // namespace caliber
