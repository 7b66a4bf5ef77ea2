// Whether this GPU test binary sees a CUDA device, recorded in its test report (the XML property
// cuda_devices) so that scripts/device/gpu_test_counts.sh knows a device was there even where
// nvidia-smi is not on PATH: with a device, a skipped GPU test is a test that did not run.
#include <gtest/gtest.h>

#include "caliber/backend.h"

namespace caliber {
namespace {

TEST(GpuTestBinary, RecordsTheCudaDevicesItSees) {
  int devices = 0;
  for (const auto& b : available_backends()) {
    if (b.kind == BackendKind::cuda) devices = b.device_count;
  }
  RecordProperty("cuda_devices", devices);
  if (devices == 0) GTEST_SKIP() << "no CUDA device";
}

}  // namespace
}  // namespace caliber
