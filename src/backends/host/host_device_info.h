// What the host backend knows about the CPU it runs on.
#pragma once

#include <cstdint>
#include <string>

#include "caliber/device.h"

namespace caliber::host {

struct CacheSize {
  std::uint64_t bytes = 0;
  std::string source;  // "sysfs: ...", "sysconf(...)", "environment ...", or "fallback: ..."
};

// The size of the outermost CPU cache, read from <sys_root>/sys/devices/system/cpu/cpu0/cache
// (the highest-level data or unified cache), else sysconf, else a recorded 32 MiB fallback.
// sys_root is "/" except in tests. On "/", the environment variable CALIBER_HOST_LLC_BYTES
// ("8M", "8388608") replaces what the OS reports, and the source says so (ContractError when it
// is not a positive byte count).
CacheSize last_level_cache(const std::string& sys_root = "/");

// The host CPU's identity.
DeviceInfo describe_host(const std::string& sys_root = "/");

}  // namespace caliber::host
