// Host calibration: real measurements of a small copy and sgemm, and the refusals.
#include <gtest/gtest.h>

#include <sstream>

#include "backends/host/host_backend.h"
#include "calibrate/calibration.h"
#include "caliber/errors.h"

namespace caliber {
namespace {

TEST(Calibration, CeilingContractIsWarmMedianAdaptiveAndValid) {
  const Contract c = calibrate::ceiling_contract(BackendKind::host, 300);
  EXPECT_EQ(c.cache, CachePolicy::warm);
  EXPECT_EQ(c.statistic.name(), "median");
  EXPECT_EQ(c.iterations.mode, IterationRule::Mode::adaptive);
  EXPECT_EQ(c.iterations.max_time_ms, 300);
  EXPECT_FALSE(why_invalid(c));
  EXPECT_EQ(calibrate::ceiling_contract(BackendKind::cuda, 5).iterations.min_time_ms, 5);
}

TEST(Calibration, RefusesACopyThatWouldMeasureTheCache) {
  host::HostBackend backend;
  calibrate::CalibrationOptions o;
  o.copy_bytes = backend.device().llc_bytes;  // 1x the LLC < 4x
  std::ostringstream log;
  EXPECT_THROW(calibrate::calibrate_device(backend, o, log), UsageError);
}

TEST(Calibration, MeasuresHostBandwidthAndSgemm) {
  host::HostBackend backend;
  calibrate::CalibrationOptions o;
  o.copy_bytes = calibrate::minimum_copy_bytes(backend.device());
  o.matmul_size = 128;
  o.max_time_ms = 100;
  std::ostringstream log;
  const DeviceCeilings d = calibrate::calibrate_device(backend, o, log);
  EXPECT_EQ(d.device_key, device_key(backend.device()));
  ASSERT_TRUE(d.memory_bandwidth.available) << d.memory_bandwidth.reason;
  EXPECT_EQ(d.memory_bandwidth.unit, "bytes/s");
  EXPECT_EQ(d.memory_bandwidth.work_per_call, 2 * (o.copy_bytes / 4 * 4));
  ASSERT_TRUE(d.memory_bandwidth.measurement);
  // The rate is the work over the measured statistic, nothing else.
  EXPECT_DOUBLE_EQ(d.memory_bandwidth.rate_per_s,
                   static_cast<double>(d.memory_bandwidth.work_per_call) / (d.memory_bandwidth.measurement->value_us * 1e-6));
  EXPECT_TRUE(d.memory_bandwidth.measurement->samples_us.empty());
  ASSERT_EQ(d.matmul.count("fp32"), 1u);
  const Ceiling& mm = d.matmul.at("fp32");
  if (mm.available) {
    EXPECT_EQ(mm.work_per_call, 2u * 128 * 128 * 128);
    EXPECT_NE(mm.method.find("cblas_sgemm from libopenblas.so.0"), std::string::npos);
  } else {
    EXPECT_NE(mm.reason.find("libopenblas.so.0"), std::string::npos) << mm.reason;
  }
  EXPECT_FALSE(d.measured_at.empty());
}

}  // namespace
}  // namespace caliber
