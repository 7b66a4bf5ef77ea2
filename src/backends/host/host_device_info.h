// What the host backend knows about the CPU it runs on.
#pragma once

#include <cstdint>
#include <string>

#include "caliber/device.h"

namespace caliber::host {

struct CacheSize {
  std::uint64_t bytes = 0;
  std::string source;  // "sysfs: ...", "sysconf(_SC_LEVEL3_CACHE_SIZE)", or "fallback: ..."
};

// The size of the outermost CPU cache, read from <sys_root>/sys/devices/system/cpu/cpu0/cache
// (the highest-level data or unified cache), else sysconf, else a recorded 32 MiB fallback.
// sys_root is "/" except in tests.
CacheSize last_level_cache(const std::string& sys_root = "/");

// The host CPU's identity.
DeviceInfo describe_host(const std::string& sys_root = "/");

}  // namespace caliber::host
