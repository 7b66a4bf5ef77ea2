// caliber calibrate on the host backend: measures once per device identity, reuses, --force.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "backends/host/host_device_info.h"
#include "integrity/device_ceilings.h"
#include "support/run_cli.h"
#include "io/device_ceilings_file.h"

namespace caliber {
namespace {

namespace fs = std::filesystem;

std::string small_host_calibration_args(const std::string& file) {
  // The smallest copy that still measures memory: 4 x the last-level cache.
  const std::uint64_t copy = 4 * host::describe_host().llc_bytes;
  return "calibrate --backend host --out " + file + " --copy-size " + std::to_string(copy) +
         " --matmul-size 128 --max-time-ms 100";
}

TEST(CmdCalibrate, MeasuresOncePerDeviceAndReusesUntilForced) {
  const std::string file = testing_support::temp_path("calibrate/device_ceilings.json");
  fs::remove_all(fs::path(file).parent_path());
  auto r = testing_support::run_cli(small_host_calibration_args(file));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("stored in " + file), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("memory bandwidth: "), std::string::npos);
  const auto first = read_device_ceilings(file);
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(first[0].device_key, device_key(host::describe_host()));
  EXPECT_TRUE(first[0].memory_bandwidth.available);

  r = testing_support::run_cli(small_host_calibration_args(file));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("already calibrated in " + file + " (--force re-measures)"), std::string::npos) << r.out;
  EXPECT_EQ(read_device_ceilings(file)[0].measured_at, first[0].measured_at);
  EXPECT_EQ(r.err, "");  // nothing was measured

  r = testing_support::run_cli(small_host_calibration_args(file) + " --force");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("calibrating " + first[0].device_key), std::string::npos) << r.err;
  EXPECT_EQ(read_device_ceilings(file).size(), 1u);
}

TEST(CmdCalibrate, RefusesACopyThatFitsInTheCacheAndAMalformedFile) {
  const std::string file = testing_support::temp_path("calibrate-small.json");
  fs::remove(file);
  auto r = testing_support::run_cli("calibrate --backend host --out " + file + " --copy-size 1MiB");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("is below 4 x the last-level cache"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(file));

  std::ofstream(file) << "{\"schema_version\": 1, \"kind\": \"caliber.device_ceilings\", \"devices\": [";
  r = testing_support::run_cli(small_host_calibration_args(file));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(file), std::string::npos) << r.err;
}

}  // namespace
}  // namespace caliber
