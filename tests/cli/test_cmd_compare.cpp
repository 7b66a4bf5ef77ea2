// caliber compare through the built binary: every exit code, every fail-closed and fail-open rule
// and the runner-trust check on the fixture files of tests/data/compare, and the outputs.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "support/run_cli.h"
#include "support/run_cli_args.h"

namespace caliber {
namespace {

using testing_support::CliRun;
using testing_support::run_caliber;

std::string data(const std::string& name) { return std::string(CALIBER_TEST_DATA) + "/compare/" + name; }
const std::string kThresholds = data("thresholds.json");

CliRun gate(const std::string& base, const std::string& cur, std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {"compare", data(base), data(cur), "--thresholds", kThresholds,
                                   "--fail-on-regression"};
  args.insert(args.end(), extra.begin(), extra.end());
  return run_caliber(args);
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// --- exit 0 -----------------------------------------------------------------------------------

TEST(CompareCli, PassesWhenNothingGatedRegressed) {
  const CliRun r = gate("base.csv", "same.csv");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(has(r.out, "[GATE PASS: same +40.0%, +2.000 us; within threshold]")) << r.out;
  EXPECT_TRUE(has(r.out, "gate PASS: 0 of 3 gated rows failed (3 passed, 0 skipped, 0 unknown)")) << r.out;
  EXPECT_EQ(r.err, "");
}

TEST(CompareCli, FailsOpenWhenTheBaselinePredatesRawLatency) {
  const CliRun r = gate("legacy_base.csv", "regressed.csv");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(has(r.out, "[GATE SKIP: baseline has no raw us]")) << r.out;
  EXPECT_TRUE(has(r.out, "(0 passed, 3 skipped, 0 unknown)")) << r.out;
}

TEST(CompareCli, FailsOpenWhenTheArchitecturesDiffer) {
  const CliRun r = gate("base.csv", "other_arch.csv");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(has(r.out, "[GATE SKIP: arch differs: x86_64→aarch64]")) << r.out;
}

TEST(CompareCli, WithoutFailOnRegressionARegressionIsReportedOnly) {
  const CliRun r = run_caliber({"compare", data("base.csv"), data("regressed.csv"), "--thresholds", kThresholds});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(has(r.out, "[GATE FAIL: slower +50.0%, +50.00 us (limits 20% and 10 us)")) << r.out;
}

TEST(CompareCli, AGatedUnknownPassesWithoutStrict) {
  const CliRun r = gate("overlap_base.json", "overlap_current.json");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(has(r.out, "[GATE UNKNOWN: unknown +12.5%, +15.00 us (limits 10% and 5 us); samples "
                         "overlap: p=0.3095 >= 0.05 (exact, 5 vs 5 samples)]")) << r.out;
}

TEST(CompareCli, GoogleBenchmarkRowsWithoutArchitectureAreReportOnly) {
  const CliRun r = gate("gbench_base.json", "gbench_current.json");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(has(r.out, "note: architecture (unrecorded) is not declared")) << r.out;
}

// --- exit 1 -----------------------------------------------------------------------------------

TEST(CompareCli, FailsOnAGatedRegression) {
  const CliRun r = gate("base.csv", "regressed.csv");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_TRUE(has(r.out, "gate FAIL: 1 of 3 gated rows failed")) << r.out;
}

TEST(CompareCli, FailsClosedWhenAnAllowlistedRowIsMissing) {
  const CliRun r = gate("base.csv", "missing_row.csv");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_TRUE(has(r.out, "[GATE FAIL: missing from current]")) << r.out;
}

TEST(CompareCli, FailsClosedWhenCurrentHasNoRawLatency) {
  const CliRun r = gate("base.csv", "no_raw_current.csv");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_TRUE(has(r.out, "[GATE FAIL: current has no raw us]")) << r.out;
}

TEST(CompareCli, FailsClosedWhenTheCurrentRowFailedOrWasSkipped) {
  const CliRun g = gate("gbench_base.json", "gbench_current.json", {"--assume-arch", "x86_64"});
  EXPECT_EQ(g.exit_code, 1) << g.err;
  EXPECT_TRUE(has(g.out, "[GATE FAIL: current row failed: input file missing]")) << g.out;
  const CliRun n = gate("nvbench_base.json", "nvbench_skipped.json");
  EXPECT_EQ(n.exit_code, 1) << n.err;
  EXPECT_TRUE(has(n.out, "[GATE FAIL: current has no raw us (status skipped: Not enough device memory)]")) << n.out;
}

TEST(CompareCli, FailsOnASignificantSlowerVerdict) {
  const CliRun r = gate("samples_base.json", "samples_slow.json");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_TRUE(has(r.out, "p=0.0079 < 0.05 (exact, 5 vs 5 samples)")) << r.out;
  EXPECT_EQ(gate("samples_base.json", "samples_same.json").exit_code, 0);
}

TEST(CompareCli, StrictFailsAGatedUnknown) {
  const CliRun r = gate("overlap_base.json", "overlap_current.json", {"--strict"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_TRUE(has(r.out, "[GATE FAIL: unknown (--strict) +12.5%")) << r.out;
}

TEST(CompareCli, GatesNvbenchAndGoogleBenchmarkFiles) {
  const CliRun n = gate("nvbench_base.json", "nvbench_current.json");
  EXPECT_EQ(n.exit_code, 1) << n.err;
  EXPECT_TRUE(has(n.out, "scale Elements=16777216 T=F32 device=0 [event/isolated/cold]")) << n.out;
  EXPECT_TRUE(has(n.out, "[GATE FAIL: slower +50.0%, +80.00 us (limits 20% and 5 us)")) << n.out;
  const CliRun g = gate("gbench_base.json", "gbench_current.json", {"--assume-arch", "x86_64"});
  EXPECT_TRUE(has(g.out, "BM_copy/4096/repeats:5 [wallclock/pipelined/warm]")) << g.out;
  EXPECT_TRUE(has(g.out, "[GATE FAIL: slower +49.0%, +50.00 us (limits 20% and 10 us); p=0.0079")) << g.out;
}

// --- exit 2: usage, input and runner trust; no verdict printed ---------------------------------

void expect_refused_input(const CliRun& r, const std::string& error) {
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_EQ(r.err, "caliber: error: " + error + "\n");
  EXPECT_EQ(r.out, "") << "no verdict may be printed";
}

TEST(CompareCli, RunnerTrustRefusesARowOfAnotherArchitecture) {
  expect_refused_input(gate("base.csv", "other_arch.csv", {"--arch", "x86_64"}),
                       data("other_arch.csv") + ":2: field 'arch': runner trust: copy size_bytes=4194304 "
                                                "[wallclock/isolated/warm] reports architecture aarch64, "
                                                "expected x86_64 (--arch)");
  EXPECT_EQ(gate("base.csv", "same.csv", {"--arch", "x86_64"}).exit_code, 0);
  expect_refused_input(
      gate("gbench_base.json", "gbench_base.json", {"--arch", "x86_64"}),
      data("gbench_base.json") + ":31: field 'context': runner trust: BM_copy/4096/repeats:5 "
                                 "[wallclock/pipelined/warm] records no architecture, --arch x86_64 "
                                 "needs every row to report it (--assume-arch is a declaration, not a report)");
}

TEST(CompareCli, BadInputFilesAreOneLineErrors) {
  expect_refused_input(gate("base.csv", "duplicate.csv"),
                       data("duplicate.csv") + ":4: field 'name': duplicate row copy size_bytes=4194304 "
                                               "[wallclock/isolated/warm] (first at line 2)");
  expect_refused_input(gate("base.csv", "truncated.csv"),
                       data("truncated.csv") + ":3: the last line has no newline (truncated file?)");
  expect_refused_input(gate("base.csv", "bad_value.csv"),
                       data("bad_value.csv") + ":3: field 'value_us': expected a non-negative number of "
                                               "microseconds, got '2OO'");
  expect_refused_input(gate("bad_schema_version.json", "samples_base.json"),
                       data("bad_schema_version.json") + ":2: field 'schema_version': unsupported schema "
                                                         "version 3 (this caliber reads 1 to 2)");
  expect_refused_input(gate("truncated.json", "samples_base.json"),
                       data("truncated.json") + ":37: malformed JSON: syntax error while parsing object - "
                                                "unexpected end of input; expected '}'");
  expect_refused_input(gate("nvbench_version2.json", "nvbench_base.json"),
                       data("nvbench_version2.json") + ":10: field 'meta.version.json.major': unsupported "
                                                       "nvbench JSON format version 2 (this caliber reads 1.x)");
  expect_refused_input(gate("base.csv", "no_such_file.csv"), data("no_such_file.csv") + ": does not exist");
}

TEST(CompareCli, BadThresholdsFilesAreOneLineErrors) {
  const std::string path = caliber::testing_support::temp_path("caliber_bad_thresholds.json");
  std::ofstream(path) << "{\"schema_version\": 1, \"kind\": \"caliber.thresholds\",\n"
                         " \"architectures\": {\"x86_64\": {\"rules\": [\n"
                         "  {\"name\": \"copy\", \"relative_pct\": 20, \"absolute_us\": -10, \"calibration\": \"x\"}]}}}\n";
  const CliRun r = run_caliber({"compare", data("base.csv"), data("same.csv"), "--thresholds", path});
  expect_refused_input(r, path + ":3: field 'architectures.x86_64.rules[0].absolute_us': must be >= 0 (got -10)");
  std::ofstream(path) << "{\"schema_version\": 3, \"kind\": \"caliber.thresholds\", \"architectures\": {}}\n";
  expect_refused_input(run_caliber({"compare", data("base.csv"), data("same.csv"), "--thresholds", path}),
                       path + ":1: field 'schema_version': unsupported schema version 3 (this caliber reads 1)");
  std::ofstream(path) << "{\"schema_version\": 1, \"kind\": \"caliber.thresholds\", \"architectures\": {},\n"
                         " \"gate\": true}\n";
  expect_refused_input(run_caliber({"compare", data("base.csv"), data("same.csv"), "--thresholds", path}),
                       path + ":2: field 'gate': unknown key (expected one of: schema_version, kind, "
                              "description, statistics, report_only, architectures)");
}

TEST(CompareCli, UsageErrors) {
  expect_refused_input(run_caliber({"compare", data("base.csv"), data("same.csv"), "--fail-on-regression"}),
                       "--fail-on-regression needs --thresholds: only allowlisted rows can fail the gate");
  expect_refused_input(run_caliber({"compare", data("base.csv"), data("same.csv"), "--strict"}),
                       "--strict needs --thresholds: only allowlisted rows can fail the gate");
  const CliRun f = run_caliber({"compare", data("base.csv"), data("same.csv"), "--format", "html"});
  EXPECT_EQ(f.exit_code, 2);
  EXPECT_TRUE(has(f.err, "--format")) << f.err;
  const CliRun missing = run_caliber({"compare", data("base.csv")});
  EXPECT_EQ(missing.exit_code, 2);
  expect_refused_input(run_caliber({"compare", data("base.csv"), data("same.csv"), "--out",
                                    "/nonexistent_dir/out.md"}),
                       "--out /nonexistent_dir/out.md: directory /nonexistent_dir does not exist");
}

// --- exit 4: contract mismatch refused ---------------------------------------------------------

TEST(CompareCli, RefusesAGatedRowWhoseContractDiffers) {
  const CliRun r = gate("base.csv", "schedule_changed.csv");
  EXPECT_EQ(r.exit_code, 4) << r.err;
  EXPECT_TRUE(has(r.out, "[GATE FAIL: contract differs: schedule isolated→per_iter]")) << r.out;
  EXPECT_TRUE(has(r.out, "gate REFUSED (contract mismatch)")) << r.out;
  // Refusal does not depend on --fail-on-regression: the numbers are not comparable.
  EXPECT_EQ(run_caliber({"compare", data("base.csv"), data("schedule_changed.csv"), "--thresholds", kThresholds})
                .exit_code,
            4);
}

TEST(CompareCli, WithoutThresholdsAnyContractDifferenceRefuses) {
  const CliRun r = run_caliber({"compare", data("samples_base.json"), data("samples_graph.json")});
  EXPECT_EQ(r.exit_code, 4) << r.err;
  EXPECT_TRUE(has(r.out, "[REPORT: contract differs: schedule isolated→per_iter]")) << r.out;
  EXPECT_EQ(run_caliber({"compare", data("samples_base.json"), data("samples_slow.json")}).exit_code, 0);
}

// --- outputs ----------------------------------------------------------------------------------

TEST(CompareCli, WritesEveryFormatToStdoutOrAtomicallyToOut) {
  const CliRun md = gate("base.csv", "regressed.csv", {"--format", "markdown"});
  EXPECT_EQ(md.exit_code, 1);
  EXPECT_EQ(md.out.rfind("### caliber compare: FAIL\n", 0), 0u) << md.out;
  const CliRun js = gate("base.csv", "regressed.csv", {"--format", "json"});
  const auto doc = nlohmann::json::parse(js.out);
  EXPECT_EQ(doc["result"], "fail");
  EXPECT_EQ(doc["summary"]["failed"], 1);

  const std::string dir = caliber::testing_support::temp_path("caliber_compare_out");
  std::filesystem::create_directories(dir);
  const std::string xml = dir + "/gate.xml";
  std::ofstream(xml) << "old";
  // Bad input: the old file is left as it was.
  EXPECT_EQ(gate("base.csv", "duplicate.csv", {"--out", xml}).exit_code, 2);
  EXPECT_EQ(slurp(xml), "old");
  const CliRun r = run_caliber({"compare", data("base.csv"), data("regressed.csv"), "--thresholds", kThresholds,
                                "--fail-on-regression", "--format", "junit", "--out", xml});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "gate FAIL: 1 of 3 gated rows failed (2 passed, 0 skipped, 0 unknown); 0 report-only rows\n");
  const std::string text = slurp(xml);
  EXPECT_EQ(text.rfind("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", 0), 0u);
  EXPECT_TRUE(has(text, "tests=\"3\" failures=\"1\" skipped=\"0\"")) << text;
  std::size_t files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) files += e.is_regular_file() ? 1 : 0;
  EXPECT_EQ(files, 1u) << "no temporary file is left beside --out";
}

TEST(CompareCli, HelpListsTheExitCodes) {
  const CliRun r = run_caliber({"compare", "--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_TRUE(has(r.out, "4 comparison refused")) << r.out;
}

}  // namespace
}  // namespace caliber
