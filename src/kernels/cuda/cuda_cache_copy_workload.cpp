#include <fmt/format.h>

#include "kernels/workload.h"
#include "kernels/cuda/cuda_ceiling_workloads.h"
#include "core/unit_text.h"
#include "kernels/cuda/cuda_builtin_kernels.h"

namespace caliber::cuda {

calibrate::CeilingWorkload make_cache_copy_ceiling_workload(Backend& backend, std::uint64_t bytes, std::uint64_t seed) {
  calibrate::CeilingWorkload w;
  w.workload = make_builtin_workload(backend, "copy", bytes, 1, seed);
  w.work_per_call = 2 * bytes;
  w.method = fmt::format("float4 grid-stride copy kernel of {} (bytes read + written = 2 x {}, within the {} "
                         "last-level cache), warm, graph replay",
                         format_bytes(bytes), format_bytes(bytes), format_bytes(backend.device().llc_bytes));
  return w;
}

}  // namespace caliber::cuda
