// The tolerance rule of an output without a reference, on literal arrays.
#include <gtest/gtest.h>

#include <cstring>
#include <limits>

#include "integrity/output_check.h"

namespace caliber::integrity {
namespace {

std::vector<unsigned char> bytes_of(const std::vector<float>& v) {
  std::vector<unsigned char> b(v.size() * sizeof(float));
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

TEST(OutputCheck, WithinTheToleranceOfTheUntimedOutput) {
  const OutputRule rule{OutputRule::Kind::tolerance, 1e-3, 0.0};
  EXPECT_EQ(compare_within_tolerance(bytes_of({1, 2, 4}), bytes_of({1.0005f, 2, 4}), DType::fp32, rule), "");
  EXPECT_EQ(compare_within_tolerance(bytes_of({1, 2, 4}), bytes_of({1.5f, 2, 4.5f}), DType::fp32, rule),
            "2 of 3 elements differ from the untimed call's output by more than rtol 0.001 |first| + atol 0 "
            "(largest difference 0.5)");
}

TEST(OutputCheck, ANonFiniteElementIsNeverWithinTolerance) {
  const OutputRule rule{OutputRule::Kind::tolerance, 1.0, 1.0};
  EXPECT_EQ(compare_within_tolerance(bytes_of({1}), bytes_of({std::numeric_limits<float>::quiet_NaN()}), DType::fp32, rule),
            "1 of 1 elements differ from the untimed call's output by more than rtol 1 |first| + atol 1 (largest "
            "difference inf)");
}

}  // namespace
}  // namespace caliber::integrity
