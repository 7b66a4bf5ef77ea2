// The work `caliber calibrate` times to find a device's ceilings: a large copy (achievable memory
// bandwidth, bytes read + written) and a large matrix multiply on random data (achievable flop
// rate). One implementation per backend (src/calibrate/host, src/calibrate/cuda), reached through the
// backend's module (src/backends/backend_module.h).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "bench/workload.h"
#include "caliber/backend.h"

namespace caliber::calibrate {

// A workload, or why this build or machine cannot run it (never a substitute measurement).
struct CeilingWorkload {
  std::unique_ptr<bench::Workload> workload;
  std::string method;       // what one call does, in words (stored with the ceiling)
  std::uint64_t work_per_call = 0;  // bytes read + written, or flops
  std::string unavailable;  // non-empty: why there is no workload
};

// Copies `bytes` from one buffer to another per call. working_set_bytes = 2 x bytes.
CeilingWorkload make_copy_workload(Backend& backend, std::uint64_t bytes, std::uint64_t seed);
// The same copy sized to be served from the last-level cache (`bytes` in and out): cuda: the
// float4 grid-stride copy kernel of caliber bench (a memcpy node in a graph is slower); host: the
// same split memcpy as make_copy_workload.
CeilingWorkload make_cache_copy_workload(Backend& backend, std::uint64_t bytes, std::uint64_t seed);
// C[n, n] = A[n, n] B[n, n] in `dtype` (cuda: bf16 or fp32 through cuBLAS; host: fp32 through
// OpenBLAS's cblas_sgemm in the openblas provider plugin), inputs random and never zero.
// flops = 2 n^3.
CeilingWorkload make_matmul_workload(Backend& backend, const std::string& dtype, std::int64_t n, std::uint64_t seed);

}  // namespace caliber::calibrate
