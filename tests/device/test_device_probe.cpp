#include "device/device_probe.h"

#include <gtest/gtest.h>

namespace caliber {
namespace {

TEST(NvidiaSmiProcesses, KeepsTheDevicesRowsAndDropsOurOwnPid) {
  // --query-compute-apps=gpu_uuid,pid,process_name,used_memory --format=csv,noheader,nounits
  const std::string csv =
      "GPU-aaaa, 4242, /usr/bin/python3, 1024\n"
      "GPU-bbbb, 5000, other, 10\n"
      "GPU-aaaa, 777, ./caliber, 300\n"
      "GPU-aaaa, 888, vllm, [N/A]\n"
      "garbage line\n"
      "GPU-aaaa, notapid, x, 1\n"
      "\n";
  int skipped = -1;
  const auto p = parse_nvidia_smi_compute_apps(csv, "GPU-aaaa", 777, &skipped);
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p[0].pid, 4242);
  EXPECT_EQ(p[0].name, "/usr/bin/python3");
  EXPECT_EQ(p[0].used_memory_bytes, 1024ull << 20);
  EXPECT_EQ(p[1].pid, 888);
  EXPECT_EQ(p[1].used_memory_bytes, 0u);
  EXPECT_EQ(skipped, 2);
  EXPECT_TRUE(parse_nvidia_smi_compute_apps("", "GPU-aaaa", 1, &skipped).empty());
  EXPECT_EQ(skipped, 0);
}

TEST(SystemDeviceProbe, HostProcessesAreNotApplicable) {
  DeviceInfo host;
  host.backend = BackendKind::host;
  const DeviceProcesses p = system_device_probe().other_compute_processes(host);
  EXPECT_FALSE(p.available);
  EXPECT_EQ(p.source, "not applicable");
  const ClocksAtStart c = system_device_probe().clocks_at_start(host);
  EXPECT_TRUE(c.available ? c.sm_clock_mhz > 0 && c.source == "sysfs cpufreq" : !c.reason.empty());
}

}  // namespace
}  // namespace caliber
