#include "device/nvml_library.h"

#include <fmt/format.h>

namespace caliber {
namespace {

// NVML's ABI, as documented in nvml.h (NVML API version 12).
using nvmlReturn_t = int;
using nvmlDevice_t = void*;
constexpr nvmlReturn_t kNvmlSuccess = 0;
constexpr nvmlReturn_t kNvmlErrorInsufficientSize = 7;
constexpr int kNvmlClockSm = 1;
constexpr int kNvmlClockMem = 2;

// nvmlProcessInfo_t as taken by nvmlDeviceGetComputeRunningProcesses_v3 (nvmlProcessInfo_v2_t layout).
struct NvmlProcessInfo {
  unsigned int pid;
  unsigned long long usedGpuMemory;  // NVML_VALUE_NOT_AVAILABLE (all ones) when unknown
  unsigned int gpuInstanceId;
  unsigned int computeInstanceId;
};

}  // namespace

struct NvmlLibrary::Api {
  nvmlReturn_t (*init)() = nullptr;
  nvmlReturn_t (*shutdown)() = nullptr;
  const char* (*error_string)(nvmlReturn_t) = nullptr;
  nvmlReturn_t (*by_uuid)(const char*, nvmlDevice_t*) = nullptr;
  nvmlReturn_t (*clock_info)(nvmlDevice_t, int, unsigned int*) = nullptr;
  nvmlReturn_t (*compute_processes)(nvmlDevice_t, unsigned int*, NvmlProcessInfo*) = nullptr;
  nvmlReturn_t (*process_name)(unsigned int, char*, unsigned int) = nullptr;

  std::string text(nvmlReturn_t rc) const {
    return error_string ? fmt::format("{} (NVML error {})", error_string(rc), rc) : fmt::format("NVML error {}", rc);
  }
};

namespace {

template <typename F>
bool resolve(SharedLibraries& libs, void* handle, const char* name, F*& out, std::string* reason) {
  std::string err;
  void* p = libs.symbol(handle, name, &err);
  if (!p) {
    if (reason) *reason = fmt::format("{} lacks {}: {}", kNvmlLibraryName, name, err);
    return false;
  }
  out = reinterpret_cast<F*>(p);
  return true;
}

}  // namespace

NvmlLibrary::NvmlLibrary(SharedLibraries& libs, void* handle, std::unique_ptr<Api> api)
    : libs_(libs), handle_(handle), api_(std::move(api)) {}

NvmlLibrary::~NvmlLibrary() {
  if (api_ && api_->shutdown) api_->shutdown();
  libs_.close(handle_);
}

std::unique_ptr<NvmlLibrary> NvmlLibrary::open(SharedLibraries& libs, std::string* reason) {
  std::string err;
  void* handle = libs.open(kNvmlLibraryName, &err);
  if (!handle) {
    if (reason) *reason = fmt::format("{} cannot be loaded: {}", kNvmlLibraryName, err);
    return nullptr;
  }
  auto api = std::make_unique<Api>();
  const bool ok = resolve(libs, handle, "nvmlInit_v2", api->init, reason) &&
                  resolve(libs, handle, "nvmlShutdown", api->shutdown, reason) &&
                  resolve(libs, handle, "nvmlErrorString", api->error_string, reason) &&
                  resolve(libs, handle, "nvmlDeviceGetHandleByUUID", api->by_uuid, reason) &&
                  resolve(libs, handle, "nvmlDeviceGetClockInfo", api->clock_info, reason) &&
                  resolve(libs, handle, "nvmlDeviceGetComputeRunningProcesses_v3", api->compute_processes, reason);
  if (!ok) {
    libs.close(handle);
    return nullptr;
  }
  resolve(libs, handle, "nvmlSystemGetProcessName", api->process_name, nullptr);  // optional
  if (const nvmlReturn_t rc = api->init(); rc != kNvmlSuccess) {
    if (reason) *reason = fmt::format("nvmlInit_v2 failed: {}", api->text(rc));
    libs.close(handle);
    return nullptr;
  }
  return std::unique_ptr<NvmlLibrary>(new NvmlLibrary(libs, handle, std::move(api)));
}

void* NvmlLibrary::device_by_uuid(const std::string& uuid, std::string* reason) {
  nvmlDevice_t dev = nullptr;
  if (const nvmlReturn_t rc = api_->by_uuid(uuid.c_str(), &dev); rc != kNvmlSuccess) {
    if (reason) *reason = fmt::format("NVML has no device with UUID {}: {}", uuid, api_->text(rc));
    return nullptr;
  }
  return dev;
}

bool NvmlLibrary::current_clocks(void* device, int* sm_mhz, int* mem_mhz, std::string* reason) {
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

}  // namespace caliber
