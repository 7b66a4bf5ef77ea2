// How much CUPTI's concurrent-kernel tracing can add to one call: the bound on how far below
// CUPTI's number the events' number may read before `cupti_value auto` stops believing that
// tracing explains the difference (docs/cupti.md, Perturbation; measure/cupti_value.h).
//
// Two costs, measured on Hopper (docs/gpu/reference.md, docs/gpu/instruments_h100.md):
// - per traced launch: a one-block kernel took 3.5-3.9 us per launch under events back to back,
//   4.1-5.7 us with CUPTI tracing on (H200): at most 2.2 us added per launch;
// - per block: tracing slows a kernel in proportion to its blocks, about 75 ps per block (H200:
//   a 262,144-block kernel 208.7 -> 228.0 us; H100: +13.3 to +15.0 us on the same grid).
// The bound is their sum over the kernels one call launches, times a margin: a disagreement
// beyond it is not tracing.
#pragma once

#include <cstdint>
#include <vector>

#include "caliber/result.h"

namespace caliber::measurement {

inline constexpr double kTracingPerLaunchUs = 2.2;      // microseconds per traced launch
inline constexpr double kTracingPerBlockUs = 75e-6;     // microseconds per block (75 ps)
inline constexpr double kTracingPerturbationMargin = 1.5;

// The most tracing is expected to add to one call, microseconds: per kernel (copies and fills
// included, at the per-launch cost), launches per call x (per-launch cost + its largest grid x the
// per-block cost), summed, times the margin. `kernels`: the cupti result's breakdown over
// `timed_calls` calls (0 is taken as 1).
double expected_tracing_perturbation_us(const std::vector<KernelStat>& kernels, std::uint64_t timed_calls);

}  // namespace caliber::measurement
