// cuda rmsnorm and layernorm providers.
//  caliber: 16-byte loads and stores; the row held in registers (a warp per row for short rows,
//           a block per row up to 64K 16-bit elements) with warp-shuffle / block reductions;
//           a streaming block-per-row kernel for longer or unaligned rows. fp32 math.
//  naive:   a block of 256 threads per row, scalar loads, shared-memory tree reductions, the
//           row re-read from global memory for every pass.
#include "backends/cuda/cuda_check.cuh"
#include "backends/cuda/cuda_kernel_common.cuh"
#include "providers/cuda/cuda_providers.h"

namespace caliber::cuda {
namespace {

using providers::OpBuffers;
using providers::Support;

// ---- caliber: the row in registers -------------------------------------------------------------

template <typename T, int MAXV, bool WARP, bool LAYER>
__global__ void __launch_bounds__(1024) norm_regs_kernel(const T* __restrict__ x, const T* __restrict__ w,
                                                         const T* __restrict__ bias, T* __restrict__ y,
                                                         long long m, int n, float eps) {
  constexpr int P = kPack<T>;
  __shared__ float scratch[32];
  const int lanes = WARP ? 32 : static_cast<int>(blockDim.x);
  const int tid = WARP ? static_cast<int>(threadIdx.x & 31) : static_cast<int>(threadIdx.x);
  const long long row = WARP ? static_cast<long long>(blockIdx.x) * (blockDim.x >> 5) + (threadIdx.x >> 5)
                             : static_cast<long long>(blockIdx.x);
  if (WARP && row >= m) return;  // whole warps leave; WARP mode has no block-wide barrier
  const int nvec = n / P;
  const T* xr = x + row * n;
  FloatPack<T> v[MAXV];
  float s = 0.0f;
#pragma unroll
  for (int i = 0; i < MAXV; ++i) {
    const int idx = tid + i * lanes;
    if (idx < nvec) {
      v[i] = load_pack(xr + static_cast<long long>(idx) * P);
#pragma unroll
      for (int e = 0; e < P; ++e) s += LAYER ? v[i].v[e] : v[i].v[e] * v[i].v[e];
    }
  }
  const float total = WARP ? warp_sum(s) : block_sum(s, scratch);
  float mean = 0.0f, rstd;
  if (LAYER) {
    mean = total / static_cast<float>(n);
    float d = 0.0f;  // two-pass variance from the registers
#pragma unroll
    for (int i = 0; i < MAXV; ++i) {
      if (tid + i * lanes < nvec) {
#pragma unroll
        for (int e = 0; e < P; ++e) d += (v[i].v[e] - mean) * (v[i].v[e] - mean);
      }
    }
    const float var = (WARP ? warp_sum(d) : block_sum(d, scratch)) / static_cast<float>(n);
    rstd = rsqrtf(var + eps);
  } else {
    rstd = rsqrtf(total / static_cast<float>(n) + eps);
  }
  T* yr = y + row * n;
#pragma unroll
  for (int i = 0; i < MAXV; ++i) {
    const int idx = tid + i * lanes;
    if (idx < nvec) {
      const FloatPack<T> wv = load_pack(w + static_cast<long long>(idx) * P);
      FloatPack<T> out;
      if (LAYER) {
        const FloatPack<T> bv = load_pack(bias + static_cast<long long>(idx) * P);
#pragma unroll
        for (int e = 0; e < P; ++e) out.v[e] = (v[i].v[e] - mean) * rstd * wv.v[e] + bv.v[e];
      } else {
#pragma unroll
        for (int e = 0; e < P; ++e) out.v[e] = v[i].v[e] * rstd * wv.v[e];
      }
      store_pack(yr + static_cast<long long>(idx) * P, out);
    }
  }
}

// ---- caliber: streaming (long or unaligned rows) -----------------------------------------------

template <typename T, bool VEC>
__device__ __forceinline__ float row_reduce_sum(const T* xr, int n, float center, bool squares, float* scratch) {
  constexpr int P = VEC ? kPack<T> : 1;
  float s = 0.0f;
  for (int idx = threadIdx.x; idx < n / P; idx += blockDim.x) {
    if constexpr (VEC) {
      const FloatPack<T> v = load_pack(xr + static_cast<long long>(idx) * P);
#pragma unroll
      for (int e = 0; e < P; ++e) {
        const float c = v.v[e] - center;
        s += squares ? c * c : c;
      }
    } else {
      const float c = to_float(xr[idx]) - center;
      s += squares ? c * c : c;
    }
  }
  return block_sum(s, scratch);
}

template <typename T, bool VEC, bool LAYER>
__global__ void __launch_bounds__(1024) norm_stream_kernel(const T* __restrict__ x, const T* __restrict__ w,
                                                           const T* __restrict__ bias, T* __restrict__ y, int n,
                                                           float eps) {
  __shared__ float scratch[32];
  const long long row = blockIdx.x;
  const T* xr = x + row * n;
  float mean = 0.0f, rstd;
  if (LAYER) {
    mean = row_reduce_sum<T, VEC>(xr, n, 0.0f, false, scratch) / static_cast<float>(n);
    rstd = rsqrtf(row_reduce_sum<T, VEC>(xr, n, mean, true, scratch) / static_cast<float>(n) + eps);
  } else {
    rstd = rsqrtf(row_reduce_sum<T, VEC>(xr, n, 0.0f, true, scratch) / static_cast<float>(n) + eps);
  }
  T* yr = y + row * n;
  constexpr int P = VEC ? kPack<T> : 1;
  for (int idx = threadIdx.x; idx < n / P; idx += blockDim.x) {
    if constexpr (VEC) {
      const long long o = static_cast<long long>(idx) * P;
      const FloatPack<T> v = load_pack(xr + o), wv = load_pack(w + o);
      FloatPack<T> out;
      if (LAYER) {
        const FloatPack<T> bv = load_pack(bias + o);
#pragma unroll
        for (int e = 0; e < P; ++e) out.v[e] = (v.v[e] - mean) * rstd * wv.v[e] + bv.v[e];
      } else {
#pragma unroll
        for (int e = 0; e < P; ++e) out.v[e] = v.v[e] * rstd * wv.v[e];
      }
      store_pack(yr + o, out);
    } else {
      const float v = to_float(xr[idx]);
      float out = (v - mean) * rstd * to_float(w[idx]);
      if (LAYER) out += to_float(bias[idx]);
      yr[idx] = from_float<T>(out);
    }
  }
}

// ---- naive ---------------------------------------------------------------------------------------

constexpr int kNaiveThreads = 256;

__device__ float naive_block_sum(float v, float* s) {
  __syncthreads();
  s[threadIdx.x] = v;
  __syncthreads();
  for (int stride = kNaiveThreads / 2; stride > 0; stride >>= 1) {
    if (static_cast<int>(threadIdx.x) < stride) s[threadIdx.x] += s[threadIdx.x + stride];
    __syncthreads();
  }
  return s[0];
}

template <typename T, bool LAYER>
__global__ void norm_naive_kernel(const T* x, const T* w, const T* bias, T* y, int n, float eps) {
  __shared__ float s[kNaiveThreads];
  const long long row = blockIdx.x;
  const T* xr = x + row * n;
  float mean = 0.0f;
  if (LAYER) {
    float sum = 0.0f;
    for (int j = threadIdx.x; j < n; j += kNaiveThreads) sum += to_float(xr[j]);
    mean = naive_block_sum(sum, s) / static_cast<float>(n);
  }
  float sq = 0.0f;
  for (int j = threadIdx.x; j < n; j += kNaiveThreads) {
    const float c = to_float(xr[j]) - mean;
    sq += c * c;
  }
  const float rstd = 1.0f / sqrtf(naive_block_sum(sq, s) / static_cast<float>(n) + eps);
  for (int j = threadIdx.x; j < n; j += kNaiveThreads) {
    float out = (to_float(xr[j]) - mean) * rstd * to_float(w[j]);
    if (LAYER) out += to_float(bias[j]);
    y[row * n + j] = from_float<T>(out);
  }
}

// ---- launch plans --------------------------------------------------------------------------------

struct Plan {
  enum class Kind { warp_regs, block_regs, stream_vec, stream_scalar } kind;
  int maxv = 0;     // packs per thread (register paths)
  int threads = 0;
  long long blocks = 0;
};

Plan plan_for(const ops::OpShape& s, bool aligned) {
  const int p = static_cast<int>(16 / dtype_size_bytes(s.dtype));
  Plan plan{};
  const bool vec = aligned && s.n % p == 0;
  const long long nvec = s.n / p;
  // At most 32 floats of row per thread, so 1024-thread blocks stay within 64 registers.
  const int max_packs = 32 / p;
  if (vec && nvec <= 128) {
    plan.kind = Plan::Kind::warp_regs;
    plan.maxv = nvec <= 32 ? 1 : nvec <= 64 ? 2 : 4;
    plan.threads = 256;  // 8 rows per block
    plan.blocks = (s.m + 7) / 8;
  } else if (vec && nvec <= 1024LL * max_packs) {
    plan.kind = Plan::Kind::block_regs;
    plan.maxv = nvec <= 2048 ? 2 : nvec <= 4096 ? 4 : 8;
    plan.threads = threads_for((nvec + plan.maxv - 1) / plan.maxv, 64, 1024);
    plan.blocks = s.m;
  } else {
    plan.kind = vec ? Plan::Kind::stream_vec : Plan::Kind::stream_scalar;
    plan.threads = threads_for(vec ? nvec : s.n, 64, 1024);
    plan.blocks = s.m;
  }
  return plan;
}

std::string describe(const Plan& p, ops::OpType op) {
  const char* name = op == ops::OpType::layernorm ? "layernorm" : "rmsnorm";
  switch (p.kind) {
    case Plan::Kind::warp_regs:
      return str_cat("caliber ", name, ": a warp per row, row in registers (", p.maxv, " x 16-byte packs per lane), warp-shuffle reductions");
    case Plan::Kind::block_regs:
      return str_cat("caliber ", name, ": a block of ", p.threads, " threads per row, row in registers (", p.maxv, " x 16-byte packs per thread), block reductions");
    case Plan::Kind::stream_vec:
      return str_cat("caliber ", name, ": streaming block of ", p.threads, " threads per row, 16-byte loads, row re-read per pass");
    case Plan::Kind::stream_scalar:
      return str_cat("caliber ", name, ": streaming block of ", p.threads, " threads per row, scalar loads (row not a multiple of 16 bytes)");
  }
  return name;
}

template <typename T, bool LAYER>
void launch_caliber(const Plan& p, const OpBuffers& b, const ops::OpShape& s, cudaStream_t stream) {
  const T* x = static_cast<const T*>(b.inputs[0]);
  const T* w = static_cast<const T*>(b.inputs[1]);
  const T* bias = LAYER ? static_cast<const T*>(b.inputs[2]) : nullptr;
  T* y = static_cast<T*>(b.output);
  const int n = static_cast<int>(s.n);
  const float eps = static_cast<float>(s.eps);
  const dim3 grid(static_cast<unsigned>(p.blocks)), block(static_cast<unsigned>(p.threads));
  switch (p.kind) {
    case Plan::Kind::warp_regs:
      if (p.maxv == 1) norm_regs_kernel<T, 1, true, LAYER><<<grid, block, 0, stream>>>(x, w, bias, y, s.m, n, eps);
      else if (p.maxv == 2) norm_regs_kernel<T, 2, true, LAYER><<<grid, block, 0, stream>>>(x, w, bias, y, s.m, n, eps);
      else norm_regs_kernel<T, 4, true, LAYER><<<grid, block, 0, stream>>>(x, w, bias, y, s.m, n, eps);
      break;
    case Plan::Kind::block_regs:
      if (p.maxv == 2) norm_regs_kernel<T, 2, false, LAYER><<<grid, block, 0, stream>>>(x, w, bias, y, s.m, n, eps);
      else if (p.maxv == 4) norm_regs_kernel<T, 4, false, LAYER><<<grid, block, 0, stream>>>(x, w, bias, y, s.m, n, eps);
      else if constexpr (sizeof(T) == 4) {  // 8 packs per thread only for fp32 (32 floats)
        norm_regs_kernel<T, 8, false, LAYER><<<grid, block, 0, stream>>>(x, w, bias, y, s.m, n, eps);
      }
      break;
    case Plan::Kind::stream_vec:
      norm_stream_kernel<T, true, LAYER><<<grid, block, 0, stream>>>(x, w, bias, y, n, eps);
      break;
    case Plan::Kind::stream_scalar:
      norm_stream_kernel<T, false, LAYER><<<grid, block, 0, stream>>>(x, w, bias, y, n, eps);
      break;
  }
  CALIBER_CUDA_CHECK_LAUNCH();
}

class CudaNorm final : public providers::Provider {
 public:
  CudaNorm(ops::OpType op, bool naive) : op_(op), naive_(naive) {}
  std::string name() const override { return naive_ ? "naive" : "caliber"; }

  std::string detail(const ops::OpShape& s) const override {
    if (naive_) {
      return str_cat("naive ", ops::to_string(op_), ": a block of 256 threads per row, scalar loads, shared-memory tree reductions");
    }
    return describe(plan_for(s, true), op_);
  }

  Support supports(const ops::OpShape& s) const noexcept override {
    if (s.op != op_) return Support::no("different op");
    if (s.m > 2147483647LL) return Support::no("more than 2^31 - 1 rows (one block per row)");
    return Support::yes();
  }

  void run(const ops::OpShape& s, const OpBuffers& b, void* stream_ptr) override {
    const auto stream = static_cast<cudaStream_t>(stream_ptr);
    const bool layer = op_ == ops::OpType::layernorm;
    if (naive_) {
      const dim3 grid(static_cast<unsigned>(s.m)), block(kNaiveThreads);
      const int n = static_cast<int>(s.n);
      const float eps = static_cast<float>(s.eps);
      CALIBER_DISPATCH_DTYPE(s.dtype, {
        const T* x = static_cast<const T*>(b.inputs[0]);
        const T* w = static_cast<const T*>(b.inputs[1]);
        T* y = static_cast<T*>(b.output);
        if (layer) {
          norm_naive_kernel<T, true><<<grid, block, 0, stream>>>(x, w, static_cast<const T*>(b.inputs[2]), y, n, eps);
        } else {
          norm_naive_kernel<T, false><<<grid, block, 0, stream>>>(x, w, nullptr, y, n, eps);
        }
      });
      CALIBER_CUDA_CHECK_LAUNCH();
      return;
    }
    bool aligned = aligned16(b.output);
    for (const void* p : b.inputs) aligned = aligned && aligned16(p);
    const Plan plan = plan_for(s, aligned);
    CALIBER_DISPATCH_DTYPE(s.dtype, {
      if (layer) launch_caliber<T, true>(plan, b, s, stream);
      else launch_caliber<T, false>(plan, b, s, stream);
    });
  }

 private:
  ops::OpType op_;
  bool naive_;
};

}  // namespace

std::unique_ptr<providers::Provider> make_caliber_norm_provider(ops::OpType op) {
  return std::make_unique<CudaNorm>(op, false);
}
std::unique_ptr<providers::Provider> make_naive_norm_provider(ops::OpType op) {
  return std::make_unique<CudaNorm>(op, true);
}

}  // namespace caliber::cuda
