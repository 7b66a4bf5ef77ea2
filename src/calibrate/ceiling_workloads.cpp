#include "calibrate/ceiling_workloads.h"

#include <algorithm>

#include "backends/backend_module.h"

namespace caliber::calibrate {

CeilingWorkload make_copy_workload(Backend& backend, std::uint64_t bytes, std::uint64_t seed) {
  return backend_module(backend.kind()).make_copy_ceiling_workload(backend, bytes, seed);
}

CeilingWorkload make_cache_copy_workload(Backend& backend, std::uint64_t bytes, std::uint64_t seed) {
  bytes = std::max<std::uint64_t>(4096, bytes / 4096 * 4096);
  return backend_module(backend.kind()).make_cache_copy_ceiling_workload(backend, bytes, seed);
}

CeilingWorkload make_matmul_workload(Backend& backend, const std::string& dtype, std::int64_t n, std::uint64_t seed) {
  return backend_module(backend.kind()).make_matmul_ceiling_workload(backend, dtype, n, seed);
}

}  // namespace caliber::calibrate
