// caliber run on a real device (ctest label gpu): the full pipeline with every cuda provider over
// small shapes, and a sticky device error that must cost one row, not the run.
#include <gtest/gtest.h>

#include <map>

#include "caliber/backend.h"
#include "caliber/benchmark_results.h"
#include "ledger/importers.h"
#include "support/cli_run.h"

namespace caliber {
namespace {

using testing_support::fresh_dir;
using testing_support::run_caliber;
using testing_support::write_text;

bool has_cuda() {
  for (const auto& b : available_backends()) {
    if (b.kind == BackendKind::cuda && b.device_count > 0) return true;
  }
  return false;
}

ShapeRow row(ops::OpType op, DType d, nlohmann::json args) {
  ledger::RowTemplate t;
  t.op = op;
  return ledger::make_row(t, d, args, Stage::mixed, std::nullopt, {SourceKind::manual, "test", ""}, "");
}

std::vector<std::string> args_for(const std::string& dir, const std::string& op, const std::string& matrix) {
  return {"run", "--op", op, "--backend", "cuda", "--shape-ledger", dir + "/shape_ledger.jsonl", "--baseline-matrix",
          matrix, "--out", dir + "/out", "--max-time-ms", "5"};
}

TEST(CudaRunner, EveryCudaProviderOfTheShippedGemmMatrixIsCorrect) {
  if (!has_cuda()) GTEST_SKIP() << "no CUDA device";
  const std::string dir = fresh_dir("gpu_run_gemm");
  std::vector<ShapeRow> shapes;
  for (DType d : all_dtypes()) {
    shapes.push_back(row(ops::OpType::gemm, d, {{"m", 96}, {"n", 136}, {"k", 72}}));
    shapes.push_back(row(ops::OpType::gemm, d, {{"m", 1}, {"n", 4096}, {"k", 4096}}));
  }
  write_shape_ledger(dir + "/shape_ledger.jsonl", shapes);
  const auto r = run_caliber(
      args_for(dir, "gemm", std::string(CALIBER_SOURCE_DIR) + "/matrices/cuda/gemm/baseline_matrix.yaml"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto rows = read_benchmark_results(dir + "/out/benchmark_results.jsonl");
  EXPECT_EQ(rows.size(), shapes.size() * 5);
  for (const auto& x : rows) {
    EXPECT_NE(x.benchmark_status, BenchmarkStatus::incorrect) << x.provider << " " << x.dtype << " " << x.args.dump()
                                                              << ": " << x.correctness_error.value_or("");
    EXPECT_NE(x.benchmark_status, BenchmarkStatus::failed) << x.provider << ": " << x.status_reason.value_or("");
    if (x.benchmark_status == BenchmarkStatus::ok) {
      ASSERT_TRUE(x.kernel_only.has_value()) << x.timing_method.value_or("");
      EXPECT_EQ(x.kernel_only->contract.schedule, Schedule::graph);
      EXPECT_TRUE(x.graph_median_us.has_value());
      EXPECT_GT(*x.median_us, 0.0);
    }
  }
}

TEST(CudaRunner, AStickyDeviceErrorCostsOneRowNotTheRun) {
  if (!has_cuda()) GTEST_SKIP() << "no CUDA device";
  const std::string dir = fresh_dir("gpu_run_fault");
  const ShapeRow a = row(ops::OpType::rmsnorm, DType::bf16, {{"m", 64}, {"n", 4096}, {"eps", 1e-6}});
  const ShapeRow b = row(ops::OpType::rmsnorm, DType::fp32, {{"m", 3}, {"n", 1000}, {"eps", 1e-6}});
  write_shape_ledger(dir + "/shape_ledger.jsonl", {a, b});
  write_text(dir + "/baseline_matrix.yaml",
             "schema_version: 1\nkernel: rmsnorm\nop_type: rmsnorm\ndtype: [fp32, bf16]\nreference_provider: naive\n"
             "layout_contract: row_major\nproviders:\n"
             "  caliber: {enabled: true, entrypoint: \"builtin:caliber\", provider: caliber}\n"
             "  fault: {enabled: true, entrypoint: \"builtin:selftest_fault\", provider: caliber}\n"
             "  naive: {enabled: true, entrypoint: \"builtin:naive\", provider: caliber}\n");
  const auto r = run_caliber(args_for(dir, "rmsnorm", dir + "/baseline_matrix.yaml"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto rows = read_benchmark_results(dir + "/out/benchmark_results.jsonl");
  ASSERT_EQ(rows.size(), 6u) << r.err;
  std::map<std::string, BenchmarkStatus> st;
  for (const auto& x : rows) st[x.shape_id + "/" + x.provider] = x.benchmark_status;
  for (const ShapeRow& s : {a, b}) {
    EXPECT_EQ(st[s.shape_id + "/caliber"], BenchmarkStatus::ok);
    EXPECT_EQ(st[s.shape_id + "/fault"], BenchmarkStatus::failed);
    EXPECT_EQ(st[s.shape_id + "/naive"], BenchmarkStatus::ok);  // after the fault, in a fresh worker
  }
  const auto summary = nlohmann::json::parse(testing_support::slurp(dir + "/out/run_summary.json"));
  EXPECT_GE(summary["session"]["worker_starts"].get<int>(), 3) << summary.dump(2);
}

}  // namespace
}  // namespace caliber
