// run_identity.json: round trip, schema, strict reader, and where an identity is found.
#include "caliber/run_identity.h"
#include "caliber/run_identity_json.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "caliber/errors.h"
#include "support/json_schema.h"
#include "support/run_cli.h"
#include "support/sample_identity.h"

namespace caliber {
namespace {

namespace fs = std::filesystem;
using testing_support::sample_identity;

std::string fresh_dir(const std::string& name) {
  const std::string dir = testing_support::temp_path(name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::string read_error(const nlohmann::json& j) {
  try {
    run_identity_from_json(j, "run_identity.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(RunIdentity, JsonRoundTripKeepsEveryField) {
  const RunIdentity id = sample_identity();
  EXPECT_EQ(run_identity_from_json(to_json(id), "x.json"), id);
  RunIdentity none = id;
  none.shape_ledger.reset();
  none.baseline_matrix.reset();
  none.providers.clear();
  none.clocks_at_start = {false, "", "NVML: libnvidia-ml.so.1 cannot be loaded", 0, 0};
  none.device_processes_at_start = {true, "nvidia-smi (NVML: missing)", "", {{4242, "python3", 1 << 20}}};
  EXPECT_EQ(run_identity_from_json(to_json(none), "x.json"), none);
}

TEST(RunIdentity, WrittenDocumentIsValidAgainstTheSchema) {
  valijson::Schema schema;
  testing_support::load_schema(std::string(CALIBER_SOURCE_DIR) + "/schemas/run_identity.schema.json", schema);
  const nlohmann::json doc = to_json(sample_identity());
  EXPECT_EQ(testing_support::schema_errors(schema, doc), std::vector<std::string>{});
  nlohmann::json broken = doc;
  broken["contracts"][0]["contract"]["schedule"] = "sometimes";  // resolved through results.schema.json
  broken["providers"][0]["sha256"] = "xyz";
  EXPECT_GE(testing_support::schema_errors(schema, broken).size(), 2u);
}

TEST(RunIdentity, StrictReaderNamesFileAndField) {
  const nlohmann::json good = to_json(sample_identity());
  nlohmann::json j = good;
  j["device"].erase("arch");
  EXPECT_EQ(read_error(j), "run_identity.json: field 'device.arch': missing");
  j = good;
  j["kind"] = "caliber.results";
  EXPECT_EQ(read_error(j), "run_identity.json: field 'kind': expected 'caliber.run_identity', got 'caliber.results'");
  j = good;
  j["schema_version"] = 2;
  EXPECT_EQ(read_error(j), "run_identity.json: field 'schema_version': unsupported schema version 2 (this caliber reads 1)");
  j = good;
  j["providers"][0]["sha256"] = "abc";
  EXPECT_EQ(read_error(j), "run_identity.json: field 'providers[0].sha256': expected 64 lowercase hex digits");
  j = good;
  j["contracts"][1]["contract"]["cache"] = "lukewarm";
  EXPECT_NE(read_error(j).find("field 'contracts[1].contract.cache': unknown cache policy 'lukewarm'"), std::string::npos)
      << read_error(j);
  j = good;
  j["inputs"].erase("shape_ledger");
  EXPECT_EQ(read_error(j), "run_identity.json: field 'inputs.shape_ledger': missing");
}

TEST(RunIdentity, TruncatedFileIsAnInputErrorWithItsLine) {
  const std::string dir = fresh_dir("identity-truncated");
  const std::string path = dir + "/run_identity.json";
  const std::string text = to_json(sample_identity()).dump(2);
  std::ofstream(path) << text.substr(0, text.size() / 2);
  try {
    read_run_identity(path);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), path);
    EXPECT_GT(e.line(), 1);
  }
}

// Identity errors carried no line (the reader knows only the field).
TEST(RunIdentity, AFileErrorNamesItsLine) {
  const std::string dir = fresh_dir("identity-line");
  const std::string path = dir + "/run_identity.json";
  nlohmann::json j = to_json(sample_identity());
  j["clocks_at_start"]["sm_clock_mhz"] = "fast";
  const std::string text = j.dump(2);
  std::ofstream(path) << text;
  const long line = 1 + static_cast<long>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(
                                                                                  text.find("\"sm_clock_mhz\"")),
                                                     '\n'));
  try {
    read_run_identity(path);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), path + ":" + std::to_string(line) +
                                         ": field 'clocks_at_start.sm_clock_mhz': expected an integer, got string");
  }
}

TEST(RunIdentity, FoundInARunDirectoryOrAsASidecar) {
  const std::string dir = fresh_dir("identity-lookup");
  // A run directory: DIR/run_identity.json describes the files it lists.
  write_run_identity(dir + "/run_identity.json", sample_identity());
  EXPECT_EQ(run_identity_path_for(dir), dir + "/run_identity.json");
  std::string why;
  ASSERT_TRUE(find_run_identity(dir, &why).has_value()) << why;
  std::ofstream(dir + "/benchmark_results.jsonl") << "\n";
  EXPECT_TRUE(find_run_identity(dir + "/benchmark_results.jsonl", &why).has_value()) << why;
  // A file the directory's identity does not list does not borrow it.
  std::ofstream(dir + "/stranger.json") << "{}";
  EXPECT_FALSE(find_run_identity(dir + "/stranger.json", &why).has_value());
  EXPECT_EQ(why, dir + "/run_identity.json does not list stranger.json among its outputs");
  // A sidecar takes precedence: caliber bench --json out/base.json writes out/base.run_identity.json.
  EXPECT_EQ(sidecar_identity_path(dir + "/base.json"), dir + "/base.run_identity.json");
  RunIdentity side = sample_identity();
  side.run_id = "sidecar";
  side.outputs = {"base.json"};
  write_run_identity(dir + "/base.run_identity.json", side);
  std::ofstream(dir + "/base.json") << "{}";
  EXPECT_EQ(find_run_identity(dir + "/base.json", &why)->run_id, "sidecar");
  EXPECT_FALSE(find_run_identity(dir + "/nothing-here.json", &why).has_value());
  EXPECT_EQ(why, dir + "/nothing-here.json does not exist");
  const std::string empty = fresh_dir("identity-lookup-empty");
  EXPECT_FALSE(find_run_identity(empty, &why).has_value());
  EXPECT_EQ(why, "no run_identity.json for " + empty);
}

}  // namespace
}  // namespace caliber
