// The host backend's ceiling workloads (src/calibrate/ceiling_workloads.h says what they measure).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "kernels/ceiling_workloads.h"

namespace caliber::host {
calibrate::CeilingWorkload make_copy_ceiling_workload(std::uint64_t bytes, std::uint64_t seed);
// The matmul ceiling's sgemm is the openblas provider plugin's, loaded through the plugin ABI from
// caliber's plugin directory (as matrices/host/gemm/baseline_matrix.yaml names it).
inline constexpr std::string_view kOpenBlasGemmEntrypoint = "@plugins/libcaliber_openblas.so:caliber_openblas_gemm";
calibrate::CeilingWorkload make_matmul_ceiling_workload(Backend& backend, const std::string& dtype, std::int64_t n,
                                                        std::uint64_t seed);
}  // namespace caliber::host
