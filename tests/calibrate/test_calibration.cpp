// Host calibration: real measurements of a small copy and sgemm, and the refusals.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <sstream>
#include <string>

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

// Calibrates this host with the smallest copy allowed, the sgemm plugins taken from `plugin_dir`.
DeviceCeilings calibrate_host(const std::string& plugin_dir, calibrate::CalibrationOptions& o) {
  ::setenv("CALIBER_PLUGIN_DIR", plugin_dir.c_str(), 1);
  host::HostBackend backend;
  o.copy_bytes = calibrate::minimum_copy_bytes(backend.device());
  std::ostringstream log;
  const DeviceCeilings d = calibrate::calibrate_device(backend, o, log);
  ::unsetenv("CALIBER_PLUGIN_DIR");
  return d;
}

TEST(Calibration, MeasuresHostBandwidthAndSgemm) {
  // The sgemm is the openblas provider plugin's, from the build's plugin directory.
  calibrate::CalibrationOptions o;
  o.copy_bytes = calibrate::minimum_copy_bytes(host::HostBackend().device());  // the smallest that measures memory
  o.matmul_size = 128;
  o.max_time_ms = 100;
  const DeviceCeilings d = calibrate_host(CALIBER_PLUGIN_BUILD_DIR, o);
  host::HostBackend backend;
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
#ifdef CALIBER_HAVE_OPENBLAS_PLUGIN
  ASSERT_TRUE(mm.available) << mm.reason;
#endif
  if (mm.available) {
    EXPECT_EQ(mm.work_per_call, 2u * 128 * 128 * 128);
    EXPECT_EQ(mm.method.rfind("openblas provider (plugin " + std::string(CALIBER_PLUGIN_BUILD_DIR) +
                                  "/libcaliber_openblas.so:caliber_openblas_gemm: cblas_sgemm, ",
                              0),
              0u)
        << mm.method;
    ASSERT_TRUE(mm.measurement);
    EXPECT_DOUBLE_EQ(mm.rate_per_s, static_cast<double>(mm.work_per_call) / (mm.measurement->value_us * 1e-6));
  } else {
    EXPECT_NE(mm.reason.find("openblas provider plugin"), std::string::npos) << mm.reason;
  }
  EXPECT_FALSE(d.measured_at.empty());
}

TEST(Calibration, WithoutTheOpenBlasPluginTheHostMatmulCeilingIsNotAvailable) {
  const std::string empty = ::testing::TempDir() + "/no-plugins-" + std::to_string(::getpid());
  calibrate::CalibrationOptions o;
  o.copy_bytes = calibrate::minimum_copy_bytes(host::HostBackend().device());
  o.matmul_size = 64;
  o.max_time_ms = 20;
  const DeviceCeilings d = calibrate_host(empty, o);
  const Ceiling& mm = d.matmul.at("fp32");
  EXPECT_FALSE(mm.available);
  EXPECT_FALSE(mm.measurement);
  EXPECT_NE(mm.reason.find("the openblas provider plugin (@plugins/libcaliber_openblas.so:caliber_openblas_gemm) "
                           "could not be loaded: "),
            std::string::npos)
      << mm.reason;
  EXPECT_NE(mm.reason.find(empty + "/libcaliber_openblas.so"), std::string::npos) << mm.reason;
  EXPECT_TRUE(d.memory_bandwidth.available);  // the other ceiling is measured all the same
}

}  // namespace
}  // namespace caliber
