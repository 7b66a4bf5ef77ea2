// The event instrument: device events recorded on the launching stream around each sample.
// Internal to the cuda backend.
#pragma once

#include <cuda_runtime.h>

#include <memory>

#include "backends/cuda/launch_gate.h"
#include "caliber/backend.h"

namespace caliber::cuda {

// `gate`: set under the isolated schedule (launch_gate.h), owned by the backend and alive as long
// as the timer; each sample's start event then waits behind a closed gate until the call and the
// stop event are enqueued. Null under the other schedules.
std::unique_ptr<SampleTimer> make_event_timer(cudaStream_t stream, LaunchGate* gate);

}  // namespace caliber::cuda
