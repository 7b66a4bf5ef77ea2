// CUDA ceilings: a device-to-device cudaMemcpyAsync (memory bandwidth, bytes read + written) and a
// cuBLAS GEMM on random data (matrix flop rate: bf16 inputs/outputs with fp32 accumulation, and
// fp32 in the default math mode, which does not use TF32).
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/cuda/cuda_ceiling_workloads.h"
#include "backends/cuda/cublas_check.cuh"
#include "backends/cuda/cuda_check.cuh"
#include "backends/cuda/cuda_random.cuh"
#include "caliber/errors.h"
#include "core/unit_text.h"

namespace caliber::cuda {
namespace {

constexpr int kThreads = 256;

__global__ void count_differences_kernel(const std::uint32_t* a, const std::uint32_t* b, std::size_t n,
                                         unsigned long long* bad) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  unsigned long long local = 0;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n; i += stride) {
    local += a[i] != b[i];
  }
  if (local) atomicAdd(bad, local);
}

int grid_for(int sms) { return sms > 0 ? sms * 8 : 1024; }

class Buffer {
 public:
  explicit Buffer(std::size_t bytes) : bytes_(bytes) { CALIBER_CUDA_CHECK(cudaMalloc(&ptr_, bytes)); }
  ~Buffer() { cudaFree(ptr_); }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  template <typename T>
  T* as() const {
    return static_cast<T*>(ptr_);
  }
  std::size_t bytes() const { return bytes_; }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_;
};

class DeviceCopy final : public bench::Workload {
 public:
  DeviceCopy(std::size_t bytes, int sms, std::uint64_t seed) : words_(bytes / 4), sms_(sms), x_(words_ * 4), y_(words_ * 4) {
    fill_random_kernel<float><<<grid_for(sms_), kThreads>>>(x_.as<float>(), words_, seed);
    CALIBER_CUDA_CHECK_LAUNCH();
    poison_outputs();
  }

  void launch(const LaunchContext& ctx) override {
    CALIBER_CUDA_CHECK(cudaMemcpyAsync(y_.as<void>(), x_.as<void>(), words_ * 4, cudaMemcpyDeviceToDevice,
                                       static_cast<cudaStream_t>(ctx.stream)));
  }

  void poison_outputs() override {
    CALIBER_CUDA_CHECK(cudaMemset(y_.as<void>(), 0xFF, y_.bytes()));
    CALIBER_CUDA_CHECK(cudaDeviceSynchronize());
  }

  std::string verify() override {
    CALIBER_CUDA_CHECK(cudaDeviceSynchronize());
    Buffer bad(sizeof(unsigned long long));
    CALIBER_CUDA_CHECK(cudaMemset(bad.as<void>(), 0, bad.bytes()));
    count_differences_kernel<<<grid_for(sms_), kThreads>>>(x_.as<std::uint32_t>(), y_.as<std::uint32_t>(), words_,
                                                           bad.as<unsigned long long>());
    CALIBER_CUDA_CHECK_LAUNCH();
    unsigned long long count = 0;
    CALIBER_CUDA_CHECK(cudaMemcpy(&count, bad.as<void>(), sizeof count, cudaMemcpyDeviceToHost));
    if (count == 0) return {};
    return std::to_string(count) + " of " + std::to_string(words_) + " words of the copy differ from its input";
  }

 private:
  std::size_t words_;
  int sms_;
  Buffer x_, y_;
};

float to_float(const __nv_bfloat16& v) { return __bfloat162float(v); }
float to_float(float v) { return v; }

// Row-major C[n, n] = A[n, n] B[n, n] through column-major cuBLAS: C^T = B^T A^T, so cuBLAS gets
// B as its first operand.
template <typename T>
class CublasGemm final : public bench::Workload {
 public:
  CublasGemm(std::int64_t n, int sms, std::uint64_t seed)
      : n_(n), elements_(static_cast<std::size_t>(n * n)), a_(elements_ * sizeof(T)), b_(a_.bytes()), c_(a_.bytes()) {
    CALIBER_CUBLAS_CHECK(cublas().cublasCreate(&handle_));
    fill_random_kernel<T><<<grid_for(sms), kThreads>>>(a_.as<T>(), elements_, seed);
    CALIBER_CUDA_CHECK_LAUNCH();
    fill_random_kernel<T><<<grid_for(sms), kThreads>>>(b_.as<T>(), elements_, seed + 1);
    CALIBER_CUDA_CHECK_LAUNCH();
    poison_outputs();
  }
  ~CublasGemm() override { cublas().cublasDestroy(handle_); }

  void launch(const LaunchContext& ctx) override {
    CALIBER_CUBLAS_CHECK(cublas().cublasSetStream(handle_, static_cast<cudaStream_t>(ctx.stream)));
    const float alpha = 1.0f, beta = 0.0f;
    const int n = static_cast<int>(n_);
    CALIBER_CUBLAS_CHECK(cublas().cublasGemmEx(handle_, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, b_.as<T>(), kType, n,
                                      a_.as<T>(), kType, n, &beta, c_.as<T>(), kType, n, CUBLAS_COMPUTE_32F,
                                      CUBLAS_GEMM_DEFAULT));
  }

  void poison_outputs() override {
    CALIBER_CUDA_CHECK(cudaMemset(c_.as<void>(), 0xFF, c_.bytes()));  // NaN in both types
    CALIBER_CUDA_CHECK(cudaDeviceSynchronize());
  }

  // 16 entries of row 0 against an fp64 dot product of the (already rounded) inputs.
  std::string verify() override {
    CALIBER_CUDA_CHECK(cudaDeviceSynchronize());
    const auto n = static_cast<std::size_t>(n_);
    const std::size_t cols = n < 16 ? n : 16;
    std::vector<T> a_row(n), b_cols(n * cols), c_row(cols);
    CALIBER_CUDA_CHECK(cudaMemcpy(a_row.data(), a_.as<T>(), n * sizeof(T), cudaMemcpyDeviceToHost));
    CALIBER_CUDA_CHECK(cudaMemcpy2D(b_cols.data(), cols * sizeof(T), b_.as<T>(), n * sizeof(T), cols * sizeof(T), n,
                                    cudaMemcpyDeviceToHost));
    CALIBER_CUDA_CHECK(cudaMemcpy(c_row.data(), c_.as<T>(), cols * sizeof(T), cudaMemcpyDeviceToHost));
    for (std::size_t j = 0; j < cols; ++j) {
      double ref = 0, abs_sum = 0;
      for (std::size_t k = 0; k < n; ++k) {
        const double p = static_cast<double>(to_float(a_row[k])) * static_cast<double>(to_float(b_cols[k * cols + j]));
        ref += p;
        abs_sum += std::abs(p);
      }
      const double got = to_float(c_row[j]);
      // Output rounding (bf16: 2^-9 relative) plus fp32 accumulation error.
      if (!(std::abs(got - ref) <= 1e-2 * std::abs(ref) + 1e-4 * abs_sum)) {
        return "C[0][" + std::to_string(j) + "] = " + std::to_string(got) + " but the fp64 reference is " +
               std::to_string(ref);
      }
    }
    return {};
  }

 private:
  static constexpr cudaDataType_t kType = sizeof(T) == 2 ? CUDA_R_16BF : CUDA_R_32F;
  std::int64_t n_;
  std::size_t elements_;
  Buffer a_, b_, c_;
  cublasHandle_t handle_ = nullptr;
};

}  // namespace

calibrate::CeilingWorkload make_copy_ceiling_workload(Backend& backend, std::uint64_t bytes, std::uint64_t seed) {
  calibrate::CeilingWorkload w;
  const std::uint64_t size = bytes / 4 * 4;
  w.workload = std::make_unique<DeviceCopy>(size, backend.device().multiprocessors, seed);
  w.workload->name = "device_copy";
  w.workload->working_set_bytes = 2 * size;
  w.workload->params = {{"size_bytes", size}};
  w.work_per_call = 2 * size;
  w.method = "cudaMemcpyAsync device-to-device of " + format_bytes(size) + " (bytes read + written = 2 x " +
             format_bytes(size) + ")";
  return w;
}

calibrate::CeilingWorkload make_matmul_ceiling_workload(Backend& backend, const std::string& dtype, std::int64_t n,
                                                        std::uint64_t seed) {
  calibrate::CeilingWorkload w;
  const int sms = backend.device().multiprocessors;
  if (dtype == "bf16") {
    w.workload = std::make_unique<CublasGemm<__nv_bfloat16>>(n, sms, seed);
    w.method = "cublasGemmEx, bf16 A, B and C, CUBLAS_COMPUTE_32F, m=n=k=" + std::to_string(n) +
               ", random inputs in +-[0.5, 1.5)";
  } else if (dtype == "fp32") {
    w.workload = std::make_unique<CublasGemm<float>>(n, sms, seed);
    w.method = "cublasGemmEx, fp32 A, B and C, CUBLAS_COMPUTE_32F, default math mode (no TF32), m=n=k=" +
               std::to_string(n) + ", random inputs in +-[0.5, 1.5)";
  } else {
    w.unavailable = "the cuda backend measures bf16 and fp32 matmul, not " + dtype;
    return w;
  }
  const std::uint64_t element = dtype == "bf16" ? 2 : 4;
  w.workload->name = "gemm_" + dtype;
  w.workload->working_set_bytes = 3 * static_cast<std::uint64_t>(n * n) * element;
  w.workload->params = {{"m", n}, {"n", n}, {"k", n}, {"dtype", dtype}};
  w.work_per_call = static_cast<std::uint64_t>(2 * n * n * n);
  return w;
}

}  // namespace caliber::cuda
