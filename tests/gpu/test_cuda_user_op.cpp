// An op of your own on a real device (ctest label gpu; docs/user-ops.md): the example op
// add_rmsnorm's cuda providers (examples/user_op) through caliber run, checked against the host
// reference in fp64, every output; providers that skip an output or launch on a stream of their
// own are caught; the example's reference on the device agrees with the host's; an op updated in
// place (sgd_momentum) verified from its original values.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>

#include "results/benchmark_results.h"
#include "support/cli_run.h"
#include "support/cuda_device.h"
#include "io/benchmark_results_json.h"

namespace caliber {
namespace {

using testing_support::fresh_dir;
using testing_support::staged;
using testing_support::run_caliber;
using testing_support::write_text;

TEST(CudaUserOp, TheExampleOpsCudaProvidersAreCorrectAndTheCheatersAreCaught) {
  if (!testing_support::has_cuda_device()) GTEST_SKIP() << "no CUDA device";
  const std::string dir = fresh_dir("gpu_user_op");
  const std::string description = testing_support::source_dir() + "/examples/user_op/add_rmsnorm.op.yaml";
  const auto ledger = run_caliber({"ledger", "manual", "--op", "add_rmsnorm", "--op-description", description,
                                   "--ledger", dir + "/ledger.jsonl", "--shape", "m=64,n=1000,eps=1e-6", "--shape",
                                   "m=4096,n=4096,eps=1e-6", "--dtype", "fp32,bf16,fp16"});
  ASSERT_EQ(ledger.exit_code, 0) << ledger.err;
  const std::string example = staged("libcaliber_add_rmsnorm_cuda.so",
                                     std::string(CALIBER_PLUGIN_BUILD_DIR) + "/libcaliber_add_rmsnorm_cuda.so");
  const std::string cheats = staged("libcaliber_test_cuda_user_op_plugins.so", CALIBER_TEST_CUDA_USER_OP_PLUGIN);
  const auto entry = [](const std::string& name, const std::string& lib, const std::string& symbol) {
    return "  " + name + ": {enabled: true, entrypoint: \"" + lib + ":" + symbol + "\", provider: plugin}\n";
  };
  write_text(dir + "/matrix.yaml",
             "schema_version: 1\nkernel: add_rmsnorm\nop_type: add_rmsnorm\nop_description: " + description +
                 "\ndtype: [fp32, bf16, fp16]\nreference_provider: two_kernels\nlayout_contract: row_major\n"
                 "providers:\n" +
                 entry("two_kernels", example, "add_rmsnorm_cuda_two_kernels") +
                 entry("fused", example, "add_rmsnorm_cuda_fused") +
                 entry("skips_h", cheats, "add_rmsnorm_cuda_test_skips_h") +
                 entry("side_stream", cheats, "add_rmsnorm_cuda_test_side_stream"));
  const auto r = run_caliber({"run", "--op", "add_rmsnorm", "--backend", "cuda", "--shape-ledger",
                              dir + "/ledger.jsonl", "--baseline-matrix", dir + "/matrix.yaml", "--out", dir + "/out",
                              "--max-time-ms", "5", "--allow-shared-device"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto rows = read_benchmark_results(dir + "/out/benchmark_results.jsonl");
  ASSERT_EQ(rows.size(), 6u * 4u);
  std::map<std::string, int> ok;
  for (const auto& x : rows) {
    const std::string what = x.provider + " " + x.dtype + " " + x.args.dump() + ": " + x.status_reason.value_or("");
    if (x.provider == "two_kernels" || x.provider == "fused") {
      EXPECT_EQ(x.benchmark_status, BenchmarkStatus::ok) << what;
      ok[x.provider] += x.benchmark_status == BenchmarkStatus::ok;
      if (x.benchmark_status != BenchmarkStatus::ok) continue;
      ASSERT_TRUE(x.kernel_only.has_value()) << what;
      EXPECT_EQ(x.kernel_only->contract.schedule, Schedule::graph) << what;
      EXPECT_GT(*x.median_us, 0.0);
      const IntegrityCheck* before = x.integrity.find(integrity_check::output_before_timing);
      ASSERT_NE(before, nullptr);
      EXPECT_NE(before->detail.find("add_rmsnorm_reference in fp64"), std::string::npos) << before->detail;
      const IntegrityCheck* stream = x.integrity.find(integrity_check::work_on_stream);
      ASSERT_NE(stream, nullptr) << what;
      EXPECT_EQ(stream->outcome, CheckOutcome::passed) << stream->detail;
    } else if (x.provider == "skips_h") {
      if (x.dtype != "fp32") continue;  // it runs fp32 only (its run() fails otherwise)
      EXPECT_EQ(x.benchmark_status, BenchmarkStatus::incorrect) << what;
    } else {
      EXPECT_NE(x.benchmark_status, BenchmarkStatus::ok) << what;
      const bool refused = std::any_of(x.integrity.checks.begin(), x.integrity.checks.end(), [](const IntegrityCheck& c) {
        return c.name == integrity_check::work_on_stream && c.outcome == CheckOutcome::failed;
      });
      EXPECT_TRUE(refused) << what;
    }
  }
  EXPECT_EQ(ok["two_kernels"], 6);
  EXPECT_EQ(ok["fused"], 6);
}

// The example op's reference on the device (examples/user_op/add_rmsnorm_device_reference.op.yaml,
// a cuda entry computing in fp64): every cell ok, the check saying where its reference ran, and the
// same correctness numbers as the host reference's over the same inputs.
TEST(CudaUserOp, ADeviceReferenceChecksLikeTheHostReference) {
  if (!testing_support::has_cuda_device()) GTEST_SKIP() << "no CUDA device";
  const std::string dir = fresh_dir("gpu_user_op_device_reference");
  const std::string example = staged("libcaliber_add_rmsnorm_cuda.so",
                                     std::string(CALIBER_PLUGIN_BUILD_DIR) + "/libcaliber_add_rmsnorm_cuda.so");
  std::map<std::string, std::map<std::string, CorrectnessCheck>> by_reference;  // reference -> cell -> numbers
  for (const std::string reference : {"host", "device"}) {
    const std::string description = testing_support::source_dir() + "/examples/user_op/" +
                                    (reference == "host" ? "add_rmsnorm.op.yaml" : "add_rmsnorm_device_reference.op.yaml");
    const std::string run_dir = dir + "/" + reference;
    std::filesystem::create_directories(run_dir);
    const auto ledger = run_caliber({"ledger", "manual", "--op", "add_rmsnorm", "--op-description", description,
                                     "--ledger", run_dir + "/ledger.jsonl", "--shape", "m=64,n=1000,eps=1e-6",
                                     "--shape", "m=4096,n=8192,eps=1e-6", "--dtype", "fp32,bf16"});
    ASSERT_EQ(ledger.exit_code, 0) << ledger.err;
    write_text(run_dir + "/matrix.yaml",
               "schema_version: 1\nkernel: add_rmsnorm\nop_type: add_rmsnorm\nop_description: " + description +
                   "\ndtype: [fp32, bf16]\nreference_provider: two_kernels\nlayout_contract: row_major\nproviders:\n"
                   "  two_kernels: {enabled: true, entrypoint: \"" + example + ":add_rmsnorm_cuda_two_kernels\", "
                   "provider: plugin}\n  fused: {enabled: true, entrypoint: \"" + example +
                   ":add_rmsnorm_cuda_fused\", provider: plugin}\n");
    const auto r = run_caliber({"run", "--op", "add_rmsnorm", "--backend", "cuda", "--shape-ledger",
                                run_dir + "/ledger.jsonl", "--baseline-matrix", run_dir + "/matrix.yaml", "--out",
                                run_dir + "/out", "--max-time-ms", "5", "--allow-shared-device",
                                "--verification-seed", "00c0ffee00c0ffee",  // both runs check the same rows
                                "--seed", "7"});  // of the same input values (drawn per run unless pinned)
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto rows = read_benchmark_results(run_dir + "/out/benchmark_results.jsonl");
    ASSERT_EQ(rows.size(), 2u * 2u * 2u);
    for (const auto& x : rows) {
      const std::string cell = x.provider + " " + x.dtype + " " + x.args.dump();
      ASSERT_EQ(x.benchmark_status, BenchmarkStatus::ok) << reference << " " << cell << ": "
                                                         << x.status_reason.value_or("");
      const IntegrityCheck* before = x.integrity.find(integrity_check::output_before_timing);
      ASSERT_NE(before, nullptr);
      const std::string where = reference == "host" ? "add_rmsnorm_reference in fp64 on the host"
                                                    : "add_rmsnorm_cuda_reference in fp64 on the device";
      EXPECT_NE(before->detail.find(where), std::string::npos) << before->detail;
      ASSERT_TRUE(x.correctness.has_value()) << cell;
      by_reference[reference][cell] = *x.correctness;
    }
  }
  ASSERT_EQ(by_reference["device"].size(), by_reference["host"].size());
  for (const auto& [cell, device] : by_reference["device"]) {
    const CorrectnessCheck& host = by_reference["host"].at(cell);
    // fp64 on either side, summed in another order: the errors of a bf16 or fp32 output against
    // them agree far below any tolerance (on the H200, scripts/device/user_op.sh: within 2.3e-8
    // relative for fp32 outputs, whose error against fp64 is about 5e-8).
    EXPECT_NEAR(device.rel_fro_error, host.rel_fro_error, 1e-5 * host.rel_fro_error + 1e-15) << cell;
    EXPECT_NEAR(device.max_scaled_error, host.max_scaled_error, 1e-5 * host.max_scaled_error + 1e-12) << cell;
    EXPECT_EQ(device.checked_rows, host.checked_rows) << cell;
    EXPECT_GT(device.rel_fro_error, 0.0) << cell;  // the outputs are rounded: a zero error would mean no check
  }
}

// An op updated in place on the device: param and momentum are the outputs' buffers; each verified
// call starts from their original values (a device-to-device restore) and a provider that stops
// updating after its first call is caught.
TEST(CudaUserOp, AnOpUpdatedInPlaceIsVerifiedFromItsOriginalValues) {
  if (!testing_support::has_cuda_device()) GTEST_SKIP() << "no CUDA device";
  const std::string dir = fresh_dir("gpu_user_op_in_place");
  const std::string description = testing_support::source_dir() + "/examples/user_op/sgd_momentum.op.yaml";
  const auto ledger = run_caliber({"ledger", "manual", "--op", "sgd_momentum", "--op-description", description,
                                   "--ledger", dir + "/ledger.jsonl", "--shape", "n=1000,lr=0.01,beta=0.9",
                                   "--shape", "n=16777216,lr=0.01,beta=0.9", "--dtype", "fp32,bf16"});
  ASSERT_EQ(ledger.exit_code, 0) << ledger.err;
  const std::string example = staged("libcaliber_sgd_momentum_cuda.so",
                                     std::string(CALIBER_PLUGIN_BUILD_DIR) + "/libcaliber_sgd_momentum_cuda.so");
  const std::string cheats = staged("libcaliber_test_cuda_inplace_op_plugins.so", CALIBER_TEST_CUDA_INPLACE_OP_PLUGIN);
  const auto entry = [](const std::string& name, const std::string& lib, const std::string& symbol) {
    return "  " + name + ": {enabled: true, entrypoint: \"" + lib + ":" + symbol + "\", provider: plugin}\n";
  };
  write_text(dir + "/matrix.yaml",
             "schema_version: 1\nkernel: sgd_momentum\nop_type: sgd_momentum\nop_description: " + description +
                 "\ndtype: [fp32, bf16]\nreference_provider: two_kernels\nlayout_contract: row_major\n"
                 "providers:\n" +
                 entry("two_kernels", example, "sgd_momentum_cuda_two_kernels") +
                 entry("fused", example, "sgd_momentum_cuda_fused") +
                 entry("lazy", cheats, "sgd_momentum_cuda_test_lazy"));
  const auto r = run_caliber({"run", "--op", "sgd_momentum", "--backend", "cuda", "--shape-ledger",
                              dir + "/ledger.jsonl", "--baseline-matrix", dir + "/matrix.yaml", "--out", dir + "/out",
                              "--max-time-ms", "5", "--allow-shared-device"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto rows = read_benchmark_results(dir + "/out/benchmark_results.jsonl");
  ASSERT_EQ(rows.size(), 4u * 3u);
  std::map<std::string, int> ok;
  for (const auto& x : rows) {
    const std::string what = x.provider + " " + x.dtype + " " + x.args.dump() + ": " + x.status_reason.value_or("");
    if (x.provider == "lazy") {
      EXPECT_NE(x.benchmark_status, BenchmarkStatus::ok) << what;
      continue;
    }
    EXPECT_EQ(x.benchmark_status, BenchmarkStatus::ok) << what;
    ok[x.provider] += x.benchmark_status == BenchmarkStatus::ok;
    if (x.benchmark_status != BenchmarkStatus::ok) continue;
    EXPECT_EQ(x.kernel_only->contract.schedule, Schedule::graph) << what;
    EXPECT_EQ(x.kernel_only->contract.graph_calls, 1) << what;  // verified one update at a time
    const IntegrityCheck* after = x.integrity.find(integrity_check::output_after_timing);
    ASSERT_NE(after, nullptr) << what;
    EXPECT_EQ(after->outcome, CheckOutcome::passed) << after->detail;
    EXPECT_NE(after->detail.find("sgd_momentum_reference in fp64"), std::string::npos) << after->detail;
  }
  EXPECT_EQ(ok["two_kernels"], 4);
  EXPECT_EQ(ok["fused"], 4);
}

}  // namespace
}  // namespace caliber
