// The device ceilings file: the ceilings `caliber calibrate` measured, one entry per device identity.
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

#include <optional>
#include <string>
#include <vector>

#include "integrity/device_ceilings.h"

namespace caliber {

inline constexpr int kDeviceCeilingsSchemaVersion = 1;

// Reads a ceilings file strictly (InputError naming file and field). A missing file is an
// InputError too; callers that accept "no file yet" check existence first.
std::vector<DeviceCeilings> read_device_ceilings(const std::string& file);
// Adds or replaces the entry of `entry.device_key` and writes the file atomically.
void store_device_ceilings(const std::string& file, const DeviceCeilings& entry);

// The default ceilings file: $CALIBER_CEILINGS when set, else
// $XDG_CACHE_HOME/caliber/device_ceilings.json, else ~/.cache/caliber/device_ceilings.json.
std::string default_ceilings_path();

// The calibrated ceilings of `device`: from `file` (which must then exist), else from the default
// ceilings file when it exists; nullopt when there is no file or no entry for the device (the
// physical bound then uses the theoretical ceilings, integrity/theoretical_ceilings.h).
std::optional<DeviceCeilings> calibrated_ceilings(const std::optional<std::string>& file, const DeviceInfo& device);

}  // namespace caliber
