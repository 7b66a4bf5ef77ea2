// Whether a CUDA device is visible: GPU tests skip without one; and where a plugin the GPU tests
// load lies.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <string>

#include "caliber/backend.h"

namespace caliber::testing_support {

inline bool has_cuda_device() {
  for (const auto& b : available_backends()) {
    if (b.kind == BackendKind::cuda && b.device_count > 0) return true;
  }
  return false;
}

// A library as built here, or where the device scripts staged it (CALIBER_PLUGIN_DIR).
inline std::string staged(const std::string& name, const std::string& built) {
  const char* dir = std::getenv("CALIBER_PLUGIN_DIR");
  if (dir && *dir && std::filesystem::exists(std::string(dir) + "/" + name)) return std::string(dir) + "/" + name;
  return built;
}

}  // namespace caliber::testing_support
