// cuda softmax (last dimension) providers.
//  caliber: 16-byte loads and stores; short and medium rows held in registers (a warp per row, or
//           a block per row) with shuffle reductions; long rows streamed with an online
//           (max, sum) pass and a write pass; when there are too few rows to fill the device
//           (decode logits), each row is split over several blocks whose partial (max, sum)
//           are combined in a second kernel.
//  naive:   a block of 256 threads per row, scalar loads, shared-memory tree reductions, three
//           passes over global memory.
#include <algorithm>

#include "backends/cuda/cuda_check.cuh"
#include "backends/cuda/cuda_kernel_common.cuh"
#include "providers/cuda/cuda_providers.h"

namespace caliber::cuda {
namespace {

using providers::OpBuffers;
using providers::Support;

// ---- caliber: row in registers -------------------------------------------------------------------

template <typename T, int MAXV, bool WARP>
__global__ void __launch_bounds__(1024) softmax_regs_kernel(const T* __restrict__ x, T* __restrict__ y, long long m,
                                                            int n) {
  constexpr int P = kPack<T>;
  __shared__ float scratch[32];
  const int lanes = WARP ? 32 : static_cast<int>(blockDim.x);
  const int tid = WARP ? static_cast<int>(threadIdx.x & 31) : static_cast<int>(threadIdx.x);
  const long long row = WARP ? static_cast<long long>(blockIdx.x) * (blockDim.x >> 5) + (threadIdx.x >> 5)
                             : static_cast<long long>(blockIdx.x);
  if (WARP && row >= m) return;
  const int nvec = n / P;
  const T* xr = x + row * n;
  FloatPack<T> v[MAXV];
  float mx = -INFINITY;
#pragma unroll
  for (int i = 0; i < MAXV; ++i) {
    const int idx = tid + i * lanes;
    if (idx < nvec) {
      v[i] = load_pack(xr + static_cast<long long>(idx) * P);
#pragma unroll
      for (int e = 0; e < P; ++e) mx = fmaxf(mx, v[i].v[e]);
    }
  }
  mx = WARP ? warp_max(mx) : block_max(mx, scratch);
  float sum = 0.0f;
#pragma unroll
  for (int i = 0; i < MAXV; ++i) {
    if (tid + i * lanes < nvec) {
#pragma unroll
      for (int e = 0; e < P; ++e) {
        v[i].v[e] = __expf(v[i].v[e] - mx);
        sum += v[i].v[e];
      }
    }
  }
  sum = WARP ? warp_sum(sum) : block_sum(sum, scratch);
  const float inv = 1.0f / sum;
  T* yr = y + row * n;
#pragma unroll
  for (int i = 0; i < MAXV; ++i) {
    const int idx = tid + i * lanes;
    if (idx < nvec) {
#pragma unroll
      for (int e = 0; e < P; ++e) v[i].v[e] *= inv;
      store_pack(yr + static_cast<long long>(idx) * P, v[i]);
    }
  }
}

// ---- caliber: streaming -----------------------------------------------------------------------

// Online (max, sum of exp(x - max)) over elements [begin, end) of a row, per thread.
template <typename T, bool VEC>
__device__ __forceinline__ void online_max_sum(const T* xr, long long begin, long long end, float& mx, float& sum) {
  constexpr int P = VEC ? kPack<T> : 1;
  mx = -INFINITY;
  sum = 0.0f;
  for (long long idx = begin / P + threadIdx.x; idx < end / P; idx += blockDim.x) {
    float vals[P];
    if constexpr (VEC) {
      const FloatPack<T> p = load_pack(xr + idx * P);
#pragma unroll
      for (int e = 0; e < P; ++e) vals[e] = p.v[e];
    } else {
      vals[0] = to_float(xr[idx]);
    }
    float local = vals[0];
#pragma unroll
    for (int e = 1; e < P; ++e) local = fmaxf(local, vals[e]);
    if (local > mx) {
      sum *= __expf(mx - local);
      mx = local;
    }
#pragma unroll
    for (int e = 0; e < P; ++e) sum += __expf(vals[e] - mx);
  }
}

// Combines per-thread (max, sum) pairs over the block.
__device__ __forceinline__ void block_combine(float& mx, float& sum, float* scratch) {
  const float block_mx = block_max(mx, scratch);
  const float scaled = mx == -INFINITY ? 0.0f : sum * __expf(mx - block_mx);
  sum = block_sum(scaled, scratch);
  mx = block_mx;
}

template <typename T, bool VEC>
__device__ __forceinline__ void write_normalized(const T* xr, T* yr, long long begin, long long end, float mx,
                                                 float inv) {
  constexpr int P = VEC ? kPack<T> : 1;
  for (long long idx = begin / P + threadIdx.x; idx < end / P; idx += blockDim.x) {
    if constexpr (VEC) {
      FloatPack<T> p = load_pack(xr + idx * P);
#pragma unroll
      for (int e = 0; e < P; ++e) p.v[e] = __expf(p.v[e] - mx) * inv;
      store_pack(yr + idx * P, p);
    } else {
      yr[idx] = from_float<T>(__expf(to_float(xr[idx]) - mx) * inv);
    }
  }
}

template <typename T, bool VEC>
__global__ void __launch_bounds__(1024) softmax_stream_kernel(const T* __restrict__ x, T* __restrict__ y, int n) {
  __shared__ float scratch[32];
  const long long row = blockIdx.x;
  const T* xr = x + row * n;
  float mx, sum;
  online_max_sum<T, VEC>(xr, 0, n, mx, sum);
  block_combine(mx, sum, scratch);
  write_normalized<T, VEC>(xr, y + row * n, 0, n, mx, 1.0f / sum);
}

// Split rows: block (s, row) handles segment s of the row. Pass 1 writes its partial (max, sum).
template <typename T, bool VEC>
__global__ void __launch_bounds__(1024) softmax_split_partial_kernel(const T* __restrict__ x, float2* partial, int n,
                                                                     long long segment) {
  __shared__ float scratch[32];
  const long long row = blockIdx.y;
  const long long begin = blockIdx.x * segment;
  const long long end = begin + segment < n ? begin + segment : n;
  float mx, sum;
  online_max_sum<T, VEC>(x + row * n, begin, end, mx, sum);
  block_combine(mx, sum, scratch);
  if (threadIdx.x == 0) partial[row * gridDim.x + blockIdx.x] = make_float2(mx, sum);
}

// Pass 2: every block combines its row's partials (few) and writes its segment.
template <typename T, bool VEC>
__global__ void __launch_bounds__(1024) softmax_split_write_kernel(const T* __restrict__ x, T* __restrict__ y,
                                                                   const float2* partial, int n, long long segment) {
  const long long row = blockIdx.y;
  const float2* pr = partial + row * gridDim.x;
  float mx = -INFINITY;
  for (unsigned s = 0; s < gridDim.x; ++s) mx = fmaxf(mx, pr[s].x);
  float sum = 0.0f;
  for (unsigned s = 0; s < gridDim.x; ++s) sum += pr[s].x == -INFINITY ? 0.0f : pr[s].y * __expf(pr[s].x - mx);
  const long long begin = blockIdx.x * segment;
  const long long end = begin + segment < n ? begin + segment : n;
  write_normalized<T, VEC>(x + row * n, y + row * n, begin, end, mx, 1.0f / sum);
}

// ---- naive ---------------------------------------------------------------------------------------

constexpr int kNaiveThreads = 256;

template <bool MAX>
__device__ float naive_reduce(float v, float* s) {
  __syncthreads();
  s[threadIdx.x] = v;
  __syncthreads();
  for (int stride = kNaiveThreads / 2; stride > 0; stride >>= 1) {
    if (static_cast<int>(threadIdx.x) < stride) {
      s[threadIdx.x] = MAX ? fmaxf(s[threadIdx.x], s[threadIdx.x + stride]) : s[threadIdx.x] + s[threadIdx.x + stride];
    }
    __syncthreads();
  }
  return s[0];
}

template <typename T>
__global__ void softmax_naive_kernel(const T* x, T* y, int n) {
  __shared__ float s[kNaiveThreads];
  const long long row = blockIdx.x;
  const T* xr = x + row * n;
  float mx = -INFINITY;
  for (int j = threadIdx.x; j < n; j += kNaiveThreads) mx = fmaxf(mx, to_float(xr[j]));
  mx = naive_reduce<true>(mx, s);
  float sum = 0.0f;
  for (int j = threadIdx.x; j < n; j += kNaiveThreads) sum += expf(to_float(xr[j]) - mx);
  sum = naive_reduce<false>(sum, s);
  for (int j = threadIdx.x; j < n; j += kNaiveThreads) y[row * n + j] = from_float<T>(expf(to_float(xr[j]) - mx) / sum);
}

// ---- plans ---------------------------------------------------------------------------------------

struct Plan {
  enum class Kind { warp_regs, block_regs, stream, split } kind;
  bool vec = false;
  int maxv = 0;
  int threads = 0;
  long long blocks = 0;
  int splits = 1;
  long long segment = 0;  // elements per split (a multiple of the pack)
};

Plan plan_for(const ops::OpShape& s, bool aligned, int sms) {
  const int p = static_cast<int>(16 / dtype_size_bytes(s.dtype));
  Plan plan{};
  plan.vec = aligned && s.n % p == 0;
  const long long nvec = plan.vec ? s.n / p : s.n;
  const int max_packs = 32 / p;  // 32 floats of row per thread at most
  if (plan.vec && nvec <= 128) {
    plan.kind = Plan::Kind::warp_regs;
    plan.maxv = nvec <= 32 ? 1 : nvec <= 64 ? 2 : 4;
    plan.threads = 256;
    plan.blocks = (s.m + 7) / 8;
    return plan;
  }
  if (plan.vec && nvec <= 1024LL * max_packs && s.m >= 2LL * sms) {
    plan.kind = Plan::Kind::block_regs;
    plan.maxv = nvec <= 2048 ? 2 : nvec <= 4096 ? 4 : 8;
    plan.threads = threads_for((nvec + plan.maxv - 1) / plan.maxv, 64, 1024);
    plan.blocks = s.m;
    return plan;
  }
  // Too few rows to fill the device: split each row over blocks of >= 4096 packs' work.
  const long long want = (2LL * sms + s.m - 1) / s.m;
  const long long by_size = nvec / 4096;
  const long long splits = want < by_size ? want : by_size;
  if (splits >= 2 && s.m <= 65535) {
    plan.kind = Plan::Kind::split;
    plan.splits = static_cast<int>(splits);
    const long long per = (nvec + splits - 1) / splits;
    plan.segment = per * (plan.vec ? p : 1);
    plan.threads = 1024;
    plan.blocks = s.m;
    return plan;
  }
  if (plan.vec && nvec <= 1024LL * max_packs) {
    plan.kind = Plan::Kind::block_regs;
    plan.maxv = nvec <= 2048 ? 2 : nvec <= 4096 ? 4 : 8;
    plan.threads = threads_for((nvec + plan.maxv - 1) / plan.maxv, 64, 1024);
    plan.blocks = s.m;
    return plan;
  }
  plan.kind = Plan::Kind::stream;
  plan.threads = threads_for(nvec, 64, 1024);
  plan.blocks = s.m;
  return plan;
}

std::string describe(const Plan& p) {
  const char* loads = p.vec ? "16-byte loads" : "scalar loads (row not a multiple of 16 bytes)";
  switch (p.kind) {
    case Plan::Kind::warp_regs:
      return str_cat("caliber softmax: a warp per row, row in registers (", p.maxv, " packs per lane), ", loads);
    case Plan::Kind::block_regs:
      return str_cat("caliber softmax: a block of ", p.threads, " threads per row, row in registers (", p.maxv, " packs per thread), ", loads);
    case Plan::Kind::stream:
      return str_cat("caliber softmax: streaming block of ", p.threads, " threads per row, online max/sum pass + write pass, ", loads);
    case Plan::Kind::split:
      return str_cat("caliber softmax: each row split over ", p.splits, " blocks (online max/sum partials, then a combining write kernel), ", loads);
  }
  return "caliber softmax";
}

template <typename T>
void launch(const Plan& p, const T* x, T* y, const ops::OpShape& s, float2* partial, cudaStream_t stream) {
  const int n = static_cast<int>(s.n);
  const dim3 block(static_cast<unsigned>(p.threads));
  switch (p.kind) {
    case Plan::Kind::warp_regs: {
      const dim3 grid(static_cast<unsigned>(p.blocks));
      if (p.maxv == 1) softmax_regs_kernel<T, 1, true><<<grid, block, 0, stream>>>(x, y, s.m, n);
      else if (p.maxv == 2) softmax_regs_kernel<T, 2, true><<<grid, block, 0, stream>>>(x, y, s.m, n);
      else softmax_regs_kernel<T, 4, true><<<grid, block, 0, stream>>>(x, y, s.m, n);
      break;
    }
    case Plan::Kind::block_regs: {
      const dim3 grid(static_cast<unsigned>(p.blocks));
      if (p.maxv == 2) softmax_regs_kernel<T, 2, false><<<grid, block, 0, stream>>>(x, y, s.m, n);
      else if (p.maxv == 4) softmax_regs_kernel<T, 4, false><<<grid, block, 0, stream>>>(x, y, s.m, n);
      else if constexpr (sizeof(T) == 4) {  // 8 packs per thread only for fp32 (32 floats)
        softmax_regs_kernel<T, 8, false><<<grid, block, 0, stream>>>(x, y, s.m, n);
      }
      break;
    }
    case Plan::Kind::stream: {
      const dim3 grid(static_cast<unsigned>(p.blocks));
      if (p.vec) softmax_stream_kernel<T, true><<<grid, block, 0, stream>>>(x, y, n);
      else softmax_stream_kernel<T, false><<<grid, block, 0, stream>>>(x, y, n);
      break;
    }
    case Plan::Kind::split: {
      const dim3 grid(static_cast<unsigned>(p.splits), static_cast<unsigned>(p.blocks));
      if (p.vec) {
        softmax_split_partial_kernel<T, true><<<grid, block, 0, stream>>>(x, partial, n, p.segment);
        CALIBER_CUDA_CHECK_LAUNCH();
        softmax_split_write_kernel<T, true><<<grid, block, 0, stream>>>(x, y, partial, n, p.segment);
      } else {
        softmax_split_partial_kernel<T, false><<<grid, block, 0, stream>>>(x, partial, n, p.segment);
        CALIBER_CUDA_CHECK_LAUNCH();
        softmax_split_write_kernel<T, false><<<grid, block, 0, stream>>>(x, y, partial, n, p.segment);
      }
      break;
    }
  }
  CALIBER_CUDA_CHECK_LAUNCH();
}

int device_sms() {
  int device = 0, sms = 0;
  CALIBER_CUDA_CHECK(cudaGetDevice(&device));
  CALIBER_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return sms;
}

class CudaSoftmax final : public providers::Provider {
 public:
  explicit CudaSoftmax(bool naive) : naive_(naive) {}
  std::string name() const override { return naive_ ? "naive" : "caliber"; }

  std::string detail(const ops::OpShape& s) const override {
    if (naive_) return "naive softmax: a block of 256 threads per row, scalar loads, expf, three passes";
    return describe(plan_for(s, true, sms_ > 0 ? sms_ : 132));
  }

  Support supports(const ops::OpShape& s) const noexcept override {
    if (s.op != ops::OpType::softmax) return Support::no("different op");
    if (s.m > 2147483647LL) return Support::no("more than 2^31 - 1 rows (one block per row)");
    return Support::yes();
  }

  void prepare(const ops::OpShape& s, Backend& backend) override {
    if (naive_) return;
    if (sms_ == 0) sms_ = device_sms();
    // The partials' workspace, allocated here, outside every timed window; sized for either
    // alignment, since run() picks the plan from the buffers it gets.
    std::size_t bytes = 0;
    for (bool aligned : {true, false}) {
      const Plan plan = plan_for(s, aligned, sms_);
      if (plan.kind == Plan::Kind::split) {
        bytes = std::max(bytes, static_cast<std::size_t>(plan.blocks) * plan.splits * sizeof(float2));
      }
    }
    if (bytes > 0) partial_ = DeviceBuffer(backend, bytes);
  }
  void release() override { partial_.reset(); }

  void run(const ops::OpShape& s, const OpBuffers& b, void* stream_ptr) override {
    const auto stream = static_cast<cudaStream_t>(stream_ptr);
    if (naive_) {
      CALIBER_DISPATCH_DTYPE(s.dtype, {
        softmax_naive_kernel<T><<<static_cast<unsigned>(s.m), kNaiveThreads, 0, stream>>>(
            static_cast<const T*>(b.inputs[0]), static_cast<T*>(b.output), static_cast<int>(s.n));
      });
      CALIBER_CUDA_CHECK_LAUNCH();
      return;
    }
    if (sms_ == 0) sms_ = device_sms();
    const bool aligned = aligned16(b.inputs[0]) && aligned16(b.output);
    Plan plan = plan_for(s, aligned, sms_);
    if (plan.kind == Plan::Kind::split && !partial_.get()) {
      throw providers::ProviderError("softmax split plan without a workspace: prepare() was not called");
    }
    CALIBER_DISPATCH_DTYPE(s.dtype, {
      launch<T>(plan, static_cast<const T*>(b.inputs[0]), static_cast<T*>(b.output), s,
                static_cast<float2*>(partial_.get()), stream);
    });
  }

 private:
  bool naive_;
  int sms_ = 0;
  DeviceBuffer partial_;
};

}  // namespace

std::unique_ptr<providers::Provider> make_caliber_softmax_provider() { return std::make_unique<CudaSoftmax>(false); }
std::unique_ptr<providers::Provider> make_naive_softmax_provider() { return std::make_unique<CudaSoftmax>(true); }

}  // namespace caliber::cuda
