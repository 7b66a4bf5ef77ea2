// What a commit's run command leaves, as caliber bisect reads it: the {out} placeholder, and the
// one results input found in the run's directory.
#include <gtest/gtest.h>

#include <string>

#include "bisect/commit_run.h"
#include "bisect/results_input.h"
#include "caliber/errors.h"
#include "support/cli_run.h"

namespace caliber::bisect {
namespace {

using testing_support::fresh_dir;
using testing_support::write_text;

constexpr const char* kGoogleBenchmark =
    R"({"context": {}, "benchmarks": [{"name": "BM_a", "run_type": "iteration", "real_time": 1.5, "time_unit": "us"}]})";

std::string error_of(const std::string& dir) {
  try {
    find_results_input(dir);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(BisectCommitResults, OutIsReplacedByTheShellQuotedDirectoryEverywhere) {
  EXPECT_EQ(substitute_out("bench --out {out} && ls {out}/x", "/tmp/r"), "bench --out '/tmp/r' && ls '/tmp/r'/x");
  EXPECT_EQ(substitute_out("echo {out}", "/tmp/it's here"), "echo '/tmp/it'\\''s here'");
  EXPECT_EQ(substitute_out("make", "/tmp/r"), "make");
  EXPECT_EQ(substitute_out("{outx} {out", "/r"), "{outx} {out");
  EXPECT_EQ(substitute_out("{out}x", "/r"), "'/r'x");
}

TEST(BisectCommitResults, ACaliberRunDirectoryIsReadAsTheDirectory) {
  const std::string dir = fresh_dir("bisect_results_run_dir");
  write_text(dir + "/benchmark_results.jsonl", "");
  write_text(dir + "/other.json", kGoogleBenchmark);
  EXPECT_EQ(find_results_input(dir), dir);
}

TEST(BisectCommitResults, TheOneResultsFileIsFoundAmongOtherFilesAndIdentitySidecars) {
  const std::string dir = fresh_dir("bisect_results_one_file");
  write_text(dir + "/bench.json", kGoogleBenchmark);
  write_text(dir + "/bench.run_identity.json", R"({"kind": "caliber.run_identity", "schema_version": 1})");
  write_text(dir + "/run_identity.json", R"({"kind": "caliber.run_identity", "schema_version": 1})");
  write_text(dir + "/commit.txt", "0123456789abcdef\n");
  EXPECT_EQ(find_results_input(dir), dir + "/bench.json");
}

TEST(BisectCommitResults, TwoResultsFilesOrNoneAreRefused) {
  const std::string two = fresh_dir("bisect_results_two");
  write_text(two + "/a.json", kGoogleBenchmark);
  write_text(two + "/b.json", kGoogleBenchmark);
  EXPECT_NE(error_of(two).find("2 results files (a.json, b.json)"), std::string::npos) << error_of(two);

  const std::string none = fresh_dir("bisect_results_none");
  write_text(none + "/log.txt", "built\n");
  EXPECT_NE(error_of(none).find("no results"), std::string::npos) << error_of(none);
}

}  // namespace
}  // namespace caliber::bisect
