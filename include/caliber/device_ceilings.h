// Device ceilings: the memory bandwidth and matrix flop rate a device really achieves, measured
// once per device identity by `caliber calibrate` and reused by reports (roofline fractions).
//
// The ceilings file (device_ceilings.json) holds one entry per device identity:
//   {"schema_version": 1, "kind": "caliber.device_ceilings",
//    "devices": [{"device_key": "cuda|NVIDIA H200|sm_90|GPU-...", "device": {...},
//                 "measured_at": "...", "harness_version": "...",
//                 "memory_bandwidth": {<ceiling>}, "matmul": {"bf16": {<ceiling>}, ...}}]}
//   <ceiling> = {"available": true, "rate_per_s": 4.1e12, "unit": "bytes/s", "method": "...",
//                "work_per_call": 8589934592, "measurement": {<Result without samples>}}
//             | {"available": false, "reason": "..."}
// docs/reports.md ("Device ceilings") documents how each ceiling is measured.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "caliber/device.h"
#include "caliber/result.h"

namespace caliber {

inline constexpr int kDeviceCeilingsSchemaVersion = 1;

// One ceiling: a measured rate, or why there is none (never a guessed number).
struct Ceiling {
  bool available = false;
  double rate_per_s = 0;       // bytes per second (memory) or floating-point operations per second
  std::string unit;            // "bytes/s" | "flop/s"
  std::string method;          // what was run, in words
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

// Reads a ceilings file strictly (InputError naming file and field). A missing file is an
// InputError too; callers that accept "no file yet" check existence first.
std::vector<DeviceCeilings> read_device_ceilings(const std::string& file);
// Adds or replaces the entry of `entry.device_key` and writes the file atomically.
void store_device_ceilings(const std::string& file, const DeviceCeilings& entry);
const DeviceCeilings* find_device_ceilings(const std::vector<DeviceCeilings>& all, const std::string& key);

// The default ceilings file: $CALIBER_CEILINGS when set, else
// $XDG_CACHE_HOME/caliber/device_ceilings.json, else ~/.cache/caliber/device_ceilings.json.
std::string default_ceilings_path();

}  // namespace caliber
