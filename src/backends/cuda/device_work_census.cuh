// The cuda backend's census of one call's device work (Backend::census_call, docs/integrity.md):
// what CUPTI saw the call issue, and whether all of it is ordered on the measured stream.
// Internal to the cuda backend.
#pragma once

#include <cuda_runtime.h>

#include <functional>

#include "caliber/backend.h"

namespace caliber::cuda {

// Runs `call` once on the calling thread, bracketed by marker kernels on `stream` (the measured
// stream), and tallies what it issued. Without CUPTI the call still runs once, unobserved.
DeviceWorkCensus census_device_work(cudaStream_t stream, const std::function<void()>& call);

}  // namespace caliber::cuda
