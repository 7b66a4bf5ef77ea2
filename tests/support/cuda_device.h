// Whether a CUDA device is visible: GPU tests skip without one.
#pragma once

#include "caliber/backend.h"

namespace caliber::testing_support {

inline bool has_cuda_device() {
  for (const auto& b : available_backends()) {
    if (b.kind == BackendKind::cuda && b.device_count > 0) return true;
  }
  return false;
}

}  // namespace caliber::testing_support
