// Host ceilings: a multi-threaded memcpy (memory bandwidth) and OpenBLAS cblas_sgemm (flop rate).
//
// OpenBLAS: the core binary never links it. The sgemm is the `openblas` provider plugin's
// (plugins/openblas, loaded through the plugin ABI exactly as `caliber run` loads it from the host
// gemm matrix), so the ceiling and the baseline are the same call. Without the plugin (or its
// libopenblas) the matmul ceiling is "not available (reason)"; there is no fallback loop
// pretending to be a BLAS.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include <fmt/format.h>

#include "kernels/host/host_builtin_kernels.h"
#include "ops/entrypoint.h"
#include "kernels/host/host_ceiling_workloads.h"
#include "core/parallel_for.h"
#include "ops/op_catalog.h"
#include "providers/plugin_provider.h"
#include "core/unit_text.h"

namespace caliber::host {
namespace {

// memcpy split over caliber's thread pool (core/parallel_for: threads started once, not per call).
class ParallelCopy final : public bench::Workload {
 public:
  ParallelCopy(std::size_t elements, std::uint64_t seed) : n_(elements), x_(elements), y_(elements) {
    fill_random(x_.data(), n_, seed);
    poison_outputs();
  }

  void launch(const LaunchContext&) override {
    const auto n = static_cast<std::int64_t>(n_);
    const std::int64_t chunk = (n + parallel_threads() - 1) / parallel_threads();
    parallel_for(n, std::max<std::int64_t>(1, chunk), [this](std::int64_t begin, std::int64_t end) {
      std::memcpy(y_.data() + begin, x_.data() + begin, static_cast<std::size_t>(end - begin) * sizeof(float));
    });
  }

  void poison_outputs() override { std::fill(y_.begin(), y_.end(), std::nanf("")); }

  std::string verify() override {
    if (std::memcmp(x_.data(), y_.data(), n_ * sizeof(float)) == 0) return {};
    return "the copy's output differs from its input";
  }

 private:
  std::size_t n_;
  std::vector<float> x_, y_;
};

// C[n, n] = A[n, n] B[n, n] in fp32 through a gemm provider (the openblas plugin).
class ProviderSgemm final : public bench::Workload {
 public:
  ProviderSgemm(std::unique_ptr<providers::Provider> provider, const ops::OpShape& shape, Backend& backend,
                std::uint64_t seed)
      : provider_(std::move(provider)),
        shape_(shape),
        n_(static_cast<std::size_t>(shape.n)),
        a_(n_ * n_),
        b_(a_.size()),
        c_(a_.size()) {
    fill_random(a_.data(), a_.size(), seed);
    fill_random(b_.data(), b_.size(), seed + 1);
    buffers_.inputs = {a_.data(), b_.data()};
    buffers_.output = c_.data();
    provider_->prepare(shape_, backend);
    poison_outputs();
  }
  ~ProviderSgemm() override { provider_->release(); }

  void launch(const LaunchContext& ctx) override { provider_->run(shape_, buffers_, ctx.stream); }

  void poison_outputs() override { std::fill(c_.begin(), c_.end(), std::nanf("")); }

  // Compares 16 entries spread over C with an fp64 dot product.
  std::string verify() override {
    const std::size_t n = n_;
    for (std::size_t s = 0; s < 16; ++s) {
      const std::size_t i = (s * 7919) % n, j = (s * 104729 + 3) % n;
      double ref = 0, abs_sum = 0;
      for (std::size_t k = 0; k < n; ++k) {
        const double p = static_cast<double>(a_[i * n + k]) * static_cast<double>(b_[k * n + j]);
        ref += p;
        abs_sum += std::abs(p);
      }
      const double got = c_[i * n + j];
      if (!(std::abs(got - ref) <= 1e-4 * abs_sum)) {
        return fmt::format("C[{}][{}] = {} but the fp64 reference is {}", i, j, got, ref);
      }
    }
    return {};
  }

 private:
  std::unique_ptr<providers::Provider> provider_;
  ops::OpShape shape_;
  std::size_t n_;
  std::vector<float> a_, b_, c_;
  providers::OpBuffers buffers_;
};

}  // namespace

calibrate::CeilingWorkload make_copy_ceiling_workload(std::uint64_t bytes, std::uint64_t seed) {
  calibrate::CeilingWorkload w;
  const std::size_t elements = bytes / sizeof(float);
  w.workload = std::make_unique<ParallelCopy>(elements, seed);
  w.workload->name = "memcpy";
  w.workload->working_set_bytes = 2 * elements * sizeof(float);
  w.workload->params = {{"size_bytes", elements * sizeof(float)}, {"threads", parallel_threads()}};
  w.work_per_call = 2 * elements * sizeof(float);
  w.method = fmt::format("memcpy of {} split over {} threads (bytes read + written = 2 x {})",
                         format_bytes(elements * sizeof(float)), parallel_threads(),
                         format_bytes(elements * sizeof(float)));
  return w;
}

calibrate::CeilingWorkload make_matmul_ceiling_workload(Backend& backend, const std::string& dtype, std::int64_t n,
                                                        std::uint64_t seed) {
  calibrate::CeilingWorkload w;
  if (dtype != "fp32") {
    w.unavailable = fmt::format("the host backend measures fp32 (cblas_sgemm) only, not {}", dtype);
    return w;
  }
  const Entrypoint entry = Entrypoint::parse(std::string(kOpenBlasGemmEntrypoint));
  const std::string library = resolved_library(entry, "");
  std::unique_ptr<providers::Provider> provider;
  try {
    provider = providers::load_plugin_provider(library, entry.symbol, {ops::OpType::gemm}, BackendKind::host);
  } catch (const std::exception& e) {
    w.unavailable = fmt::format("the openblas provider plugin ({}) could not be loaded: {}", entry.text, e.what());
    return w;
  }
  if (auto why = provider->unavailable()) {
    w.unavailable = fmt::format("the openblas provider plugin ({}) is not available: {}", entry.text, *why);
    return w;
  }
  const ops::OpShape shape = ops::shipped_shape(ops::OpType::gemm, DType::fp32, n, n, n);
  if (const providers::Support s = provider->supports(shape); !s.supported()) {
    w.unavailable = fmt::format("the openblas provider plugin declines m=n=k={}: {}", n, s.reason);
    return w;
  }
  const std::string detail = provider->detail(shape);
  w.workload = std::make_unique<ProviderSgemm>(std::move(provider), shape, backend, seed);
  w.workload->name = "sgemm";
  w.workload->working_set_bytes = static_cast<std::uint64_t>(3 * n * n) * sizeof(float);
  w.workload->params = {{"m", n}, {"n", n}, {"k", n}, {"dtype", "fp32"}};
  w.work_per_call = static_cast<std::uint64_t>(2 * n * n * n);
  w.method = fmt::format("openblas provider ({}), m=n=k={} fp32, row-major, random inputs in +-[0.5, 1.5)", detail, n);
  return w;
}

}  // namespace caliber::host
