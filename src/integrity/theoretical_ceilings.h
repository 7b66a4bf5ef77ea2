// Theoretical device ceilings: the bound every measurement gets, with or without `caliber
// calibrate` (docs/integrity.md, physically_possible). They come from the device's attributes
// (clocks, bus width, multiprocessors) and per-architecture peak rates, each widened by a stated
// margin: a bound that flags an honest kernel is worse than none, so every figure is a generous
// peak, and each Ceiling's `method` states its formula, its source and its margin. Calibrated
// ceilings, when present, refine them (integrity/bound_ceilings.h).
#pragma once

#include <optional>
#include <string>

#include "integrity/device_ceilings.h"

namespace caliber {

// Every theoretical ceiling's method starts with this, so a check's detail can name its source.
inline constexpr std::string_view kTheoreticalMethodPrefix = "theoretical: ";

// cuda: the datasheet-style peak from the attributes, times this margin.
inline constexpr double kDevicePeakMargin = 1.25;
// host: the quick copy rates (host_copy_rates.h) times the logical CPUs (the copy runs on one
// thread; a kernel may use them all) times this margin.
inline constexpr double kHostCopyMargin = 2.0;
// host matmul: logical CPUs x this clock (or the reported one when higher) x the fp32 flops per
// clock of two AVX-512 FMA units (2 units x 16 lanes x 2 flops): a rate no CPU core sustains.
inline constexpr double kHostClockHz = 5e9;
inline constexpr double kHostFlopsPerClock = 64;

// The host's copy rates: bytes read plus written per second by one thread's memcpy of a buffer
// well above the last-level cache (memory) and of one well inside it (cache), and what was run.
struct HostCopyRates {
  double memory_bytes_per_s = 0;
  double cache_bytes_per_s = 0;
  std::string method;  // "memcpy of 64.0 MiB, best of 3"; the cache's after "; "
};

// The ceilings of `device` from its attributes. Host bandwidths need `host_rates`, measured on
// the machine itself: without them they are not available (a report read elsewhere).
DeviceCeilings theoretical_ceilings(const DeviceInfo& device, const std::optional<HostCopyRates>& host_rates);

// The ceilings of a device this process runs on: for the host, with host_copy_rates() (measured
// once per process).
DeviceCeilings theoretical_ceilings(const DeviceInfo& device);

// Whether a ceiling is a theoretical one (its method says so), not a calibrated one.
bool is_theoretical(const Ceiling& ceiling);

}  // namespace caliber
