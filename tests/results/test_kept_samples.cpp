// The raw samples a run's row keeps by default: all of a short measurement, an evenly spread
// subsample of a long one, in the order they were taken.
#include <gtest/gtest.h>

#include "results/kept_samples.h"

namespace caliber {
namespace {

TEST(KeptSamples, AMeasurementWithinTheLimitKeepsEverySample) {
  EXPECT_EQ(kept_samples({3, 1, 2}, 3), (std::vector<double>{3, 1, 2}));
  EXPECT_EQ(kept_samples({}, 4), std::vector<double>{});
}

TEST(KeptSamples, ALongerOneKeepsEveryKthInTimeOrder) {
  // n = 10, limit 4: positions floor(i * 10 / 4) = 0, 2, 5, 7.
  EXPECT_EQ(kept_samples({10, 11, 12, 13, 14, 15, 16, 17, 18, 19}, 4), (std::vector<double>{10, 12, 15, 17}));
}

TEST(KeptSamples, TheDefaultLimitBoundsARow) {
  std::vector<double> many(100000);
  for (std::size_t i = 0; i < many.size(); ++i) many[i] = static_cast<double>(i);
  const std::vector<double> kept = kept_samples(many);
  ASSERT_EQ(kept.size(), kKeptSamples);
  EXPECT_EQ(kept.front(), 0);
  EXPECT_EQ(kept.back(), static_cast<double>((kKeptSamples - 1) * 100000 / kKeptSamples));
}

}  // namespace
}  // namespace caliber
