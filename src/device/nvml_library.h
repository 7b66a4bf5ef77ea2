// NVML loaded at run time (dlopen "libnvidia-ml.so.1"; there is no nvml.h on the build machine).
// Only what the run identity and the preflight need: clocks at start and the compute processes
// on a device. Everything degrades to "not available (reason)".
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "caliber/run_identity.h"
#include "core/shared_library.h"

namespace caliber {

inline constexpr const char* kNvmlLibraryName = "libnvidia-ml.so.1";

class NvmlLibrary {
 public:
  // Loads and initialises NVML; nullptr with *reason set when it cannot.
  static std::unique_ptr<NvmlLibrary> open(SharedLibraries& libs, std::string* reason);
  ~NvmlLibrary();
  NvmlLibrary(const NvmlLibrary&) = delete;
  NvmlLibrary& operator=(const NvmlLibrary&) = delete;

  // The device with this UUID ("GPU-..."): NVML's device order need not be CUDA's, so devices are
  // matched by UUID, never by index. nullptr with *reason set when it is not found.
  void* device_by_uuid(const std::string& uuid, std::string* reason);
  // Current SM and memory clocks, MHz.
  bool current_clocks(void* device, int* sm_mhz, int* mem_mhz, std::string* reason);
  // Compute processes holding a context on the device (this process included; callers filter).
  bool compute_processes(void* device, std::vector<DeviceProcess>* out, std::string* reason);

 private:
  struct Api;
  NvmlLibrary(SharedLibraries& libs, void* handle, std::unique_ptr<Api> api);
  SharedLibraries& libs_;
  void* handle_;
  std::unique_ptr<Api> api_;
};

}  // namespace caliber
