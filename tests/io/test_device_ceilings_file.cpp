// The ceilings file: device keys, round trip, one entry per device, strict reading.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "integrity/device_ceilings.h"
#include "caliber/errors.h"
#include "support/run_cli.h"
#include "io/device_ceilings_file.h"

namespace caliber {
namespace {

DeviceInfo gpu(const std::string& uuid) {
  DeviceInfo d;
  d.backend = BackendKind::cuda;
  d.name = "NVIDIA H200";
  d.arch = "sm_90";
  d.uuid = uuid;
  d.multiprocessors = 132;
  return d;
}

DeviceCeilings entry(const std::string& uuid, double bandwidth) {
  DeviceCeilings c;
  c.device = gpu(uuid);
  c.device_key = device_key(c.device);
  c.measured_at = "2026-11-29T10:00:00Z";
  c.harness_version = "test";
  c.memory_bandwidth = {true, bandwidth, "bytes/s", "copy", 8, std::nullopt, ""};
  c.matmul["bf16"] = {true, 7e14, "flop/s", "gemm", 16, std::nullopt, ""};
  c.matmul["fp16"] = {false, 0, "", "", 0, std::nullopt, "not measured here"};
  return c;
}

std::string write(const std::string& name, const std::string& text) {
  const std::string path = testing_support::temp_path(name);
  std::ofstream(path) << text;
  return path;
}

TEST(DeviceCeilings, KeysNameTheDeviceIdentity) {
  EXPECT_EQ(device_key(gpu("GPU-1")), "cuda|NVIDIA H200|sm_90|GPU-1");
  DeviceInfo host;
  host.backend = BackendKind::host;
  host.name = "AMD EPYC";
  host.arch = "x86_64";
  host.multiprocessors = 16;
  EXPECT_EQ(device_key(host), "host|AMD EPYC|x86_64|16 cpus");
}

TEST(DeviceCeilings, StoreAddsAndReplacesOneDeviceAndReadsBack) {
  const std::string file = testing_support::temp_path("ceilings/nested/device_ceilings.json");
  std::filesystem::remove_all(std::filesystem::path(file).parent_path());
  store_device_ceilings(file, entry("GPU-1", 4e12));
  store_device_ceilings(file, entry("GPU-2", 3e12));
  store_device_ceilings(file, entry("GPU-1", 4.5e12));  // --force re-measured GPU-1
  const auto all = read_device_ceilings(file);
  ASSERT_EQ(all.size(), 2u);
  const DeviceCeilings* one = find_device_ceilings(all, "cuda|NVIDIA H200|sm_90|GPU-1");
  ASSERT_NE(one, nullptr);
  EXPECT_DOUBLE_EQ(one->memory_bandwidth.rate_per_s, 4.5e12);
  EXPECT_EQ(one->matmul.at("bf16").rate_per_s, 7e14);
  EXPECT_FALSE(one->matmul.at("fp16").available);
  EXPECT_EQ(one->matmul.at("fp16").reason, "not measured here");
  EXPECT_EQ(find_device_ceilings(all, "cuda|other"), nullptr);
}

TEST(DeviceCeilings, StrictReading) {
  const std::string device = R"({"backend":"cuda","index":0,"name":"G","arch":"sm_90","uuid":"U","multiprocessors":1,)"
                             R"("llc_bytes":0,"llc_source":"","memory_bytes":0,"sm_clock_max_mhz":0,"mem_clock_max_mhz":0,)"
                             R"("driver_version":"","runtime_version":""})";
  auto doc = [&](const std::string& key, const std::string& memory) {
    return R"({"schema_version":1,"kind":"caliber.device_ceilings","devices":[{"device_key":")" + key +
           R"(","device":)" + device + R"(,"measured_at":"t","harness_version":"h","memory_bandwidth":)" + memory +
           R"(,"matmul":{}}]})";
  };
  const std::vector<std::pair<std::string, std::string>> cases = {
      {doc("cuda|G|sm_90|U", R"({"available":true,"rate_per_s":0,"unit":"bytes/s","method":"m","work_per_call":1,"measurement":null})"),
       "c.json: field 'devices[0].memory_bandwidth.rate_per_s': must be > 0"},
      {doc("cuda|G|sm_90|U", R"({"available":false,"reason":""})"),
       "c.json: field 'devices[0].memory_bandwidth.reason': must say why the ceiling is not available"},
      {doc("cuda|G|sm_90|U", R"({"available":true,"rate_per_s":1,"unit":"GB/s","method":"m","work_per_call":1,"measurement":null})"),
       "c.json: field 'devices[0].memory_bandwidth.unit': unknown unit 'GB/s' (expected bytes/s|flop/s)"},
      {doc("cuda|G|sm_90|X", R"({"available":false,"reason":"r"})"),
       "c.json: field 'devices[0].device_key': 'cuda|G|sm_90|X' does not match the device (cuda|G|sm_90|U)"},
      {R"({"schema_version":1,"kind":"caliber.results","devices":[]})", "c.json: field 'kind': expected 'caliber.device_ceilings'"},
  };
  for (const auto& [text, error] : cases) {
    const std::string file = write("c.json", text);
    try {
      read_device_ceilings(file);
      ADD_FAILURE() << "accepted: " << text;
    } catch (const InputError& e) {
      const std::string what = e.what();
      EXPECT_EQ(what.substr(what.find("c.json")), error);
    }
  }
}

}  // namespace
}  // namespace caliber
