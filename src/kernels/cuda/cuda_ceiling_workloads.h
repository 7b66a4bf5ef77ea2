// The cuda backend's ceiling workloads (declared without CUDA types; defined in
// cuda_ceiling_workloads.cu, cuda_cache_copy_workload.cpp): a device-to-device cudaMemcpyAsync, the
// bench copy kernel within the L2, and a cuBLAS GEMM.
#pragma once

#include <cstdint>
#include <string>

#include "kernels/ceiling_workloads.h"

namespace caliber::cuda {

calibrate::CeilingWorkload make_copy_ceiling_workload(Backend& backend, std::uint64_t bytes, std::uint64_t seed);
// The float4 grid-stride copy kernel of caliber bench over `bytes` (a memcpy node in a graph is
// slower), for the cache bandwidth (cuda_cache_copy_workload.cpp).
calibrate::CeilingWorkload make_cache_copy_ceiling_workload(Backend& backend, std::uint64_t bytes, std::uint64_t seed);
// dtype "bf16" (cublasGemmEx, bf16 in and out, fp32 accumulation) or "fp32" (cublasGemmEx fp32,
// default math mode: no TF32); anything else comes back unavailable.
calibrate::CeilingWorkload make_matmul_ceiling_workload(Backend& backend, const std::string& dtype, std::int64_t n,
                                                        std::uint64_t seed);

}  // namespace caliber::cuda
