// caliber batch --slurm end to end against a real single-node Slurm on localhost with the host
// backend: scripts/slurm_ci.sh starts munged, slurmctld and slurmd and runs this test with
// CALIBER_SLURM_TEST=1 (skipped otherwise). The canary job, then a job array with one task per
// shard; the shards are merged, receipted and sealed.
#include <stdlib.h>

#include <filesystem>
#include <map>

#include <gtest/gtest.h>

#include "results/benchmark_results.h"
#include "ledger/importers.h"
#include "support/cli_run.h"
#include "io/benchmark_results_json.h"
#include "io/shape_ledger_json.h"

namespace caliber {
namespace {

namespace fs = std::filesystem;
using testing_support::fresh_dir;
using testing_support::run_caliber;
using testing_support::slurp;
using testing_support::write_text;

ShapeRow rms(std::int64_t m, std::int64_t n) {
  ledger::RowTemplate t;
  t.op = ops::OpType::rmsnorm;
  return ledger::make_row(t, DType::fp32, {{"m", m}, {"n", n}, {"eps", 1e-6}}, Stage::mixed, std::nullopt,
                          {SourceKind::manual, "test", ""}, "");
}

TEST(BatchSlurm, JobArrayPerShardMergedAndSealed) {
  const char* enabled = std::getenv("CALIBER_SLURM_TEST");
  if (!enabled || std::string(enabled) != "1") GTEST_SKIP() << "needs a Slurm cluster: scripts/slurm_ci.sh";
  const std::string dir = fresh_dir("batch_slurm");
  const std::string plugin = CALIBER_TEST_PLUGIN;
  write_shape_ledger(dir + "/shape_ledger.jsonl", {rms(4, 8), rms(13, 8), rms(6, 16), rms(5, 8)});
  write_text(dir + "/baseline_matrix.yaml",
             "schema_version: 1\nkernel: rmsnorm\nop_type: rmsnorm\ndtype: [fp32]\nreference_provider: caliber\n"
             "layout_contract: row_major\nproviders:\n"
             "  caliber: {enabled: true, entrypoint: \"builtin:caliber\", provider: caliber}\n"
             "  crashes: {enabled: true, entrypoint: \"" + plugin + ":caliber_test_crash\", provider: plugin}\n"
             "  flaky: {enabled: true, entrypoint: \"" + plugin + ":caliber_test_flaky\", provider: plugin}\n");
  ::setenv("CALIBER_TEST_FLAKY_FILE", (dir + "/flaky_attempted").c_str(), 1);
  const std::string out = dir + "/campaign";
  const auto r = run_caliber({"batch", "--slurm", "--slurm-wait-s", "300", "--op", "rmsnorm", "--backend", "host",
                              "--devices", "0,0", "--shape-ledger", dir + "/shape_ledger.jsonl", "--baseline-matrix",
                              dir + "/baseline_matrix.yaml", "--out", out, "--retries", "2", "--cell-timeout-s", "5",
                              "--min-time-ms", "0", "--max-time-ms", "2", "--min-samples", "6", "--warmup", "1"});
  ASSERT_EQ(r.exit_code, 0) << r.err << slurp(out + "/slurm/canary.log") << slurp(out + "/slurm/task-0.log");
  EXPECT_TRUE(fs::exists(out + "/slurm/shards.sbatch"));
  EXPECT_NE(slurp(out + "/slurm/shards.sbatch").find("#SBATCH --array=0-"), std::string::npos);
  std::map<std::string, BenchmarkStatus> st;
  for (const auto& row : read_benchmark_results(out + "/benchmark_results.jsonl")) {
    st[std::to_string(row.args.at("m").get<int>()) + "/" + row.provider] = row.benchmark_status;
  }
  ASSERT_EQ(st.size(), 12u);
  EXPECT_EQ(st.at("13/crashes"), BenchmarkStatus::failed);
  EXPECT_EQ(st.at("13/flaky"), BenchmarkStatus::ok);
  EXPECT_EQ(st.at("4/crashes"), BenchmarkStatus::ok);
  EXPECT_TRUE(fs::exists(out + "/campaign_seal.json"));
  EXPECT_TRUE(fs::exists(out + "/slurm/task-0.log"));
  const auto v = run_caliber({"campaign", "verify", out});
  EXPECT_EQ(v.exit_code, 0) << v.out;
}

}  // namespace
}  // namespace caliber
