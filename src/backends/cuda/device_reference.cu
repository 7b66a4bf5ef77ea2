// The device fp64 reference of device_reference.cuh: a block per checked row for the norms and
// softmax, a thread per output column (and a few rows) for gemm. Every multiply, add, divide
// and square root is an explicitly rounded intrinsic, so nvcc's contraction into fused
// multiply-adds (which the host reference, compiled for baseline x86-64, never does) cannot
// change a value.
#include "backends/cuda/device_reference.cuh"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

#include "backends/cuda/cuda_check.cuh"
#include "backends/cuda/cuda_kernel_common.cuh"

namespace caliber::cuda {
namespace {

constexpr int kRowThreads = 256;       // threads of a row's block (norms, softmax)
constexpr int kGemmRowsPerThread = 4;  // independent accumulators per gemm thread

// Input elements as doubles, exactly (every element type converts exactly, as on the host).
template <typename T>
__device__ __forceinline__ double load(const T* p, std::size_t i) {
  return static_cast<double>(to_float(p[i]));
}

struct Sum {
  __device__ double operator()(double a, double b) const { return __dadd_rn(a, b); }
};
struct Max {
  __device__ double operator()(double a, double b) const { return fmax(a, b); }
};

// The block's reduction of one value per thread, the same value in every thread: a butterfly
// in each warp (symmetric, so every lane holds the same result), then the warps in order.
template <typename Combine>
__device__ double block_reduce(double v, double* partial, Combine combine) {
  for (int offset = 16; offset > 0; offset >>= 1) v = combine(v, __shfl_xor_sync(0xffffffffu, v, offset));
  const unsigned warp = threadIdx.x / 32;
  if (threadIdx.x % 32 == 0) partial[warp] = v;
  __syncthreads();
  double r = partial[0];
  for (unsigned w = 1; w < blockDim.x / 32; ++w) r = combine(r, partial[w]);
  __syncthreads();  // `partial` is reused by the next reduction
  return r;
}

// y = x / sqrt(mean(x^2) + eps) * w, evaluated as (x * rstd) * w like the host.
template <typename T>
__global__ void caliber_reference_rmsnorm_kernel(const T* x, const T* w, const std::int64_t* rows, std::size_t n,
                                                 double eps, double* out) {
  __shared__ double partial[kRowThreads / 32];
  const T* xr = x + static_cast<std::size_t>(rows[blockIdx.x]) * n;
  double* o = out + static_cast<std::size_t>(blockIdx.x) * n;
  double sum_sq = 0;
  for (std::size_t j = threadIdx.x; j < n; j += blockDim.x) {
    const double v = load(xr, j);
    sum_sq = __dadd_rn(sum_sq, __dmul_rn(v, v));
  }
  sum_sq = block_reduce(sum_sq, partial, Sum{});
  const double rstd = __ddiv_rn(1.0, __dsqrt_rn(__dadd_rn(__ddiv_rn(sum_sq, static_cast<double>(n)), eps)));
  for (std::size_t j = threadIdx.x; j < n; j += blockDim.x) o[j] = __dmul_rn(__dmul_rn(load(xr, j), rstd), load(w, j));
}

// y = (x - mean) * rstd * w + b with the biased variance of the centred values, like the host.
template <typename T>
__global__ void caliber_reference_layernorm_kernel(const T* x, const T* w, const T* b, const std::int64_t* rows,
                                                   std::size_t n, double eps, double* out) {
  __shared__ double partial[kRowThreads / 32];
  const T* xr = x + static_cast<std::size_t>(rows[blockIdx.x]) * n;
  double* o = out + static_cast<std::size_t>(blockIdx.x) * n;
  double sum = 0;
  for (std::size_t j = threadIdx.x; j < n; j += blockDim.x) sum = __dadd_rn(sum, load(xr, j));
  const double mean = __ddiv_rn(block_reduce(sum, partial, Sum{}), static_cast<double>(n));
  double sum_sq = 0;
  for (std::size_t j = threadIdx.x; j < n; j += blockDim.x) {
    const double d = __dsub_rn(load(xr, j), mean);
    sum_sq = __dadd_rn(sum_sq, __dmul_rn(d, d));
  }
  sum_sq = block_reduce(sum_sq, partial, Sum{});
  const double rstd = __ddiv_rn(1.0, __dsqrt_rn(__dadd_rn(__ddiv_rn(sum_sq, static_cast<double>(n)), eps)));
  for (std::size_t j = threadIdx.x; j < n; j += blockDim.x) {
    const double d = __dsub_rn(load(xr, j), mean);
    o[j] = __dadd_rn(__dmul_rn(__dmul_rn(d, rstd), load(w, j)), load(b, j));
  }
}

// y = exp(x - max) / sum(exp(x - max)). Each thread divides the elements it wrote itself.
template <typename T>
__global__ void caliber_reference_softmax_kernel(const T* x, const std::int64_t* rows, std::size_t n, double* out) {
  __shared__ double partial[kRowThreads / 32];
  const T* xr = x + static_cast<std::size_t>(rows[blockIdx.x]) * n;
  double* o = out + static_cast<std::size_t>(blockIdx.x) * n;
  double mx = -INFINITY;
  for (std::size_t j = threadIdx.x; j < n; j += blockDim.x) mx = fmax(mx, load(xr, j));
  mx = block_reduce(mx, partial, Max{});
  double sum = 0;
  for (std::size_t j = threadIdx.x; j < n; j += blockDim.x) {
    o[j] = exp(__dsub_rn(load(xr, j), mx));
    sum = __dadd_rn(sum, o[j]);
  }
  sum = block_reduce(sum, partial, Sum{});
  for (std::size_t j = threadIdx.x; j < n; j += blockDim.x) o[j] = __ddiv_rn(o[j], sum);
}

// C[rows, j] = sum_p A[rows, p] B[p, j], p in increasing order from 0 like the host: the same
// value bit for bit. A block covers `threads` columns of kGemmRowsPerThread checked rows;
// consecutive blocks take the same columns for the next rows, so the B panel they stream is
// read from L2 once per column range rather than once per group of rows.
template <typename T>
__global__ void caliber_reference_gemm_kernel(const T* a, const T* b, const std::int64_t* rows, std::size_t count,
                                              std::size_t groups, std::size_t n, std::size_t k, double* out) {
  const std::size_t group = blockIdx.x % groups;
  const std::size_t j = (blockIdx.x / groups) * blockDim.x + threadIdx.x;
  if (j >= n) return;
  const std::size_t r0 = group * kGemmRowsPerThread;
  const std::size_t live = count - r0 < kGemmRowsPerThread ? count - r0 : kGemmRowsPerThread;
  const T* ar[kGemmRowsPerThread];
#pragma unroll
  for (int r = 0; r < kGemmRowsPerThread; ++r) {
    // Past the last row the thread repeats that row (never written back): no branch in the loop.
    const std::size_t i = r0 + (static_cast<std::size_t>(r) < live ? static_cast<std::size_t>(r) : live - 1);
    ar[r] = a + static_cast<std::size_t>(rows[i]) * k;
  }
  double acc[kGemmRowsPerThread] = {};
#pragma unroll 4
  for (std::size_t p = 0; p < k; ++p) {
    const double bv = load(b, p * n + j);
#pragma unroll
    for (int r = 0; r < kGemmRowsPerThread; ++r) acc[r] = __dadd_rn(acc[r], __dmul_rn(load(ar[r], p), bv));
  }
  for (std::size_t r = 0; r < live; ++r) out[(r0 + r) * n + j] = acc[r];
}

// Device memory freed on scope exit.
struct DeviceScratch {
  void* ptr = nullptr;
  ~DeviceScratch() {
    if (ptr) cudaFree(ptr);
  }
};

std::size_t expected_inputs(const std::string& op) {
  if (op == "rmsnorm" || op == "gemm") return 2;
  if (op == "layernorm") return 3;
  if (op == "softmax") return 1;
  return 0;
}

template <typename T>
void launch(const ReferenceProblem& p, const std::vector<const void*>& inputs, const std::int64_t* rows,
            std::size_t count, double* out, cudaStream_t stream) {
  const auto n = static_cast<std::size_t>(p.n);
  const auto in = [&](std::size_t i) { return static_cast<const T*>(inputs[i]); };
  const auto blocks = static_cast<unsigned>(count);
  if (p.op_type == "rmsnorm") {
    caliber_reference_rmsnorm_kernel<T><<<blocks, kRowThreads, 0, stream>>>(in(0), in(1), rows, n, p.eps, out);
  } else if (p.op_type == "layernorm") {
    caliber_reference_layernorm_kernel<T><<<blocks, kRowThreads, 0, stream>>>(in(0), in(1), in(2), rows, n, p.eps, out);
  } else if (p.op_type == "softmax") {
    caliber_reference_softmax_kernel<T><<<blocks, kRowThreads, 0, stream>>>(in(0), rows, n, out);
  } else {
    // Narrow outputs get narrow blocks (a gemm with n = 8 wastes no 248 threads per block).
    const std::size_t threads = std::min<std::size_t>(256, (n + 31) / 32 * 32);
    const std::size_t groups = (count + kGemmRowsPerThread - 1) / kGemmRowsPerThread;
    const std::size_t column_blocks = (n + threads - 1) / threads;
    caliber_reference_gemm_kernel<T><<<static_cast<unsigned>(groups * column_blocks), static_cast<unsigned>(threads), 0,
                                       stream>>>(in(0), in(1), rows, count, groups, n,
                                                 static_cast<std::size_t>(p.k), out);
  }
  CALIBER_CUDA_CHECK_LAUNCH();
}

}  // namespace

std::optional<std::vector<double>> reference_rows_on_device(const ReferenceProblem& problem,
                                                            const std::vector<const void*>& inputs,
                                                            const std::vector<std::int64_t>& rows,
                                                            cudaStream_t stream) {
  const std::size_t want = expected_inputs(problem.op_type);
  if (want == 0) return std::nullopt;
  if (inputs.size() != want) {
    throw std::invalid_argument("reference_rows_on_device: " + problem.op_type + " takes " + std::to_string(want) +
                                " inputs, got " + std::to_string(inputs.size()));
  }
  const auto n = static_cast<std::size_t>(problem.n);
  std::vector<double> values(rows.size() * n);
  if (values.empty()) return values;

  // Beyond the grid a launch can have (a caller asking for far more than a check's budget): the
  // host computes it.
  if (problem.op_type == "gemm") {
    const std::size_t groups = (rows.size() + kGemmRowsPerThread - 1) / kGemmRowsPerThread;
    if (groups * ((n + 255) / 256) > static_cast<std::size_t>(std::numeric_limits<int>::max())) return std::nullopt;
  }

  DeviceScratch device_rows, device_values;
  // false: no room on the device (not sticky: the error is cleared; the host computes it).
  const auto allocate = [](DeviceScratch& scratch, std::size_t bytes) {
    const cudaError_t e = cudaMalloc(&scratch.ptr, bytes);
    if (e == cudaErrorMemoryAllocation) {
      cudaGetLastError();
      scratch.ptr = nullptr;
      return false;
    }
    check(e, "cudaMalloc", __FILE__, __LINE__);
    return true;
  };
  if (!allocate(device_rows, rows.size() * sizeof(std::int64_t)) ||
      !allocate(device_values, values.size() * sizeof(double))) {
    return std::nullopt;
  }
  auto* rows_on_device = static_cast<std::int64_t*>(device_rows.ptr);
  auto* out = static_cast<double*>(device_values.ptr);
  CALIBER_CUDA_CHECK(cudaMemcpyAsync(rows_on_device, rows.data(), rows.size() * sizeof(std::int64_t),
                                     cudaMemcpyHostToDevice, stream));
  switch (problem.dtype) {
    case DType::fp32: launch<float>(problem, inputs, rows_on_device, rows.size(), out, stream); break;
    case DType::bf16: launch<__nv_bfloat16>(problem, inputs, rows_on_device, rows.size(), out, stream); break;
    case DType::fp16: launch<__half>(problem, inputs, rows_on_device, rows.size(), out, stream); break;
  }
  CALIBER_CUDA_CHECK(
      cudaMemcpyAsync(values.data(), out, values.size() * sizeof(double), cudaMemcpyDeviceToHost, stream));
  CALIBER_CUDA_CHECK(cudaStreamSynchronize(stream));
  return values;
}

}  // namespace caliber::cuda
