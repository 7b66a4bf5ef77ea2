// The checksum and the non-finite count on literal bytes: the definition worked by hand, order
// sensitivity, the zero-padded tail, and each dtype's NaN and infinity patterns.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "core/buffer_digest.h"

namespace caliber::integrity {
namespace {

TEST(BufferDigest, ChecksumIsTheSumOfMixedIndexedWords) {
  const std::uint64_t words[2] = {0x0123456789abcdefull, 42};
  const std::uint64_t want =
      checksum_finish(checksum_term(words[0], 0) + checksum_term(words[1], 1), sizeof words);
  EXPECT_EQ(checksum_bytes(words, sizeof words), want);
  EXPECT_EQ(checksum_bytes(nullptr, 0), checksum_finish(0, 0));
}

TEST(BufferDigest, ChecksumSeesOrderTailAndLength) {
  std::vector<unsigned char> a(4099);
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<unsigned char>(i * 7 + 1);
  const std::uint64_t base = checksum_bytes(a.data(), a.size());
  std::vector<unsigned char> swapped = a;
  std::swap(swapped[0], swapped[8]);  // the same words, another order
  EXPECT_NE(checksum_bytes(swapped.data(), swapped.size()), base);
  std::vector<unsigned char> tail = a;
  tail.back() ^= 1;  // one bit of the 3-byte tail
  EXPECT_NE(checksum_bytes(tail.data(), tail.size()), base);
  std::vector<unsigned char> zero_extended = a;
  zero_extended.push_back(0);  // the same padded words, one byte longer
  EXPECT_NE(checksum_bytes(zero_extended.data(), zero_extended.size()), base);
  EXPECT_EQ(checksum_bytes(a.data(), a.size()), base);
}

TEST(BufferDigest, CountsNanAndInfinityInEveryDtype) {
  const std::uint32_t fp32[] = {0x3f800000u, 0x7fc00000u, 0xff800000u, 0x7f7fffffu, 0xffffffffu};  // 1, NaN, -inf, max, poison
  EXPECT_EQ(count_nonfinite_elements(fp32, 5, DType::fp32), 3u);
  const std::uint16_t bf16[] = {0x3f80u, 0x7fc0u, 0x7f80u, 0x7f7fu, 0xffffu};
  EXPECT_EQ(count_nonfinite_elements(bf16, 5, DType::bf16), 3u);
  const std::uint16_t fp16[] = {0x3c00u, 0x7e00u, 0xfc00u, 0x7bffu, 0xffffu};
  EXPECT_EQ(count_nonfinite_elements(fp16, 5, DType::fp16), 3u);
  EXPECT_EQ(count_nonfinite_elements(fp32, 1, DType::fp32), 0u);
}

}  // namespace
}  // namespace caliber::integrity
