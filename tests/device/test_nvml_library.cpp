// The one NVML loader, on the scripted stand-in for libnvidia-ml.so.1 (tests/fake_nvml): what the
// run identity asks (clocks at start, compute processes) and what telemetry asks (the readings),
// and the reasons when a function or the library is missing.
#include "device/nvml_library.h"

#include <gtest/gtest.h>

#include <cstdlib>

#include "caliber/telemetry.h"

namespace caliber {
namespace {

// Points the loader at the fake for the lifetime of the object.
class FakeNvml {
 public:
  explicit FakeNvml(const char* library) { ::setenv("CALIBER_NVML_LIBRARY", library, 1); }
  ~FakeNvml() { ::unsetenv("CALIBER_NVML_LIBRARY"); }
};

TEST(NvmlLibrary, ServesTheRunIdentityAndTelemetryFromOneLoader) {
  FakeNvml fake(CALIBER_FAKE_NVML);
  std::string why;
  auto nvml = NvmlLibrary::open(system_shared_libraries(), &why);
  ASSERT_TRUE(nvml) << why;
  EXPECT_EQ(nvml->library(), CALIBER_FAKE_NVML);
  void* by_uuid = nvml->device_by_uuid("GPU-test", &why);
  ASSERT_NE(by_uuid, nullptr) << why;
  EXPECT_EQ(nvml->device_by_index(0, &why), by_uuid);  // the fake has one device
  EXPECT_EQ(nvml->device_by_index(1, &why), nullptr);
  EXPECT_EQ(why, "NVML has no device 1: Not Found (NVML error 6)");
  // The fake's SM clock reads 1980 twice, then 1755 under sw_power_cap, and again (the count is
  // per process, so the cycle is found rather than assumed).
  int sm = 0, mem = 0;
  ASSERT_TRUE(nvml->current_clocks(by_uuid, &sm, &mem, &why)) << why;
  EXPECT_TRUE(sm == 1980 || sm == 1755) << sm;
  EXPECT_EQ(mem, 3201);
  int reads = 0;
  while (nvml->sm_clock_mhz(by_uuid) != 1755 && ++reads < 3) {
    EXPECT_EQ(nvml->clock_event_reasons(by_uuid), 0u);
  }
  EXPECT_LT(reads, 3);
  EXPECT_EQ(nvml->clock_event_reasons(by_uuid), kThrottleSwPowerCap);
  EXPECT_EQ(nvml->sm_clock_mhz(by_uuid), 1980);
  EXPECT_EQ(nvml->clock_event_reasons(by_uuid), 0u);
  EXPECT_EQ(nvml->max_sm_clock_mhz(by_uuid), 1980);
  EXPECT_EQ(nvml->temperature_c(by_uuid), 41);
  EXPECT_EQ(nvml->power_w(by_uuid), 402.5);  // milliwatts -> watts
  EXPECT_EQ(nvml->utilization_pct(by_uuid), 97);
  EXPECT_EQ(nvml->driver_version(), "0.0-fake");
  EXPECT_EQ(nvml->missing_telemetry_function(), "");
  // The fake has no process list: a reason naming the function, never a silent empty list.
  std::vector<DeviceProcess> processes;
  EXPECT_FALSE(nvml->compute_processes(by_uuid, &processes, &why));
  EXPECT_EQ(why, std::string("NVML in ") + CALIBER_FAKE_NVML + " lacks nvmlDeviceGetComputeRunningProcesses_v3");
}

TEST(NvmlLibrary, TelemetryReadsThroughTheSameLoader) {
  FakeNvml fake(CALIBER_FAKE_NVML);
  std::string why;
  auto reader = open_nvml_telemetry("", 0, &why);
  ASSERT_TRUE(reader) << why;
  EXPECT_EQ(reader->source(), std::string("NVML, driver 0.0-fake (") + CALIBER_FAKE_NVML + ")");
  EXPECT_EQ(reader->sm_clock_max_mhz(), 1980);
  const TelemetrySample s = reader->read();
  EXPECT_EQ(s.throttle_reasons, s.sm_clock_mhz == 1755 ? kThrottleSwPowerCap : 0u) << s.sm_clock_mhz;
  EXPECT_EQ(s.mem_clock_mhz, 3201);
  EXPECT_EQ(s.temp_c, 41);
  EXPECT_EQ(s.power_w, 402.5);
  EXPECT_EQ(s.util_pct, 97);
  EXPECT_EQ(open_nvml_telemetry("", 3, &why), nullptr);
  EXPECT_EQ(why, "NVML has no device 3: Not Found (NVML error 6)");
}

TEST(NvmlLibrary, AMissingLibraryIsAReasonNotACrash) {
  FakeNvml missing("/nonexistent/libnvidia-ml.so.1");
  std::string why;
  EXPECT_EQ(NvmlLibrary::open(system_shared_libraries(), &why), nullptr);
  EXPECT_EQ(why.rfind("NVML not loaded: /nonexistent/libnvidia-ml.so.1", 0), 0u) << why;
  EXPECT_EQ(open_nvml_telemetry("GPU-x", -1, &why), nullptr);
  EXPECT_EQ(why.rfind("NVML not loaded: /nonexistent/libnvidia-ml.so.1", 0), 0u) << why;
}

}  // namespace
}  // namespace caliber
