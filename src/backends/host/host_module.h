// The host backend's module (src/backends/backend_module.h).
#pragma once

#include "backends/backend_module.h"

namespace caliber::host {

BackendModule backend_module();

}  // namespace caliber::host
