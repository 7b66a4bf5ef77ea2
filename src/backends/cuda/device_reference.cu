// The device fp64 reference of device_reference.cuh: a block per checked row for the norms and
// softmax, a thread per output column (and a few rows) for gemm. Every multiply, add, divide
// and square root is an explicitly rounded intrinsic, so nvcc's contraction into fused
// multiply-adds (which the host reference, compiled for baseline x86-64, never does) cannot
// change a value. The comparison with an output and the reference's sum of squares run over the
// checked elements as one flat range on a fixed grid: each thread sums its own elements in order,
// each block reduces in a fixed order, and the host adds the blocks in order, so the same data
// gives the same sums.
#include "backends/cuda/device_reference.cuh"
#include "backends/cuda/device_reference_math.h"

#include <algorithm>
#include <limits>
#include <memory>
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

std::size_t expected_inputs(const std::string& op) {
  if (op == "rmsnorm" || op == "gemm") return 2;
  if (op == "layernorm") return 3;
  if (op == "softmax") return 1;
  return 0;
}

template <typename T>
void launch(const ops::ReferenceProblem& p, const std::vector<const void*>& inputs, const std::int64_t* rows,
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

constexpr unsigned kFlatBlocks = 512;    // the fixed grid of the flat passes
constexpr unsigned kFlatThreads = 256;

// Block b's sum of squares of values[e], e in the thread-strided range of the grid.
__global__ void caliber_reference_sum_squares_kernel(const double* values, std::size_t count, double* block_sums) {
  __shared__ double partial[kFlatThreads / 32];
  double sq = 0;
  for (std::size_t e = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; e < count;
       e += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    sq = __dadd_rn(sq, __dmul_rn(values[e], values[e]));
  }
  sq = block_reduce(sq, partial, Sum{});
  if (threadIdx.x == 0) block_sums[blockIdx.x] = sq;
}

// Block b's terms of the comparison (ops::RowComparison) over its elements e = i n + j of the checked
// rows: output row rows[i], column j, against reference value e.
template <typename T>
__global__ void caliber_compare_rows_kernel(const T* out, const std::int64_t* rows, const double* ref, std::size_t n,
                                            std::size_t count, double rtol, double atol, double* block_terms) {
  __shared__ double partial[kFlatThreads / 32];
  double diff_sq = 0, max_scaled = 0, nonfinite = 0;
  for (std::size_t e = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; e < count;
       e += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const std::size_t i = e / n, j = e - i * n;
    const double v = load(out, static_cast<std::size_t>(rows[i]) * n + j);
    if (!isfinite(v)) {
      nonfinite += 1;
      continue;
    }
    const double d = __dsub_rn(v, ref[e]);
    diff_sq = __dadd_rn(diff_sq, __dmul_rn(d, d));
    const double bound = __dadd_rn(__dmul_rn(rtol, fabs(ref[e])), atol);
    const double scaled = bound > 0 ? __ddiv_rn(fabs(d), bound) : (d == 0 ? 0.0 : INFINITY);
    max_scaled = fmax(max_scaled, scaled);
  }
  diff_sq = block_reduce(diff_sq, partial, Sum{});
  max_scaled = block_reduce(max_scaled, partial, Max{});
  nonfinite = block_reduce(nonfinite, partial, Sum{});  // exact: counts below 2^53
  if (threadIdx.x == 0) {
    block_terms[3 * blockIdx.x] = diff_sq;
    block_terms[3 * blockIdx.x + 1] = max_scaled;
    block_terms[3 * blockIdx.x + 2] = nonfinite;
  }
}

unsigned flat_blocks(std::size_t count) {
  return static_cast<unsigned>(std::min<std::size_t>(kFlatBlocks, (count + kFlatThreads - 1) / kFlatThreads));
}

// One allocation for a reference: its values, its rows and the per-block terms of the passes
// (ops::DeviceReference::memory).
struct ReferenceMemory {
  void* ptr = nullptr;
  double* terms = nullptr;  // 3 x kFlatBlocks
  ~ReferenceMemory() {
    if (ptr) cudaFree(ptr);
  }
};

std::size_t round_up(std::size_t bytes) { return (bytes + 255) / 256 * 256; }

}  // namespace

std::optional<ops::DeviceReference> reference_rows_on_device(const ops::ReferenceProblem& problem,
                                                        const std::vector<const void*>& inputs,
                                                        const std::vector<std::int64_t>& rows, cudaStream_t stream) {
  const std::size_t want = expected_inputs(problem.op_type);
  if (want == 0) return std::nullopt;
  if (inputs.size() != want) {
    throw std::invalid_argument("reference_rows_on_device: " + problem.op_type + " takes " + std::to_string(want) +
                                " inputs, got " + std::to_string(inputs.size()));
  }
  const auto n = static_cast<std::size_t>(problem.n);
  const std::size_t count = rows.size() * n;
  if (count == 0) return std::nullopt;

  // Beyond the grid a launch can have (a caller asking for far more than a check's budget): the
  // host computes it.
  if (problem.op_type == "gemm") {
    const std::size_t groups = (rows.size() + kGemmRowsPerThread - 1) / kGemmRowsPerThread;
    if (groups * ((n + 255) / 256) > static_cast<std::size_t>(std::numeric_limits<int>::max())) return std::nullopt;
  } else if (rows.size() > static_cast<std::size_t>(std::numeric_limits<int>::max())) {
    return std::nullopt;
  }

  const std::size_t values_bytes = round_up(count * sizeof(double));
  const std::size_t rows_bytes = round_up(rows.size() * sizeof(std::int64_t));
  const std::size_t terms_bytes = 3 * kFlatBlocks * sizeof(double);
  auto memory = std::make_shared<ReferenceMemory>();
  const cudaError_t e = cudaMalloc(&memory->ptr, values_bytes + rows_bytes + terms_bytes);
  if (e == cudaErrorMemoryAllocation) {  // no room: the host computes it (the error is not sticky)
    cudaGetLastError();
    memory->ptr = nullptr;
    return std::nullopt;
  }
  check(e, "cudaMalloc", __FILE__, __LINE__);
  auto* base = static_cast<char*>(memory->ptr);
  auto* values = reinterpret_cast<double*>(base);
  auto* device_rows = reinterpret_cast<std::int64_t*>(base + values_bytes);
  auto* terms = reinterpret_cast<double*>(base + values_bytes + rows_bytes);
  memory->terms = terms;

  CALIBER_CUDA_CHECK(cudaMemcpyAsync(device_rows, rows.data(), rows.size() * sizeof(std::int64_t),
                                     cudaMemcpyHostToDevice, stream));
  switch (problem.dtype) {
    case DType::fp32: launch<float>(problem, inputs, device_rows, rows.size(), values, stream); break;
    case DType::bf16: launch<__nv_bfloat16>(problem, inputs, device_rows, rows.size(), values, stream); break;
    case DType::fp16: launch<__half>(problem, inputs, device_rows, rows.size(), values, stream); break;
  }
  const unsigned blocks = flat_blocks(count);
  caliber_reference_sum_squares_kernel<<<blocks, kFlatThreads, 0, stream>>>(values, count, terms);
  CALIBER_CUDA_CHECK_LAUNCH();
  std::vector<double> block_sums(blocks);
  CALIBER_CUDA_CHECK(
      cudaMemcpyAsync(block_sums.data(), terms, blocks * sizeof(double), cudaMemcpyDeviceToHost, stream));
  CALIBER_CUDA_CHECK(cudaStreamSynchronize(stream));

  ops::DeviceReference ref;
  for (double b : block_sums) ref.sum_of_squares += b;
  ref.values = values;
  ref.rows = device_rows;
  ref.row_count = rows.size();
  ref.n = problem.n;
  ref.memory = memory;
  return ref;
}

ops::RowComparison compare_rows_on_device(const ops::DeviceReference& reference, const void* device_output, DType dtype,
                                     double rtol, double atol, cudaStream_t stream) {
  const auto n = static_cast<std::size_t>(reference.n);
  const std::size_t count = reference.row_count * n;
  ops::RowComparison sums;
  if (count == 0) return sums;
  if (!reference.memory) throw std::invalid_argument("compare_rows_on_device: not a reference of this backend");
  double* terms = static_cast<ReferenceMemory*>(reference.memory.get())->terms;
  const unsigned blocks = flat_blocks(count);
  switch (dtype) {
    case DType::fp32:
      caliber_compare_rows_kernel<float><<<blocks, kFlatThreads, 0, stream>>>(
          static_cast<const float*>(device_output), reference.rows, reference.values, n, count, rtol, atol, terms);
      break;
    case DType::bf16:
      caliber_compare_rows_kernel<__nv_bfloat16><<<blocks, kFlatThreads, 0, stream>>>(
          static_cast<const __nv_bfloat16*>(device_output), reference.rows, reference.values, n, count, rtol, atol,
          terms);
      break;
    case DType::fp16:
      caliber_compare_rows_kernel<__half><<<blocks, kFlatThreads, 0, stream>>>(
          static_cast<const __half*>(device_output), reference.rows, reference.values, n, count, rtol, atol, terms);
      break;
  }
  CALIBER_CUDA_CHECK_LAUNCH();
  std::vector<double> host_terms(3 * static_cast<std::size_t>(blocks));
  CALIBER_CUDA_CHECK(cudaMemcpyAsync(host_terms.data(), terms, host_terms.size() * sizeof(double),
                                     cudaMemcpyDeviceToHost, stream));
  CALIBER_CUDA_CHECK(cudaStreamSynchronize(stream));
  double nonfinite = 0;
  for (unsigned b = 0; b < blocks; ++b) {
    sums.diff_sq += host_terms[3 * b];
    sums.max_scaled = std::max(sums.max_scaled, host_terms[3 * b + 1]);
    nonfinite += host_terms[3 * b + 2];
  }
  sums.nonfinite = static_cast<std::int64_t>(nonfinite);
  return sums;
}

namespace {

// The interface the runner sees, on the backend's stream.
class CudaDeviceReferenceMath : public ops::DeviceReferenceMath {
 public:
  explicit CudaDeviceReferenceMath(Backend& backend) : stream_(static_cast<cudaStream_t>(backend.stream())) {}
  std::optional<ops::DeviceReference> reference_rows(const ops::ReferenceProblem& problem,
                                                     const std::vector<const void*>& device_inputs,
                                                     const std::vector<std::int64_t>& rows) override {
    return reference_rows_on_device(problem, device_inputs, rows, stream_);
  }
  ops::RowComparison compare_rows(const ops::DeviceReference& reference, const void* device_output, DType dtype,
                                  double rtol, double atol) override {
    return compare_rows_on_device(reference, device_output, dtype, rtol, atol, stream_);
  }

 private:
  cudaStream_t stream_;
};

}  // namespace

std::unique_ptr<ops::DeviceReferenceMath> make_device_reference_math(Backend& backend) {
  return std::make_unique<CudaDeviceReferenceMath>(backend);
}

}  // namespace caliber::cuda
