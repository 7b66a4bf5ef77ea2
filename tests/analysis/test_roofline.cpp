// Roofline fractions: achieved rates against the measured ceilings, the larger fraction wins.
#include <gtest/gtest.h>

#include "analysis/roofline.h"

namespace caliber {
namespace {

DeviceCeilings ceilings() {
  DeviceCeilings c;
  c.memory_bandwidth = {true, 4.0e12, "bytes/s", "test", 0, std::nullopt, ""};
  c.matmul["bf16"] = {true, 8.0e14, "flop/s", "test", 0, std::nullopt, ""};
  c.matmul["fp32"] = {false, 0, "", "", 0, std::nullopt, "not measured"};
  return c;
}

TEST(Roofline, MemoryBoundCall) {
  const DeviceCeilings c = ceilings();
  // 2e6 bytes and 1e6 flops in 1 us: 2e12 B/s (50% of 4e12), 1e12 flop/s (0.125% of 8e14).
  const RooflinePoint p = roofline_point(2000000, 1000000, 1.0, &c, "bf16");
  EXPECT_DOUBLE_EQ(p.achieved_bytes_per_s, 2e12);
  EXPECT_DOUBLE_EQ(p.achieved_flops_per_s, 1e12);
  EXPECT_DOUBLE_EQ(*p.memory_fraction, 0.5);
  EXPECT_DOUBLE_EQ(*p.compute_fraction, 0.00125);
  EXPECT_DOUBLE_EQ(*p.fraction, 0.5);
  EXPECT_EQ(p.bound, "memory");
  EXPECT_EQ(p.matmul_dtype, "bf16");
}

TEST(Roofline, ComputeBoundCall) {
  const DeviceCeilings c = ceilings();
  // 1e6 bytes, 6e8 flops in 1 us: 25% of memory, 75% of compute.
  const RooflinePoint p = roofline_point(1000000, 600000000, 1.0, &c, "bf16");
  EXPECT_DOUBLE_EQ(*p.fraction, 0.75);
  EXPECT_EQ(p.bound, "compute");
}

TEST(Roofline, NoCeilingOfTheDtypeMeansMemoryOnly) {
  const DeviceCeilings c = ceilings();
  const RooflinePoint p = roofline_point(2000000, 600000000, 1.0, &c, "fp32");  // fp32 not available
  EXPECT_FALSE(p.compute_fraction);
  EXPECT_EQ(p.matmul_dtype, "");
  EXPECT_DOUBLE_EQ(*p.fraction, 0.5);
  EXPECT_EQ(matmul_ceiling_for(c, "fp16"), nullptr);
}

TEST(Roofline, WithoutCeilingsOnlyAchievedRates) {
  const RooflinePoint p = roofline_point(1000, 0, 2.0, nullptr, "bf16");
  EXPECT_DOUBLE_EQ(p.achieved_bytes_per_s, 5e8);
  EXPECT_FALSE(p.fraction);
  EXPECT_EQ(p.bound, "");
}

}  // namespace
}  // namespace caliber
