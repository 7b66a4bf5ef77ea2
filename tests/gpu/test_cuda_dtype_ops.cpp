// Ops whose tensors have dtypes of their own on a real device (ctest label gpu; docs/user-ops.md,
// "Tensor dtypes"): the examples row_topk, row_argmax and quantize_fp8 with their cuda provider
// (examples/user_op/selection_ops_cuda.cu) against the host reference, ok and verified, their
// inputs (ties, special values) drawn on the device; an argmax wrong only under ties and a
// quantization wrong only on NaN inputs incorrect.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <map>

#include "io/benchmark_results_json.h"
#include "results/benchmark_results.h"
#include "support/cli_run.h"
#include "support/cuda_device.h"

namespace caliber {
namespace {

using testing_support::fresh_dir;
using testing_support::staged;
using testing_support::run_caliber;
using testing_support::write_text;

std::string entry(const std::string& name, const std::string& lib, const std::string& symbol) {
  return "  " + name + ": {enabled: true, entrypoint: \"" + lib + ":" + symbol + "\", provider: plugin}\n";
}

// Runs `op` on the cuda backend with the example's provider and, when given, a wrong one; returns
// the rows.
std::vector<BenchmarkResultRow> run_on_device(const std::string& op, const std::vector<std::string>& axes,
                                              const std::string& wrong) {
  const std::string dir = fresh_dir("gpu_dtype_" + op);
  const std::string description = testing_support::source_dir() + "/examples/user_op/" + op + ".op.yaml";
  std::vector<std::string> ledger = {"ledger", "manual", "--op", op, "--op-description", description, "--ledger",
                                     dir + "/ledger.jsonl", "--dtype", "fp32,bf16"};
  for (const std::string& a : axes) ledger.insert(ledger.end(), {"--axis", a});
  const auto l = run_caliber(ledger);
  EXPECT_EQ(l.exit_code, 0) << l.err;
  const std::string example =
      staged("libcaliber_selection_ops_cuda.so", std::string(CALIBER_PLUGIN_BUILD_DIR) + "/libcaliber_selection_ops_cuda.so");
  const std::string tests = staged("libcaliber_test_cuda_selection_plugins.so", CALIBER_TEST_CUDA_SELECTION_PLUGIN);
  write_text(dir + "/matrix.yaml", "schema_version: 1\nkernel: " + op + "\nop_type: " + op + "\nop_description: " +
                                       description + "\ndtype: [fp32, bf16]\nreference_provider: cuda\n"
                                       "layout_contract: row_major\nproviders:\n" +
                                       entry("cuda", example, "selection_cuda") +
                                       (wrong.empty() ? "" : entry("wrong", tests, wrong)));
  const auto r = run_caliber({"run", "--op", op, "--backend", "cuda", "--shape-ledger", dir + "/ledger.jsonl",
                              "--baseline-matrix", dir + "/matrix.yaml", "--out", dir + "/out", "--max-time-ms", "5",
                              "--allow-shared-device"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return read_benchmark_results(dir + "/out/benchmark_results.jsonl");
}

void expect_rows(const std::vector<BenchmarkResultRow>& rows, std::size_t example_rows, std::size_t wrong_rows) {
  std::map<std::string, std::size_t> count;
  for (const BenchmarkResultRow& x : rows) {
    const std::string what = x.provider + " " + x.dtype + " " + x.args.dump() + ": " + x.status_reason.value_or("");
    if (x.provider == "cuda") {
      EXPECT_EQ(x.benchmark_status, BenchmarkStatus::ok) << what;
      EXPECT_EQ(x.integrity.verdict(), IntegrityVerdict::verified) << what;
    } else if (x.benchmark_status != BenchmarkStatus::unsupported) {
      EXPECT_EQ(x.benchmark_status, BenchmarkStatus::incorrect) << what;
    }
    count[x.provider + (x.benchmark_status == BenchmarkStatus::unsupported ? " unsupported" : "")] += 1;
  }
  EXPECT_EQ(count["cuda"], example_rows);
  EXPECT_EQ(count["wrong"], wrong_rows);
}

TEST(CudaDtypeOps, TopKOnTheDeviceIsVerified) {
  if (!testing_support::has_cuda_device()) GTEST_SKIP() << "no CUDA device";
  expect_rows(run_on_device("row_topk", {"m=64,4096", "n=1024", "k=8"}, ""), 4, 0);
}

TEST(CudaDtypeOps, AnArgmaxWrongOnlyUnderTiesIsIncorrect) {
  if (!testing_support::has_cuda_device()) GTEST_SKIP() << "no CUDA device";
  expect_rows(run_on_device("row_argmax", {"m=64,4096", "n=1024"}, "selection_cuda_last_max"), 4, 2);
}

TEST(CudaDtypeOps, AQuantizationWhoseAmaxSkipsNaNIsIncorrect) {
  if (!testing_support::has_cuda_device()) GTEST_SKIP() << "no CUDA device";
  expect_rows(run_on_device("quantize_fp8", {"m=64,4096", "n=4096"}, "selection_cuda_fmax"), 4, 2);
}

}  // namespace
}  // namespace caliber
