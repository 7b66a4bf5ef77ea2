// Where a measured call sits against the device's measured ceilings (the roofline model).
//
// A call that moves B bytes and performs F flops in t seconds achieves B/t bytes/s and F/t flop/s.
// The roofline at its arithmetic intensity F/B is min(peak_flops, bandwidth x F/B), so the
// fraction of the roofline reached is max((B/t) / bandwidth, (F/t) / peak_flops): whichever
// resource the call uses closer to its ceiling. docs/reports.md ("Roofline").
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "integrity/device_ceilings.h"

namespace caliber {

struct RooflinePoint {
  double achieved_bytes_per_s = 0;
  double achieved_flops_per_s = 0;
  std::optional<double> memory_fraction;   // of the bandwidth ceiling; nullopt without one
  std::optional<double> compute_fraction;  // of the matmul ceiling of the dtype; nullopt without one
  std::optional<double> fraction;          // max of the two known fractions
  std::string bound;                       // "memory" | "compute": which fraction is larger
  std::string matmul_dtype;                // which matmul ceiling was used ("" when none)
};

// The matmul ceiling for `dtype`: that dtype's when measured, else nullptr (a bf16 tensor-core
// rate is never used as the ceiling of an fp32 op).
const Ceiling* matmul_ceiling_for(const DeviceCeilings& ceilings, const std::string& dtype);

// time_us > 0. `ceilings` may be null (achieved rates only).
RooflinePoint roofline_point(std::uint64_t bytes, std::uint64_t flops, double time_us,
                             const DeviceCeilings* ceilings, const std::string& dtype);

}  // namespace caliber
