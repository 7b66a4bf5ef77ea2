#include "integrity/bound_ceilings.h"

#include "integrity/theoretical_ceilings.h"

namespace caliber {
namespace {

void refine(Ceiling& bound, const Ceiling& calibrated) {
  if (calibrated.available && calibrated.rate_per_s > 0) bound = calibrated;
}

}  // namespace

DeviceCeilings refine_ceilings(DeviceCeilings theoretical, const DeviceCeilings* calibrated) {
  if (!calibrated) return theoretical;
  DeviceCeilings out = std::move(theoretical);
  out.device_key = calibrated->device_key;
  out.device = calibrated->device;
  out.measured_at = calibrated->measured_at;
  out.harness_version = calibrated->harness_version;
  refine(out.memory_bandwidth, calibrated->memory_bandwidth);
  refine(out.cache_bandwidth, calibrated->cache_bandwidth);
  for (const auto& [dtype, ceiling] : calibrated->matmul) {
    const auto it = out.matmul.find(dtype);
    if (it == out.matmul.end()) {
      out.matmul[dtype] = ceiling;
    } else {
      refine(it->second, ceiling);
    }
  }
  return out;
}

const char* ceiling_source(const Ceiling& ceiling) {
  return is_theoretical(ceiling) ? "theoretical" : "calibrated";
}

}  // namespace caliber
