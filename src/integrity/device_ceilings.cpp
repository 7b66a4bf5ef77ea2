#include "integrity/device_ceilings.h"

#include <fmt/format.h>

namespace caliber {

std::string device_key(const DeviceInfo& d) {
  const std::string tail = d.backend == BackendKind::host || d.uuid.empty()
                               ? fmt::format("{} cpus", d.multiprocessors)
                               : d.uuid;
  return fmt::format("{}|{}|{}|{}", to_string(d.backend), d.name, d.arch, tail);
}

const DeviceCeilings* find_device_ceilings(const std::vector<DeviceCeilings>& all, const std::string& key) {
  for (const auto& d : all) {
    if (d.device_key == key) return &d;
  }
  return nullptr;
}

}  // namespace caliber
