// caliber run --resume keeps what makes the rows one run's (docs/runner.md, "Resume"): a resumed
// session measures on the run's input seed, refuses another --seed, --integrity or pinned
// --verification-seed, and refuses a results file and an identity that belong to two runs.
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "caliber/run_identity.h"
#include "io/benchmark_results_json.h"
#include "io/shape_ledger_json.h"
#include "runner/shape_inputs.h"
#include "support/cli_run.h"
#include "support/manual_row.h"

namespace caliber {
namespace {

using testing_support::fresh_dir;
using testing_support::run_caliber;
using testing_support::slurp;
using testing_support::write_text;

ShapeRow rms_row(std::int64_t m, std::int64_t n) {
  return testing_support::manual_row(ops::OpType::rmsnorm, DType::fp32, {{"m", m}, {"n", n}, {"eps", 1e-6}});
}

std::vector<std::string> run_args(const std::string& dir, std::vector<std::string> extra) {
  std::vector<std::string> a = {"run", "--op", "rmsnorm", "--backend", "host", "--shape-ledger",
                                dir + "/shape_ledger.jsonl", "--baseline-matrix", dir + "/baseline_matrix.yaml",
                                "--out", dir + "/out", "--min-time-ms", "0", "--max-time-ms", "2", "--min-samples",
                                "6", "--warmup", "1"};
  a.insert(a.end(), extra.begin(), extra.end());
  return a;
}

// A run of two shapes whose first session measured only the first (--limit 1).
std::string half_run(const std::string& name) {
  const std::string dir = fresh_dir(name);
  write_shape_ledger(dir + "/shape_ledger.jsonl", {rms_row(4, 8), rms_row(8, 8)});
  write_text(dir + "/baseline_matrix.yaml",
             "schema_version: 1\nkernel: rmsnorm\nop_type: rmsnorm\ndtype: [fp32]\nreference_provider: caliber\n"
             "layout_contract: row_major\nproviders:\n"
             "  caliber: {enabled: true, entrypoint: \"builtin:caliber\", provider: caliber}\n");
  const auto r = run_caliber(run_args(dir, {"--limit", "1"}));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return dir;
}

TEST(RunResumeCli, AResumedSessionMeasuresOnTheRunsInputSeed) {
  const std::string dir = half_run("resume_seed_kept");
  const RunIdentity first = read_run_identity(dir + "/out/run_identity.json");
  ASSERT_TRUE(first.run_checks.has_value());
  EXPECT_EQ(first.run_checks->integrity, "on");
  EXPECT_EQ(first.run_checks->verification_seed, "drawn");
  const std::uint64_t seed = first.run_checks->input_seed;
  EXPECT_NE(seed, 0u);  // drawn
  const auto r = run_caliber(run_args(dir, {"--resume"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<BenchmarkResultRow> rows = read_benchmark_results(dir + "/out/benchmark_results.jsonl");
  ASSERT_EQ(rows.size(), 2u);
  for (const BenchmarkResultRow& row : rows) {
    EXPECT_EQ(row.integrity.input_seed, runner::shape_seeds(row.shape_id, seed, 0).inputs) << row.shape_id;
  }
}

TEST(RunResumeCli, AResumeWithAnotherSeedIntegrityOrPinnedVerificationSeedIsRefused) {
  const std::string dir = half_run("resume_checks_refused");
  const std::vector<std::pair<std::vector<std::string>, std::string>> changes = {
      {{"--seed", "5"}, "run_checks.input_seed"},
      {{"--integrity", "off"}, "run_checks.integrity"},
      {{"--integrity", "fixed-inputs"}, "run_checks.integrity"},
      {{"--verification-seed", "abc"}, "run_checks.verification_seed"}};
  for (const auto& [extra, field] : changes) {
    std::vector<std::string> more = {"--resume"};
    more.insert(more.end(), extra.begin(), extra.end());
    const auto r = run_caliber(run_args(dir, more));
    EXPECT_EQ(r.exit_code, 4) << extra.front() << ": " << r.err;
    EXPECT_NE(r.err.find(field), std::string::npos) << r.err;
    EXPECT_EQ(read_benchmark_results(dir + "/out/benchmark_results.jsonl").size(), 1u);
  }
  // The seed it started with is no difference.
  const RunIdentity first = read_run_identity(dir + "/out/run_identity.json");
  const auto same = run_caliber(run_args(dir, {"--resume", "--seed", std::to_string(first.run_checks->input_seed)}));
  EXPECT_EQ(same.exit_code, 0) << same.err;
}

TEST(RunResumeCli, AnIdentityOfAnotherRunIsRefused) {
  const std::string dir = half_run("resume_other_identity");
  const std::string path = dir + "/out/run_identity.json";
  nlohmann::json id = nlohmann::json::parse(slurp(path));
  id["run_id"] = "20261207T000000Z-00000000";
  write_text(path, id.dump(2));
  const auto r = run_caliber(run_args(dir, {"--resume"}));
  EXPECT_EQ(r.exit_code, 4) << r.err;
  EXPECT_NE(r.err.find("not one run"), std::string::npos) << r.err;
  EXPECT_EQ(read_benchmark_results(dir + "/out/benchmark_results.jsonl").size(), 1u);
}

}  // namespace
}  // namespace caliber
