// The cuda backend's module (src/modules/backend_module.h), declared without CUDA types.
#pragma once

#include "modules/backend_module.h"

namespace caliber::cuda {

BackendModule backend_module();

}  // namespace caliber::cuda
