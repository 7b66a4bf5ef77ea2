// GPU tests of `caliber calibrate`'s cuda workloads (ctest label gpu; run on the H200): the
// device-to-device copy and the cuBLAS GEMMs produce verified outputs and positive rates.
// Thresholds are physical facts with wide margins, not performance targets.
#include <gtest/gtest.h>

#include <iostream>
#include <sstream>

#include "calibrate/calibration.h"
#include "kernels/ceiling_workloads.h"
#include "caliber/backend.h"
#include "caliber/errors.h"
#include "modules/builtins.h"

namespace caliber {
namespace {

class CudaCeilingsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    bool has_cuda = false;
    for (const auto& b : available_backends()) {
      if (b.kind == BackendKind::cuda && b.device_count > 0) has_cuda = true;
    }
    if (!has_cuda) GTEST_SKIP() << "no CUDA device";
    backend_ = open_backend(BackendKind::cuda, 0);
  }
  std::unique_ptr<Backend> backend_;
};

TEST_F(CudaCeilingsTest, CopyAndGemmOutputsAreVerified) {
  for (const auto& w : {calibrate::make_copy_workload(*backend_, 64ull << 20, 3),
                        calibrate::make_matmul_workload(*backend_, "bf16", 512, 3),
                        calibrate::make_matmul_workload(*backend_, "fp32", 512, 3)}) {
    ASSERT_TRUE(w.workload) << w.unavailable;
    w.workload->poison_outputs();
    EXPECT_NE(w.workload->verify(), "") << w.workload->name << ": a poisoned output must fail the check";
    w.workload->launch({backend_->stream(), 0, 0});
    backend_->synchronize_device();
    EXPECT_EQ(w.workload->verify(), "") << w.workload->name;
  }
  EXPECT_FALSE(calibrate::make_matmul_workload(*backend_, "fp16", 64, 1).workload);
}

TEST_F(CudaCeilingsTest, CalibratesBandwidthAndMatmul) {
  calibrate::CalibrationOptions o;
  o.copy_bytes = calibrate::minimum_copy_bytes(backend_->device());
  o.matmul_size = 4096;
  o.max_time_ms = 200;
  std::ostringstream log;
  const DeviceCeilings d = calibrate::calibrate_device(*backend_, o, log);
  ASSERT_TRUE(d.memory_bandwidth.available) << d.memory_bandwidth.reason;
  // Any GPU copies faster than 10 GB/s and slower than 100 TB/s.
  EXPECT_GT(d.memory_bandwidth.rate_per_s, 1e10);
  EXPECT_LT(d.memory_bandwidth.rate_per_s, 1e14);
  ASSERT_TRUE(d.matmul.at("bf16").available) << d.matmul.at("bf16").reason;
  EXPECT_GT(d.matmul.at("bf16").rate_per_s, d.matmul.at("fp32").rate_per_s);  // tensor cores
  EXPECT_EQ(d.matmul.at("bf16").measurement->contract.schedule, Schedule::per_iter);
  std::cout << log.str();
}

}  // namespace
}  // namespace caliber
