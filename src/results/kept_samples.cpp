#include "results/kept_samples.h"

namespace caliber {

std::vector<double> kept_samples(std::vector<double> samples, std::size_t limit) {
  const std::size_t n = samples.size();
  if (n <= limit) return samples;
  std::vector<double> kept;
  kept.reserve(limit);
  // i * n stays far below 2^64: n is at most a measurement's sample count (10^7) and limit small.
  for (std::size_t i = 0; i < limit; ++i) kept.push_back(samples[i * n / limit]);
  return kept;
}

}  // namespace caliber
