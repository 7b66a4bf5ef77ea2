// caliber run end to end on the host backend: every status, a crashing and a hanging provider
// that cost one row each, resume after the runner is killed mid-run, plugin load errors.
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <set>
#include <thread>

#include <gtest/gtest.h>

#include "caliber/backend.h"
#include "caliber/benchmark_results.h"
#include "ledger/importers.h"
#include "support/cli_run.h"

namespace caliber {
namespace {

using testing_support::count_lines;
using testing_support::fresh_dir;
using testing_support::run_caliber;
using testing_support::slurp;
using testing_support::write_text;

const std::string kPlugin = CALIBER_TEST_PLUGIN;

ShapeRow rms_row(std::int64_t m, std::int64_t n, DType d) {
  ledger::RowTemplate t;
  t.op = ops::OpType::rmsnorm;
  return ledger::make_row(t, d, {{"m", m}, {"n", n}, {"eps", 1e-6}}, Stage::mixed, std::nullopt,
                          {SourceKind::manual, "test", ""}, "");
}

std::string matrix(const std::string& providers) {
  return "schema_version: 1\nkernel: rmsnorm\nop_type: rmsnorm\ndtype: [fp32, bf16]\nreference_provider: caliber\n"
         "layout_contract: row_major\nproviders:\n" +
         providers;
}

std::string plugin_entry(const std::string& name, const std::string& symbol) {
  return "  " + name + ": {enabled: true, entrypoint: \"" + kPlugin + ":" + symbol + "\", provider: plugin}\n";
}

std::vector<std::string> run_args(const std::string& dir, std::vector<std::string> extra = {},
                                  const std::string& sampling_ms = "2") {
  std::vector<std::string> a = {"run", "--op", "rmsnorm", "--backend", "host", "--shape-ledger",
                                dir + "/shape_ledger.jsonl", "--baseline-matrix", dir + "/baseline_matrix.yaml",
                                "--out", dir + "/out", "--min-time-ms", sampling_ms == "2" ? "0" : sampling_ms,
                                "--max-time-ms", sampling_ms, "--min-samples", "3", "--warmup", "1"};
  a.insert(a.end(), extra.begin(), extra.end());
  return a;
}

std::map<std::string, BenchmarkStatus> statuses_by_cell(const std::vector<BenchmarkResultRow>& rows) {
  std::map<std::string, BenchmarkStatus> out;
  for (const auto& r : rows) out[r.shape_id + "/" + r.provider] = r.benchmark_status;
  return out;
}

TEST(RunCli, EveryStatusIsRecordedAndTheRunGoesOn) {
  const std::string dir = fresh_dir("run_statuses");
  const ShapeRow a = rms_row(4, 8, DType::fp32), crash = rms_row(13, 8, DType::fp32), b = rms_row(6, 16, DType::bf16),
                 huge = rms_row(1048576, 1048576, DType::fp32);
  write_shape_ledger(dir + "/shape_ledger.jsonl", {a, crash, b, huge});
  write_text(dir + "/baseline_matrix.yaml",
             matrix("  caliber: {enabled: true, entrypoint: \"builtin:caliber\", provider: caliber}\n"
                    "  naive: {enabled: true, entrypoint: \"builtin:naive\", provider: caliber}\n" +
                    plugin_entry("wrong", "caliber_test_wrong") + plugin_entry("fails", "caliber_test_fail") +
                    plugin_entry("fp32only", "caliber_test_fp32_only") + plugin_entry("gpuonly", "caliber_test_cuda") +
                    plugin_entry("crashes", "caliber_test_crash") +
                    "  cudnn: {enabled: false, provider: cudnn, skip_reason: \"no cuDNN on the host\"}\n"));
  const auto r = run_caliber(run_args(dir, {"--providers", "caliber,wrong,fails,fp32only,gpuonly,crashes,cudnn"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto rows = read_benchmark_results(dir + "/out/benchmark_results.jsonl");
  ASSERT_EQ(rows.size(), 4u * 8u) << r.err;  // one row per cell, no more, no less
  const auto st = statuses_by_cell(rows);
  EXPECT_EQ(st.size(), 32u);
  auto at = [&](const ShapeRow& s, const char* p) { return st.at(s.shape_id + "/" + p); };
  EXPECT_EQ(at(a, "caliber"), BenchmarkStatus::ok);
  EXPECT_EQ(at(b, "caliber"), BenchmarkStatus::ok);
  EXPECT_EQ(at(a, "naive"), BenchmarkStatus::skipped);
  EXPECT_EQ(at(a, "wrong"), BenchmarkStatus::incorrect);
  EXPECT_EQ(at(b, "wrong"), BenchmarkStatus::incorrect);
  EXPECT_EQ(at(a, "fails"), BenchmarkStatus::failed);
  EXPECT_EQ(at(a, "fp32only"), BenchmarkStatus::ok);
  EXPECT_EQ(at(b, "fp32only"), BenchmarkStatus::unsupported);
  EXPECT_EQ(at(a, "gpuonly"), BenchmarkStatus::not_configured);
  EXPECT_EQ(at(a, "cudnn"), BenchmarkStatus::not_configured);
  EXPECT_EQ(at(huge, "caliber"), BenchmarkStatus::oom);
  EXPECT_EQ(at(a, "crashes"), BenchmarkStatus::ok);
  EXPECT_EQ(at(crash, "crashes"), BenchmarkStatus::failed);
  EXPECT_EQ(at(b, "crashes"), BenchmarkStatus::ok);  // the next shape ran in a fresh worker
  EXPECT_EQ(at(crash, "caliber"), BenchmarkStatus::ok);
  for (const auto& row : rows) {
    EXPECT_EQ(row.run_id, rows.front().run_id);
    if (row.shape_id == huge.shape_id) continue;  // oom or not_configured, checked above
    if (row.shape_id == crash.shape_id && row.provider == "crashes") {
      EXPECT_NE(row.status_reason.value_or("").find("worker process died (signal 6"), std::string::npos)
          << row.status_reason.value_or("");
    }
    if (row.provider == "wrong") {
      EXPECT_EQ(row.correct, false);
      ASSERT_TRUE(row.correctness_error.has_value());
      EXPECT_NE(row.correctness_error->find("relative Frobenius error"), std::string::npos);
      EXPECT_TRUE(row.median_us.has_value());  // incorrect rows are still timed
    }
    if (row.provider == "fails") EXPECT_EQ(row.status_reason, "plugin run() failed: deliberate failure second line");
    if (row.provider == "cudnn") EXPECT_NE(row.status_reason.value_or("").find("no cuDNN on the host"), std::string::npos);
    if (row.benchmark_status == BenchmarkStatus::ok) {
      EXPECT_EQ(row.correct, true);
      ASSERT_TRUE(row.kernel_only && row.eager);
      EXPECT_EQ(row.kernel_only->contract.schedule, Schedule::per_iter);
      EXPECT_EQ(row.eager->contract.schedule, Schedule::isolated);
      EXPECT_DOUBLE_EQ(*row.host_overhead_us, *row.eager_median_us - *row.median_us);
      EXPECT_FALSE(row.graph_median_us.has_value());
    }
  }
  // The CSV projection and the summary are there and valid.
  const auto csv = read_benchmark_results_csv(dir + "/out/benchmark_results.csv");
  EXPECT_EQ(csv.size(), rows.size());
  const auto summary = nlohmann::json::parse(slurp(dir + "/out/run_summary.json"));
  EXPECT_EQ(summary["cells_total"], 32);
  EXPECT_EQ(summary["statuses"]["failed"], 4);  // `fails` on three shapes (the fourth is oom) + the crash
  EXPECT_EQ(summary["statuses"]["oom"], 5);     // every provider that reached the huge shape's inputs
  EXPECT_GE(summary["session"]["worker_starts"].get<int>(), 2);
  const auto v = run_caliber({"validate", dir + "/out/benchmark_results.jsonl", dir + "/out/benchmark_results.csv",
                              dir + "/shape_ledger.jsonl", dir + "/baseline_matrix.yaml"});
  EXPECT_EQ(v.exit_code, 0) << v.out << v.err;
  // Resuming a finished run runs nothing; --strict turns the failed and incorrect cells into exit 1.
  const auto again = run_caliber(run_args(dir, {"--resume", "--strict"}));
  EXPECT_EQ(again.exit_code, 1) << again.err;
  EXPECT_EQ(read_benchmark_results(dir + "/out/benchmark_results.jsonl").size(), rows.size());
}

TEST(RunCli, AHangingCellIsKilledAndRecorded) {
  const std::string dir = fresh_dir("run_hang");
  const ShapeRow hang = rms_row(13, 8, DType::fp32), fine = rms_row(4, 8, DType::fp32);
  write_shape_ledger(dir + "/shape_ledger.jsonl", {hang, fine});
  write_text(dir + "/baseline_matrix.yaml", matrix(plugin_entry("hangs", "caliber_test_hang") +
                                                   "  caliber: {enabled: true, entrypoint: \"builtin:caliber\", "
                                                   "provider: caliber}\n"));
  const auto start = std::chrono::steady_clock::now();
  const auto r = run_caliber(run_args(dir, {"--cell-timeout-s", "1.5"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
  const auto st = statuses_by_cell(read_benchmark_results(dir + "/out/benchmark_results.jsonl"));
  ASSERT_EQ(st.size(), 4u);
  EXPECT_EQ(st.at(hang.shape_id + "/hangs"), BenchmarkStatus::failed);
  EXPECT_EQ(st.at(hang.shape_id + "/caliber"), BenchmarkStatus::ok);
  EXPECT_EQ(st.at(fine.shape_id + "/hangs"), BenchmarkStatus::ok);
  EXPECT_NE(r.err.find("no result within --cell-timeout-s 1.5 s"), std::string::npos) << r.err;
}

TEST(RunCli, KilledMidRunThenResumedLosesAndDuplicatesNothing) {
  const std::string dir = fresh_dir("run_kill_resume");
  std::vector<ShapeRow> shapes;
  for (std::int64_t m = 1; m <= 30; ++m) shapes.push_back(rms_row(m, 64, DType::fp32));
  write_shape_ledger(dir + "/shape_ledger.jsonl", shapes);
  write_text(dir + "/baseline_matrix.yaml",
             matrix("  caliber: {enabled: true, entrypoint: \"builtin:caliber\", provider: caliber}\n"
                    "  naive: {enabled: true, entrypoint: \"builtin:naive\", provider: caliber}\n"));
  // ~40 ms of sampling per cell: the run lasts long enough to be killed in the middle.
  const std::vector<std::string> args = run_args(dir, {}, "20");
  const std::string results = dir + "/out/benchmark_results.jsonl";
  const pid_t pid = testing_support::start_caliber(args, dir);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < deadline) {
    if (std::filesystem::exists(results) && count_lines(slurp(results)) >= 8) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ::kill(pid, SIGKILL);
  testing_support::wait_exit_code(pid);
  // Complete rows only: a row torn by the kill has no newline yet (resume cuts it off).
  const std::size_t before = count_lines(slurp(results));
  ASSERT_GE(before, 8u);
  ASSERT_LT(before, 60u) << "the run finished before it was killed; the test proves nothing";

  const auto r = run_caliber(run_args(dir, {"--resume"}, "20"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("resuming run"), std::string::npos) << r.err;
  const auto rows = read_benchmark_results(results);  // refuses duplicate cells itself
  EXPECT_EQ(rows.size(), 60u);
  std::set<std::string> cells;
  for (const auto& row : rows) {
    cells.insert(row.shape_id + "/" + row.provider);
    EXPECT_EQ(row.run_id, rows.front().run_id);
  }
  EXPECT_EQ(cells.size(), 60u);
  const auto summary = nlohmann::json::parse(slurp(dir + "/out/run_summary.json"));
  EXPECT_EQ(summary["session"]["cells"].get<std::size_t>(), 60u - before);
}

TEST(RunCli, ExistingResultsNeedResume) {
  const std::string dir = fresh_dir("run_needs_resume");
  write_shape_ledger(dir + "/shape_ledger.jsonl", {rms_row(2, 8, DType::fp32)});
  write_text(dir + "/baseline_matrix.yaml",
             matrix("  caliber: {enabled: true, entrypoint: \"builtin:caliber\", provider: caliber}\n"));
  ASSERT_EQ(run_caliber(run_args(dir)).exit_code, 0);
  const auto r = run_caliber(run_args(dir));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("pass --resume"), std::string::npos) << r.err;
}

TEST(RunCli, PluginsThatCannotBeUsedStopTheRunWithOneLine) {
  struct Case {
    std::string entrypoint;
    const char* fragment;
  };
  const std::vector<Case> cases = {
      {"/nonexistent/libnothing.so:entry", "does not load"},
      {kPlugin + ":caliber_no_such_symbol", "symbol 'caliber_no_such_symbol' not found"},
      {kPlugin + ":caliber_test_abi_v99", "built for plugin ABI version 99; this caliber speaks version 1"},
      {kPlugin + ":caliber_test_refuse", "refused to load for op rmsnorm: no licence for this machine"},
  };
  for (const Case& c : cases) {
    const std::string dir = fresh_dir("run_bad_plugin");
    write_shape_ledger(dir + "/shape_ledger.jsonl", {rms_row(2, 8, DType::fp32)});
    write_text(dir + "/baseline_matrix.yaml",
               matrix("  caliber: {enabled: true, entrypoint: \"builtin:caliber\", provider: caliber}\n"
                      "  mine: {enabled: true, entrypoint: \"" + c.entrypoint + "\", provider: plugin}\n"));
    const auto r = run_caliber(run_args(dir));
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_EQ(count_lines(r.err), 1u) << r.err;
    EXPECT_NE(r.err.find("baseline_matrix.yaml:9: field 'providers.mine.entrypoint'"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(c.fragment), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(dir + "/out/benchmark_results.jsonl"));
  }
}

TEST(RunCli, AWorkerThatCannotOpenItsBackendEndsTheRunWithItsError) {
  for (const auto& b : available_backends()) {
    if (b.kind == BackendKind::cuda && b.device_count > 0) GTEST_SKIP() << "a CUDA device is visible";
  }
  const std::string dir = fresh_dir("run_no_backend");
  write_shape_ledger(dir + "/shape_ledger.jsonl", {rms_row(2, 8, DType::fp32)});
  write_text(dir + "/baseline_matrix.yaml",
             matrix("  caliber: {enabled: true, entrypoint: \"builtin:caliber\", provider: caliber}\n"));
  std::vector<std::string> args = run_args(dir);
  args[4] = "cuda";  // --backend cuda
  const auto r = run_caliber(args);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("backend cuda is not available"), std::string::npos) << r.err;
}

TEST(RunCli, TheExamplePluginRunsAgainstTheBuiltins) {
  const std::string dir = fresh_dir("run_example_plugin");
  write_shape_ledger(dir + "/shape_ledger.jsonl", {rms_row(5, 24, DType::fp32), rms_row(3, 40, DType::bf16)});
  const std::string m = slurp(std::string(CALIBER_SOURCE_DIR) + "/examples/plugin/baseline_matrix.yaml");
  write_text(dir + "/baseline_matrix.yaml", m);
  ::setenv("CALIBER_PLUGIN_DIR", CALIBER_PLUGIN_BUILD_DIR, 1);
  const auto r = run_caliber(run_args(dir));
  ::unsetenv("CALIBER_PLUGIN_DIR");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto rows = read_benchmark_results(dir + "/out/benchmark_results.jsonl");
  ASSERT_EQ(rows.size(), 6u);
  for (const auto& row : rows) {
    EXPECT_EQ(row.benchmark_status, BenchmarkStatus::ok) << row.provider << ": " << row.status_reason.value_or("");
  }
}

TEST(RunCli, TheShippedHostGemmMatrixWithTheOpenblasPlugin) {
#ifndef CALIBER_HAVE_OPENBLAS_PLUGIN
  GTEST_SKIP() << "OpenBLAS was not found at configure time: no openblas plugin";
#else
  const std::string dir = fresh_dir("run_host_gemm");
  ledger::RowTemplate t;
  t.op = ops::OpType::gemm;
  std::vector<ShapeRow> shapes;
  for (DType d : {DType::fp32, DType::bf16}) {
    shapes.push_back(ledger::make_row(t, d, {{"m", 33}, {"n", 65}, {"k", 17}}, Stage::mixed, std::nullopt,
                                      {SourceKind::manual, "test", ""}, ""));
  }
  write_shape_ledger(dir + "/shape_ledger.jsonl", shapes);
  ::setenv("CALIBER_PLUGIN_DIR", CALIBER_PLUGIN_BUILD_DIR, 1);
  const auto r = run_caliber({"run", "--op", "gemm", "--backend", "host", "--shape-ledger", dir + "/shape_ledger.jsonl",
                              "--baseline-matrix", std::string(CALIBER_SOURCE_DIR) + "/matrices/host/gemm/baseline_matrix.yaml",
                              "--out", dir + "/out", "--max-time-ms", "2"});
  ::unsetenv("CALIBER_PLUGIN_DIR");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto rows = read_benchmark_results(dir + "/out/benchmark_results.jsonl");
  ASSERT_EQ(rows.size(), 6u);
  for (const auto& row : rows) {
    const bool bf16_blas = row.provider == "openblas" && row.dtype == "bf16";
    EXPECT_EQ(row.benchmark_status, bf16_blas ? BenchmarkStatus::unsupported : BenchmarkStatus::ok)
        << row.provider << " " << row.dtype << ": " << row.status_reason.value_or("");
    if (row.provider == "openblas" && row.dtype == "fp32") {
      EXPECT_NE(row.provider_detail.find("cblas_sgemm"), std::string::npos) << row.provider_detail;
    }
  }
#endif
}

}  // namespace
}  // namespace caliber
