#include "device/nvml_library.h"

#include <cstdlib>

#include <fmt/format.h>

namespace caliber {
namespace {

// NVML's ABI, as documented in nvml.h (NVML API version 12).
using nvmlReturn_t = int;
using nvmlDevice_t = void*;
constexpr nvmlReturn_t kNvmlSuccess = 0;
constexpr nvmlReturn_t kNvmlErrorInsufficientSize = 7;
constexpr int kNvmlClockSm = 1;         // nvmlClockType_t NVML_CLOCK_SM
constexpr int kNvmlClockMem = 2;        // nvmlClockType_t NVML_CLOCK_MEM
constexpr int kNvmlTemperatureGpu = 0;  // nvmlTemperatureSensors_t NVML_TEMPERATURE_GPU

// nvmlProcessInfo_t as taken by nvmlDeviceGetComputeRunningProcesses_v3 (nvmlProcessInfo_v2_t layout).
struct NvmlProcessInfo {
  unsigned int pid;
  unsigned long long usedGpuMemory;  // NVML_VALUE_NOT_AVAILABLE (all ones) when unknown
  unsigned int gpuInstanceId;
  unsigned int computeInstanceId;
};

struct NvmlUtilization {
  unsigned int gpu;     // percent of time a kernel was executing, over the last sample period
  unsigned int memory;  // percent of time device memory was read or written
};

}  // namespace

struct NvmlLibrary::Api {
  nvmlReturn_t (*init)() = nullptr;  // nvmlInit_v2
  nvmlReturn_t (*shutdown)() = nullptr;
  const char* (*error_string)(nvmlReturn_t) = nullptr;
  nvmlReturn_t (*by_uuid)(const char*, nvmlDevice_t*) = nullptr;
  nvmlReturn_t (*by_index)(unsigned int, nvmlDevice_t*) = nullptr;  // _v2
  nvmlReturn_t (*clock_info)(nvmlDevice_t, int, unsigned int*) = nullptr;
  nvmlReturn_t (*max_clock_info)(nvmlDevice_t, int, unsigned int*) = nullptr;
  nvmlReturn_t (*temperature)(nvmlDevice_t, int, unsigned int*) = nullptr;
  nvmlReturn_t (*power_usage)(nvmlDevice_t, unsigned int*) = nullptr;  // milliwatts
  nvmlReturn_t (*utilization)(nvmlDevice_t, NvmlUtilization*) = nullptr;
  // nvmlDeviceGetCurrentClocksEventReasons (driver >= 535); older drivers: ...ThrottleReasons.
  nvmlReturn_t (*event_reasons)(nvmlDevice_t, unsigned long long*) = nullptr;
  nvmlReturn_t (*system_driver_version)(char*, unsigned int) = nullptr;
  nvmlReturn_t (*compute_processes)(nvmlDevice_t, unsigned int*, NvmlProcessInfo*) = nullptr;
  nvmlReturn_t (*process_name)(unsigned int, char*, unsigned int) = nullptr;

  std::string text(nvmlReturn_t rc) const {
    return error_string ? fmt::format("{} (NVML error {})", error_string(rc), rc) : fmt::format("NVML error {}", rc);
  }
};

namespace {

// Binds `name` to `out`; false (out left null) when the library lacks it.
template <typename F>
bool bind(SharedLibraries& libs, void* handle, const char* name, F*& out) {
  std::string err;
  out = reinterpret_cast<F*>(libs.symbol(handle, name, &err));
  return out != nullptr;
}

std::string lacks(const std::string& library, const char* function) {
  return fmt::format("NVML in {} lacks {}", library, function);
}

}  // namespace

NvmlLibrary::NvmlLibrary(std::string library, std::unique_ptr<Api> api)
    : library_(std::move(library)), api_(std::move(api)) {}

NvmlLibrary::~NvmlLibrary() {
  if (api_ && api_->shutdown) api_->shutdown();
}

std::unique_ptr<NvmlLibrary> NvmlLibrary::open(SharedLibraries& libs, std::string* reason) {
  const char* forced = std::getenv("CALIBER_NVML_LIBRARY");
  const std::string name = forced && *forced ? forced : kNvmlLibraryName;
  std::string err;
  void* handle = libs.open(name, &err);
  if (!handle) {
    if (reason) *reason = fmt::format("NVML not loaded: {}", err);
    return nullptr;
  }
  auto api = std::make_unique<Api>();
  const char* missing = !bind(libs, handle, "nvmlInit_v2", api->init)             ? "nvmlInit_v2"
                        : !bind(libs, handle, "nvmlShutdown", api->shutdown)       ? "nvmlShutdown"
                        : !bind(libs, handle, "nvmlErrorString", api->error_string) ? "nvmlErrorString"
                                                                                    : nullptr;
  if (missing) {
    if (reason) *reason = lacks(name, missing);
    libs.close(handle);
    return nullptr;
  }
  bind(libs, handle, "nvmlDeviceGetHandleByUUID", api->by_uuid);
  bind(libs, handle, "nvmlDeviceGetHandleByIndex_v2", api->by_index);
  bind(libs, handle, "nvmlDeviceGetClockInfo", api->clock_info);
  bind(libs, handle, "nvmlDeviceGetMaxClockInfo", api->max_clock_info);
  bind(libs, handle, "nvmlDeviceGetTemperature", api->temperature);
  bind(libs, handle, "nvmlDeviceGetPowerUsage", api->power_usage);
  bind(libs, handle, "nvmlDeviceGetUtilizationRates", api->utilization);
  if (!bind(libs, handle, "nvmlDeviceGetCurrentClocksEventReasons", api->event_reasons)) {
    bind(libs, handle, "nvmlDeviceGetCurrentClocksThrottleReasons", api->event_reasons);
  }
  bind(libs, handle, "nvmlSystemGetDriverVersion", api->system_driver_version);
  bind(libs, handle, "nvmlDeviceGetComputeRunningProcesses_v3", api->compute_processes);
  bind(libs, handle, "nvmlSystemGetProcessName", api->process_name);
  if (const nvmlReturn_t rc = api->init(); rc != kNvmlSuccess) {
    if (reason) *reason = fmt::format("nvmlInit_v2 failed: {}", api->text(rc));
    libs.close(handle);
    return nullptr;
  }
  return std::unique_ptr<NvmlLibrary>(new NvmlLibrary(name, std::move(api)));
}

void* NvmlLibrary::device_by_uuid(const std::string& uuid, std::string* reason) {
  if (!api_->by_uuid) {
    if (reason) *reason = lacks(library_, "nvmlDeviceGetHandleByUUID");
    return nullptr;
  }
  nvmlDevice_t dev = nullptr;
  if (const nvmlReturn_t rc = api_->by_uuid(uuid.c_str(), &dev); rc != kNvmlSuccess) {
    if (reason) *reason = fmt::format("NVML has no device with UUID {}: {}", uuid, api_->text(rc));
    return nullptr;
  }
  return dev;
}

void* NvmlLibrary::device_by_index(int nvml_index, std::string* reason) {
  if (!api_->by_index) {
    if (reason) *reason = lacks(library_, "nvmlDeviceGetHandleByIndex_v2");
    return nullptr;
  }
  nvmlDevice_t dev = nullptr;
  const nvmlReturn_t rc = nvml_index < 0 ? 2 /* NVML_ERROR_INVALID_ARGUMENT */
                                         : api_->by_index(static_cast<unsigned int>(nvml_index), &dev);
  if (rc != kNvmlSuccess) {
    if (reason) *reason = fmt::format("NVML has no device {}: {}", nvml_index, api_->text(rc));
    return nullptr;
  }
  return dev;
}

bool NvmlLibrary::current_clocks(void* device, int* sm_mhz, int* mem_mhz, std::string* reason) {
  if (!api_->clock_info) {
    if (reason) *reason = lacks(library_, "nvmlDeviceGetClockInfo");
    return false;
  }
  unsigned int sm = 0, mem = 0;
  nvmlReturn_t rc = api_->clock_info(device, kNvmlClockSm, &sm);
  if (rc == kNvmlSuccess) rc = api_->clock_info(device, kNvmlClockMem, &mem);
  if (rc != kNvmlSuccess) {
    if (reason) *reason = fmt::format("nvmlDeviceGetClockInfo failed: {}", api_->text(rc));
    return false;
  }
  *sm_mhz = static_cast<int>(sm);
  *mem_mhz = static_cast<int>(mem);
  return true;
}

bool NvmlLibrary::compute_processes(void* device, std::vector<DeviceProcess>* out, std::string* reason) {
  if (!api_->compute_processes) {
    if (reason) *reason = lacks(library_, "nvmlDeviceGetComputeRunningProcesses_v3");
    return false;
  }
  // Ask for the count, then fetch with headroom: processes can appear between the two calls.
  unsigned int count = 0;
  nvmlReturn_t rc = api_->compute_processes(device, &count, nullptr);
  std::vector<NvmlProcessInfo> infos;
  if (rc == kNvmlErrorInsufficientSize || (rc == kNvmlSuccess && count > 0)) {
    count += 8;
    infos.resize(count);
    rc = api_->compute_processes(device, &count, infos.data());
  }
  if (rc != kNvmlSuccess) {
    if (reason) *reason = fmt::format("nvmlDeviceGetComputeRunningProcesses_v3 failed: {}", api_->text(rc));
    return false;
  }
  out->clear();
  for (unsigned int i = 0; i < count && i < infos.size(); ++i) {
    DeviceProcess p;
    p.pid = infos[i].pid;
    p.used_memory_bytes = infos[i].usedGpuMemory == ~0ull ? 0 : infos[i].usedGpuMemory;
    if (api_->process_name) {
      char name[256] = {};
      if (api_->process_name(infos[i].pid, name, sizeof name) == kNvmlSuccess) p.name = name;
    }
    out->push_back(std::move(p));
  }
  return true;
}

namespace {

// One unsigned reading through `fn`, or nothing.
template <typename Fn, typename... Args>
std::optional<unsigned int> reading(Fn* fn, Args... args) {
  unsigned int v = 0;
  if (!fn || fn(args..., &v) != kNvmlSuccess) return std::nullopt;
  return v;
}

std::optional<int> as_int(std::optional<unsigned int> v) {
  return v ? std::optional<int>(static_cast<int>(*v)) : std::nullopt;
}

}  // namespace

std::optional<int> NvmlLibrary::sm_clock_mhz(void* device) { return as_int(reading(api_->clock_info, device, kNvmlClockSm)); }

std::optional<int> NvmlLibrary::mem_clock_mhz(void* device) {
  return as_int(reading(api_->clock_info, device, kNvmlClockMem));
}

std::optional<int> NvmlLibrary::max_sm_clock_mhz(void* device) {
  return as_int(reading(api_->max_clock_info, device, kNvmlClockSm));
}

std::optional<int> NvmlLibrary::temperature_c(void* device) {
  return as_int(reading(api_->temperature, device, kNvmlTemperatureGpu));
}

std::optional<double> NvmlLibrary::power_w(void* device) {
  const auto mw = reading(api_->power_usage, device);
  return mw ? std::optional<double>(*mw / 1000.0) : std::nullopt;  // milliwatts
}

std::optional<int> NvmlLibrary::utilization_pct(void* device) {
  NvmlUtilization u{};
  if (!api_->utilization || api_->utilization(device, &u) != kNvmlSuccess) return std::nullopt;
  return static_cast<int>(u.gpu);
}

std::optional<std::uint64_t> NvmlLibrary::clock_event_reasons(void* device) {
  unsigned long long reasons = 0;
  if (!api_->event_reasons || api_->event_reasons(device, &reasons) != kNvmlSuccess) return std::nullopt;
  return reasons;
}

std::optional<std::string> NvmlLibrary::driver_version() {
  char version[96] = {};
  if (!api_->system_driver_version || api_->system_driver_version(version, sizeof version) != kNvmlSuccess) {
    return std::nullopt;
  }
  return std::string(version);
}

std::string NvmlLibrary::missing_telemetry_function() const {
  if (!api_->by_index) return "nvmlDeviceGetHandleByIndex_v2";
  if (!api_->by_uuid) return "nvmlDeviceGetHandleByUUID";
  if (!api_->clock_info) return "nvmlDeviceGetClockInfo";
  if (!api_->temperature) return "nvmlDeviceGetTemperature";
  if (!api_->power_usage) return "nvmlDeviceGetPowerUsage";
  return {};
}

}  // namespace caliber
