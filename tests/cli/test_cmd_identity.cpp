// caliber identity and the refusal through the built binary: exit 4 for every caliber field,
// the override, hazards, and the identity caliber bench writes beside its results.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "caliber/caliber_check.h"
#include "caliber/run_identity.h"
#include "caliber/run_identity_json.h"
#include "support/caliber_mutations.h"
#include "support/json_schema.h"
#include "support/run_cli.h"
#include "support/sample_identity.h"

namespace caliber {
namespace {

namespace fs = std::filesystem;
using testing_support::run_cli;
using testing_support::sample_identity;

std::string run_dir(const std::string& name, const RunIdentity& id) {
  const std::string dir = testing_support::temp_path(name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  write_run_identity(dir + "/run_identity.json", id);
  return dir;
}

TEST(CliIdentity, EveryCaliberFieldMismatchExitsFour) {
  const std::string a = run_dir("cli-id-a", sample_identity());
  for (const auto& m : testing_support::caliber_mutations()) {
    RunIdentity mutated = sample_identity();
    m.apply(mutated);
    const std::string b = run_dir("cli-id-b", mutated);
    const auto r = run_cli("identity " + a + " --against " + b);
    EXPECT_EQ(r.exit_code, 4) << m.field << "\n" << r.out << r.err;
    EXPECT_NE(r.out.find(m.line + "\n"), std::string::npos) << m.field << "\n" << r.out;
    EXPECT_NE(r.err.find("caliber: refused: runs of different caliber"), std::string::npos) << r.err;
    // The override prints the same difference and proceeds.
    const auto o = run_cli("identity " + a + " --against " + b + " --allow-caliber-mismatch");
    EXPECT_EQ(o.exit_code, 0) << m.field << "\n" << o.err;
    EXPECT_NE(o.out.find(m.line + "\n"), std::string::npos) << o.out;
    EXPECT_NE(o.out.find("proceeding anyway (--allow-caliber-mismatch)"), std::string::npos) << o.out;
  }
}

TEST(CliIdentity, SameCaliberPassesAndMissingIdentityIsRefused) {
  const std::string a = run_dir("cli-id-same-a", sample_identity());
  RunIdentity other = sample_identity();
  other.harness.git_revision = "0123456789ab";  // informative: a second build of the code under test
  other.device_processes_at_start.processes = {{99, "python3", 0}};
  const std::string b = run_dir("cli-id-same-b", other);
  auto r = run_cli("identity " + a + " --against " + b);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("warning [caliber] device_processes_at_start: another compute process was on the device when B "
                       "started"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("caliber: " + a + " and " + b + " match"), std::string::npos) << r.out;

  const std::string empty = testing_support::temp_path("cli-id-empty");
  fs::remove_all(empty);
  fs::create_directories(empty);
  r = run_cli("identity " + a + " --against " + empty);
  EXPECT_EQ(r.exit_code, 4);
  EXPECT_NE(r.out.find("!!! [caliber] run_identity.json: A=present, B=<missing: no run_identity.json for " + empty + ">"),
            std::string::npos)
      << r.out;
}

TEST(CliIdentity, PrintsTextJsonAndTheCaliberColumns) {
  const std::string a = run_dir("cli-id-print", sample_identity());
  auto r = run_cli("identity " + a);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("caliber (must match for two runs to be compared):\n  backend                    cuda\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("  harness.git_revision       54b6e0439c09\n"), std::string::npos) << r.out;
  r = run_cli("identity " + a + " --json");
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_EQ(run_identity_from_json(nlohmann::json::parse(r.out), "stdout"), sample_identity());
  r = run_cli("identity " + a + " --tsv");
  ASSERT_EQ(r.exit_code, 0);
  const std::string header = r.out.substr(0, r.out.find('\n'));
  EXPECT_EQ(header, "backend\tdevice.name\tdevice.arch\tdevice.driver_version\tdevice.runtime_version\tcontracts\t"
                    "harness.version\tharness.build_type\tinputs.shape_ledger");
  const std::string expected_start = "cuda\tNVIDIA H200\tsm_90\t13.0\t13.0\t";
  EXPECT_EQ(r.out.substr(header.size() + 1, expected_start.size()), expected_start);
  r = run_cli("identity " + a + "/nope");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no run identity"), std::string::npos) << r.err;
}

TEST(CliIdentity, BenchWritesASchemaValidSidecarPerResultsFile) {
  const std::string dir = testing_support::temp_path("cli-bench-identity");
  fs::remove_all(dir);
  fs::create_directories(dir);
  const auto r = run_cli("bench --backend host --kernel tiny --cache warm,cold --iters 5 --json " + dir +
                         "/base.json --csv " + dir + "/base.csv");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const RunIdentity id = read_run_identity(dir + "/base.run_identity.json");
  EXPECT_EQ(id.outputs, (std::vector<std::string>{"base.json", "base.csv"}));
  EXPECT_EQ(id.device.backend, BackendKind::host);
  ASSERT_EQ(id.contracts.size(), 2u);
  EXPECT_EQ(id.contracts[0].role, "isolated/warm");
  EXPECT_EQ(id.contracts[1].role, "isolated/cold");
  EXPECT_EQ(id.harness.executable_sha256.size(), 64u);
  EXPECT_EQ(id.command.at(1), "bench");
  valijson::Schema schema;
  testing_support::load_schema(std::string(CALIBER_SOURCE_DIR) + "/schemas/run_identity.schema.json", schema);
  std::ifstream in(dir + "/base.run_identity.json");
  EXPECT_EQ(testing_support::schema_errors(schema, nlohmann::json::parse(in)), std::vector<std::string>{});
  // The results file finds its identity; a second run with another contract is refused against it.
  const auto again = run_cli("bench --backend host --kernel tiny --cache warm,cold --iters 7 --json " + dir + "/new.json");
  ASSERT_EQ(again.exit_code, 0) << again.err;
  const auto cmp = run_cli("identity " + dir + "/base.json --against " + dir + "/new.json");
  EXPECT_EQ(cmp.exit_code, 4);
  EXPECT_NE(cmp.out.find("!!! [caliber] contracts[isolated/cold].iterations: A=fixed:5, B=fixed:7"), std::string::npos)
      << cmp.out;
}

}  // namespace
}  // namespace caliber
