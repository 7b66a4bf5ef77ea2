// The physical-bound check on literal ceilings: the admissible rate (fastest calibration sample
// widened by the calibration's range), the cache ceiling for warm calls that fit in the
// last-level cache, the matmul ceiling of the call's own dtype, and what happens without them.
#include <gtest/gtest.h>

#include "integrity/physical_bound.h"

namespace caliber::integrity {
namespace {

Ceiling measured(double work, double min_us, double median_us, double max_us, const char* unit) {
  Ceiling c;
  c.available = true;
  c.unit = unit;
  c.work_per_call = static_cast<std::uint64_t>(work);
  c.rate_per_s = work / (median_us * 1e-6);
  Result r;
  r.summary.min_us = min_us;
  r.summary.median_us = median_us;
  r.summary.max_us = max_us;
  c.measurement = r;
  return c;
}

DeviceCeilings ceilings() {
  DeviceCeilings d;
  // 4e9 bytes: fastest 1000 us (4e12 B/s), range 1.05 -> admissible 4.2e12 B/s.
  d.memory_bandwidth = measured(4e9, 1000, 1010, 1050, "bytes/s");
  // 1e8 bytes from the cache: fastest 10 us (1e13 B/s), no range.
  d.cache_bandwidth = measured(1e8, 10, 10, 10, "bytes/s");
  // 1e12 flops: fastest 1250 us (8e14), range 1.1 -> admissible 8.8e14.
  d.matmul["bf16"] = measured(1e12, 1250, 1300, 1375, "flop/s");
  return d;
}

MeasuredWork work(std::uint64_t bytes, std::uint64_t flops, double us, CachePolicy cache = CachePolicy::cold,
                  DType d = DType::bf16) {
  return {bytes, flops, us, d, cache, 60u << 20};
}

TEST(PhysicalBound, AdmissibleRateIsTheFastestSampleWidenedByTheRange) {
  EXPECT_DOUBLE_EQ(*admissible_rate_per_s(ceilings().memory_bandwidth), 4e12 * 1.05);
  Ceiling old = ceilings().memory_bandwidth;
  old.measurement.reset();  // a file without the measurement: the stored rate
  EXPECT_DOUBLE_EQ(*admissible_rate_per_s(old), old.rate_per_s);
  EXPECT_FALSE(admissible_rate_per_s(Ceiling{}).has_value());
}

TEST(PhysicalBound, BytesFasterThanMemoryFail) {
  // 4.2e6 bytes: admissible down to 1 us (4.2e12 B/s); 1.01 us passes, 0.99 us is faster.
  EXPECT_EQ(physical_bound_check(work(4200000, 0, 1.01), ceilings()).outcome, CheckOutcome::passed);
  const IntegrityCheck c = physical_bound_check(work(4200000, 0, 0.99), ceilings());
  EXPECT_EQ(c.outcome, CheckOutcome::failed);
  EXPECT_NE(c.detail.find("memory bandwidth"), std::string::npos) << c.detail;
  EXPECT_EQ(c.name, "physically_possible");
}

TEST(PhysicalBound, WarmCallsThatFitInTheCacheAreBoundByTheCache) {
  // 8 MiB in 1 us = 8.4e12 B/s: above memory, below the cache's 1e13.
  const std::uint64_t bytes = 8u << 20;
  EXPECT_EQ(physical_bound_check(work(bytes, 0, 1.0, CachePolicy::warm), ceilings()).outcome, CheckOutcome::passed);
  EXPECT_EQ(physical_bound_check(work(bytes, 0, 1.0, CachePolicy::cold), ceilings()).outcome, CheckOutcome::failed);
  EXPECT_EQ(physical_bound_check(work(bytes, 0, 0.5, CachePolicy::warm), ceilings()).outcome, CheckOutcome::failed);
  // Twice the cache or more: memory again, warm or not.
  EXPECT_EQ(physical_bound_check(work(120u << 20, 0, 15.0, CachePolicy::warm), ceilings()).outcome,
            CheckOutcome::failed);
}

TEST(PhysicalBound, FlopsUseTheMatmulCeilingOfTheirDtype) {
  // 8.8e8 flops: admissible down to 1 us (8.8e14 flop/s); 1.01 us passes, 0.9 us does not.
  EXPECT_EQ(physical_bound_check(work(1, 880000000, 1.01), ceilings()).outcome, CheckOutcome::passed);
  EXPECT_EQ(physical_bound_check(work(1, 880000000, 0.9), ceilings()).outcome, CheckOutcome::failed);
  // fp32 has no calibrated matmul: the flops are not judged, the bytes are.
  const IntegrityCheck fp32 = physical_bound_check(work(1, 880000000, 0.9, CachePolicy::cold, DType::fp32), ceilings());
  EXPECT_EQ(fp32.outcome, CheckOutcome::passed);
  EXPECT_NE(fp32.detail.find("no fp32 matmul ceiling"), std::string::npos) << fp32.detail;
}

TEST(PhysicalBound, WithoutCeilingsNothingIsClaimed) {
  const IntegrityCheck c = physical_bound_check(work(1u << 20, 0, 0.001), DeviceCeilings{});
  EXPECT_EQ(c.outcome, CheckOutcome::not_run);
  EXPECT_NE(c.detail.find("no memory bandwidth ceiling"), std::string::npos) << c.detail;
  EXPECT_EQ(physical_bound_check(work(1u << 20, 0, 0.0), ceilings()).outcome, CheckOutcome::failed);  // zero time
}

}  // namespace
}  // namespace caliber::integrity
