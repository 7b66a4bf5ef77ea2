// Measuring a device's ceilings with caliber::measure (docs/reports.md, "Device ceilings").
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "caliber/backend.h"
#include "integrity/device_ceilings.h"

namespace caliber::calibrate {

struct CalibrationOptions {
  std::uint64_t copy_bytes = 0;        // 0: the backend's default (cuda 4 GiB, host max(256 MiB, 8 x LLC))
  std::int64_t matmul_size = 0;        // m = n = k; 0: the backend's default (cuda 8192, host 1024)
  std::vector<std::string> matmul_dtypes;  // empty: the backend's (cuda bf16, fp32; host fp32)
  double max_time_ms = 2000;           // adaptive rule's cap per measurement
  std::uint64_t seed = 1;
};

// The contract each ceiling is measured under: the backend's default instrument and schedule,
// warm cache (the buffers are far larger than the last-level cache), median, adaptive iterations.
Contract ceiling_contract(BackendKind backend, double max_time_ms);

// Copy sizes smaller than this measure the cache, not memory: 4 x the last-level cache.
std::uint64_t minimum_copy_bytes(const DeviceInfo& device);

// Measures every ceiling on `backend`'s device; progress lines go to `log`. Throws UsageError for
// a copy size below minimum_copy_bytes, DeviceError when a workload fails or its output is wrong.
DeviceCeilings calibrate_device(Backend& backend, const CalibrationOptions& options, std::ostream& log);

}  // namespace caliber::calibrate
