// The fp64 reference of the checked output rows, computed on the device
// (Backend::reference_rows_on_device): the inputs are already there, only the checked rows are
// computed, and the values come back in one copy. The host fp64 reference of the same rows costs
// tens of milliseconds per input set on a big shape; this costs the copy of the values back.
// Internal to the cuda backend.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <optional>
#include <vector>

#include "caliber/backend.h"

namespace caliber::cuda {

// The formulas of the ops' host references (src/ops/norm_ops.cpp, softmax_gemm_ops.cpp) in fp64,
// every operation rounded as the host rounds it (no fused multiply-adds); only the reductions of
// rmsnorm, layernorm and softmax are summed in another order (a block per row). gemm sums over k
// in the host's order. `inputs`: device memory in the op's input order; rows: sorted and
// distinct. Synchronizes `stream` before it returns. nullopt: an op or dtype this does not know,
// or no device memory for the values.
std::optional<std::vector<double>> reference_rows_on_device(const ReferenceProblem& problem,
                                                            const std::vector<const void*>& inputs,
                                                            const std::vector<std::int64_t>& rows,
                                                            cudaStream_t stream);

}  // namespace caliber::cuda
