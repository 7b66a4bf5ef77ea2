// cuda `naive` gemm: one thread per output element, fp32 accumulation over k, no tiling.
// Obviously correct; it declines (status skipped) shapes above 2^34 multiply-adds, which would
// take tens of milliseconds per call and add nothing the fp64 reference check does not cover.
#include "backends/cuda/cuda_check.cuh"
#include "backends/cuda/cuda_kernel_common.cuh"
#include "providers/cuda/cuda_providers.h"

namespace caliber::cuda {
namespace {

using providers::OpBuffers;
using providers::Support;

template <typename T>
__global__ void gemm_naive_kernel(const T* A, const T* B, T* C, int M, int N, int K) {
  const int col = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  const int row = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
  if (row >= M || col >= N) return;
  float acc = 0.0f;
  for (int p = 0; p < K; ++p) {
    acc += to_float(A[static_cast<long long>(row) * K + p]) * to_float(B[static_cast<long long>(p) * N + col]);
  }
  C[static_cast<long long>(row) * N + col] = from_float<T>(acc);
}

class NaiveGemm final : public providers::Provider {
 public:
  std::string name() const override { return "naive"; }
  std::string detail(const ops::OpShape&) const override {
    return "naive gemm: one thread per output element (16x16 blocks), fp32 accumulation, no tiling";
  }

  Support supports(const ops::OpShape& s) const noexcept override {
    if (s.op != ops::OpType::gemm) return Support::no("different op");
    if ((s.m + 15) / 16 > 65535) return Support::no("more than 65535 x 16 rows (grid.y limit)");
    const double macs = static_cast<double>(s.m) * static_cast<double>(s.n) * static_cast<double>(s.k);
    if (macs > 17179869184.0) {
      return Support::skip(str_cat("the naive gemm declines more than 2^34 multiply-adds per call (", macs,
                                   "); correctness is covered by the fp64 reference"));
    }
    return Support::yes();
  }

  void run(const ops::OpShape& s, const OpBuffers& b, void* stream_ptr) override {
    const auto stream = static_cast<cudaStream_t>(stream_ptr);
    const dim3 block(16, 16);
    const dim3 grid(static_cast<unsigned>((s.n + 15) / 16), static_cast<unsigned>((s.m + 15) / 16));
    CALIBER_DISPATCH_DTYPE(s.dtype, {
      gemm_naive_kernel<T><<<grid, block, 0, stream>>>(static_cast<const T*>(b.inputs[0]),
                                                       static_cast<const T*>(b.inputs[1]), static_cast<T*>(b.output),
                                                       static_cast<int>(s.m), static_cast<int>(s.n),
                                                       static_cast<int>(s.k));
    });
    CALIBER_CUDA_CHECK_LAUNCH();
  }
};

}  // namespace

std::unique_ptr<providers::Provider> make_naive_gemm_provider() { return std::make_unique<NaiveGemm>(); }

}  // namespace caliber::cuda
