#include "integrity/host_copy_rates.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <mutex>
#include <vector>

#include <fmt/format.h>

#include "core/unit_text.h"

namespace caliber {
namespace {

constexpr std::uint64_t kMiB = 1024 * 1024;

// Keeps the compiler from dropping or merging copies whose destination is not read in between.
inline void clobber_memory() { asm volatile("" : : : "memory"); }

// The fastest of `repetitions` timings of `copies` copies of `bytes` (back and forth between two
// buffers; the first timing touches the pages), in bytes read plus written per second.
double best_copy_rate(std::uint64_t bytes, int copies, int repetitions) {
  std::vector<unsigned char> a(bytes, 1);
  std::vector<unsigned char> b(bytes, 0);
  double best_s = 0;
  for (int i = 0; i < repetitions; ++i) {
    const auto start = std::chrono::steady_clock::now();
    for (int k = 0; k < copies; ++k) {
      if (k % 2 == 0) {
        std::memcpy(b.data(), a.data(), bytes);
      } else {
        std::memcpy(a.data(), b.data(), bytes);
      }
      clobber_memory();
    }
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (s > 0 && (best_s == 0 || s < best_s)) best_s = s;
  }
  if (a[bytes / 2] != 1 || b[bytes / 2] != 1) return 0;  // the copies did not happen
  return best_s > 0 ? 2.0 * static_cast<double>(bytes) * copies / best_s : 0;
}

}  // namespace

HostCopyRates measure_host_copy_rates(std::uint64_t llc_bytes) {
  const std::uint64_t llc = llc_bytes > 0 ? llc_bytes : 32 * kMiB;
  // Source and destination together 4x the cache, within 32..128 MiB each (tens of ms).
  const std::uint64_t memory_bytes = std::clamp<std::uint64_t>(2 * llc, 32 * kMiB, 128 * kMiB);
  // 8 KiB each way: inside the first-level data cache of any CPU, the fastest a warm call's bytes
  // can be served; many copies per timing, so the clock's resolution does not count.
  constexpr std::uint64_t kCacheBytes = 8 * 1024;
  constexpr int kMemoryRepetitions = 3;
  constexpr int kCacheCopies = 256;
  constexpr int kCacheRepetitions = 20;
  HostCopyRates r;
  r.memory_bytes_per_s = best_copy_rate(memory_bytes, 1, kMemoryRepetitions);
  r.cache_bytes_per_s = best_copy_rate(kCacheBytes, kCacheCopies, kCacheRepetitions);
  r.method = fmt::format("memcpy of {}, best of {}; memcpy of {} x {}, best of {}", format_bytes(memory_bytes),
                         kMemoryRepetitions, format_bytes(kCacheBytes), kCacheCopies, kCacheRepetitions);
  return r;
}

HostCopyRates host_copy_rates(std::uint64_t llc_bytes) {
  static std::once_flag once;
  static HostCopyRates rates;
  std::call_once(once, [&] { rates = measure_host_copy_rates(llc_bytes); });
  return rates;
}

}  // namespace caliber
