#include "measure/tracing_perturbation.h"

#include <algorithm>

namespace caliber::measurement {

double expected_tracing_perturbation_us(const std::vector<KernelStat>& kernels, std::uint64_t timed_calls) {
  const double calls = static_cast<double>(std::max<std::uint64_t>(timed_calls, 1));
  double us = 0;
  for (const KernelStat& k : kernels) {
    const double per_call = static_cast<double>(k.launches) / calls;
    us += per_call * (kTracingPerLaunchUs + static_cast<double>(k.max_blocks) * kTracingPerBlockUs);
  }
  return us * kTracingPerturbationMargin;
}

}  // namespace caliber::measurement
