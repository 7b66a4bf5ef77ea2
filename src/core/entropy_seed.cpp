#include "core/entropy_seed.h"

#include <random>

namespace caliber {

std::uint64_t entropy_seed() {
  std::random_device entropy;
  std::uint64_t seed = 0;
  while (seed == 0) seed = ((static_cast<std::uint64_t>(entropy()) << 32) ^ entropy()) >> 1;
  return seed;
}

std::uint64_t pinned_or_drawn(std::uint64_t seed) { return seed != 0 ? seed : entropy_seed(); }

}  // namespace caliber
