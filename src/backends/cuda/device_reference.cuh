// The fp64 reference of the checked output rows, computed on the device
// (ops::DeviceReferenceMath::reference_rows), and the comparison of an output with it
// (ops::DeviceReferenceMath::compare_rows): the inputs are already there, only the checked rows are
// computed, and the values never leave the device. The host fp64 reference of the same rows, and
// the copy of the outputs back to compare with it, cost tens of milliseconds per cell on a big
// shape.
// Internal to the cuda backend.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <optional>
#include <vector>

#include "caliber/dtype.h"
#include "ops/device_reference.h"

namespace caliber::cuda {

// The formulas of the ops' host references (src/ops/norm_ops.cpp, softmax_gemm_ops.cpp) in fp64,
// every operation rounded as the host rounds it (no fused multiply-adds); only the reductions of
// rmsnorm, layernorm and softmax are summed in another order (a block per row). gemm sums over k
// in the host's order. `inputs`: device memory in the op's input order; rows: sorted and
// distinct. The values stay on the device; their sum of squares comes back. Synchronizes `stream`
// before it returns. nullopt: an op or dtype this does not know, or no device memory for the
// values.
std::optional<ops::DeviceReference> reference_rows_on_device(const ops::ReferenceProblem& problem,
                                                        const std::vector<const void*>& inputs,
                                                        const std::vector<std::int64_t>& rows, cudaStream_t stream);

// ops::check_output's terms for the reference's rows of `device_output` (ops::
// DeviceReferenceMath::compare_rows), on a fixed grid: the same sums for the same data. Synchronizes
// `stream`; only the terms of each block (24 bytes) come back.
ops::RowComparison compare_rows_on_device(const ops::DeviceReference& reference, const void* device_output, DType dtype,
                                     double rtol, double atol, cudaStream_t stream);

}  // namespace caliber::cuda
