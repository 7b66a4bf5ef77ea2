// The cuda backend's module (src/backends/backend_module.h), declared without CUDA types.
#pragma once

#include "backends/backend_module.h"

namespace caliber::cuda {

BackendModule backend_module();

}  // namespace caliber::cuda
