// The host backend's module (src/modules/backend_module.h).
#pragma once

#include "modules/backend_module.h"

namespace caliber::host {

BackendModule backend_module();

}  // namespace caliber::host
