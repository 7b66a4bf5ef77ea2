// Device ceilings: the memory bandwidth and matrix flop rate a device really achieves, measured
// once per device identity by `caliber calibrate` (else theoretical: integrity/theoretical_ceilings.h),
// the bound no timed call may beat (integrity/physical_bound.h) and reports' roofline fractions.
// The file: io/device_ceilings_file.h.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "caliber/device.h"
#include "caliber/result.h"

namespace caliber {

// One ceiling: a measured rate (calibrated), a generous peak computed from the device's attributes
// (theoretical: integrity/theoretical_ceilings.h; its method says so and states the formula), or
// why there is none (never a guessed number).
struct Ceiling {
  bool available = false;
  double rate_per_s = 0;       // bytes per second (memory) or floating-point operations per second
  std::string unit;            // "bytes/s" | "flop/s"
  std::string method;          // what was run, in words; "theoretical: <formula>" when computed
  std::uint64_t work_per_call = 0;  // bytes read + written, or flops, of one measured call
  std::optional<Result> measurement;  // the measurement the rate comes from (no raw samples)
  std::string reason;          // why it is not available; empty when available
};

struct DeviceCeilings {
  std::string device_key;      // device_key(device)
  DeviceInfo device;
  std::string measured_at;     // UTC, ISO 8601
  std::string harness_version;
  Ceiling memory_bandwidth;    // unit bytes/s
  // A copy whose working set fits in the last-level cache, warm: what a call served from the
  // cache can reach (unit bytes/s). Files written before it existed read as not available.
  Ceiling cache_bandwidth;
  std::map<std::string, Ceiling> matmul;  // dtype name -> flop/s
};

// The identity a ceiling belongs to: backend, name, architecture and, for GPUs, the UUID (for
// the host, the logical CPU count): "cuda|NVIDIA H200|sm_90|GPU-...", "host|<cpu>|x86_64|16 cpus".
std::string device_key(const DeviceInfo& device);
// The entry of `key`, or null.
const DeviceCeilings* find_device_ceilings(const std::vector<DeviceCeilings>& all, const std::string& key);

}  // namespace caliber
