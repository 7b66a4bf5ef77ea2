// Device telemetry through NVML, loaded at run time: caliber starts and measures where NVML is
// absent, and says "telemetry: unavailable (reason)". No nvml.h is needed: the few types and
// functions used are declared here with the values NVML documents.
#include <dlfcn.h>

#include <cstdlib>

#include <fmt/format.h>

#include "caliber/errors.h"
#include "caliber/telemetry.h"

namespace caliber {
namespace {

// --- The NVML subset caliber uses (nvml.h) --------------------------------------------------
using nvmlReturn_t = int;              // NVML_SUCCESS = 0
using nvmlDevice_t = struct nvmlDevice_st*;
constexpr nvmlReturn_t kNvmlSuccess = 0;
constexpr int kNvmlClockSm = 1;        // nvmlClockType_t NVML_CLOCK_SM
constexpr int kNvmlClockMem = 2;       // nvmlClockType_t NVML_CLOCK_MEM
constexpr int kNvmlTemperatureGpu = 0; // nvmlTemperatureSensors_t NVML_TEMPERATURE_GPU
struct nvmlUtilization_t {
  unsigned int gpu;     // percent of time a kernel was executing, over the last sample period
  unsigned int memory;  // percent of time device memory was read or written
};

struct NvmlApi {
  nvmlReturn_t (*init)() = nullptr;  // nvmlInit_v2
  nvmlReturn_t (*shutdown)() = nullptr;
  const char* (*error_string)(nvmlReturn_t) = nullptr;
  nvmlReturn_t (*handle_by_index)(unsigned int, nvmlDevice_t*) = nullptr;  // _v2
  nvmlReturn_t (*handle_by_uuid)(const char*, nvmlDevice_t*) = nullptr;
  nvmlReturn_t (*clock_info)(nvmlDevice_t, int, unsigned int*) = nullptr;
  nvmlReturn_t (*max_clock_info)(nvmlDevice_t, int, unsigned int*) = nullptr;
  nvmlReturn_t (*temperature)(nvmlDevice_t, int, unsigned int*) = nullptr;
  nvmlReturn_t (*power_usage)(nvmlDevice_t, unsigned int*) = nullptr;  // milliwatts
  nvmlReturn_t (*utilization)(nvmlDevice_t, nvmlUtilization_t*) = nullptr;
  // nvmlDeviceGetCurrentClocksEventReasons (driver >= 535); older drivers: ...ThrottleReasons.
  nvmlReturn_t (*event_reasons)(nvmlDevice_t, unsigned long long*) = nullptr;
  nvmlReturn_t (*system_driver_version)(char*, unsigned int) = nullptr;
  std::string library;
};

template <typename F>
bool bind(void* lib, F& fn, const char* name) {
  fn = reinterpret_cast<F>(dlsym(lib, name));
  return fn != nullptr;
}

// Loaded once per process; the handle stays open (NVML keeps state per process).
const NvmlApi* load_nvml(std::string* why) {
  static std::string failure;
  static const NvmlApi* api = [] () -> const NvmlApi* {
    const char* forced = std::getenv("CALIBER_NVML_LIBRARY");
    const std::string name = forced && *forced ? forced : "libnvidia-ml.so.1";
    void* lib = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      const char* e = dlerror();
      failure = fmt::format("NVML not loaded: {}", e ? e : name + ": cannot open");
      return nullptr;
    }
    auto* a = new NvmlApi;
    a->library = name;
    const char* missing = nullptr;
    if (!bind(lib, a->init, "nvmlInit_v2")) missing = "nvmlInit_v2";
    else if (!bind(lib, a->shutdown, "nvmlShutdown")) missing = "nvmlShutdown";
    else if (!bind(lib, a->error_string, "nvmlErrorString")) missing = "nvmlErrorString";
    else if (!bind(lib, a->handle_by_index, "nvmlDeviceGetHandleByIndex_v2")) missing = "nvmlDeviceGetHandleByIndex_v2";
    else if (!bind(lib, a->handle_by_uuid, "nvmlDeviceGetHandleByUUID")) missing = "nvmlDeviceGetHandleByUUID";
    else if (!bind(lib, a->clock_info, "nvmlDeviceGetClockInfo")) missing = "nvmlDeviceGetClockInfo";
    else if (!bind(lib, a->temperature, "nvmlDeviceGetTemperature")) missing = "nvmlDeviceGetTemperature";
    else if (!bind(lib, a->power_usage, "nvmlDeviceGetPowerUsage")) missing = "nvmlDeviceGetPowerUsage";
    if (missing) {
      failure = fmt::format("NVML in {} lacks {}", name, missing);
      delete a;
      return nullptr;
    }
    // Optional: a reading without them leaves the field at -1 / no reasons.
    bind(lib, a->max_clock_info, "nvmlDeviceGetMaxClockInfo");
    bind(lib, a->utilization, "nvmlDeviceGetUtilizationRates");
    if (!bind(lib, a->event_reasons, "nvmlDeviceGetCurrentClocksEventReasons")) {
      bind(lib, a->event_reasons, "nvmlDeviceGetCurrentClocksThrottleReasons");
    }
    bind(lib, a->system_driver_version, "nvmlSystemGetDriverVersion");
    return a;
  }();
  if (!api && why) *why = failure;
  return api;
}

class NvmlTelemetryReader final : public TelemetryReader {
 public:
  NvmlTelemetryReader(const NvmlApi& api, nvmlDevice_t device) : api_(api), device_(device) {
    unsigned int mhz = 0;
    if (api_.max_clock_info && api_.max_clock_info(device_, kNvmlClockSm, &mhz) == kNvmlSuccess) {
      sm_clock_max_mhz_ = static_cast<int>(mhz);
    }
    char version[96] = {};
    if (api_.system_driver_version &&
        api_.system_driver_version(version, sizeof version) == kNvmlSuccess) {
      source_ = fmt::format("NVML, driver {} ({})", version, api_.library);
    } else {
      source_ = fmt::format("NVML ({})", api_.library);
    }
  }
  ~NvmlTelemetryReader() override { api_.shutdown(); }

  TelemetrySample read() override {
    TelemetrySample s;
    unsigned int v = 0;
    if (api_.clock_info(device_, kNvmlClockSm, &v) == kNvmlSuccess) s.sm_clock_mhz = static_cast<int>(v);
    if (api_.clock_info(device_, kNvmlClockMem, &v) == kNvmlSuccess) s.mem_clock_mhz = static_cast<int>(v);
    if (api_.temperature(device_, kNvmlTemperatureGpu, &v) == kNvmlSuccess) s.temp_c = static_cast<int>(v);
    if (api_.power_usage(device_, &v) == kNvmlSuccess) s.power_w = v / 1000.0;  // milliwatts
    nvmlUtilization_t u{};
    if (api_.utilization && api_.utilization(device_, &u) == kNvmlSuccess) {
      s.util_pct = static_cast<int>(u.gpu);
    }
    unsigned long long reasons = 0;
    if (api_.event_reasons && api_.event_reasons(device_, &reasons) == kNvmlSuccess) {
      s.throttle_reasons = reasons;
    }
    if (s.sm_clock_mhz < 0 && s.temp_c < 0 && s.power_w < 0) {
      throw DeviceError("NVML returned neither clocks, temperature nor power for the device");
    }
    return s;
  }
  int sm_clock_max_mhz() const override { return sm_clock_max_mhz_; }
  std::string source() const override { return source_; }

 private:
  const NvmlApi& api_;
  nvmlDevice_t device_;
  int sm_clock_max_mhz_ = 0;
  std::string source_;
};

}  // namespace

std::unique_ptr<TelemetryReader> open_nvml_telemetry(const std::string& uuid, int nvml_index,
                                                     std::string* why) {
  std::string reason;
  const NvmlApi* api = load_nvml(&reason);
  if (!api) {
    if (why) *why = reason;
    return nullptr;
  }
  nvmlReturn_t rc = api->init();
  if (rc != kNvmlSuccess) {
    if (why) *why = fmt::format("nvmlInit_v2 failed: {}", api->error_string(rc));
    return nullptr;
  }
  nvmlDevice_t device = nullptr;
  if (!uuid.empty()) {
    rc = api->handle_by_uuid(uuid.c_str(), &device);
  } else if (nvml_index >= 0) {
    rc = api->handle_by_index(static_cast<unsigned int>(nvml_index), &device);
  } else {
    rc = 2;  // NVML_ERROR_INVALID_ARGUMENT
  }
  if (rc != kNvmlSuccess) {
    if (why) {
      *why = uuid.empty()
                 ? fmt::format("NVML has no device {}: {}", nvml_index, api->error_string(rc))
                 : fmt::format("NVML has no device {}: {}", uuid, api->error_string(rc));
    }
    api->shutdown();
    return nullptr;
  }
  return std::make_unique<NvmlTelemetryReader>(*api, device);
}

}  // namespace caliber
