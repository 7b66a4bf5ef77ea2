#include "calibrate/ceiling_workloads.h"

#include <algorithm>

#include <fmt/format.h>

#include "caliber/config.h"
#include "caliber/result_table.h"
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

CeilingWorkload make_cache_copy_workload(Backend& backend, std::uint64_t bytes, std::uint64_t seed) {
  bytes = std::max<std::uint64_t>(4096, bytes / 4096 * 4096);
  if (backend.kind() == BackendKind::host) return host::make_copy_ceiling_workload(bytes, seed);
  CeilingWorkload w;
  w.workload = bench::make_builtin_workload(backend, "copy", bytes, 1, seed);
  w.work_per_call = 2 * bytes;
  w.method = fmt::format("float4 grid-stride copy kernel of {} (bytes read + written = 2 x {}, within the {} "
                         "last-level cache), warm, graph replay",
                         format_bytes(bytes), format_bytes(bytes), format_bytes(backend.device().llc_bytes));
  return w;
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
