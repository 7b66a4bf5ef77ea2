// The host's copy rates, measured once per process: what the theoretical host bandwidth ceilings
// are built on (integrity/theoretical_ceilings.h). A memcpy of a buffer well above the last-level
// cache and of one well inside it (inside the first-level cache, the fastest a warm call can be
// served), best of a few repetitions, a few tens of milliseconds in all.
#pragma once

#include <cstdint>

#include "integrity/theoretical_ceilings.h"

namespace caliber {

// Measures the rates (one thread; bytes read plus written per second). llc_bytes: the host's
// last-level cache (0: unknown, taken as 32 MiB).
HostCopyRates measure_host_copy_rates(std::uint64_t llc_bytes);

// measure_host_copy_rates, run at the first call of the process and returned by every later one.
HostCopyRates host_copy_rates(std::uint64_t llc_bytes);

}  // namespace caliber
