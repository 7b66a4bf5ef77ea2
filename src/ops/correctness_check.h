// What the correctness check found: the numbers a results row carries (docs/ops.md).
#pragma once

#include <cstdint>

namespace caliber {

// The outcome of comparing a provider's output with the op's fp64 host reference (docs/ops.md).
struct CorrectnessCheck {
  double rel_fro_error = 0;     // ||out - ref||_F / ||ref||_F over the checked rows
  double max_scaled_error = 0;  // max_i |out_i - ref_i| / (rtol |ref_i| + atol rms(ref)); <= 1 passes
  std::int64_t nonfinite = 0;   // outputs that are NaN or infinite where the reference is finite
  std::int64_t checked_rows = 0;
  std::int64_t total_rows = 0;
  double tolerance_rel_fro = 0;
  double rtol = 0;
  double atol = 0;  // relative to rms(ref)
  friend bool operator==(const CorrectnessCheck&, const CorrectnessCheck&) = default;
};

}  // namespace caliber
