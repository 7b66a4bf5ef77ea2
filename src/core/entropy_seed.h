// Seeds nothing measured can predict: 63 bits from the operating system's entropy source
// (std::random_device), never 0 (0 is how options say "draw one"). 63, not 64: a seed is written
// as a JSON integer (campaign manifests, ab_plan.json) and every reader takes a signed 64-bit one.
#pragma once

#include <cstdint>

namespace caliber {

std::uint64_t entropy_seed();

// `seed` when pinned (non-zero), else a fresh entropy_seed().
std::uint64_t pinned_or_drawn(std::uint64_t seed);

}  // namespace caliber
