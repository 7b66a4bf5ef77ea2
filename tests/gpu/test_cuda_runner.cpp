// caliber run on a real device (ctest label gpu): the full pipeline with every cuda provider over
// small shapes, the preflight in the worker (the parent holds no context), and a sticky device
// error that must cost one row, not the run.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "caliber/backend.h"
#include "results/benchmark_results.h"
#include "fingerprint/code_fingerprint.h"
#include "caliber/run_identity.h"
#include "device/nvml_library.h"
#include "ledger/importers.h"
#include "support/cli_run.h"
#include "io/benchmark_results_json.h"
#include "io/shape_ledger_json.h"

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

// --allow-shared-device: when this test binary runs whole, earlier tests leave a CUDA context in
// this process, which the device_exclusive preflight would count as another process.
std::vector<std::string> args_for(const std::string& dir, const std::string& op, const std::string& matrix) {
  return {"run", "--op", op, "--backend", "cuda", "--shape-ledger", dir + "/shape_ledger.jsonl", "--baseline-matrix",
          matrix, "--out", dir + "/out", "--max-time-ms", "5", "--allow-shared-device"};
}

// Compute processes on any NVML device, this one included; nothing when NVML cannot say.
std::optional<std::size_t> processes_on_the_devices() {
  std::string why;
  auto nvml = NvmlLibrary::open(system_shared_libraries(), &why);
  if (!nvml) return std::nullopt;
  std::size_t n = 0;
  for (int i = 0; void* dev = nvml->device_by_index(i, &why); ++i) {
    std::vector<DeviceProcess> p;
    if (!nvml->compute_processes(dev, &p, &why)) return std::nullopt;
    n += p.size();
  }
  return n;
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
      args_for(dir, "gemm", testing_support::source_dir() + "/matrices/cuda/gemm/baseline_matrix.yaml"));
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
      // Telemetry (NVML) travels with every measured row.
      ASSERT_TRUE(x.telemetry.has_value());
      EXPECT_EQ((*x.telemetry)["available"], true) << x.telemetry->dump();
      // The inputs are on the device: so is their fp64 reference, and the check says so.
      const IntegrityCheck* judged = x.integrity.find(integrity_check::output_before_timing);
      ASSERT_NE(judged, nullptr);
      EXPECT_EQ(judged->detail.rfind("fp64 reference on the device, on ", 0), 0u) << judged->detail;
    }
  }
  // The code the run executed, per kernel (docs/screen.md): caliber's own kernels and cuBLAS's,
  // each found in a module CUPTI saw load, none unresolved.
  const CodeFingerprint f = read_code_fingerprint(dir + "/out/" + kCodeFingerprintFileName);
  EXPECT_EQ(f.source, "cuda cubin .text sections of the kernels that ran");
  EXPECT_GE(f.code.size(), 3u);
  EXPECT_TRUE(f.unresolved.empty()) << ::testing::PrintToString(f.unresolved);
  bool caliber_gemm = false;
  for (const auto& c : f.code) caliber_gemm = caliber_gemm || c.name.find("gemm") != std::string::npos;
  EXPECT_TRUE(caliber_gemm);
}

// The preflight of caliber run on the device (docs/preflight.md, "caliber run"): device_visible and
// device_exclusive run in the first worker, before it opens the device; the parent never
// initializes CUDA. So, on a free device, the exclusive check passes without
// --allow-shared-device and the identity's process list at start is empty: neither the parent
// nor the worker is on it. The identity is written with the device's clocks from NVML.
TEST(CudaRunner, ThePreflightRunsInTheWorkerAndTheParentHoldsNoContext) {
  if (!has_cuda()) GTEST_SKIP() << "no CUDA device";
  const auto before = processes_on_the_devices();
  if (!before) GTEST_SKIP() << "NVML cannot list the compute processes here";
  if (*before > 0) {
    GTEST_SKIP() << *before << " compute process(es) already on the device (this test binary, run whole, holds a "
                 << "context after earlier tests): run it alone, ctest -R ThePreflightRunsInTheWorker";
  }
  const std::string dir = fresh_dir("gpu_run_preflight");
  write_shape_ledger(dir + "/shape_ledger.jsonl", {row(ops::OpType::rmsnorm, DType::bf16, {{"m", 8}, {"n", 4096}, {"eps", 1e-6}})});
  std::vector<std::string> args =
      args_for(dir, "rmsnorm", testing_support::source_dir() + "/matrices/cuda/rmsnorm/baseline_matrix.yaml");
  args.pop_back();  // no --allow-shared-device
  const auto r = run_caliber(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.find("warning [preflight]"), std::string::npos) << r.err;
  const RunIdentity id = read_run_identity(dir + "/out/run_identity.json");
  EXPECT_EQ(id.device.backend, BackendKind::cuda);
  EXPECT_FALSE(id.device.uuid.empty());
  EXPECT_TRUE(id.device_processes_at_start.available) << id.device_processes_at_start.reason;
  EXPECT_EQ(id.device_processes_at_start.source, "nvml");
  EXPECT_TRUE(id.device_processes_at_start.processes.empty());
  EXPECT_TRUE(id.clocks_at_start.available) << id.clocks_at_start.reason;
  EXPECT_GT(id.clocks_at_start.sm_clock_mhz, 0);
  ASSERT_EQ(id.contracts.size(), 2u);
  EXPECT_EQ(id.contracts[0].contract.schedule, Schedule::graph);
  EXPECT_EQ(id.contracts[1].contract.schedule, Schedule::per_iter);
  // The same run compared with itself through its directory: one caliber, exit 0.
  const auto same = run_caliber({"compare", dir + "/out", dir + "/out"});
  EXPECT_EQ(same.exit_code, 0) << same.out << same.err;
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

// A failed kernel-only measurement by class (docs/runner.md, "When the kernel-only measurement
// fails"), each caused by a self-test provider that computes the op correctly and breaks only its
// graph capture: a refused capture keeps the eager number, marked and without kernel_only; a
// fault in the replays and a context broken by the attempt cost the cell and the worker; after
// the poisoned context its provider is denied capture, timed eagerly at the next shape; every
// other provider of both shapes ends ok with its kernel-only number.
TEST(CudaRunner, KernelOnlyFailuresAreClassifiedPerRow) {
  if (!has_cuda()) GTEST_SKIP() << "no CUDA device";
  const std::string dir = fresh_dir("gpu_run_capture_classes");
  const ShapeRow a = row(ops::OpType::rmsnorm, DType::bf16, {{"m", 64}, {"n", 4096}, {"eps", 1e-6}});
  const ShapeRow b = row(ops::OpType::rmsnorm, DType::fp32, {{"m", 3}, {"n", 1000}, {"eps", 1e-6}});
  write_shape_ledger(dir + "/shape_ledger.jsonl", {a, b});
  write_text(dir + "/baseline_matrix.yaml",
             "schema_version: 1\nkernel: rmsnorm\nop_type: rmsnorm\ndtype: [fp32, bf16]\nreference_provider: naive\n"
             "layout_contract: row_major\nproviders:\n"
             "  caliber: {enabled: true, entrypoint: \"builtin:caliber\", provider: caliber}\n"
             "  sync: {enabled: true, entrypoint: \"builtin:selftest_capture_sync\", provider: caliber}\n"
             "  replay: {enabled: true, entrypoint: \"builtin:selftest_replay_fault\", provider: caliber}\n"
             "  poison: {enabled: true, entrypoint: \"builtin:selftest_capture_poison\", provider: caliber}\n"
             "  naive: {enabled: true, entrypoint: \"builtin:naive\", provider: caliber}\n");
  const auto r = run_caliber(args_for(dir, "rmsnorm", dir + "/baseline_matrix.yaml"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto rows = read_benchmark_results(dir + "/out/benchmark_results.jsonl");
  ASSERT_EQ(rows.size(), 10u) << r.err;
  std::map<std::string, const BenchmarkResultRow*> by;
  for (const auto& x : rows) by[x.shape_id + "/" + x.provider] = &x;
  auto cell = [&](const ShapeRow& s, const char* p) -> const BenchmarkResultRow& {
    const auto it = by.find(s.shape_id + "/" + p);
    if (it == by.end()) throw std::runtime_error(std::string("no row for ") + p);
    return *it->second;
  };
  auto class_of = [](const BenchmarkResultRow& x) {
    return x.capture_failure ? std::string(to_string(x.capture_failure->kind)) : std::string("none");
  };
  for (const ShapeRow& s : {a, b}) {
    for (const char* p : {"caliber", "naive"}) {
      const BenchmarkResultRow& x = cell(s, p);
      EXPECT_EQ(x.benchmark_status, BenchmarkStatus::ok) << p << ": " << x.status_reason.value_or("");
      EXPECT_TRUE(x.kernel_only.has_value()) << p;
      EXPECT_FALSE(x.capture_failure.has_value()) << p << ": " << class_of(x);
    }
    const BenchmarkResultRow& sync = cell(s, "sync");
    EXPECT_EQ(sync.benchmark_status, BenchmarkStatus::ok) << sync.status_reason.value_or("");
    EXPECT_EQ(class_of(sync), "recoverable");
    EXPECT_FALSE(sync.kernel_only.has_value());
    ASSERT_TRUE(sync.median_us && sync.eager_median_us);
    EXPECT_EQ(*sync.median_us, *sync.eager_median_us);
    if (sync.capture_failure) {
      EXPECT_NE(sync.capture_failure->detail.find("cudaErrorStreamCapture"), std::string::npos)
          << sync.capture_failure->detail;
    }
    const BenchmarkResultRow& replay = cell(s, "replay");
    EXPECT_EQ(replay.benchmark_status, BenchmarkStatus::failed);
    EXPECT_EQ(class_of(replay), "fatal_device_fault") << replay.status_reason.value_or("");
    EXPECT_FALSE(replay.median_us.has_value());
  }
  const BenchmarkResultRow& poisoned = cell(a, "poison");
  EXPECT_EQ(poisoned.benchmark_status, BenchmarkStatus::failed);
  EXPECT_EQ(class_of(poisoned), "poisoned_context") << poisoned.status_reason.value_or("");
  EXPECT_FALSE(poisoned.median_us.has_value());
  const BenchmarkResultRow& denied = cell(b, "poison");
  EXPECT_EQ(denied.benchmark_status, BenchmarkStatus::ok) << denied.status_reason.value_or("");
  EXPECT_EQ(class_of(denied), "capture_denied");
  EXPECT_FALSE(denied.kernel_only.has_value());
  if (denied.capture_failure) {
    EXPECT_NE(denied.capture_failure->detail.find(a.shape_id), std::string::npos) << denied.capture_failure->detail;
  }
  EXPECT_NE(r.err.find("poison: capture denied"), std::string::npos) << r.err;
  // The replay fault twice and the poisoned context once each cost their worker.
  const auto summary = nlohmann::json::parse(testing_support::slurp(dir + "/out/run_summary.json"));
  EXPECT_GE(summary["session"]["worker_starts"].get<int>(), 4) << summary.dump(2);
}

// Configs recorded and replayed (docs/runner.md): cuBLASLt's heuristic algorithm is recorded per
// shape; a replay pins exactly that algorithm (cublasLtMatmulAlgoCheck passes), says so per row
// and names the recording run; a key from another cuBLASLt version fails its cell.
TEST(CudaRunner, CublasLtAlgorithmsAreRecordedAndReplayed) {
  if (!has_cuda()) GTEST_SKIP() << "no CUDA device";
  const std::string dir = fresh_dir("gpu_run_config_replay");
  write_shape_ledger(dir + "/shape_ledger.jsonl", {row(ops::OpType::gemm, DType::bf16, {{"m", 256}, {"n", 512}, {"k", 128}}),
                                                   row(ops::OpType::gemm, DType::fp16, {{"m", 1}, {"n", 4096}, {"k", 4096}})});
  write_text(dir + "/baseline_matrix.yaml",
             "schema_version: 1\nkernel: gemm\nop_type: gemm\ndtype: [bf16, fp16]\nreference_provider: cublas\n"
             "layout_contract: row_major\nproviders:\n"
             "  cublas: {enabled: true, entrypoint: \"builtin:cublas\", provider: cublas}\n"
             "  cublaslt: {enabled: true, entrypoint: \"builtin:cublaslt\", provider: cublaslt}\n");
  auto args = [&](const std::string& out, std::vector<std::string> extra) {
    std::vector<std::string> a = args_for(dir, "gemm", dir + "/baseline_matrix.yaml");
    for (auto& x : a) {
      if (x == dir + "/out") x = out;
    }
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  };
  const auto rec = run_caliber(args(dir + "/rec", {}));
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  std::map<std::string, BenchmarkResultRow> recorded;
  for (auto& x : read_benchmark_results(dir + "/rec/benchmark_results.jsonl")) {
    if (x.provider != "cublaslt") {
      EXPECT_FALSE(x.config.has_value()) << x.provider;
      continue;
    }
    ASSERT_EQ(x.benchmark_status, BenchmarkStatus::ok) << x.status_reason.value_or("");
    ASSERT_TRUE(x.config.has_value());
    EXPECT_EQ(x.config->pinning, ConfigPinning::recorded);
    EXPECT_EQ(x.config->key.rfind("cublasLt ", 0), 0u) << x.config->key;
    EXPECT_NE(x.config->description.find("algo id "), std::string::npos) << x.config->description;
    recorded.emplace(x.shape_id, x);
  }
  ASSERT_EQ(recorded.size(), 2u);
  const auto rep = run_caliber(args(dir + "/rep", {"--replay-configs", dir + "/rec"}));
  ASSERT_EQ(rep.exit_code, 0) << rep.err;
  int replayed = 0;
  for (const auto& x : read_benchmark_results(dir + "/rep/benchmark_results.jsonl")) {
    if (x.provider != "cublaslt") continue;
    const BenchmarkResultRow& was = recorded.at(x.shape_id);
    EXPECT_EQ(x.benchmark_status, BenchmarkStatus::ok) << x.status_reason.value_or("");
    ASSERT_TRUE(x.config.has_value());
    EXPECT_EQ(x.config->pinning, ConfigPinning::replayed);
    EXPECT_EQ(x.config->key, was.config->key);
    EXPECT_EQ(x.config->source, was.run_id);
    EXPECT_NE(x.provider_detail.find("replayed"), std::string::npos) << x.provider_detail;
    ++replayed;
  }
  EXPECT_EQ(replayed, 2);
  // The calls per graph are replayed too (--graph-calls auto would choose them from this run's eager
  // medians): a source that says 3 for every cell gives every kernel-only contract 3.
  std::string three;
  for (auto& x : read_benchmark_results(dir + "/rec/benchmark_results.jsonl")) {
    if (x.kernel_only) x.kernel_only->contract.graph_calls = 3;
    three += to_json(x).dump() + "\n";
  }
  std::filesystem::create_directories(dir + "/three");
  write_text(dir + "/three/benchmark_results.jsonl", three);
  const auto calls = run_caliber(args(dir + "/calls", {"--replay-configs", dir + "/three"}));
  ASSERT_EQ(calls.exit_code, 0) << calls.err;
  int pinned_calls = 0;
  for (const auto& x : read_benchmark_results(dir + "/calls/benchmark_results.jsonl")) {
    ASSERT_TRUE(x.kernel_only.has_value()) << x.provider;
    EXPECT_EQ(x.kernel_only->contract.graph_calls, 3) << x.provider << " " << x.shape_id;
    ++pinned_calls;
  }
  EXPECT_EQ(pinned_calls, 4);
  // A key of another library version: the cell fails, nothing is measured with another algorithm.
  std::string edited;
  for (auto& x : read_benchmark_results(dir + "/rec/benchmark_results.jsonl")) {
    if (x.config) x.config->key = "cublasLt 1" + x.config->key.substr(x.config->key.find(" algo "));
    edited += to_json(x).dump() + "\n";
  }
  std::filesystem::create_directories(dir + "/old");
  write_text(dir + "/old/benchmark_results.jsonl", edited);
  const auto old = run_caliber(args(dir + "/bad", {"--replay-configs", dir + "/old"}));
  ASSERT_EQ(old.exit_code, 0) << old.err;
  for (const auto& x : read_benchmark_results(dir + "/bad/benchmark_results.jsonl")) {
    if (x.provider != "cublaslt") continue;
    EXPECT_EQ(x.benchmark_status, BenchmarkStatus::failed);
    EXPECT_NE(x.status_reason.value_or("").find("was not recorded by this cuBLASLt"), std::string::npos)
        << x.status_reason.value_or("");
  }
}

// cuBLAS is loaded by the first code that uses it (src/backends/cuda/cublas_library.h), not linked:
// where it cannot be loaded, its providers are not_configured with the loader's reason and the
// other providers of the matrix run as before.
TEST(CudaRunner, WithoutCublasItsProvidersAreNotConfiguredAndTheOthersRun) {
  if (!has_cuda()) GTEST_SKIP() << "no CUDA device";
  const std::string dir = fresh_dir("gpu_run_no_cublas");
  write_shape_ledger(dir + "/shape_ledger.jsonl", {row(ops::OpType::gemm, DType::bf16, {{"m", 64}, {"n", 128}, {"k", 96}})});
  ::setenv("CALIBER_CUBLAS_LIBRARY", "/nonexistent/libcublas.so.13", 1);
  const auto r = run_caliber(
      args_for(dir, "gemm", testing_support::source_dir() + "/matrices/cuda/gemm/baseline_matrix.yaml"));
  ::unsetenv("CALIBER_CUBLAS_LIBRARY");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::size_t without = 0, ran = 0;
  for (const auto& x : read_benchmark_results(dir + "/out/benchmark_results.jsonl")) {
    if (x.provider == "cublas" || x.provider == "cublaslt") {
      ++without;
      EXPECT_EQ(x.benchmark_status, BenchmarkStatus::not_configured) << x.provider;
      EXPECT_NE(x.status_reason.value_or("").find("cuBLAS could not be loaded: /nonexistent/libcublas.so.13"),
                std::string::npos)
          << x.status_reason.value_or("");
    } else if (x.benchmark_status == BenchmarkStatus::ok) {
      ++ran;
    }
  }
  EXPECT_EQ(without, 2u);
  EXPECT_GE(ran, 1u);  // caliber's own gemm at least
}

}  // namespace
}  // namespace caliber
