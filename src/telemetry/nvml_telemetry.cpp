// Device telemetry through NVML, loaded at run time by the one NVML loader
// (src/device/nvml_library.h): caliber starts and measures where NVML is absent, and says
// "telemetry: unavailable (reason)".
#include <fmt/format.h>

#include "caliber/errors.h"
#include "caliber/telemetry.h"
#include "device/nvml_library.h"

namespace caliber {
namespace {

class NvmlTelemetryReader final : public TelemetryReader {
 public:
  NvmlTelemetryReader(std::unique_ptr<NvmlLibrary> nvml, void* device) : nvml_(std::move(nvml)), device_(device) {
    sm_clock_max_mhz_ = nvml_->max_sm_clock_mhz(device_).value_or(0);
    const auto version = nvml_->driver_version();
    source_ = version ? fmt::format("NVML, driver {} ({})", *version, nvml_->library())
                      : fmt::format("NVML ({})", nvml_->library());
  }

  TelemetrySample read() override {
    TelemetrySample s;
    s.sm_clock_mhz = nvml_->sm_clock_mhz(device_).value_or(-1);
    s.mem_clock_mhz = nvml_->mem_clock_mhz(device_).value_or(-1);
    s.temp_c = nvml_->temperature_c(device_).value_or(-1);
    s.power_w = nvml_->power_w(device_).value_or(-1);
    s.util_pct = nvml_->utilization_pct(device_).value_or(-1);
    s.throttle_reasons = nvml_->clock_event_reasons(device_).value_or(0);
    if (s.sm_clock_mhz < 0 && s.temp_c < 0 && s.power_w < 0) {
      throw DeviceError("NVML returned neither clocks, temperature nor power for the device");
    }
    return s;
  }
  int sm_clock_max_mhz() const override { return sm_clock_max_mhz_; }
  std::string source() const override { return source_; }

 private:
  std::unique_ptr<NvmlLibrary> nvml_;
  void* device_;
  int sm_clock_max_mhz_ = 0;
  std::string source_;
};

}  // namespace

std::unique_ptr<TelemetryReader> open_nvml_telemetry(const std::string& uuid, int nvml_index, std::string* why) {
  std::string reason;
  std::unique_ptr<NvmlLibrary> nvml = NvmlLibrary::open(system_shared_libraries(), &reason);
  if (nvml) {
    if (const std::string missing = nvml->missing_telemetry_function(); !missing.empty()) {
      reason = fmt::format("NVML in {} lacks {}", nvml->library(), missing);
      nvml.reset();
    }
  }
  void* device = nullptr;
  if (nvml) device = uuid.empty() ? nvml->device_by_index(nvml_index, &reason) : nvml->device_by_uuid(uuid, &reason);
  if (!device) {
    if (why) *why = reason;
    return nullptr;
  }
  return std::make_unique<NvmlTelemetryReader>(std::move(nvml), device);
}

}  // namespace caliber
