// The fp64 reference of a shipped op's checked output rows, computed where the inputs are (on the
// device) and kept there, and the comparison of an output with it: only the sums of the
// comparison cross back to the host. A backend that can do this offers a DeviceReferenceMath
// through its module (modules/builtins.h); on the others the reference is computed on the host
// (ops/correctness.h). No CUDA types appear here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "caliber/dtype.h"

namespace caliber::ops {

// The problem of a device reference, in the terms of plugin_abi.h: its op names, its input order,
// row-major tensors.
struct ReferenceProblem {
  std::string op_type;  // "rmsnorm" | "layernorm" | "softmax" | "gemm"
  DType dtype = DType::fp32;
  std::int64_t m = 0;  // rows (gemm: rows of A and C)
  std::int64_t n = 0;  // columns of the output
  std::int64_t k = 0;  // gemm: the reduction dimension; 0 otherwise
  double eps = 0;      // rmsnorm, layernorm; 0 otherwise
};

// The fp64 reference of a problem's checked output rows, kept in device memory.
struct DeviceReference {
  std::shared_ptr<void> memory;        // the backend's allocation; freed with the last copy
  const double* values = nullptr;      // rows.size() x n, row-major, device memory
  const std::int64_t* rows = nullptr;  // the checked rows (sorted, distinct), device memory
  std::size_t row_count = 0;
  std::int64_t n = 0;
  double sum_of_squares = 0;  // of the values: per row, then the rows in order
};

// The sums a comparison of output rows with a reference makes (check_output's terms): over every
// finite output element, sum (out - ref)^2 and max |out - ref| / (rtol |ref| + atol); non-finite
// elements are counted and left out of both.
struct RowComparison {
  double diff_sq = 0;
  double max_scaled = 0;
  std::int64_t nonfinite = 0;
};

class DeviceReferenceMath {
 public:
  virtual ~DeviceReferenceMath() = default;
  // The fp64 reference of output rows `rows` (sorted, distinct) of `problem`, computed on the
  // device from its inputs there (`device_inputs`, in the op's input order), with the formulas of
  // the op's host reference (docs/ops.md), and kept there. nullopt when there is none for the
  // problem (an op or dtype it does not know, no room for the values): the caller computes it on
  // the host.
  virtual std::optional<DeviceReference> reference_rows(const ReferenceProblem& problem,
                                                        const std::vector<const void*>& device_inputs,
                                                        const std::vector<std::int64_t>& rows) = 0;
  // Compares the reference's rows of `device_output` ([m, n] in `dtype`, device memory) with it:
  // the terms of check_output with elementwise bound rtol |ref| + atol, summed in a fixed order
  // (the same sums for the same data).
  virtual RowComparison compare_rows(const DeviceReference& reference, const void* device_output, DType dtype,
                                     double rtol, double atol) = 0;
};

}  // namespace caliber::ops
