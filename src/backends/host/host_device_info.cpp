#include "backends/host/host_device_info.h"

#include <gnu/libc-version.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <fstream>
#include <thread>

#include <fmt/format.h>

#include "caliber/errors.h"

namespace caliber::host {
namespace {

namespace fs = std::filesystem;

std::string read_first_line(const fs::path& p) {
  std::ifstream in(p);
  std::string line;
  if (in) std::getline(in, line);
  return line;
}

// "32768K", "1M", "512" -> bytes; 0 when unparsable.
std::uint64_t parse_cache_size(const std::string& text) {
  std::size_t pos = 0;
  std::uint64_t value = 0;
  try {
    value = std::stoull(text, &pos);
  } catch (...) {
    return 0;
  }
  const std::string unit = text.substr(pos);
  if (unit == "K") return value << 10;
  if (unit == "M") return value << 20;
  if (unit == "G") return value << 30;
  if (unit.empty()) return value;
  return 0;
}

std::string cpuinfo_field(const std::string& sys_root, const std::string& key) {
  std::ifstream in(fs::path(sys_root) / "proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key, 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) {
        std::string v = line.substr(colon + 1);
        v.erase(0, v.find_first_not_of(" \t"));
        return v;
      }
    }
  }
  return {};
}

// CALIBER_HOST_LLC_BYTES: the last-level cache size to assume instead of what the OS reports (a
// virtual machine may report its host's whole cache; the cold flush and the calibration copies
// are sized from it). Recorded as the source, so no result hides it; a value that is not a
// positive byte count ("8M", "8388608") is refused.
std::optional<CacheSize> llc_from_environment() {
  const char* v = std::getenv("CALIBER_HOST_LLC_BYTES");
  if (v == nullptr || *v == '\0') return std::nullopt;
  const std::uint64_t bytes = parse_cache_size(v);
  if (bytes == 0) {
    throw ContractError(fmt::format("environment CALIBER_HOST_LLC_BYTES: '{}' is not a positive byte count", v));
  }
  return CacheSize{bytes, fmt::format("environment CALIBER_HOST_LLC_BYTES={} (what the OS reports is not used)", v)};
}

}  // namespace

CacheSize last_level_cache(const std::string& sys_root) {
  if (sys_root == "/") {
    if (std::optional<CacheSize> set = llc_from_environment()) return *set;
  }
  const fs::path dir = fs::path(sys_root) / "sys/devices/system/cpu/cpu0/cache";
  int best_level = -1;
  CacheSize best;
  std::error_code ec;
  if (fs::is_directory(dir, ec)) {
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
      const std::string name = entry.path().filename().string();
      if (name.rfind("index", 0) != 0) continue;
      const std::string type = read_first_line(entry.path() / "type");
      if (type != "Unified" && type != "Data") continue;
      int level = 0;
      try {
        level = std::stoi(read_first_line(entry.path() / "level"));
      } catch (...) {
        continue;
      }
      const std::uint64_t bytes = parse_cache_size(read_first_line(entry.path() / "size"));
      if (bytes > 0 && level > best_level) {
        best_level = level;
        best = {bytes, fmt::format("sysfs: {} (L{} {})", (entry.path() / "size").string(), level, type)};
      }
    }
  }
  if (best.bytes > 0) return best;
  if (sys_root == "/") {
    const long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
    if (l3 > 0) return {static_cast<std::uint64_t>(l3), "sysconf(_SC_LEVEL3_CACHE_SIZE)"};
  }
  return {32ull << 20, "fallback: 32 MiB (the OS did not report the last-level cache size)"};
}

DeviceInfo describe_host(const std::string& sys_root) {
  DeviceInfo d;
  d.backend = BackendKind::host;
  d.index = 0;
  d.name = cpuinfo_field(sys_root, "model name");
  if (d.name.empty()) d.name = "unknown CPU";
  struct utsname u {};
  if (uname(&u) == 0) {
    d.arch = u.machine;
    d.driver_version = fmt::format("{} {}", u.sysname, u.release);
  }
  d.multiprocessors = static_cast<int>(std::thread::hardware_concurrency());
  const CacheSize llc = last_level_cache(sys_root);
  d.llc_bytes = llc.bytes;
  d.llc_source = llc.source;
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGESIZE);
  if (pages > 0 && page_size > 0) {
    d.memory_bytes = static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page_size);
  }
  const std::string max_khz =
      read_first_line(fs::path(sys_root) / "sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq");
  if (!max_khz.empty()) {
    try {
      d.sm_clock_max_mhz = static_cast<int>(std::stoll(max_khz) / 1000);
    } catch (...) {
    }
  }
  if (d.sm_clock_max_mhz == 0) {
    try {
      d.sm_clock_max_mhz = static_cast<int>(std::stod(cpuinfo_field(sys_root, "cpu MHz")));
    } catch (...) {
    }
  }
  d.runtime_version = fmt::format("glibc {}", gnu_get_libc_version());
  return d;
}

}  // namespace caliber::host
