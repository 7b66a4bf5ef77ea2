// The cuda backend's entry points, declared without CUDA types so the core can call them.
// Defined in .cu files of this folder; only compiled when CALIBER_WITH_CUDA.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "caliber/backend.h"

namespace caliber::cuda {

// Visible CUDA devices; 0 with `reason` set when the runtime reports none or fails.
int device_count(std::string* reason);
std::vector<DeviceInfo> list_devices();
std::unique_ptr<Backend> open_backend(int index);

// Why CUPTI cannot be used in this process (library missing or too old, callbacks refused,
// another CUPTI client), or nullopt. Loads libcupti at run time; touches no device.
std::optional<std::string> cupti_unavailable_reason();

}  // namespace caliber::cuda

namespace caliber::cuda {

// An NVTX range (push now, pop on destruction), so a profiler can be limited to what runs inside
// it (caliber profile runs ncu with --nvtx-include on such a range).
class ProfilerRange {
 public:
  explicit ProfilerRange(const std::string& name);
  ~ProfilerRange();
  ProfilerRange(const ProfilerRange&) = delete;
  ProfilerRange& operator=(const ProfilerRange&) = delete;
};

}  // namespace caliber::cuda
