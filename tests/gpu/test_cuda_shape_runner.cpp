// The shape runner on a real device (ctest label gpu): the untimed calls of a shape's providers
// share one CUPTI trace, detached once before anything of the shape is timed (docs/runner.md,
// "The untimed calls of a shape"), and consecutive shapes share one.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "backends/cuda/cupti_session.h"
#include "caliber/backend.h"
#include "results/benchmark_results.h"
#include "ledger/importers.h"
#include "runner/shape_runner.h"
#include "support/cli_run.h"
#include "support/cuda_device.h"
#include "io/shape_ledger_json.h"

namespace caliber {
namespace {

TEST(CudaShapeRunner, AShapesUntimedCallsDetachCuptiOnceAndItsMeasurementsRunUntraced) {
  if (!testing_support::has_cuda_device()) GTEST_SKIP() << "no CUDA device";
  if (auto why = cuda::cupti::unavailable_reason()) GTEST_SKIP() << "CUPTI is not available: " << *why;
  const std::string dir = testing_support::fresh_dir("gpu_shape_runner");
  ledger::RowTemplate t;
  t.op = ops::OpType::rmsnorm;
  const ShapeRow shape = ledger::make_row(t, DType::bf16, {{"m", 256}, {"n", 4096}, {"eps", 1e-6}}, Stage::mixed,
                                          std::nullopt, {SourceKind::manual, "test", ""}, "");
  write_shape_ledger(dir + "/shape_ledger.jsonl", {shape});
  runner::RunOptions options;
  options.op = "rmsnorm";
  options.shape_ledger = dir + "/shape_ledger.jsonl";
  options.baseline_matrix = testing_support::source_dir() + "/matrices/cuda/rmsnorm/baseline_matrix.yaml";
  options.out = dir + "/out";
  options.backend = "cuda";
  options.max_time_ms = 5;
  options.verification_seed = 0x5eed;
  options.run_id = "gpu-shape-runner";
  const runner::RunPlan plan = runner::make_run_plan(options);
  ASSERT_EQ(plan.shapes.size(), 1u);
  std::unique_ptr<Backend> backend = open_backend(BackendKind::cuda, 0);
  std::vector<runner::BoundProvider> providers = runner::bind_providers(plan, BackendKind::cuda);
  std::vector<std::string> names;
  std::size_t measurable = 0;
  for (const auto& p : providers) {
    names.push_back(p.entry->name);
    measurable += !p.not_configured;
  }
  ASSERT_GE(measurable, 2u) << "the shipped rmsnorm matrix has at least two cuda providers";
  runner::RowProvenance identity;
  identity.run_id = options.run_id;
  identity.device = backend->device();
  runner::ShapeRunner shape_runner(*backend, plan, runner::make_run_contracts(options, BackendKind::cuda), options,
                                   identity, providers);
  std::vector<BenchmarkResultRow> rows;
  runner::ShapeEvents ev;
  ev.finished = [&](const BenchmarkResultRow& row) { rows.push_back(row); };
  const std::uint64_t detaches = cuda::cupti::detach_count();
  ASSERT_TRUE(shape_runner.run(plan.shapes[0], names, ev));
  // One detach for the whole shape: the untimed calls shared a trace, no measurement took one.
  EXPECT_EQ(cuda::cupti::detach_count() - detaches, 1u);
  ASSERT_EQ(rows.size(), providers.size());
  std::size_t ok = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const BenchmarkResultRow& r = rows[i];
    EXPECT_EQ(r.provider, providers[i].entry->name);  // matrix order
    if (providers[i].not_configured) continue;
    EXPECT_EQ(r.benchmark_status, BenchmarkStatus::ok) << r.provider << ": " << r.status_reason.value_or("");
    if (r.benchmark_status != BenchmarkStatus::ok) continue;
    ++ok;
    const IntegrityCheck* on_stream = r.integrity.find(integrity_check::work_on_stream);
    ASSERT_NE(on_stream, nullptr) << r.provider;
    EXPECT_EQ(on_stream->outcome, CheckOutcome::passed) << r.provider << ": " << on_stream->detail;
    ASSERT_TRUE(r.eager.has_value());
    ASSERT_TRUE(r.kernel_only.has_value());
    EXPECT_FALSE(r.eager->instrument.kernel_tracing) << r.provider;
    EXPECT_FALSE(r.kernel_only->instrument.kernel_tracing) << r.provider;
  }
  EXPECT_EQ(ok, measurable);
}

// Three gemm shapes in one batch: their untimed calls share one trace (one detach for all), the
// cuBLAS providers are prepared again for each shape before it is timed and choose what they ran,
// every row is ok and untraced, shape after shape (docs/runner.md, "Several shapes share the trace").
TEST(CudaShapeRunner, ConsecutiveShapesShareOneTraceAndTheirProvidersArePreparedAgain) {
  if (!testing_support::has_cuda_device()) GTEST_SKIP() << "no CUDA device";
  if (auto why = cuda::cupti::unavailable_reason()) GTEST_SKIP() << "CUPTI is not available: " << *why;
  const std::string dir = testing_support::fresh_dir("gpu_shape_runner_chain");
  ledger::RowTemplate t;
  t.op = ops::OpType::gemm;
  std::vector<ShapeRow> shapes;
  for (const std::int64_t m : {64, 512, 2048}) {
    shapes.push_back(ledger::make_row(t, DType::bf16, {{"m", m}, {"n", 1024}, {"k", 1024}}, Stage::mixed, std::nullopt,
                                      {SourceKind::manual, "test", ""}, ""));
  }
  write_shape_ledger(dir + "/shape_ledger.jsonl", shapes);
  runner::RunOptions options;
  options.op = "gemm";
  options.shape_ledger = dir + "/shape_ledger.jsonl";
  options.baseline_matrix = testing_support::source_dir() + "/matrices/cuda/gemm/baseline_matrix.yaml";
  options.out = dir + "/out";
  options.backend = "cuda";
  options.max_time_ms = 5;
  options.verification_seed = 0x5eed;
  options.run_id = "gpu-shape-runner-chain";
  const runner::RunPlan plan = runner::make_run_plan(options);
  ASSERT_EQ(plan.shapes.size(), 3u);
  std::unique_ptr<Backend> backend = open_backend(BackendKind::cuda, 0);
  std::vector<runner::BoundProvider> providers = runner::bind_providers(plan, BackendKind::cuda);
  std::vector<std::string> names;
  for (const auto& p : providers) names.push_back(p.entry->name);
  runner::RowProvenance identity;
  identity.run_id = options.run_id;
  identity.device = backend->device();
  runner::ShapeRunner shape_runner(*backend, plan, runner::make_run_contracts(options, BackendKind::cuda), options,
                                   identity, providers);
  std::vector<BenchmarkResultRow> rows;
  std::vector<runner::ShapeJob> jobs;
  for (const ShapeRow& shape : plan.shapes) {
    runner::ShapeJob job;
    job.shape = &shape;
    job.providers = names;
    job.events.finished = [&](const BenchmarkResultRow& row) { rows.push_back(row); };
    jobs.push_back(std::move(job));
  }
  const std::uint64_t detaches = cuda::cupti::detach_count();
  ASSERT_TRUE(shape_runner.run_shapes(jobs));
  EXPECT_EQ(cuda::cupti::detach_count() - detaches, 1u);  // one trace for the three shapes
  ASSERT_EQ(rows.size(), 3 * providers.size());
  std::size_t ok = 0, cublas_ok = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const BenchmarkResultRow& r = rows[i];
    EXPECT_EQ(r.shape_id, plan.shapes[i / providers.size()].shape_id);  // shape after shape
    EXPECT_EQ(r.provider, providers[i % providers.size()].entry->name);  // matrix order
    if (providers[i % providers.size()].not_configured) continue;
    if (r.benchmark_status == BenchmarkStatus::skipped) continue;  // the naive gemm's work limit
    EXPECT_EQ(r.benchmark_status, BenchmarkStatus::ok) << r.provider << " " << r.args.dump() << ": "
                                                       << r.status_reason.value_or("");
    if (r.benchmark_status != BenchmarkStatus::ok) continue;
    ++ok;
    cublas_ok += r.provider.find("cublas") != std::string::npos;
    EXPECT_FALSE(r.eager->instrument.kernel_tracing) << r.provider;
    EXPECT_FALSE(r.kernel_only->instrument.kernel_tracing) << r.provider;
  }
  EXPECT_GE(ok, 6u);
  EXPECT_GE(cublas_ok, 3u) << "the shipped gemm matrix has cuBLAS providers";
  for (const auto& p : providers) EXPECT_EQ(p.prepared_for, nullptr) << p.entry->name;
}

}  // namespace
}  // namespace caliber
