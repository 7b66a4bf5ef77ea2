// cuda `cublas` and `cublaslt` gemm providers. Row-major C = A B is computed as the column-major
// product C^T = B^T A^T (no data is transposed). fp32 accumulation (CUBLAS_COMPUTE_32F: no TF32
// for fp32 inputs). Handles, workspaces and cuBLASLt's algorithm choice are made in prepare(),
// outside every timed window; the workspace is given to the library so nothing is allocated
// inside a call or a graph capture.
#include <cstdint>
#include <optional>
#include <string>

#include "backends/cuda/cublas_check.cuh"
#include "backends/cuda/cuda_check.cuh"
#include "backends/cuda/cuda_kernel_common.cuh"
#include "providers/cuda/cuda_providers.h"

namespace caliber::cuda {
namespace {

using providers::OpBuffers;
using providers::Support;

constexpr std::size_t kWorkspaceBytes = 32u << 20;

cudaDataType_t data_type(DType d) {
  switch (d) {
    case DType::fp32: return CUDA_R_32F;
    case DType::bf16: return CUDA_R_16BF;
    case DType::fp16: return CUDA_R_16F;
  }
  return CUDA_R_32F;
}

Support gemm_support(const ops::OpShape& s) {
  if (s.op != ops::OpType::gemm) return Support::no("different op");
  if (s.m > 2147483647LL || s.n > 2147483647LL || s.k > 2147483647LL) return Support::no("dimension above 2^31 - 1");
  return Support::yes();
}

class CublasGemm final : public providers::Provider {
 public:
  ~CublasGemm() override {
    if (handle_) cublas().cublasDestroy(handle_);
  }
  std::string name() const override { return "cublas"; }
  std::optional<std::string> unavailable() const override { return cublas_unavailable_reason(); }
  std::string detail(const ops::OpShape&) const override {
    return "cublasGemmEx (CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT; the kernel is chosen inside cuBLAS, opaque)";
  }
  Support supports(const ops::OpShape& s) const noexcept override { return gemm_support(s); }

  void prepare(const ops::OpShape&, Backend& backend) override {
    if (!handle_) CALIBER_CUBLAS_CHECK(cublas().cublasCreate(&handle_));
    workspace_ = DeviceBuffer(backend, kWorkspaceBytes);
    CALIBER_CUBLAS_CHECK(cublas().cublasSetStream(handle_, static_cast<cudaStream_t>(backend.stream())));
    CALIBER_CUBLAS_CHECK(cublas().cublasSetWorkspace(handle_, workspace_.get(), workspace_.bytes()));
    CALIBER_CUBLAS_CHECK(cublas().cublasSetMathMode(handle_, CUBLAS_DEFAULT_MATH));
  }
  void release() override { workspace_.reset(); }

  void run(const ops::OpShape& s, const OpBuffers& b, void*) override {
    if (!handle_) throw providers::ProviderError("cublas: prepare() was not called");
    const float alpha = 1.0f, beta = 0.0f;
    const cudaDataType_t t = data_type(s.dtype);
    const int m = static_cast<int>(s.m), n = static_cast<int>(s.n), k = static_cast<int>(s.k);
    CALIBER_CUBLAS_CHECK(cublas().cublasGemmEx(handle_, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &alpha, b.inputs[1], t, n,
                                      b.inputs[0], t, k, &beta, b.output, t, n, CUBLAS_COMPUTE_32F,
                                      CUBLAS_GEMM_DEFAULT));
  }

 private:
  cublasHandle_t handle_ = nullptr;
  DeviceBuffer workspace_;
};

class CublasLtGemm final : public providers::Provider {
 public:
  ~CublasLtGemm() override {
    destroy_plan();
    if (handle_) cublas().cublasLtDestroy(handle_);
  }
  std::string name() const override { return "cublaslt"; }
  std::optional<std::string> unavailable() const override { return cublas_unavailable_reason(); }
  std::string detail(const ops::OpShape&) const override {
    if (!planned_) return "cublasLtMatmul (CUBLAS_COMPUTE_32F, first heuristic algorithm, 32 MiB workspace)";
    if (pinned_) {
      return "cublasLtMatmul (CUBLAS_COMPUTE_32F, the replayed algorithm, 32 MiB workspace; the kernel itself is opaque)";
    }
    return str_cat("cublasLtMatmul (CUBLAS_COMPUTE_32F, first of ", candidates_,
                   " heuristic algorithms, 32 MiB workspace; the kernel itself is opaque)");
  }
  Support supports(const ops::OpShape& s) const noexcept override { return gemm_support(s); }

  void prepare(const ops::OpShape& s, Backend& backend) override {
    if (!handle_) CALIBER_CUBLAS_CHECK(cublas().cublasLtCreate(&handle_));
    destroy_plan();
    workspace_ = DeviceBuffer(backend, kWorkspaceBytes);
    const cudaDataType_t t = data_type(s.dtype);
    const auto m = static_cast<std::uint64_t>(s.m), n = static_cast<std::uint64_t>(s.n),
               k = static_cast<std::uint64_t>(s.k);
    CALIBER_CUBLAS_CHECK(cublas().cublasLtMatmulDescCreate(&desc_, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    // Column-major views: B^T is n x k (ld n), A^T is k x m (ld k), C^T is n x m (ld n).
    CALIBER_CUBLAS_CHECK(cublas().cublasLtMatrixLayoutCreate(&layout_b_, t, n, k, static_cast<std::int64_t>(n)));
    CALIBER_CUBLAS_CHECK(cublas().cublasLtMatrixLayoutCreate(&layout_a_, t, k, m, static_cast<std::int64_t>(k)));
    CALIBER_CUBLAS_CHECK(cublas().cublasLtMatrixLayoutCreate(&layout_c_, t, n, m, static_cast<std::int64_t>(n)));
    cublasLtMatmulPreference_t pref = nullptr;
    CALIBER_CUBLAS_CHECK(cublas().cublasLtMatmulPreferenceCreate(&pref));
    const std::size_t ws = workspace_.bytes();
    cublasStatus_t st = cublas().cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws,
                                                             sizeof ws);
    cublasLtMatmulHeuristicResult_t results[8] = {};
    int found = 0;
    if (st == CUBLAS_STATUS_SUCCESS) {
      st = cublas().cublasLtMatmulAlgoGetHeuristic(handle_, desc_, layout_b_, layout_a_, layout_c_, layout_c_, pref, 8, results,
                                          &found);
    }
    cublas().cublasLtMatmulPreferenceDestroy(pref);
    CALIBER_CUBLAS_CHECK(st);
    if (found == 0) throw providers::UnsupportedShape("cuBLASLt's heuristic offers no algorithm for this shape");
    algo_ = results[0].algo;
    candidates_ = found;
    if (pinned_) {
      // The replayed algorithm instead of the heuristic's first: it must still be valid for this
      // problem and fit the workspace.
      cublasLtMatmulHeuristicResult_t check = {};
      const cublasStatus_t ok = cublas().cublasLtMatmulAlgoCheck(handle_, desc_, layout_b_, layout_a_, layout_c_, layout_c_,
                                                        &pinned_algo_, &check);
      if (ok != CUBLAS_STATUS_SUCCESS || check.state != CUBLAS_STATUS_SUCCESS || check.workspaceSize > ws) {
        throw providers::ConfigRefused(str_cat("cublaslt: the pinned algorithm is not valid for this problem ",
                                               "(cublasLtMatmulAlgoCheck: ", cublas().cublasLtGetStatusName(ok), ", needs ",
                                               check.workspaceSize, " workspace bytes of ", ws, ")"));
      }
      algo_ = pinned_algo_;
    }
    planned_ = true;
  }
  void pin_config(const std::optional<std::string>& key) override {
    pinned_ = false;
    if (!key) return;
    // "cublasLt <version> algo <16 hex digits> x 8", as chosen_config() writes it.
    const std::string prefix = str_cat("cublasLt ", cublas().cublasLtGetVersion(), " algo ");
    if (key->rfind(prefix, 0) != 0) {
      throw providers::ConfigRefused(str_cat("cublaslt: '", *key, "' was not recorded by this cuBLASLt (", prefix,
                                             "...): an algorithm is replayed only by the library version that chose it"));
    }
    cublasLtMatmulAlgo_t algo{};
    std::size_t at = prefix.size();
    for (auto& word : algo.data) {
      if (at + 16 > key->size()) throw providers::ConfigRefused(str_cat("cublaslt: '", *key, "' is cut short"));
      std::uint64_t v = 0;
      for (std::size_t i = 0; i < 16; ++i) {
        const char c = (*key)[at + i];
        const int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
        if (d < 0) throw providers::ConfigRefused(str_cat("cublaslt: '", *key, "' is not hexadecimal"));
        v = v * 16 + static_cast<std::uint64_t>(d);
      }
      word = v;
      at += 16;
    }
    if (at != key->size()) throw providers::ConfigRefused(str_cat("cublaslt: '", *key, "' has text after the algorithm"));
    pinned_algo_ = algo;
    pinned_ = true;
  }
  std::optional<ChosenConfig> chosen_config() const override {
    if (!planned_) return std::nullopt;
    std::string key = str_cat("cublasLt ", cublas().cublasLtGetVersion(), " algo ");
    for (std::uint64_t word : algo_.data) {
      static constexpr char kHex[] = "0123456789abcdef";
      for (int shift = 60; shift >= 0; shift -= 4) key += kHex[(word >> shift) & 0xf];
    }
    const auto attr = [&](cublasLtMatmulAlgoConfigAttributes_t a) {
      std::uint32_t v = 0;
      std::size_t written = 0;
      return cublas().cublasLtMatmulAlgoConfigGetAttribute(&algo_, a, &v, sizeof v, &written) == CUBLAS_STATUS_SUCCESS
                 ? std::to_string(v)
                 : std::string("?");
    };
    return ChosenConfig{key, str_cat("algo id ", attr(CUBLASLT_ALGO_CONFIG_ID), ", tile ", attr(CUBLASLT_ALGO_CONFIG_TILE_ID),
                                     ", stages ", attr(CUBLASLT_ALGO_CONFIG_STAGES_ID), ", split-k ",
                                     attr(CUBLASLT_ALGO_CONFIG_SPLITK_NUM), ", reduction ",
                                     attr(CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME), ", swizzle ",
                                     attr(CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING), ", custom ",
                                     attr(CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION), pinned_ ? " (pinned)" : "")};
  }
  void release() override {
    destroy_plan();
    workspace_.reset();
  }

  void run(const ops::OpShape&, const OpBuffers& b, void* stream) override {
    if (!planned_) throw providers::ProviderError("cublaslt: prepare() was not called");
    const float alpha = 1.0f, beta = 0.0f;
    CALIBER_CUBLAS_CHECK(cublas().cublasLtMatmul(handle_, desc_, &alpha, b.inputs[1], layout_b_, b.inputs[0], layout_a_, &beta,
                                        b.output, layout_c_, b.output, layout_c_, &algo_, workspace_.get(),
                                        workspace_.bytes(), static_cast<cudaStream_t>(stream)));
  }

 private:
  void destroy_plan() {
    if (layout_a_) cublas().cublasLtMatrixLayoutDestroy(layout_a_);
    if (layout_b_) cublas().cublasLtMatrixLayoutDestroy(layout_b_);
    if (layout_c_) cublas().cublasLtMatrixLayoutDestroy(layout_c_);
    if (desc_) cublas().cublasLtMatmulDescDestroy(desc_);
    layout_a_ = layout_b_ = layout_c_ = nullptr;
    desc_ = nullptr;
    planned_ = false;
  }

  cublasLtHandle_t handle_ = nullptr;
  cublasLtMatmulDesc_t desc_ = nullptr;
  cublasLtMatrixLayout_t layout_a_ = nullptr, layout_b_ = nullptr, layout_c_ = nullptr;
  cublasLtMatmulAlgo_t algo_{};
  int candidates_ = 0;
  bool planned_ = false;
  // pin_config(): used instead of the heuristic's choice (a flag, not std::optional: nvcc 13.0's
  // front end aborts on std::optional<cublasLtMatmulAlgo_t>).
  cublasLtMatmulAlgo_t pinned_algo_{};
  bool pinned_ = false;
  DeviceBuffer workspace_;
};

}  // namespace

std::unique_ptr<providers::Provider> make_cublas_gemm_provider() { return std::make_unique<CublasGemm>(); }
std::unique_ptr<providers::Provider> make_cublaslt_gemm_provider() { return std::make_unique<CublasLtGemm>(); }

}  // namespace caliber::cuda
