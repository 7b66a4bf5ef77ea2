// caliber report on the hand-made fixture (tests/data/report/fixture, numbers invented so every
// speedup is checkable by hand): golden markdown, and the refusals on bad input.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "support/run_cli.h"

namespace caliber {
namespace {

namespace fs = std::filesystem;
using testing_support::run_cli_in;

const std::string kFixture = std::string(CALIBER_TEST_DATA) + "/report/fixture";

std::string fresh_dir(const std::string& name) {
  const std::string dir = testing_support::temp_path(name);
  fs::remove_all(dir);
  return dir;
}

// A copy of the fixture to edit.
std::string fixture_copy(const std::string& name) {
  const std::string dir = fresh_dir(name);
  fs::copy(kFixture, dir, fs::copy_options::recursive);
  return dir;
}

// Replaces every occurrence (at least one) of `from`.
void replace_in_file(const std::string& path, const std::string& from, const std::string& to) {
  std::string text = testing_support::read_file_text(path);
  std::size_t at = 0, n = 0;
  while ((at = text.find(from, at)) != std::string::npos) {
    text.replace(at, from.size(), to);
    at += to.size();
    ++n;
  }
  ASSERT_GT(n, 0u) << from;
  std::ofstream(path) << text;
}

const char* kReportArgs =
    "report --shape-ledger shape_ledger.jsonl --results benchmark_results.jsonl --candidate caliber "
    "--ceilings device_ceilings.json";

TEST(CmdReport, GoldenMarkdownFromTheFixture) {
  const std::string out = fresh_dir("report-golden");
  const auto r = run_cli_in(kFixture, std::string(kReportArgs) + " --against benchmark_results_before.jsonl --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("decision: tune_needed (rule D8)"), std::string::npos) << r.out;
  for (const char* name : {"benchmark_summary.md", "coverage_matrix.md", "regression_summary.md"}) {
    EXPECT_EQ(testing_support::read_file_text(out + "/" + name), testing_support::read_file_text(kFixture + "/expected/" + name)) << name;
  }
  EXPECT_TRUE(fs::exists(out + "/report.html"));
  // regressions.jsonl: one row per ledger shape.
  std::ifstream jsonl(out + "/regressions.jsonl");
  std::string line;
  int rows = 0;
  while (std::getline(jsonl, line)) ++rows;
  EXPECT_EQ(rows, 9);
}

TEST(CmdReport, WithoutCeilingsRooflineFractionsAreNotAvailable) {
  const std::string out = fresh_dir("report-no-ceilings");
  const auto r = testing_support::run_cli_command(
      "cd '" + kFixture + "' && CALIBER_CEILINGS=/nonexistent/ceilings.json " + testing_support::caliber_exe() +
      " report --shape-ledger shape_ledger.jsonl --results benchmark_results.jsonl --candidate caliber --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string summary = testing_support::read_file_text(out + "/benchmark_summary.md");
  EXPECT_NE(summary.find("- Ceilings: no ceilings file (run caliber calibrate): roofline fractions n/a\n"),
            std::string::npos);
  // The results table says once why its roofline column is empty.
  EXPECT_NE(summary.find("- roofline -: no ceilings file (run caliber calibrate): roofline fractions n/a\n"),
            std::string::npos)
      << summary;
  EXPECT_NE(r.out.find("note: roofline -: no ceilings file"), std::string::npos) << r.out;
  // Without a roofline, the 8192x8192 shape is no longer "at the roofline": it is a tuning gap.
  EXPECT_NE(summary.find("| sha1:ec19ab6cc82e7e7f | bf16 m=8192 n=8192 | prefill | 0.925x | tuning_gap | C13 |"),
            std::string::npos)
      << summary;
}

TEST(CmdReport, ATruncatedResultsFileIsOneLineErrorAndNothingIsWritten) {
  const std::string dir = fixture_copy("report-truncated");
  std::string text = testing_support::read_file_text(dir + "/benchmark_results.jsonl");
  text.resize(text.size() - 200);  // the last row loses its end
  std::ofstream(dir + "/benchmark_results.jsonl") << text;
  const std::string out = dir + "/out";
  const auto r = run_cli_in(dir, std::string(kReportArgs) + " --out " + out);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find("benchmark_results.jsonl:32"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out));
}

TEST(CmdReport, ARowOfAShapeOutsideTheLedgerNamesItsLine) {
  const std::string dir = fixture_copy("report-foreign-shape");
  std::string ledger = testing_support::read_file_text(dir + "/shape_ledger.jsonl");
  ledger.erase(0, ledger.find('\n') + 1);  // drop the first shape
  std::ofstream(dir + "/shape_ledger.jsonl") << ledger;
  const auto r = run_cli_in(dir, std::string(kReportArgs) + " --out " + dir + "/out");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "caliber: error: benchmark_results.jsonl:1: field 'shape_id': shape sha1:3818b886b870d9a2 is not in the "
            "shape ledger (report a run with the ledger it ran)\n");
  EXPECT_FALSE(fs::exists(dir + "/out"));
}

TEST(CmdReport, AnUnknownCandidateIsAUsageError) {
  const auto r = run_cli_in(kFixture,
                            "report --shape-ledger shape_ledger.jsonl --results benchmark_results.jsonl --candidate "
                            "nope --out " + fresh_dir("report-nope"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "caliber: error: --candidate nope: no row of the results has this provider (providers: caliber, naive, "
            "vendor, cudnn)\n");
}

const char* kAgainstArgs =
    "report --shape-ledger shape_ledger.jsonl --results benchmark_results.jsonl --candidate caliber "
    "--ceilings device_ceilings.json --against benchmark_results_before.jsonl --out out";

TEST(CmdReport, AgainstARunOfAnotherCaliberIsRefusedBeforeAnyLatencyIsCompared) {
  const std::string dir = fixture_copy("report-mismatch");
  // The before run measured with a cold cache: its identity says so.
  replace_in_file(dir + "/benchmark_results_before.run_identity.json", "\"cache\": \"warm\"", "\"cache\": \"cold\"");
  // Its results are cut in the middle of a row: the refusal comes before they are read.
  std::string before = testing_support::read_file_text(dir + "/benchmark_results_before.jsonl");
  std::ofstream(dir + "/benchmark_results_before.jsonl") << before.substr(0, before.size() / 2);
  const auto r = run_cli_in(dir, kAgainstArgs);
  EXPECT_EQ(r.exit_code, 4) << r.err;
  EXPECT_NE(r.err.find("!!! [caliber] contracts[eager].cache: A=cold, B=warm\n"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("!!! [caliber] contracts[kernel_only].cache: A=cold, B=warm\n"), std::string::npos);
  EXPECT_FALSE(fs::exists(dir + "/out"));
}

TEST(CmdReport, AgainstARunWithoutIdentityIsRefused) {
  const std::string dir = fixture_copy("report-no-identity");
  fs::remove(dir + "/benchmark_results_before.run_identity.json");
  const auto r = run_cli_in(dir, kAgainstArgs);
  EXPECT_EQ(r.exit_code, 4) << r.err;
  EXPECT_NE(r.err.find("!!! [caliber] run_identity.json: A=<missing: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(", B=present\n"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir + "/out"));
}

TEST(CmdReport, AllowCaliberMismatchComparesAndWritesEveryDifferenceIntoTheSummary) {
  const std::string dir = fixture_copy("report-allow-mismatch");
  replace_in_file(dir + "/benchmark_results_before.run_identity.json", "\"driver_version\": \"13.0\"",
                      "\"driver_version\": \"12.8\"");
  const auto r = run_cli_in(dir, std::string(kAgainstArgs) + " --allow-caliber-mismatch");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("!!! [caliber] device.driver_version: A=12.8, B=13.0\n"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("!!! [caliber] proceeding anyway (--allow-caliber-mismatch)"), std::string::npos) << r.err;
  // The before rows still say 13.0: what the identity cannot know is checked on the rows too.
  EXPECT_NE(r.err.find("!!! [caliber] benchmark_results_before.jsonl:1 device.driver_version (32 rows differ): "
                       "run_identity.json=12.8, row=13.0\n"),
            std::string::npos)
      << r.err;
  const std::string summary = testing_support::read_file_text(dir + "/out/regression_summary.md");
  EXPECT_NE(summary.find("- Caliber: **DIFFERENT** in 2 field(s), compared anyway (--allow-caliber-mismatch): "
                         "device.driver_version: A=12.8, B=13.0; benchmark_results_before.jsonl:1 "
                         "device.driver_version (32 rows differ): run_identity.json=12.8, row=13.0\n"),
            std::string::npos)
      << summary;
}

TEST(CmdReport, AgainstResultsMeasuredElsewhereThanTheirIdentitySaysAreRefused) {
  const std::string dir = fixture_copy("report-foreign-rows");
  // Rows of another device in a file whose identity says H200: the identities alone cannot see it.
  replace_in_file(dir + "/benchmark_results.jsonl", "\"gpu\":\"NVIDIA H200\"", "\"gpu\":\"NVIDIA H100\"");
  const auto r = run_cli_in(dir, kAgainstArgs);
  EXPECT_EQ(r.exit_code, 4) << r.err;
  EXPECT_NE(r.err.find("!!! [caliber] benchmark_results.jsonl:1 device.name (32 rows differ): "
                       "run_identity.json=NVIDIA H200, row=NVIDIA H100\n"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(dir + "/out"));
}

TEST(CmdReport, MalformedCeilingsAreRefused) {
  const std::string dir = fixture_copy("report-bad-ceilings");
  replace_in_file(dir + "/device_ceilings.json", "\"rate_per_s\": 4000000000000.0", "\"rate_per_s\": -1");
  const auto r = run_cli_in(dir, std::string(kReportArgs) + " --out " + dir + "/out");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "caliber: error: device_ceilings.json: field 'devices[0].memory_bandwidth.rate_per_s': must be > 0\n");
}

TEST(CmdReport, HelpListsTheOptions) {
  const auto r = testing_support::run_cli("report --help");
  EXPECT_EQ(r.exit_code, 0);
  for (const char* opt : {"--shape-ledger", "--results", "--out", "--candidate", "--against", "--ceilings", "--profiles",
                          "--allow-caliber-mismatch"}) {
    EXPECT_NE(r.out.find(opt), std::string::npos) << opt;
  }
}

}  // namespace
}  // namespace caliber
