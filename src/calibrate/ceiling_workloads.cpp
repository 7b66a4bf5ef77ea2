#include "calibrate/ceiling_workloads.h"

#include "caliber/config.h"
#if CALIBER_WITH_CUDA
#include "backends/cuda/cuda_ceiling_workloads.h"
#endif

namespace caliber::calibrate {

CeilingWorkload make_copy_workload(Backend& backend, std::uint64_t bytes, std::uint64_t seed) {
  if (backend.kind() == BackendKind::host) return host::make_copy_ceiling_workload(bytes, seed);
#if CALIBER_WITH_CUDA
  return cuda::make_copy_ceiling_workload(backend, bytes, seed);
#else
  (void)bytes;
  (void)seed;
  return {nullptr, "", 0, "this build has no cuda backend"};
#endif
}

CeilingWorkload make_matmul_workload(Backend& backend, const std::string& dtype, std::int64_t n, std::uint64_t seed) {
  if (backend.kind() == BackendKind::host) return host::make_matmul_ceiling_workload(backend, dtype, n, seed);
#if CALIBER_WITH_CUDA
  return cuda::make_matmul_ceiling_workload(backend, dtype, n, seed);
#else
  (void)dtype;
  (void)n;
  (void)seed;
  return {nullptr, "", 0, "this build has no cuda backend"};
#endif
}

}  // namespace caliber::calibrate
