// Faster than physics is not a result: a measurement whose bytes per second or flops per second
// exceed what the device was ever measured doing, by more than that measurement's own spread, or
// its generous theoretical peak, is flagged (integrity check physically_possible; results rows:
// status faster_than_physical). docs/integrity.md states the rule; the ceilings are the device's
// theoretical ones refined by `caliber calibrate`'s (integrity/bound_ceilings.h).
#pragma once

#include <cstdint>
#include <optional>

#include "caliber/contract.h"
#include "integrity/device_ceilings.h"
#include "caliber/dtype.h"
#include "caliber/integrity.h"

namespace caliber::integrity {

// One measured call: the minimum bytes it must move, the flops it must do, and its time.
struct MeasuredWork {
  std::uint64_t bytes = 0;
  std::uint64_t flops = 0;
  double time_us = 0;            // the measurement's median, microseconds
  DType dtype = DType::fp32;     // selects the matmul ceiling of the same dtype
  CachePolicy cache = CachePolicy::warm;
  std::uint64_t llc_bytes = 0;   // the device's last-level cache
};

// The highest rate a ceiling admits: the rate of its fastest sample, widened by its samples'
// full range (max / min): a call must beat everything the device did during calibration by more
// than calibration itself varied. Without the measurement (an old file, a theoretical ceiling,
// whose rate already holds its margin), the stored rate.
// nullopt when the ceiling is not available.
std::optional<double> admissible_rate_per_s(const Ceiling& ceiling);

// Which bandwidth bounds a call: warm calls whose bytes fit twice in the last-level cache may be
// served from it (the cache-bandwidth ceiling); otherwise device memory.
bool served_from_cache(const MeasuredWork& work);

// The physically_possible check of one measurement: failed when a rate exceeds its admissible
// rate, passed when at least one applicable ceiling was compared, not_run otherwise (with why).
// The detail names each ceiling's source ("calibrated" or "theoretical").
IntegrityCheck physical_bound_check(const MeasuredWork& work, const DeviceCeilings& ceilings);

}  // namespace caliber::integrity
