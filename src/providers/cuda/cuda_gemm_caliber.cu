// cuda `caliber` gemm: C[m, n] = A[m, k] B[k, n], all row-major, fp32 accumulation.
//  bf16 / fp16: tensor cores through WMMA (mma.sync 16x16x16), 128x128x32 block tiles, 8 warps
//               of 64x32, a 3-stage cp.async (16-byte) shared-memory pipeline, zero-filled edges;
//               the epilogue converts through a per-warp shared tile with 16-byte stores.
//  fp32:        CUDA cores (no TF32, so fp32 accuracy is kept): 128x128x8 tiles, 8x8 outputs per
//               thread, double-buffered shared memory with register prefetch.
#include <mma.h>

#include "backends/cuda/cuda_check.cuh"
#include "backends/cuda/cuda_kernel_common.cuh"
#include "providers/cuda/cuda_providers.h"

namespace caliber::cuda {
namespace {

using providers::OpBuffers;
using providers::Support;
namespace wmma = nvcuda::wmma;

// ---- tensor-core kernel (16-bit inputs) -----------------------------------------------------------

constexpr int kBM = 128, kBN = 128, kBK = 32, kStages = 3, kThreads = 256;
constexpr int kALd = kBK + 8;  // padded rows: 16 bytes of skew against bank conflicts
constexpr int kBLd = kBN + 8;
constexpr int kAStage = kBM * kALd;  // elements
constexpr int kBStage = kBK * kBLd;
constexpr std::size_t kSmemBytes = static_cast<std::size_t>(kStages) * (kAStage + kBStage) * 2;

__device__ __forceinline__ void cp_async_16(void* smem, const void* gmem, bool valid) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  const int bytes = valid ? 16 : 0;  // 0: nothing is read, the 16 bytes are zero-filled
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(s), "l"(gmem), "r"(bytes));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

template <typename T>
__global__ void __launch_bounds__(kThreads) gemm_wmma_kernel(const T* __restrict__ A, const T* __restrict__ B,
                                                             T* __restrict__ C, int M, int N, int K) {
  extern __shared__ __align__(128) unsigned char smem_raw[];
  T* As = reinterpret_cast<T*>(smem_raw);
  T* Bs = As + kStages * kAStage;
  const int tid = static_cast<int>(threadIdx.x);
  const int warp = tid >> 5, lane = tid & 31;
  const int warp_m = warp >> 2;  // 2 warps down: 64 rows each
  const int warp_n = warp & 3;   // 4 warps across: 32 columns each
  const int bm = static_cast<int>(blockIdx.y) * kBM, bn = static_cast<int>(blockIdx.x) * kBN;
  const int ktiles = (K + kBK - 1) / kBK;

  // K and N are multiples of 8, so a 16-byte chunk is entirely inside or outside the matrix.
  auto load_tile = [&](int stage, int kt) {
    const int k0 = kt * kBK;
    T* as = As + stage * kAStage;
    T* bs = Bs + stage * kBStage;
#pragma unroll
    for (int l = 0; l < 2; ++l) {
      const int c = tid + l * kThreads;  // 512 chunks: 128 rows x 4 chunks
      const int row = c >> 2, col = (c & 3) * 8;
      const int gr = bm + row, gk = k0 + col;
      const bool ok = gr < M && gk < K;
      cp_async_16(as + row * kALd + col, ok ? A + static_cast<long long>(gr) * K + gk : A, ok);
    }
#pragma unroll
    for (int l = 0; l < 2; ++l) {
      const int c = tid + l * kThreads;  // 512 chunks: 32 rows x 16 chunks
      const int row = c >> 4, col = (c & 15) * 8;
      const int gk = k0 + row, gc = bn + col;
      const bool ok = gk < K && gc < N;
      cp_async_16(bs + row * kBLd + col, ok ? B + static_cast<long long>(gk) * N + gc : B, ok);
    }
  };

  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[4][2];
#pragma unroll
  for (int i = 0; i < 4; ++i) {
#pragma unroll
    for (int j = 0; j < 2; ++j) wmma::fill_fragment(acc[i][j], 0.0f);
  }

#pragma unroll
  for (int s = 0; s < kStages - 1; ++s) {
    if (s < ktiles) load_tile(s, s);
    cp_async_commit();
  }
  for (int kt = 0; kt < ktiles; ++kt) {
    cp_async_wait<kStages - 2>();  // tile kt has landed
    __syncthreads();               // ... for every thread, and stage (kt - 1) is free again
    const int next = kt + kStages - 1;
    if (next < ktiles) load_tile(next % kStages, next);
    cp_async_commit();
    const T* as = As + (kt % kStages) * kAStage;
    const T* bs = Bs + (kt % kStages) * kBStage;
#pragma unroll
    for (int kk = 0; kk < kBK; kk += 16) {
      wmma::fragment<wmma::matrix_a, 16, 16, 16, T, wmma::row_major> a[4];
      wmma::fragment<wmma::matrix_b, 16, 16, 16, T, wmma::row_major> b[2];
#pragma unroll
      for (int i = 0; i < 4; ++i) wmma::load_matrix_sync(a[i], as + (warp_m * 64 + i * 16) * kALd + kk, kALd);
#pragma unroll
      for (int j = 0; j < 2; ++j) wmma::load_matrix_sync(b[j], bs + kk * kBLd + warp_n * 32 + j * 16, kBLd);
#pragma unroll
      for (int i = 0; i < 4; ++i) {
#pragma unroll
        for (int j = 0; j < 2; ++j) wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
      }
    }
  }
  cp_async_wait<0>();
  __syncthreads();  // the pipeline's shared memory is reused below

  // Epilogue: each 16x16 accumulator goes through a per-warp shared tile; a lane writes 8
  // consecutive outputs (one 16-byte store when the 8 columns are inside C).
  float* tile = reinterpret_cast<float*>(smem_raw) + warp * 256;
  const int r = lane >> 1, c0 = (lane & 1) * 8;
#pragma unroll
  for (int i = 0; i < 4; ++i) {
#pragma unroll
    for (int j = 0; j < 2; ++j) {
      wmma::store_matrix_sync(tile, acc[i][j], 16, wmma::mem_row_major);
      __syncwarp();
      const int gr = bm + warp_m * 64 + i * 16 + r;
      const int gc = bn + warp_n * 32 + j * 16 + c0;
      if (gr < M) {
        T* dst = C + static_cast<long long>(gr) * N + gc;
        if (gc + 8 <= N) {
          FloatPack<T> out;
#pragma unroll
          for (int e = 0; e < 8; ++e) out.v[e] = tile[r * 16 + c0 + e];
          store_pack(dst, out);
        } else {
          for (int e = 0; e < 8 && gc + e < N; ++e) dst[e] = from_float<T>(tile[r * 16 + c0 + e]);
        }
      }
      __syncwarp();
    }
  }
}

// ---- CUDA-core kernel (fp32) ------------------------------------------------------------------

constexpr int kSBM = 128, kSBN = 128, kSBK = 8;

__global__ void __launch_bounds__(256) sgemm_kernel(const float* __restrict__ A, const float* __restrict__ B,
                                                    float* __restrict__ C, int M, int N, int K) {
  __shared__ float As[2][kSBK][kSBM + 4];  // A tile transposed: [k][m]; +4 spreads the stores over banks
  __shared__ float Bs[2][kSBK][kSBN];
  const int tid = static_cast<int>(threadIdx.x);
  const int tx = tid & 15, ty = tid >> 4;  // thread owns rows ty + 16 i, columns tx + 16 j
  const int bm = static_cast<int>(blockIdx.y) * kSBM, bn = static_cast<int>(blockIdx.x) * kSBN;
  float acc[8][8];
#pragma unroll
  for (int i = 0; i < 8; ++i) {
#pragma unroll
    for (int j = 0; j < 8; ++j) acc[i][j] = 0.0f;
  }
  float ra[4], rb[4];
  auto global_load = [&](int k0) {
#pragma unroll
    for (int l = 0; l < 4; ++l) {
      const int e = tid + 256 * l;
      const int row = e >> 3, col = e & 7;
      const int gr = bm + row, gk = k0 + col;
      ra[l] = (gr < M && gk < K) ? A[static_cast<long long>(gr) * K + gk] : 0.0f;
    }
#pragma unroll
    for (int l = 0; l < 4; ++l) {
      const int e = tid + 256 * l;
      const int row = e >> 7, col = e & 127;
      const int gk = k0 + row, gc = bn + col;
      rb[l] = (gk < K && gc < N) ? B[static_cast<long long>(gk) * N + gc] : 0.0f;
    }
  };
  auto shared_store = [&](int buf) {
#pragma unroll
    for (int l = 0; l < 4; ++l) {
      const int e = tid + 256 * l;
      As[buf][e & 7][e >> 3] = ra[l];
      Bs[buf][e >> 7][e & 127] = rb[l];
    }
  };
  const int ktiles = (K + kSBK - 1) / kSBK;
  global_load(0);
  shared_store(0);
  __syncthreads();
  for (int kt = 0; kt < ktiles; ++kt) {
    const int buf = kt & 1;
    if (kt + 1 < ktiles) global_load((kt + 1) * kSBK);  // in flight during the math below
#pragma unroll
    for (int kk = 0; kk < kSBK; ++kk) {
      float a[8], b[8];
#pragma unroll
      for (int i = 0; i < 8; ++i) a[i] = As[buf][kk][ty + 16 * i];
#pragma unroll
      for (int j = 0; j < 8; ++j) b[j] = Bs[buf][kk][tx + 16 * j];
#pragma unroll
      for (int i = 0; i < 8; ++i) {
#pragma unroll
        for (int j = 0; j < 8; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
      }
    }
    if (kt + 1 < ktiles) shared_store(buf ^ 1);
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const int gr = bm + ty + 16 * i;
    if (gr >= M) continue;
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      const int gc = bn + tx + 16 * j;
      if (gc < N) C[static_cast<long long>(gr) * N + gc] = acc[i][j];
    }
  }
}

class CaliberGemm final : public providers::Provider {
 public:
  std::string name() const override { return "caliber"; }
  std::string detail(const ops::OpShape& s) const override {
    if (s.dtype == DType::fp32) {
      return "caliber gemm fp32: CUDA cores (no TF32), 128x128x8 tiles, 8x8 outputs per thread, double-buffered "
             "shared memory";
    }
    return str_cat("caliber gemm ", to_string(s.dtype), ": tensor cores via WMMA (mma.sync 16x16x16, fp32 accumulate), 128x128x32 tiles, 8 warps of 64x32, 3-stage cp.async 16-byte pipeline");
  }

  Support supports(const ops::OpShape& s) const noexcept override {
    if (s.op != ops::OpType::gemm) return Support::no("different op");
    if (s.dtype != DType::fp32 && (s.k % 8 != 0 || s.n % 8 != 0)) {
      return Support::no(str_cat("the tensor-core kernel needs k and n to be multiples of 8 (16-byte rows for cp.async); got k=", s.k, " n=", s.n));
    }
    const long long tiles_m = (s.m + 127) / 128;
    if (tiles_m > 65535) return Support::no("more than 65535 row tiles of 128 (grid.y limit)");
    return Support::yes();
  }

  void prepare(const ops::OpShape& s, Backend&) override {
    if (s.dtype != DType::fp32 && !attributes_set_) {
      CALIBER_CUDA_CHECK(cudaFuncSetAttribute(gemm_wmma_kernel<__nv_bfloat16>,
                                              cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(kSmemBytes)));
      CALIBER_CUDA_CHECK(cudaFuncSetAttribute(gemm_wmma_kernel<__half>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                              static_cast<int>(kSmemBytes)));
      attributes_set_ = true;
    }
  }

  void run(const ops::OpShape& s, const OpBuffers& b, void* stream_ptr) override {
    const auto stream = static_cast<cudaStream_t>(stream_ptr);
    const int M = static_cast<int>(s.m), N = static_cast<int>(s.n), K = static_cast<int>(s.k);
    if (s.dtype == DType::fp32) {
      const dim3 grid(static_cast<unsigned>((N + kSBN - 1) / kSBN), static_cast<unsigned>((M + kSBM - 1) / kSBM));
      sgemm_kernel<<<grid, 256, 0, stream>>>(static_cast<const float*>(b.inputs[0]),
                                             static_cast<const float*>(b.inputs[1]), static_cast<float*>(b.output), M,
                                             N, K);
      CALIBER_CUDA_CHECK_LAUNCH();
      return;
    }
    if (!attributes_set_) throw providers::ProviderError("caliber gemm: prepare() was not called");
    const dim3 grid(static_cast<unsigned>((N + kBN - 1) / kBN), static_cast<unsigned>((M + kBM - 1) / kBM));
    if (s.dtype == DType::bf16) {
      gemm_wmma_kernel<__nv_bfloat16><<<grid, kThreads, kSmemBytes, stream>>>(
          static_cast<const __nv_bfloat16*>(b.inputs[0]), static_cast<const __nv_bfloat16*>(b.inputs[1]),
          static_cast<__nv_bfloat16*>(b.output), M, N, K);
    } else {
      gemm_wmma_kernel<__half><<<grid, kThreads, kSmemBytes, stream>>>(static_cast<const __half*>(b.inputs[0]),
                                                                       static_cast<const __half*>(b.inputs[1]),
                                                                       static_cast<__half*>(b.output), M, N, K);
    }
    CALIBER_CUDA_CHECK_LAUNCH();
  }

 private:
  bool attributes_set_ = false;
};

}  // namespace

std::unique_ptr<providers::Provider> make_caliber_gemm_provider() { return std::make_unique<CaliberGemm>(); }

}  // namespace caliber::cuda
