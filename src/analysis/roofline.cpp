#include "analysis/roofline.h"

namespace caliber {

const Ceiling* matmul_ceiling_for(const DeviceCeilings& ceilings, const std::string& dtype) {
  auto it = ceilings.matmul.find(dtype);
  if (it == ceilings.matmul.end() || !it->second.available) return nullptr;
  return &it->second;
}

RooflinePoint roofline_point(std::uint64_t bytes, std::uint64_t flops, double time_us,
                             const DeviceCeilings* ceilings, const std::string& dtype) {
  RooflinePoint p;
  const double seconds = time_us * 1e-6;
  p.achieved_bytes_per_s = static_cast<double>(bytes) / seconds;
  p.achieved_flops_per_s = static_cast<double>(flops) / seconds;
  if (!ceilings) return p;
  if (ceilings->memory_bandwidth.available && bytes > 0) {
    p.memory_fraction = p.achieved_bytes_per_s / ceilings->memory_bandwidth.rate_per_s;
  }
  if (const Ceiling* c = matmul_ceiling_for(*ceilings, dtype); c && flops > 0) {
    p.compute_fraction = p.achieved_flops_per_s / c->rate_per_s;
    p.matmul_dtype = dtype;
  }
  if (p.memory_fraction && (!p.compute_fraction || *p.memory_fraction >= *p.compute_fraction)) {
    p.fraction = p.memory_fraction;
    p.bound = "memory";
  } else if (p.compute_fraction) {
    p.fraction = p.compute_fraction;
    p.bound = "compute";
  }
  return p;
}

}  // namespace caliber
