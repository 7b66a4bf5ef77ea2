// The cuda backend's device reference (ops/device_reference.h), for its module: computed and
// compared on the backend's stream (backends/cuda/device_reference.cuh). No CUDA types appear here.
#pragma once

#include <memory>

#include "caliber/backend.h"
#include "ops/device_reference.h"

namespace caliber::cuda {

// `backend` must be a cuda backend; it must outlive what this returns.
std::unique_ptr<ops::DeviceReferenceMath> make_device_reference_math(Backend& backend);

}  // namespace caliber::cuda
