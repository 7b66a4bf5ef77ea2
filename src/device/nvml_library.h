// NVML loaded at run time (dlopen "libnvidia-ml.so.1", or $CALIBER_NVML_LIBRARY; there is no
// nvml.h on the build machine): the one loader of the NVML functions caliber uses, for the run
// identity and the preflight (clocks at start, compute processes on a device) and for telemetry
// (clocks, temperature, power, utilization, clock-event reasons). Everything degrades to
// "not available (reason)".
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "caliber/run_identity.h"
#include "core/shared_library.h"

namespace caliber {

inline constexpr const char* kNvmlLibraryName = "libnvidia-ml.so.1";

class NvmlLibrary {
 public:
  // Loads $CALIBER_NVML_LIBRARY (a stand-in for tests), else libnvidia-ml.so.1, and initialises
  // NVML; nullptr with *reason set when it cannot ("NVML not loaded: <loader error>"). Only
  // nvmlInit_v2, nvmlShutdown and nvmlErrorString are required; a function the library lacks
  // makes the calls that need it fail with a reason naming it.
  static std::unique_ptr<NvmlLibrary> open(SharedLibraries& libs, std::string* reason);
  // nvmlShutdown. The library stays mapped: NVML keeps per-process state until exit.
  ~NvmlLibrary();
  NvmlLibrary(const NvmlLibrary&) = delete;
  NvmlLibrary& operator=(const NvmlLibrary&) = delete;

  const std::string& library() const { return library_; }  // the file loaded

  // The device with this UUID ("GPU-..."): NVML's device order need not be CUDA's, so devices are
  // matched by UUID, never by index. nullptr with *reason set when it is not found.
  void* device_by_uuid(const std::string& uuid, std::string* reason);
  // By NVML's own index (for `caliber telemetry --device N` without a CUDA device to ask).
  void* device_by_index(int nvml_index, std::string* reason);
  // Current SM and memory clocks, MHz.
  bool current_clocks(void* device, int* sm_mhz, int* mem_mhz, std::string* reason);
  // Compute processes holding a context on the device (this process included; callers filter).
  bool compute_processes(void* device, std::vector<DeviceProcess>* out, std::string* reason);

  // Telemetry readings: nothing when the library lacks the function or the device does not report it.
  std::optional<int> sm_clock_mhz(void* device);
  std::optional<int> mem_clock_mhz(void* device);
  std::optional<int> max_sm_clock_mhz(void* device);
  std::optional<int> temperature_c(void* device);
  std::optional<double> power_w(void* device);
  std::optional<int> utilization_pct(void* device);
  std::optional<std::uint64_t> clock_event_reasons(void* device);  // nvmlClocksEventReason* bits
  std::optional<std::string> driver_version();
  // The first function a telemetry reader cannot do without that the library lacks; "" when none.
  std::string missing_telemetry_function() const;

 private:
  struct Api;
  NvmlLibrary(std::string library, std::unique_ptr<Api> api);
  std::string library_;
  std::unique_ptr<Api> api_;
};

}  // namespace caliber
