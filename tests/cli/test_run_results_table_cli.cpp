// What a kernel engineer reads after `caliber run` and `caliber report` on a manual ledger, on
// the host backend: the results table (terminal and markdown, the dtype in every shape), raw
// samples kept by default so that `caliber compare` runs its rank test, the report's decision
// without provenance and a deliberately wrong provider that is no baseline.
#include <filesystem>

#include <gtest/gtest.h>

#include "io/benchmark_results_json.h"
#include "io/shape_ledger_json.h"
#include "ledger/importers.h"
#include "results/kept_samples.h"
#include "support/cli_run.h"

namespace caliber {
namespace {

using testing_support::fresh_dir;
using testing_support::run_caliber;
using testing_support::slurp;
using testing_support::write_text;

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// The same args in fp32 and bf16 (manual rows: no model), the host caliber and a provider whose
// output is always wrong.
std::string prepare(const std::string& name) {
  const std::string dir = fresh_dir(name);
  ledger::RowTemplate t;
  t.op = ops::OpType::rmsnorm;
  std::vector<ShapeRow> rows;
  for (DType d : {DType::fp32, DType::bf16}) {
    rows.push_back(ledger::make_row(t, d, {{"m", 4}, {"n", 64}, {"eps", 1e-6}}, Stage::mixed, std::nullopt,
                                    {SourceKind::manual, "test", ""}, ""));
  }
  write_shape_ledger(dir + "/shape_ledger.jsonl", rows);
  write_text(dir + "/baseline_matrix.yaml",
             "schema_version: 1\nkernel: rmsnorm\nop_type: rmsnorm\ndtype: [fp32, bf16]\nreference_provider: caliber\n"
             "layout_contract: row_major\nproviders:\n"
             "  caliber: {enabled: true, entrypoint: \"builtin:caliber\", provider: caliber}\n"
             "  naive: {enabled: true, entrypoint: \"builtin:naive\", provider: caliber}\n"
             "  wrong: {enabled: true, entrypoint: \"" CALIBER_TEST_PLUGIN ":caliber_test_wrong\", provider: plugin}\n");
  return dir;
}

testing_support::CliResult run(const std::string& dir, const std::string& out, std::vector<std::string> extra = {}) {
  std::vector<std::string> a = {"run", "--op", "rmsnorm", "--backend", "host", "--shape-ledger",
                                dir + "/shape_ledger.jsonl", "--baseline-matrix", dir + "/baseline_matrix.yaml",
                                "--out", out, "--min-time-ms", "0", "--max-time-ms", "3", "--min-samples", "6",
                                "--warmup", "1", "--ceilings", dir + "/no_such_ceilings.json"};
  a.insert(a.end(), extra.begin(), extra.end());
  return run_caliber(a);
}

TEST(RunResultsTableCli, TheRunEndsWithItsTableAndKeepsBoundedSamples) {
  const std::string dir = prepare("run_results_table");
  write_text(dir + "/no_such_ceilings.json", R"({"schema_version": 1, "kind": "caliber.device_ceilings", "devices": []})");
  const auto r = run(dir, dir + "/out");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(has(r.out, "shape          provider  status     median us")) << r.out;
  EXPECT_TRUE(has(r.out, "fp32 m=4 n=64  caliber   ok")) << r.out;
  EXPECT_TRUE(has(r.out, "bf16 m=4 n=64  wrong     incorrect")) << r.out;
  EXPECT_TRUE(has(r.out, "note: roofline -: no calibrated ceilings of device host|")) << r.out;
  const std::string md = slurp(dir + "/out/run_summary.md");
  EXPECT_TRUE(has(md, "# caliber run: rmsnorm, run ")) << md;
  EXPECT_TRUE(has(md, "## Results (shape x provider)")) << md;
  EXPECT_TRUE(has(md, "| bf16 m=4 n=64 | caliber | ok | ")) << md;
  for (const BenchmarkResultRow& row : read_benchmark_results(dir + "/out/benchmark_results.jsonl")) {
    if (row.benchmark_status != BenchmarkStatus::ok) continue;
    // Kept by default, at most kKeptSamples of them per measurement.
    EXPECT_FALSE(row.kernel_only->samples_us.empty()) << row.provider;
    EXPECT_LE(row.kernel_only->samples_us.size(), kKeptSamples) << row.provider;
    EXPECT_FALSE(row.eager->samples_us.empty()) << row.provider;
  }
  // The samples let compare run its rank test on every compared row of two runs.
  ASSERT_EQ(run(dir, dir + "/again").exit_code, 0);
  const auto c = run_caliber({"compare", dir + "/out", dir + "/again", "--format", "json"});
  const auto doc = nlohmann::json::parse(c.out);
  std::size_t tested = 0;
  for (const auto& row : doc.at("rows")) tested += row.contains("rank_test");
  EXPECT_EQ(tested, 4u) << c.out;  // caliber and naive on both shapes (wrong is incorrect: not compared)
  // --no-samples keeps none.
  ASSERT_EQ(run(dir, dir + "/lean", {"--no-samples"}).exit_code, 0);
  for (const BenchmarkResultRow& row : read_benchmark_results(dir + "/lean/benchmark_results.jsonl")) {
    if (row.kernel_only) EXPECT_TRUE(row.kernel_only->samples_us.empty()) << row.provider;
  }
  EXPECT_NE(run(dir, dir + "/both", {"--samples", "--no-samples"}).exit_code, 0);
}

TEST(RunResultsTableCli, AReportOfAManualLedgerSaysWhatItDecidesAndDropsTheWrongProvider) {
  const std::string dir = prepare("report_manual_ledger");
  write_text(dir + "/no_such_ceilings.json", R"({"schema_version": 1, "kind": "caliber.device_ceilings", "devices": []})");
  const auto ran = run(dir, dir + "/out");
  ASSERT_EQ(ran.exit_code, 0) << ran.err;
  const auto rep = run_caliber({"report", "--shape-ledger", dir + "/shape_ledger.jsonl", "--results",
                                dir + "/out/benchmark_results.jsonl", "--out", dir + "/report", "--candidate", "caliber",
                                "--ceilings", dir + "/no_such_ceilings.json"});
  ASSERT_EQ(rep.exit_code, 0) << rep.err;
  EXPECT_TRUE(has(rep.out, "fp32 m=4 n=64  caliber (candidate)")) << rep.out;
  EXPECT_TRUE(has(rep.out, "bf16 m=4 n=64  wrong (not a baseline)  incorrect")) << rep.out;
  EXPECT_TRUE(has(rep.out, "decision: no_decision (rule D3): a promotion decision needs a ledger with provenance"))
      << rep.out;
  EXPECT_FALSE(has(rep.out, "blocked")) << rep.out;
  const std::string md = slurp(dir + "/report/benchmark_summary.md");
  EXPECT_LT(md.find("## Results (shape x provider)"), md.find("## Decision")) << md;
  EXPECT_TRUE(has(md, "Decided per shape: the results table above")) << md;
  EXPECT_TRUE(has(md, "- Baselines: naive\n")) << md;
  EXPECT_TRUE(has(md, "- Not a baseline: wrong, incorrect on every shape it ran (2 of 2)")) << md;
  EXPECT_FALSE(has(md, "vs wrong")) << md;
  EXPECT_FALSE(has(md, "blocked")) << md;
  const std::string html = slurp(dir + "/report/report.html");
  EXPECT_TRUE(has(html, "1: fp32 m=4 n=64")) << "chart labels name the dtype";
  EXPECT_TRUE(has(html, "2: bf16 m=4 n=64"));
}

}  // namespace
}  // namespace caliber
