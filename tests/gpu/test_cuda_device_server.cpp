// The device server on a real device (ctest label gpu; runner/device_server.h, docs/batch.md "One
// process per device"): one process serves a gemm run and an rmsnorm run on the device it opened
// once, each run's code fingerprint holding only the kernels that run executed (resolved: the
// modules loaded while the server served the earlier run stay known); a sticky device error in a
// served run costs one row and ends the server, and the run goes on with a worker of its own.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "caliber/backend.h"
#include "results/benchmark_results.h"
#include "fingerprint/code_fingerprint.h"
#include "ledger/importers.h"
#include "support/cli_run.h"
#include "support/device_server_process.h"
#include "io/benchmark_results_json.h"
#include "io/shape_ledger_json.h"

namespace caliber {
namespace {

using testing_support::DeviceServerProcess;
using testing_support::run_caliber;
using testing_support::slurp;
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

// --allow-shared-device: earlier tests of this binary leave a CUDA context in the test process.
std::vector<std::string> served_run(const std::string& dir, const std::string& op, const std::string& socket) {
  return {"run", "--op", op, "--backend", "cuda", "--shape-ledger", dir + "/" + op + ".jsonl", "--baseline-matrix",
          dir + "/" + op + ".yaml", "--out", dir + "/" + op, "--max-time-ms", "5", "--allow-shared-device",
          "--device-server", socket};
}

std::string matrix(const std::string& op, const std::string& providers) {
  return "schema_version: 1\nkernel: " + op + "\nop_type: " + op +
         "\ndtype: [fp32, bf16]\nreference_provider: naive\nlayout_contract: row_major\nproviders:\n"
         "  naive: {enabled: true, entrypoint: \"builtin:naive\", provider: caliber}\n" +
         providers;
}

nlohmann::json session(const std::string& out) { return nlohmann::json::parse(slurp(out + "/run_summary.json"))["session"]; }

TEST(CudaDeviceServer, ServesTwoOpsEachFingerprintedWithItsOwnKernels) {
  if (!has_cuda()) GTEST_SKIP() << "no CUDA device";
  DeviceServerProcess server("gpu_device_server", "cuda");
  const std::string dir = server.dir;
  write_shape_ledger(dir + "/gemm.jsonl", {row(ops::OpType::gemm, DType::bf16, {{"m", 96}, {"n", 136}, {"k", 72}})});
  write_text(dir + "/gemm.yaml",
             matrix("gemm", "  caliber: {enabled: true, entrypoint: \"builtin:caliber\", provider: caliber}\n"));
  write_shape_ledger(dir + "/rmsnorm.jsonl",
                     {row(ops::OpType::rmsnorm, DType::bf16, {{"m", 64}, {"n", 4096}, {"eps", 1e-6}})});
  write_text(dir + "/rmsnorm.yaml",
             matrix("rmsnorm", "  caliber: {enabled: true, entrypoint: \"builtin:caliber\", provider: caliber}\n"));
  for (const std::string op : {"gemm", "rmsnorm"}) {
    const auto r = run_caliber(served_run(dir, op, server.socket));
    ASSERT_EQ(r.exit_code, 0) << r.err << server.log();
    const auto rows = read_benchmark_results(dir + "/" + op + "/benchmark_results.jsonl");
    ASSERT_EQ(rows.size(), 2u);
    for (const auto& x : rows) {
      EXPECT_EQ(x.benchmark_status, BenchmarkStatus::ok) << op << " " << x.provider << ": " << x.status_reason.value_or("");
      EXPECT_TRUE(x.kernel_only.has_value()) << op << " " << x.provider;
    }
    EXPECT_EQ(session(dir + "/" + op)["device_server_runs"], 1) << r.err;
    EXPECT_EQ(session(dir + "/" + op)["worker_starts"], 1) << r.err;
    const CodeFingerprint f = read_code_fingerprint(dir + "/" + op + "/" + kCodeFingerprintFileName);
    EXPECT_TRUE(f.unresolved.empty()) << op << ": " << ::testing::PrintToString(f.unresolved);
    // caliber's kernels: gemm_* for gemm, norm_* for rmsnorm (src/providers/cuda).
    const std::string mine = op == "gemm" ? "gemm" : "norm", theirs = op == "gemm" ? "norm" : "gemm";
    bool own = false, other = false;
    for (const auto& c : f.code) {
      own = own || c.name.find(mine) != std::string::npos;
      other = other || c.name.find(theirs) != std::string::npos;
    }
    EXPECT_TRUE(own) << op << ": " << ::testing::PrintToString(f.code.size());
    EXPECT_FALSE(other) << op << ": the fingerprint holds the other run's kernels";
  }
  EXPECT_TRUE(server.running()) << server.log();
  EXPECT_NE(server.log().find("run 2 done (exit code 0)"), std::string::npos) << server.log();
}

TEST(CudaDeviceServer, AStickyDeviceErrorInAServedRunEndsTheServerAndCostsOneRow) {
  if (!has_cuda()) GTEST_SKIP() << "no CUDA device";
  DeviceServerProcess server("gpu_device_server_fault", "cuda");
  const std::string dir = server.dir;
  const ShapeRow a = row(ops::OpType::rmsnorm, DType::bf16, {{"m", 64}, {"n", 4096}, {"eps", 1e-6}});
  const ShapeRow b = row(ops::OpType::rmsnorm, DType::fp32, {{"m", 3}, {"n", 1000}, {"eps", 1e-6}});
  write_shape_ledger(dir + "/rmsnorm.jsonl", {a, b});
  write_text(dir + "/rmsnorm.yaml",
             matrix("rmsnorm", "  fault: {enabled: true, entrypoint: \"builtin:selftest_fault\", provider: caliber}\n"));
  const auto r = run_caliber(served_run(dir, "rmsnorm", server.socket));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto rows = read_benchmark_results(dir + "/rmsnorm/benchmark_results.jsonl");
  ASSERT_EQ(rows.size(), 4u) << r.err;
  for (const auto& x : rows) {
    EXPECT_EQ(x.benchmark_status, x.provider == "fault" ? BenchmarkStatus::failed : BenchmarkStatus::ok)
        << x.provider << ": " << x.status_reason.value_or("");
  }
  EXPECT_EQ(session(dir + "/rmsnorm")["device_server_runs"], 1);
  EXPECT_GE(session(dir + "/rmsnorm")["worker_starts"].get<int>(), 2);
  EXPECT_TRUE(server.exits_within(10)) << server.log();
}

}  // namespace
}  // namespace caliber
