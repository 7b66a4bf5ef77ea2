// Host ceilings: a multi-threaded memcpy (memory bandwidth) and OpenBLAS cblas_sgemm (flop rate).
//
// OpenBLAS: the core binary never links it. Until issue 4's openblas provider plugin lands, this
// file dlopens libopenblas.so.0 itself and looks up cblas_sgemm (HOOK: load the plugin through the
// plugin ABI instead). Without the library the matmul ceiling is "not available (reason)"; there
// is no fallback loop pretending to be a BLAS.
#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "backends/host/host_builtin_kernels.h"
#include "calibrate/ceiling_workloads.h"
#include "caliber/result_table.h"

namespace caliber::host {
namespace {

class ParallelCopy final : public bench::Workload {
 public:
  ParallelCopy(std::size_t elements, int threads, std::uint64_t seed)
      : n_(elements), threads_(std::max(1, threads)), x_(elements), y_(elements) {
    fill_random(x_.data(), n_, seed);
    poison_outputs();
  }

  void launch(const LaunchContext&) override {
    std::vector<std::thread> pool;
    const std::size_t chunk = (n_ + static_cast<std::size_t>(threads_) - 1) / static_cast<std::size_t>(threads_);
    for (int t = 0; t < threads_; ++t) {
      const std::size_t begin = std::min(n_, static_cast<std::size_t>(t) * chunk);
      const std::size_t end = std::min(n_, begin + chunk);
      pool.emplace_back([this, begin, end] { std::memcpy(y_.data() + begin, x_.data() + begin, (end - begin) * sizeof(float)); });
    }
    for (auto& th : pool) th.join();
  }

  void poison_outputs() override { std::fill(y_.begin(), y_.end(), std::nanf("")); }

  std::string verify() override {
    if (std::memcmp(x_.data(), y_.data(), n_ * sizeof(float)) == 0) return {};
    return "the copy's output differs from its input";
  }

 private:
  std::size_t n_;
  int threads_;
  std::vector<float> x_, y_;
};

// CBLAS enums (cblas.h): row major 101, no transpose 111. blasint is int in the LP64 build Debian
// ships as libopenblas.so.0.
using SgemmFn = void (*)(int, int, int, int, int, int, float, const float*, int, const float*, int, float, float*, int);
constexpr int kRowMajor = 101;
constexpr int kNoTrans = 111;

class OpenBlasSgemm final : public bench::Workload {
 public:
  OpenBlasSgemm(SgemmFn sgemm, std::int64_t n, std::uint64_t seed)
      : sgemm_(sgemm), n_(static_cast<int>(n)), a_(static_cast<std::size_t>(n * n)), b_(a_.size()), c_(a_.size()) {
    fill_random(a_.data(), a_.size(), seed);
    fill_random(b_.data(), b_.size(), seed + 1);
    poison_outputs();
  }

  void launch(const LaunchContext&) override {
    sgemm_(kRowMajor, kNoTrans, kNoTrans, n_, n_, n_, 1.0f, a_.data(), n_, b_.data(), n_, 0.0f, c_.data(), n_);
  }

  void poison_outputs() override { std::fill(c_.begin(), c_.end(), std::nanf("")); }

  // Compares 16 entries spread over C with an fp64 dot product.
  std::string verify() override {
    const auto n = static_cast<std::size_t>(n_);
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
  SgemmFn sgemm_;
  int n_;
  std::vector<float> a_, b_, c_;
};

}  // namespace

calibrate::CeilingWorkload make_copy_ceiling_workload(const DeviceInfo& device, std::uint64_t bytes, std::uint64_t seed) {
  calibrate::CeilingWorkload w;
  const std::size_t elements = bytes / sizeof(float);
  w.workload = std::make_unique<ParallelCopy>(elements, device.multiprocessors, seed);
  w.workload->name = "memcpy";
  w.workload->working_set_bytes = 2 * elements * sizeof(float);
  w.workload->params = {{"size_bytes", elements * sizeof(float)}, {"threads", std::max(1, device.multiprocessors)}};
  w.work_per_call = 2 * elements * sizeof(float);
  w.method = fmt::format("memcpy of {} split over {} threads (bytes read + written = 2 x {})",
                         format_bytes(elements * sizeof(float)), std::max(1, device.multiprocessors),
                         format_bytes(elements * sizeof(float)));
  return w;
}

calibrate::CeilingWorkload make_matmul_ceiling_workload(const std::string& dtype, std::int64_t n, std::uint64_t seed) {
  calibrate::CeilingWorkload w;
  if (dtype != "fp32") {
    w.unavailable = fmt::format("the host backend measures fp32 (cblas_sgemm) only, not {}", dtype);
    return w;
  }
  // Loaded once and never closed: the function pointer must outlive every workload.
  static void* library = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    w.unavailable = fmt::format("libopenblas.so.0 could not be loaded: {}", dlerror());
    return w;
  }
  auto sgemm = reinterpret_cast<SgemmFn>(dlsym(library, "cblas_sgemm"));
  if (!sgemm) {
    w.unavailable = "libopenblas.so.0 has no cblas_sgemm";
    return w;
  }
  using ThreadsFn = int (*)();
  auto threads = reinterpret_cast<ThreadsFn>(dlsym(library, "openblas_get_num_threads"));
  w.workload = std::make_unique<OpenBlasSgemm>(sgemm, n, seed);
  w.workload->name = "sgemm";
  w.workload->working_set_bytes = static_cast<std::uint64_t>(3 * n * n) * sizeof(float);
  w.workload->params = {{"m", n}, {"n", n}, {"k", n}, {"dtype", "fp32"}};
  w.work_per_call = static_cast<std::uint64_t>(2 * n * n * n);
  w.method = fmt::format(
      "cblas_sgemm from libopenblas.so.0 (dlopened by caliber calibrate until the openblas provider plugin "
      "lands{}), m=n=k={} fp32, row-major, random inputs in +-[0.5, 1.5)",
      threads ? fmt::format(", {} OpenBLAS threads", threads()) : "", n);
  return w;
}

}  // namespace caliber::host
