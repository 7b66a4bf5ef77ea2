// Seeds drawn per run: a pinned seed is kept, a drawn one is never 0 and fits a signed 64-bit
// JSON integer (core/entropy_seed.h).
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <set>

#include "core/entropy_seed.h"

namespace caliber {
namespace {

TEST(EntropySeed, APinnedSeedIsKept) {
  EXPECT_EQ(pinned_or_drawn(7), 7u);
  EXPECT_EQ(pinned_or_drawn(std::numeric_limits<std::uint64_t>::max()), std::numeric_limits<std::uint64_t>::max());
}

TEST(EntropySeed, DrawnSeedsAreNonZeroFitAJsonIntegerAndDiffer) {
  std::set<std::uint64_t> seen;
  for (int i = 0; i < 64; ++i) {
    const std::uint64_t s = pinned_or_drawn(0);
    EXPECT_NE(s, 0u);
    EXPECT_LE(s, static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()));
    seen.insert(s);
  }
  EXPECT_GT(seen.size(), 60u);  // 64 draws of 63 bits: a repeat means no entropy
}

}  // namespace
}  // namespace caliber
