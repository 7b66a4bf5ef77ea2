// NVML through dlopen on a real device: clocks at start, the compute-process list (which checks
// the nvmlProcessInfo layout declared by hand in src/device/nvml_library.cpp: this process must
// appear in it with its own pid), and the run identity and preflight built on them.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <sstream>

#include "caliber/backend.h"
#include "device/device_probe.h"
#include "device/nvml_library.h"
#include "identity/collect_run_identity.h"
#include "preflight/preflight.h"
#include "support/cuda_device.h"

namespace caliber {
namespace {

class NvmlProbeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!testing_support::has_cuda_device()) GTEST_SKIP() << "no CUDA device";
    backend_ = open_backend(BackendKind::cuda, 0);  // this process now holds a context on device 0
  }
  std::unique_ptr<Backend> backend_;
};

TEST_F(NvmlProbeTest, ClocksAtStartComeFromNvml) {
  const ClocksAtStart c = system_device_probe().clocks_at_start(backend_->device());
  ASSERT_TRUE(c.available) << c.reason;
  EXPECT_EQ(c.source, "nvml");
  EXPECT_GT(c.sm_clock_mhz, 0);
  EXPECT_LE(c.sm_clock_mhz, backend_->device().sm_clock_max_mhz + 100);
  EXPECT_GT(c.mem_clock_mhz, 0);
}

TEST_F(NvmlProbeTest, TheProcessListContainsThisProcessAndTheProbeExcludesIt) {
  std::string why;
  auto nvml = NvmlLibrary::open(system_shared_libraries(), &why);
  ASSERT_TRUE(nvml) << why;
  void* dev = nvml->device_by_uuid(backend_->device().uuid, &why);
  ASSERT_NE(dev, nullptr) << why;
  std::vector<DeviceProcess> all;
  ASSERT_TRUE(nvml->compute_processes(dev, &all, &why)) << why;
  const bool self = std::any_of(all.begin(), all.end(), [](const DeviceProcess& p) { return p.pid == getpid(); });
  // In a container NVML may report host pids; say so rather than fail on it.
  if (!self) GTEST_SKIP() << "NVML lists " << all.size() << " process(es) but not pid " << getpid() << " (pid namespace?)";
  const DeviceProcesses others = system_device_probe().other_compute_processes(backend_->device());
  ASSERT_TRUE(others.available) << others.reason;
  EXPECT_EQ(others.source, "nvml");
  EXPECT_EQ(others.processes.size(), all.size() - 1);
}

TEST_F(NvmlProbeTest, IdentityAndPreflightOnTheDevice) {
  IdentityRequest request;
  request.device = backend_->device();
  request.contracts = {{"kernel_only", default_contract(BackendKind::cuda)}};
  const RunIdentity id = collect_run_identity(request, system_device_probe());
  EXPECT_EQ(id.device.uuid.rfind("GPU-", 0), 0u);
  EXPECT_TRUE(id.clocks_at_start.available) << id.clocks_at_start.reason;
  EXPECT_TRUE(id.device_processes_at_start.available) << id.device_processes_at_start.reason;
  // The contract-library checks find CUPTI and NVML on the device machine.
  Contract c = default_contract(BackendKind::cuda);
  c.instrument = Instrument::cupti;
  c.throttle_policy = ThrottlePolicy::fail;
  std::ostringstream log;
  EXPECT_NO_THROW(run_preflight(checks_for_contract_libraries({c}, system_shared_libraries()), log)) << log.str();
}

}  // namespace
}  // namespace caliber
