// NVTX ranges for the profiler gate. NVTX 3 is header-only: without a tool attached the calls
// cost a few nanoseconds and do nothing.
#include <nvtx3/nvToolsExt.h>

#include "backends/cuda/cuda_backend.h"

namespace caliber::cuda {

ProfilerRange::ProfilerRange(const std::string& name) { nvtxRangePushA(name.c_str()); }
ProfilerRange::~ProfilerRange() { nvtxRangePop(); }

}  // namespace caliber::cuda
