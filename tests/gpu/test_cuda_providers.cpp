// The cuda providers on a real device (ctest label gpu): every built-in provider of every op, in
// every dtype, over shapes that take each kernel path (warp / block / streaming / split rows,
// aligned and unaligned widths, partial gemm tiles, skinny and long-k gemms), against the fp64
// host reference; each also measured once under the kernel-only (graph) contract so that graph
// capture is exercised. A provider may say unsupported (with a reason); if it runs, it must pass.
#include <gtest/gtest.h>

#include <cstdlib>
#include <set>

#include "caliber/backend.h"
#include "results/benchmark_results.h"
#include "caliber/measure.h"
#include "ops/correctness.h"
#include "ops/op_catalog.h"
#include "providers/provider.h"
#include "runner/run_plan.h"
#include "modules/builtins.h"

namespace caliber {
namespace {

bool has_cuda() {
  for (const auto& b : available_backends()) {
    if (b.kind == BackendKind::cuda && b.device_count > 0) return true;
  }
  return false;
}

struct Shape {
  std::int64_t m, n, k;
};

std::vector<Shape> shapes_for(ops::OpType op) {
  if (op == ops::OpType::gemm) {
    return {{1, 1, 8},       {16, 16, 16},    {128, 128, 128},  {129, 136, 40},  {300, 520, 1000},
            {1, 4096, 4096}, {8, 14336, 4096}, {4097, 4104, 4104}, {256, 256, 16384}, {65, 72, 7},
            {1025, 1025, 1024}};
  }
  return {{1, 1, 0},     {3, 7, 0},      {4096, 8, 0},    {2048, 127, 0}, {2048, 128, 0},  {1, 1025, 0},
          {7, 4096, 0},  {3, 8192, 0},   {300, 8192, 0},  {2, 16384, 0},  {2, 32768, 0},   {300, 32768, 0},
          {2, 65536, 0}, {1, 131072, 0}, {1, 152064, 0},  {64, 152064, 0}, {65537, 64, 0}, {5, 4544, 0}};
}

class CudaProviders : public ::testing::TestWithParam<ops::OpType> {
 protected:
  void SetUp() override {
    if (!has_cuda()) GTEST_SKIP() << "no CUDA device";
    backend_ = open_backend(BackendKind::cuda, 0);
  }
  std::unique_ptr<Backend> backend_;
};

TEST_P(CudaProviders, EveryProviderThatRunsMatchesTheReference) {
  const ops::OpType opt = GetParam();
  const ops::Op& op = ops::op_for(opt);
  runner::RunOptions ro;
  ro.max_time_ms = 5;
  const runner::RunContracts contracts = runner::make_run_contracts(ro, BackendKind::cuda);
  int checked = 0;
  for (const std::string& name : providers::builtin_provider_names(BackendKind::cuda, opt)) {
    auto p = providers::make_builtin_provider(BackendKind::cuda, opt, name);
    ASSERT_TRUE(p) << name;
    if (auto why = p->unavailable()) {
      std::cout << "[ note ] " << name << " unavailable: " << *why << '\n';
      continue;
    }
    for (DType d : all_dtypes()) {
      for (const Shape& sh : shapes_for(opt)) {
        const ops::OpShape s = ops::shipped_shape(opt, d, sh.m, sh.n, sh.k, 1e-5);
        const std::string label = name + " " + std::string(to_string(d)) + " " + s.describe();
        const providers::Support sup = p->supports(s);
        if (!sup.supported()) {
          std::cout << "[ note ] " << label << ": " << sup.reason << '\n';
          continue;
        }
        const auto inputs = op.make_inputs(s, 3);
        std::vector<DeviceBuffer> bufs;
        providers::OpBuffers b;
        for (const auto& t : inputs) {
          bufs.emplace_back(*backend_, t.bytes());
          backend_->copy_to_device(bufs.back().get(), t.data(), t.bytes());
          b.inputs.push_back(bufs.back().get());
        }
        ops::HostTensor out("y", d, s.m, s.n);
        DeviceBuffer ob(*backend_, out.bytes());
        b.output = ob.get();
        backend_->fill_bytes(ob.get(), 0xFF, ob.bytes());
        try {
          p->prepare(s, *backend_);
        } catch (const providers::UnsupportedShape& e) {
          std::cout << "[ note ] " << label << ": " << e.what() << '\n';
          continue;
        }
        p->run(s, b, backend_->stream());
        backend_->synchronize_device();
        backend_->check_errors();
        backend_->copy_to_host(out.data(), ob.get(), out.bytes());
        const ops::Reference ref(op, s, inputs);
        const CorrectnessCheck c = ops::check_output(ref, out, ops::tolerance_for(d));
        EXPECT_TRUE(ops::passed(c)) << label << ": " << ops::failure_reason(c);
        ++checked;
        // Kernel-only (graph capture) and eager once each, as the runner measures.
        if (sh.m * std::max<std::int64_t>(sh.n, 1) <= (1 << 22)) {
          MeasureOptions mo;
          mo.name = label;
          const Callable call = [&](const LaunchContext& ctx) { p->run(s, b, ctx.stream); };
          const Result eager = measure(*backend_, call, contracts.eager, mo);
          Contract ko = contracts.kernel_only;
          ko.graph_calls = runner::graph_calls_for(eager.summary.median_us);
          const Result kernel_only = measure(*backend_, call, ko, mo);
          EXPECT_GT(kernel_only.summary.median_us, 0.0) << label;
          EXPECT_GT(eager.summary.median_us, 0.0) << label;
        }
        p->release();
      }
    }
  }
  EXPECT_GT(checked, 0);
}

INSTANTIATE_TEST_SUITE_P(Ops, CudaProviders,
                         ::testing::Values(ops::OpType::rmsnorm, ops::OpType::layernorm, ops::OpType::softmax,
                                           ops::OpType::gemm),
                         [](const auto& info) { return std::string(ops::to_string(info.param)); });

TEST(CudaProvidersSupport, TheTensorCoreGemmStatesItsAlignmentRule) {
  auto p = providers::make_builtin_provider(BackendKind::cuda, ops::OpType::gemm, "caliber");
  ASSERT_TRUE(p);
  ops::OpShape s = ops::shipped_shape(ops::OpType::gemm, DType::bf16, 64, 64, 7);
  const auto sup = p->supports(s);
  EXPECT_FALSE(sup.supported());
  EXPECT_NE(sup.reason.find("multiples of 8"), std::string::npos) << sup.reason;
  s.dtype = DType::fp32;
  EXPECT_TRUE(p->supports(s).supported());
}

}  // namespace
}  // namespace caliber
