// Device telemetry: clocks, temperature, power, utilization and clock-event (throttle) reasons,
// sampled in the background while a measurement runs. Evidence, not a gate: a measurement goes
// on without it, and says so. docs/telemetry.md documents the period and the throttle rule.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace caliber {

// One reading. A value the device does not report is -1.
struct TelemetrySample {
  double timestamp_ms = 0;         // host steady clock, milliseconds since the sampler started
  int sm_clock_mhz = -1;
  int mem_clock_mhz = -1;
  int temp_c = -1;                 // GPU temperature, degrees Celsius
  double power_w = -1;             // board power draw, watts
  int util_pct = -1;               // percent of the last sample period a kernel was running
  std::uint64_t throttle_reasons = 0;  // clock-event reason bits (kThrottle* below); 0 = none
  friend bool operator==(const TelemetrySample&, const TelemetrySample&) = default;
};

// Clock-event ("throttle") reason bits, with the values NVML documents for
// nvmlClocksEventReason* (nvml.h).
inline constexpr std::uint64_t kThrottleGpuIdle = 0x1;
inline constexpr std::uint64_t kThrottleApplicationsClocksSetting = 0x2;
inline constexpr std::uint64_t kThrottleSwPowerCap = 0x4;
inline constexpr std::uint64_t kThrottleHwSlowdown = 0x8;
inline constexpr std::uint64_t kThrottleSyncBoost = 0x10;
inline constexpr std::uint64_t kThrottleSwThermalSlowdown = 0x20;
inline constexpr std::uint64_t kThrottleHwThermalSlowdown = 0x40;
inline constexpr std::uint64_t kThrottleHwPowerBrakeSlowdown = 0x80;
inline constexpr std::uint64_t kThrottleDisplayClockSetting = 0x100;
// The reasons that slow a running kernel down: power and thermal limits.
inline constexpr std::uint64_t kThrottlePowerOrThermal =
    kThrottleSwPowerCap | kThrottleHwSlowdown | kThrottleSwThermalSlowdown |
    kThrottleHwThermalSlowdown | kThrottleHwPowerBrakeSlowdown;

// "sw_power_cap", "hw_thermal_slowdown", ...; an unknown bit as "unknown_0x200".
std::vector<std::string> throttle_reason_names(std::uint64_t reasons);
// Names joined with '|', or "none".
std::string describe_throttle_reasons(std::uint64_t reasons);
// Inverse of throttle_reason_names for one name; throws UsageError for an unknown name.
std::uint64_t parse_throttle_reason(const std::string& name);

// When a reading says a sample ran throttled (docs/telemetry.md: defaults and why).
struct ThrottleRule {
  // The SM clock below this fraction of the device's maximum SM clock flags a reading, unless the
  // reading says the GPU was idle (an idle GPU's clock says nothing about a running kernel).
  double min_sm_clock_fraction = 0.90;
  // Any of these reasons flags a reading.
  std::uint64_t reasons = kThrottlePowerOrThermal;
  // A result with more than this fraction of flagged samples is not stable.
  double max_flagged_fraction = 0.10;
};

bool reading_is_throttled(const TelemetrySample& reading, int sm_clock_max_mhz,
                          const ThrottleRule& rule = {});

// The host-time interval in which a measured sample's device work may have run, in the
// sampler's milliseconds: from the host launching it to the host seeing it complete.
struct SampleWindow {
  double begin_ms = 0;
  double end_ms = 0;
};

// flags[i]: sample i may have run throttled: a throttled reading lies inside its window, or the
// last reading before the window began (the state the sample started in) is throttled.
// `readings` must be in time order.
std::vector<bool> flag_throttled_samples(std::span<const SampleWindow> windows,
                                         std::span<const TelemetrySample> readings,
                                         int sm_clock_max_mhz, const ThrottleRule& rule = {});

// The rule's reasons (power and thermal by default) reported by the readings that can flag a
// window, the same readings flag_throttled_samples looks at: what may have slowed the samples.
std::uint64_t throttle_reasons_during(std::span<const SampleWindow> windows,
                                      std::span<const TelemetrySample> readings,
                                      const ThrottleRule& rule = {});

// What a result says about the device while it was measured.
struct TelemetrySummary {
  bool available = false;
  std::string unavailable_reason = "not sampled";  // why there is no telemetry, when !available
  double period_ms = 0;            // sampling period
  std::int64_t readings = 0;
  int sm_clock_max_mhz = 0;        // the device's maximum SM clock the rule compares against
  int sm_clock_min_mhz = -1, sm_clock_median_mhz = -1, sm_clock_peak_mhz = -1;  // over readings
  int max_temp_c = -1;
  double max_power_w = -1;
  std::vector<std::string> throttle_reasons_seen;  // union over readings, in bit order
  std::int64_t throttled_readings = 0;  // readings the rule flags
  std::int64_t flagged_samples = 0;     // measured samples that may have run throttled
  std::int64_t discarded_samples = 0;   // of those, removed under throttle policy discard
  friend bool operator==(const TelemetrySummary&, const TelemetrySummary&) = default;
};

// Summary of readings (flagged/discarded sample counts are left at 0 for the caller to fill).
TelemetrySummary summarize_telemetry(std::span<const TelemetrySample> readings, double period_ms,
                                     int sm_clock_max_mhz, const ThrottleRule& rule = {});
TelemetrySummary telemetry_unavailable(std::string reason);

// One line for tables: "telemetry: SM 1980/1980/1980 MHz (min/median/max), max 61 C, max 402 W,
// reasons: none" or "telemetry: unavailable (reason)".
std::string describe_telemetry(const TelemetrySummary& summary);

// Reads one device's telemetry. Implementations: NVML (src/telemetry/nvml_telemetry.cpp), and
// test doubles. read() fills what the device reports and leaves the rest at -1; it throws
// DeviceError only when the device cannot be read at all.
class TelemetryReader {
 public:
  virtual ~TelemetryReader() = default;
  virtual TelemetrySample read() = 0;
  virtual int sm_clock_max_mhz() const = 0;  // 0 when unknown
  virtual std::string source() const = 0;    // "NVML 580.95.05 (libnvidia-ml.so.1)"
};

// Decides when the sampler's next reading is due (real time in production; tests inject one).
class TelemetryPacer {
 public:
  virtual ~TelemetryPacer() = default;
  // Waits until the next reading is due. Returns false once interrupt() was called: stop reading.
  virtual bool wait(double period_ms) = 0;
  virtual void interrupt() = 0;
};

// Opens NVML (dlopen of libnvidia-ml.so.1, or $CALIBER_NVML_LIBRARY) for the GPU with this UUID
// ("GPU-...") or, when uuid is empty, this NVML index. Returns null and sets *why when NVML or the
// device is not there.
std::unique_ptr<TelemetryReader> open_nvml_telemetry(const std::string& uuid, int nvml_index,
                                                     std::string* why);

}  // namespace caliber
