// The reports end to end from a real host-backend run, every step through the caliber binary:
// `caliber ledger` (model-derived shapes from the shipped model configurations, a synthetic probe
// and the diagnostic shape) -> `caliber run --backend host` with the shipped host rmsnorm matrix
// plus the deliberately wrong test plugin -> `caliber calibrate --backend host` -> `caliber report`
// -> report.html in headless Chromium.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "backends/host/host_backend.h"
#include "results/benchmark_results.h"
#include "ledger/shape_ledger.h"
#include "support/headless_chromium.h"
#include "support/run_cli.h"
#include "io/benchmark_results_json.h"
#include "io/shape_ledger_json.h"

namespace caliber {
namespace {

namespace fs = std::filesystem;
using testing_support::read_file_text;
using testing_support::run_cli_in;

TEST(ReportEndToEnd, HostRunToSummaryCoverageAndHtml) {
  const std::string dir = testing_support::temp_path("e2e-report");
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string source = CALIBER_SOURCE_DIR;

  // The ledger: Llama-3 8B's rmsnorm for 64 and 256 prefill tokens and one decode token (hot), one
  // synthetic probe and the diagnostic shape (not hot).
  auto r = run_cli_in(dir, "ledger models --op rmsnorm --ledger shape_ledger.jsonl --model-shapes " + source +
                               "/data/model_shapes.json --models llama-3-8b --prefill-tokens 64,256 "
                               "--decode-tokens 1 --dtype fp32");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = run_cli_in(dir, "ledger manual --op rmsnorm --ledger shape_ledger.jsonl --shape m=3,n=1000 --stage synthetic "
                      "--dtype fp32 --notes 'rows shorter than one vector path'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = run_cli_in(dir, "ledger diagnostic --op rmsnorm --ledger shape_ledger.jsonl --shape m=128,n=2048 --dtype fp32");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<ShapeRow> ledger = read_shape_ledger(dir + "/shape_ledger.jsonl");
  ASSERT_EQ(ledger.size(), 5u);

  // The shipped host matrix, plus a plugin that forgets the weight: its rows must be kept,
  // marked incorrect, and never averaged in.
  std::string matrix = read_file_text(source + "/matrices/host/rmsnorm/baseline_matrix.yaml");
  ASSERT_FALSE(matrix.empty());
  matrix += std::string("  broken:\n    enabled: true\n    entrypoint: \"") + CALIBER_TEST_PLUGIN +
            ":caliber_test_wrong\"\n    provider: plugin\n    notes: the test plugin that forgets the weight\n";
  std::ofstream(dir + "/baseline_matrix.yaml") << matrix;

  // A few seconds of measurement: 5 shapes x 3 providers, at most 5 ms of sampling per contract.
  r = run_cli_in(dir, "run --op rmsnorm --backend host --shape-ledger shape_ledger.jsonl --baseline-matrix "
                      "baseline_matrix.yaml --out run --samples --warmup 1 --min-samples 6 --min-time-ms 0 "
                      "--max-time-ms 5");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<BenchmarkResultRow> rows = read_benchmark_results(dir + "/run/benchmark_results.jsonl");
  ASSERT_EQ(rows.size(), 15u);

  // The smallest copy calibrate accepts (4 x the last-level cache) keeps the test fast.
  const std::uint64_t copy_bytes = 4 * host::HostBackend().device().llc_bytes;
  r = run_cli_in(dir, "calibrate --backend host --out device_ceilings.json --copy-size " + std::to_string(copy_bytes) +
                          " --matmul-size 128 --max-time-ms 100");
  ASSERT_EQ(r.exit_code, 0) << r.err;

  r = run_cli_in(dir, "report --shape-ledger shape_ledger.jsonl --results run/benchmark_results.jsonl "
                      "--candidate caliber --ceilings device_ceilings.json --out reports");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string summary = read_file_text(dir + "/reports/benchmark_summary.md");
  EXPECT_NE(summary.find("# Benchmark summary: rmsnorm, candidate `caliber`\n"), std::string::npos) << summary;
  EXPECT_NE(summary.find("- Shape ledger: `shape_ledger.jsonl` (5 shapes, 3 hot: model-derived)\n"), std::string::npos)
      << summary;
  EXPECT_NE(summary.find("- Ceilings: memory "), std::string::npos) << summary;  // this host was calibrated
  // The runner's host kernel-only contract (docs/runner.md) with this run's options.
  EXPECT_NE(summary.find("- Kernel-only contract: host wallclock/per_iter/warm, median, warmup 1, "), std::string::npos)
      << summary;
  bool verdict = false;
  for (const char* v : {"promote", "promote_with_guardrails", "tune_needed", "rewrite_needed", "blocked", "no_decision"}) {
    verdict = verdict || summary.find(std::string("## Decision\n\n**") + v + "** (rule D") != std::string::npos;
  }
  EXPECT_TRUE(verdict) << summary;
  // The results table comes first; the broken provider is wrong wherever it ran: no baseline,
  // and its rows are listed, never averaged in.
  EXPECT_LT(summary.find("## Results (shape x provider)"), summary.find("## Decision")) << summary;
  EXPECT_NE(summary.find("- Not a baseline: broken, incorrect on every shape it ran (5 of 5)"), std::string::npos)
      << summary;
  for (const ShapeRow& s : ledger) {
    EXPECT_NE(summary.find("| " + s.shape_id + " | fp32 m=" + std::to_string(s.args["m"].get<std::int64_t>()) + " n=" +
                           std::to_string(s.args["n"].get<std::int64_t>()) +
                           " | broken (not a baseline) | incorrect | false | failed | incorrect: output failed the "
                           "correctness check: "),
              std::string::npos)
        << s.shape_id << "\n"
        << summary;
  }
  const std::string coverage = read_file_text(dir + "/reports/coverage_matrix.md");
  EXPECT_NE(coverage.find("| incorrect | 0 | 0 | 5 | 5 |\n"), std::string::npos) << coverage;
  EXPECT_NE(coverage.find("| missing | 0 | 0 | 0 | 0 |\n"), std::string::npos) << coverage;

  const std::string chromium = testing_support::find_chromium();
  if (chromium.empty()) {
    GTEST_SKIP() << "chromium is not installed (Debian package 'chromium'): report.html was not opened";
  }
  testing_support::expect_report_page_renders(chromium, dir + "/reports/report.html", ledger.size(),
                                              /*require_comparisons=*/false);
}

}  // namespace
}  // namespace caliber
