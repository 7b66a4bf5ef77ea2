// Theoretical ceilings on literal devices (an H100 SXM, a 16-CPU host with literal copy rates),
// the rule by which calibrated ceilings refine them, and the physical bound they give without any
// ceilings file.
#include <gtest/gtest.h>

#include "integrity/bound_ceilings.h"
#include "integrity/physical_bound.h"
#include "integrity/theoretical_ceilings.h"

namespace caliber {
namespace {

DeviceInfo h100() {
  DeviceInfo d;
  d.backend = BackendKind::cuda;
  d.name = "NVIDIA H100 80GB HBM3";
  d.arch = "sm_90";
  d.uuid = "GPU-1";
  d.multiprocessors = 132;
  d.llc_bytes = 50u << 20;
  d.sm_clock_max_mhz = 1980;
  d.mem_clock_max_mhz = 2619;
  d.memory_bus_width_bits = 5120;
  return d;
}

DeviceInfo host16() {
  DeviceInfo d;
  d.backend = BackendKind::host;
  d.name = "Test CPU";
  d.arch = "x86_64";
  d.multiprocessors = 16;
  d.llc_bytes = 32u << 20;
  return d;
}

HostCopyRates literal_rates() {
  return {1e10, 4e10, "memcpy of 64.0 MiB, best of 3; memcpy of 2.00 MiB, best of 20"};
}

TEST(TheoreticalCeilings, Sm90FromItsAttributes) {
  const DeviceCeilings c = theoretical_ceilings(h100(), std::nullopt);
  EXPECT_EQ(c.device_key, "cuda|NVIDIA H100 80GB HBM3|sm_90|GPU-1");
  // 2619 MHz x 640 bytes x 2 = 3.35232e12 B/s, x 1.25.
  EXPECT_TRUE(c.memory_bandwidth.available);
  EXPECT_DOUBLE_EQ(c.memory_bandwidth.rate_per_s, 4.1904e12);
  EXPECT_EQ(c.memory_bandwidth.unit, "bytes/s");
  EXPECT_EQ(c.memory_bandwidth.method,
            "theoretical: memory clock 2619 MHz x 5120-bit bus x 2 (DDR) = 3.35 TB/s, x 1.25 margin");
  // 132 x 256 bytes x 1980 MHz = 6.690816e13 B/s, x 1.25.
  EXPECT_DOUBLE_EQ(c.cache_bandwidth.rate_per_s, 8.36352e13);
  EXPECT_EQ(c.cache_bandwidth.method,
            "theoretical: 132 SMs x 256 bytes/clk x 1980 MHz = 66.91 TB/s (twice an SM's L1 rate), x 1.25 margin");
  // 132 x 1980 MHz x 4096 = 1.07053056e15 flop/s (the datasheet's 989 at 1830 MHz), x 1.25.
  ASSERT_EQ(c.matmul.size(), 3u);
  EXPECT_DOUBLE_EQ(c.matmul.at("bf16").rate_per_s, 1.3381632e15);
  EXPECT_DOUBLE_EQ(c.matmul.at("fp16").rate_per_s, 1.3381632e15);
  EXPECT_EQ(c.matmul.at("bf16").unit, "flop/s");
  EXPECT_EQ(c.matmul.at("bf16").method,
            "theoretical: 132 SMs x 1980 MHz x sm_90 dense 4096 flop/clk/SM = 1070.53 TFLOP/s, x 1.25 margin");
  // fp32: the tf32 tensor rate (2048), above the FMA rate (256).
  EXPECT_DOUBLE_EQ(c.matmul.at("fp32").rate_per_s, 6.690816e14);
  EXPECT_EQ(c.matmul.at("fp32").method,
            "theoretical: 132 SMs x 1980 MHz x sm_90 dense 2048 flop/clk/SM (tf32 tensor rate) = 535.27 TFLOP/s, x "
            "1.25 margin");
  EXPECT_TRUE(is_theoretical(c.matmul.at("fp32")));
  EXPECT_STREQ(ceiling_source(c.memory_bandwidth), "theoretical");
}

TEST(TheoreticalCeilings, UnknownArchitecturesGetTwiceTheTablesHighestRate) {
  DeviceInfo d = h100();
  d.arch = "sm_120";
  const Ceiling bf16 = theoretical_ceilings(d, std::nullopt).matmul.at("bf16");
  EXPECT_DOUBLE_EQ(bf16.rate_per_s, 132 * 1980e6 * 16384 * 1.25);
  EXPECT_EQ(bf16.method,
            "theoretical: 132 SMs x 1980 MHz x sm_120 not in the table: 16384 flop/clk/SM, 2x the table's highest = "
            "4282.12 TFLOP/s, x 1.25 margin");
}

TEST(TheoreticalCeilings, MissingAttributesLeaveACeilingNotAvailableWithWhy) {
  DeviceInfo d = h100();
  d.memory_bus_width_bits = 0;  // a results file written before the field existed
  d.sm_clock_max_mhz = 0;
  const DeviceCeilings c = theoretical_ceilings(d, std::nullopt);
  EXPECT_FALSE(c.memory_bandwidth.available);
  EXPECT_EQ(c.memory_bandwidth.reason, "theoretical: the device reports no memory clock or bus width");
  EXPECT_FALSE(c.cache_bandwidth.available);
  EXPECT_FALSE(c.matmul.at("bf16").available);
  EXPECT_EQ(c.matmul.at("bf16").reason, "theoretical: the device reports no multiprocessor count or SM clock");
}

TEST(TheoreticalCeilings, HostFromItsCopyRatesAndAGenerousClock) {
  const DeviceCeilings c = theoretical_ceilings(host16(), literal_rates());
  EXPECT_EQ(c.device_key, "host|Test CPU|x86_64|16 cpus");
  // 1e10 B/s x 16 CPUs x 2; 4e10 B/s x 16 x 2.
  EXPECT_DOUBLE_EQ(c.memory_bandwidth.rate_per_s, 3.2e11);
  EXPECT_EQ(c.memory_bandwidth.method,
            "theoretical: one thread's memcpy of 64.0 MiB, best of 3 at 10.00 GB/s x 16 logical CPUs x 2 margin");
  EXPECT_DOUBLE_EQ(c.cache_bandwidth.rate_per_s, 1.28e12);
  EXPECT_EQ(c.cache_bandwidth.method,
            "theoretical: one thread's memcpy of 2.00 MiB, best of 20 at 40.00 GB/s x 16 logical CPUs x 2 margin");
  // 16 x 5 GHz x 64 flop/clk; bf16 and fp16 at AMX's 2048.
  EXPECT_DOUBLE_EQ(c.matmul.at("fp32").rate_per_s, 5.12e12);
  EXPECT_EQ(c.matmul.at("fp32").method,
            "theoretical: 16 logical CPUs x 5 GHz x 64 flop/clk (2 AVX-512 FMA units), a rate no CPU sustains");
  EXPECT_DOUBLE_EQ(c.matmul.at("bf16").rate_per_s, 1.6384e14);
  EXPECT_EQ(c.matmul.at("fp16").method,
            "theoretical: 16 logical CPUs x 5 GHz x 2048 flop/clk (AMX: 1024 multiply-accumulates per clock), a rate "
            "no CPU sustains");
  // A reported clock above 5 GHz is used instead.
  DeviceInfo fast = host16();
  fast.sm_clock_max_mhz = 6000;
  EXPECT_DOUBLE_EQ(theoretical_ceilings(fast, literal_rates()).matmul.at("fp32").rate_per_s, 16 * 6e9 * 64);
}

TEST(TheoreticalCeilings, HostBandwidthNeedsTheRatesOfTheMachineItself) {
  const DeviceCeilings c = theoretical_ceilings(host16(), std::nullopt);
  EXPECT_FALSE(c.memory_bandwidth.available);
  EXPECT_EQ(c.memory_bandwidth.reason,
            "theoretical: the host's copy rates are measured only on the machine that ran the call");
  EXPECT_TRUE(c.matmul.at("fp32").available);
}

// calibrate's entry: memory and bf16 measured, fp16 failed, no fp32, and a dtype the theoretical
// table lacks.
DeviceCeilings calibrated_h100() {
  DeviceCeilings c;
  c.device_key = "cuda|NVIDIA H100 80GB HBM3|sm_90|GPU-1";
  c.measured_at = "2026-12-01T00:00:00Z";
  c.memory_bandwidth = {true, 3.0e12, "bytes/s", "copy of 4 GiB", 0, std::nullopt, ""};
  c.matmul["bf16"] = {true, 7.0e14, "flop/s", "cuBLAS bf16 8192^3", 0, std::nullopt, ""};
  c.matmul["fp16"] = {false, 0, "flop/s", "", 0, std::nullopt, "cuBLAS fp16 failed"};
  c.matmul["fp8"] = {true, 1.2e15, "flop/s", "cuBLAS fp8", 0, std::nullopt, ""};
  return c;
}

TEST(BoundCeilings, CalibratedCeilingsRefineTheTheoreticalOnesPerCeiling) {
  const DeviceCeilings calibrated = calibrated_h100();
  const DeviceCeilings b = refine_ceilings(theoretical_ceilings(h100(), std::nullopt), &calibrated);
  EXPECT_EQ(b.measured_at, "2026-12-01T00:00:00Z");
  EXPECT_DOUBLE_EQ(b.memory_bandwidth.rate_per_s, 3.0e12);
  EXPECT_STREQ(ceiling_source(b.memory_bandwidth), "calibrated");
  // The cache was not calibrated (an older file): the theoretical one stays.
  EXPECT_DOUBLE_EQ(b.cache_bandwidth.rate_per_s, 8.36352e13);
  EXPECT_STREQ(ceiling_source(b.cache_bandwidth), "theoretical");
  EXPECT_DOUBLE_EQ(b.matmul.at("bf16").rate_per_s, 7.0e14);
  // fp16 not available and fp32 missing in the file: theoretical.
  EXPECT_DOUBLE_EQ(b.matmul.at("fp16").rate_per_s, 1.3381632e15);
  EXPECT_DOUBLE_EQ(b.matmul.at("fp32").rate_per_s, 6.690816e14);
  EXPECT_DOUBLE_EQ(b.matmul.at("fp8").rate_per_s, 1.2e15);
  // Without a calibrated entry: the theoretical ceilings as they are.
  EXPECT_EQ(refine_ceilings(theoretical_ceilings(h100(), std::nullopt), nullptr).memory_bandwidth.rate_per_s, 4.1904e12);
}

integrity::MeasuredWork work(std::uint64_t bytes, std::uint64_t flops, double us, DType dtype = DType::bf16) {
  return {bytes, flops, us, dtype, CachePolicy::cold, 50u << 20};
}

// No ceilings file: a call that "moves" 1 GiB in 10 us fails against the theoretical bound.
TEST(PhysicalBoundTheoretical, ACheatingMeasurementFailsWithoutAnyCalibration) {
  const DeviceCeilings bound = refine_ceilings(theoretical_ceilings(h100(), std::nullopt), nullptr);
  const IntegrityCheck cheat = integrity::physical_bound_check(work(1u << 30, 0, 10.0), bound);
  EXPECT_EQ(cheat.outcome, CheckOutcome::failed);
  EXPECT_EQ(cheat.detail,
            "1.00 GiB moved in 10 us is 107.37 TB/s, 25.6x the device's theoretical memory bandwidth (4.19 TB/s; "
            "admissible up to 4.19 TB/s; theoretical: memory clock 2619 MHz x 5120-bit bus x 2 (DDR) = 3.35 TB/s, x "
            "1.25 margin): faster than the device can go, so the call did not do its work");
  // The same bytes at 3.25 TB/s: an honest copy near the peak passes.
  const IntegrityCheck honest = integrity::physical_bound_check(work(1u << 30, 0, 330.0), bound);
  EXPECT_EQ(honest.outcome, CheckOutcome::passed);
  EXPECT_EQ(honest.detail, "3.25 TB/s 78% of the theoretical memory bandwidth ceiling");
}

TEST(PhysicalBoundTheoretical, AnFp32MatmulMissingFromTheFileIsBoundByTheTheoreticalCeiling) {
  const DeviceCeilings calibrated = calibrated_h100();
  const DeviceCeilings bound = refine_ceilings(theoretical_ceilings(h100(), std::nullopt), &calibrated);
  // 2 x 8192^3 fp32 flops in 100 us: 1.1e16 flop/s, far above the 6.7e14 theoretical bound.
  const IntegrityCheck c = integrity::physical_bound_check(work(1, 1099511627776ull, 100.0, DType::fp32), bound);
  EXPECT_EQ(c.outcome, CheckOutcome::failed);
  EXPECT_NE(c.detail.find("the device's theoretical fp32 matmul"), std::string::npos) << c.detail;
  // The bytes are judged against the calibrated memory ceiling.
  const IntegrityCheck bytes = integrity::physical_bound_check(work(1u << 30, 0, 400.0), bound);
  EXPECT_EQ(bytes.outcome, CheckOutcome::passed);
  EXPECT_EQ(bytes.detail, "2.68 TB/s 89% of the calibrated memory bandwidth ceiling");
}

TEST(PhysicalBoundTheoretical, NothingToCompareIsNotRunAndSaysWhy) {
  const DeviceCeilings bound = theoretical_ceilings(h100(), std::nullopt);
  const IntegrityCheck c = integrity::physical_bound_check(work(0, 0, 10.0), bound);
  EXPECT_EQ(c.outcome, CheckOutcome::not_run);
  EXPECT_EQ(c.detail,
            "nothing to compare (no bytes, no flops): no ceiling bounds the time, so the number is not verified "
            "against the device");
}

}  // namespace
}  // namespace caliber
