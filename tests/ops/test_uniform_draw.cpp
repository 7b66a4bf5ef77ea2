// The ops' uniform input draw (src/ops/uniform_draw.h): element by element it is the stream
// fill_uniform writes, and its values are SplitMix64's, computed independently (the expected bits
// below come from a Python transcription of the generator, not from this code).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>

#include "ops/host_draw.h"
#include "ops/host_tensor.h"
#include "ops/uniform_draw.h"

namespace caliber::ops {
namespace {

std::uint32_t bits_of(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

TEST(UniformDraw, KnownValues) {
  EXPECT_EQ(bits_of(uniform_element(1, 0, uniform_scale(-1.0f, 1.0f), -1.0f)), 0x3e9ce088u);
  EXPECT_EQ(bits_of(uniform_element(1, 65536, uniform_scale(-1.0f, 1.0f), -1.0f)), 0x3e600010u);
  EXPECT_EQ(bits_of(uniform_element(0xfedcba9876543210ull, 131073, uniform_scale(0.5f, 1.5f), 0.5f)), 0x3f9a67e5u);
  EXPECT_EQ(splitmix64(0), 0xe220a8397b1dcdafull);  // the first output of SplitMix64 seeded with 0
}

TEST(UniformDraw, EachElementIsTheStreamFillUniformWrites) {
  const std::int64_t n = 2 * static_cast<std::int64_t>(kUniformChunk) + 5;
  HostTensor t("x", DType::fp32, 1, n);
  fill_uniform(t, 77, -4.0f, 4.0f);
  const double scale = uniform_scale(-4.0f, 4.0f);
  for (std::uint64_t i : {0ull, 1ull, 65535ull, 65536ull, 65537ull, 131071ull, 131072ull, 131076ull}) {
    EXPECT_EQ(bits_of(static_cast<float>(t.get(i))), bits_of(uniform_element(77, i, scale, -4.0f))) << "element " << i;
  }
}

// [lo, hi]: the largest draw, lo + (2^24 - 1) * scale, can round up to hi in fp32.
TEST(UniformDraw, ValuesStayInTheInterval) {
  HostTensor t("x", DType::fp32, 1, 100000);
  fill_uniform(t, 5, 0.5f, 1.5f);
  for (std::size_t i = 0; i < t.elements(); ++i) {
    ASSERT_GE(t.get(i), 0.5) << i;
    ASSERT_LE(t.get(i), 1.5) << i;
  }
}

}  // namespace
}  // namespace caliber::ops
