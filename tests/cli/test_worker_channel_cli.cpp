// The worker's channel (docs/runner.md, "The worker's channel"): a provider that writes an event on
// the worker's events descriptor cannot end the run; the forged event costs its cell, killed with
// its worker, and the run goes on to write every row, the CSV and the summary.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "io/benchmark_results_json.h"
#include "io/shape_ledger_json.h"
#include "support/cli_run.h"
#include "support/manual_row.h"

namespace caliber {
namespace {

using testing_support::fresh_dir;
using testing_support::run_caliber;
using testing_support::write_text;

ShapeRow rms_row(std::int64_t m, std::int64_t n) {
  return testing_support::manual_row(ops::OpType::rmsnorm, DType::fp32, {{"m", m}, {"n", n}, {"eps", 1e-6}});
}

// caliber run on the host of `shapes` with caliber's provider and the test plugin's `symbol` as
// provider `name`, into dir/out.
testing_support::CliResult run_with_plugin(const std::string& dir, const std::vector<ShapeRow>& shapes,
                                           const std::string& name, const std::string& symbol) {
  write_shape_ledger(dir + "/shape_ledger.jsonl", shapes);
  write_text(dir + "/baseline_matrix.yaml",
             "schema_version: 1\nkernel: rmsnorm\nop_type: rmsnorm\ndtype: [fp32]\nreference_provider: caliber\n"
             "layout_contract: row_major\nproviders:\n  " + name + ": {enabled: true, entrypoint: \"" CALIBER_TEST_PLUGIN
             ":" + symbol + "\", provider: plugin}\n"
             "  caliber: {enabled: true, entrypoint: \"builtin:caliber\", provider: caliber}\n");
  return run_caliber({"run", "--op", "rmsnorm", "--backend", "host", "--shape-ledger", dir + "/shape_ledger.jsonl",
                      "--baseline-matrix", dir + "/baseline_matrix.yaml", "--out", dir + "/out", "--min-time-ms", "0",
                      "--max-time-ms", "2", "--min-samples", "6", "--warmup", "1"});
}

TEST(WorkerChannelCli, AForgedFatalEventCostsItsCellAndTheRunGoesOn) {
  const std::string dir = fresh_dir("worker_channel_forged");
  const ShapeRow forged = rms_row(13, 8), fine = rms_row(4, 8);
  const auto r = run_with_plugin(dir, {forged, fine}, "forges", "caliber_test_forge_event");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<BenchmarkResultRow> rows = read_benchmark_results(dir + "/out/benchmark_results.jsonl");
  ASSERT_EQ(rows.size(), 4u) << r.err;
  for (const BenchmarkResultRow& row : rows) {
    const bool hit = row.shape_id == forged.shape_id && row.provider == "forges";
    EXPECT_EQ(row.benchmark_status, hit ? BenchmarkStatus::failed : BenchmarkStatus::ok)
        << row.provider << " " << row.status_reason.value_or("");
    if (hit) {
      EXPECT_NE(row.status_reason.value_or("").find("an event without the worker's token"), std::string::npos)
          << row.status_reason.value_or("");
    }
  }
  EXPECT_TRUE(std::filesystem::exists(dir + "/out/benchmark_results.csv"));
  EXPECT_TRUE(std::filesystem::exists(dir + "/out/run_summary.json"));
}

// A provider's detail is in every row: 4 MiB of it made a 264-cell run's results 371 MB, which
// caliber then could not read back. It is cut to 1 KiB, saying how long it was.
TEST(WorkerChannelCli, AProvidersDetailIsBoundedInItsRows) {
  const std::string dir = fresh_dir("provider_long_detail");
  const auto r = run_with_plugin(dir, {rms_row(4, 8)}, "long", "caliber_test_long_detail");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const BenchmarkResultRow& row : read_benchmark_results(dir + "/out/benchmark_results.jsonl")) {
    if (row.provider != "long") continue;
    EXPECT_EQ(row.benchmark_status, BenchmarkStatus::ok) << row.status_reason.value_or("");
    EXPECT_LT(row.provider_detail.size(), 1400u);
    EXPECT_NE(row.provider_detail.find("... (4194304 bytes)"), std::string::npos) << row.provider_detail.substr(0, 200);
  }
}

}  // namespace
}  // namespace caliber
