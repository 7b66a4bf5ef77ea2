// Host bf16/fp16 conversions: bit-exact round to nearest even, as the device converts.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/dtype_convert.h"

namespace caliber::ops {
namespace {

TEST(DtypeConvert, Bf16KnownValues) {
  EXPECT_EQ(float_to_bf16(1.0f), 0x3f80);
  EXPECT_EQ(float_to_bf16(-2.0f), 0xc000);
  // 1 + 2^-8 is exactly halfway between 1 and 1 + 2^-7: ties go to the even mantissa (1.0).
  EXPECT_EQ(float_to_bf16(1.0f + 1.0f / 256), 0x3f80);
  // 1 + 3 * 2^-8 is halfway between 1 + 2^-7 (odd) and 1 + 2^-6 (even): rounds up.
  EXPECT_EQ(float_to_bf16(1.0f + 3.0f / 256), 0x3f82);
  EXPECT_EQ(bf16_to_float(0x3f80), 1.0f);
  EXPECT_TRUE(std::isnan(bf16_to_float(float_to_bf16(std::numeric_limits<float>::quiet_NaN()))));
  EXPECT_TRUE(std::isinf(bf16_to_float(float_to_bf16(std::numeric_limits<float>::infinity()))));
}

TEST(DtypeConvert, Fp16KnownValues) {
  EXPECT_EQ(float_to_fp16(1.0f), 0x3c00);
  EXPECT_EQ(float_to_fp16(-2.0f), 0xc000);
  EXPECT_EQ(float_to_fp16(65504.0f), 0x7bff);            // largest finite
  EXPECT_EQ(float_to_fp16(65520.0f), 0x7c00);            // rounds to infinity
  EXPECT_EQ(float_to_fp16(std::ldexp(1.0f, -24)), 0x0001);  // smallest subnormal
  EXPECT_EQ(float_to_fp16(std::ldexp(1.0f, -25)), 0x0000);  // halfway to 0: ties to even (0)
  EXPECT_EQ(float_to_fp16(std::ldexp(3.0f, -25)), 0x0002);  // 1.5 x 2^-24: ties to even (2)
  EXPECT_EQ(float_to_fp16(std::ldexp(1.0f, -14)), 0x0400);  // smallest normal
  EXPECT_EQ(fp16_to_float(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(fp16_to_float(0x3555), 0.333251953125f);
}

TEST(DtypeConvert, EveryFp16ValueRoundTrips) {
  for (std::uint32_t h = 0; h <= 0xffff; ++h) {
    const float f = fp16_to_float(static_cast<std::uint16_t>(h));
    if (std::isnan(f)) continue;
    ASSERT_EQ(float_to_fp16(f), h) << std::hex << h;
  }
}

TEST(DtypeConvert, EveryBf16ValueRoundTrips) {
  for (std::uint32_t h = 0; h <= 0xffff; ++h) {
    const float f = bf16_to_float(static_cast<std::uint16_t>(h));
    if (std::isnan(f)) continue;
    ASSERT_EQ(float_to_bf16(f), h) << std::hex << h;
  }
}

}  // namespace
}  // namespace caliber::ops
