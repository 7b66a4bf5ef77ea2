// Built-in micro-kernels of the cuda backend: copy (y = x), scale (y = a x), tiny (one block),
// two_streams (tiny on the caliber stream while scale runs on a second stream), gemm_bf16 (a
// cuBLAS bf16 GEMM 4096^3), and fault (a self-test that must end in a device error, never in a
// number).
#include <cublas_v2.h>
#include <cuda_bf16.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <utility>
#include <cstdint>
#include <string>

#include "kernels/cuda/cuda_builtin_kernels.h"
#include "backends/cuda/cuda_backend.h"
#include "backends/cuda/cublas_check.cuh"
#include "backends/cuda/cuda_check.cuh"
#include "backends/cuda/cuda_random.cuh"
#include "caliber/errors.h"

namespace caliber::cuda {
namespace {

constexpr int kThreads = 256;
constexpr std::uint64_t kCopyAlign = 256;  // bytes between input copies

__global__ void copy_kernel(const float* __restrict__ x, float* __restrict__ y, std::size_t n) {
  const std::size_t n4 = n / 4;
  const auto* x4 = reinterpret_cast<const float4*>(x);
  auto* y4 = reinterpret_cast<float4*>(y);
  const std::size_t tid = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = tid; i < n4; i += stride) y4[i] = x4[i];
  if (tid < n - n4 * 4) y[n4 * 4 + tid] = x[n4 * 4 + tid];
}

__global__ void scale_kernel(const float* __restrict__ x, float* __restrict__ y, std::size_t n,
                             float a) {
  const std::size_t n4 = n / 4;
  const auto* x4 = reinterpret_cast<const float4*>(x);
  auto* y4 = reinterpret_cast<float4*>(y);
  const std::size_t tid = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = tid; i < n4; i += stride) {
    const float4 v = x4[i];
    y4[i] = make_float4(a * v.x, a * v.y, a * v.z, a * v.w);
  }
  if (tid < n - n4 * 4) y[n4 * 4 + tid] = a * x[n4 * 4 + tid];
}

__global__ void tiny_kernel(const float* __restrict__ x, float* __restrict__ y) {
  y[threadIdx.x] = x[threadIdx.x] + 1.0f;
}

__global__ void fault_kernel(float* p) { p[threadIdx.x] = 1.0f; }

// y = 2 x with one element per thread: n / 256 blocks (262,144 for 2^26 floats), the grid shape
// whose timing CUPTI's instrumentation inflates most on Hopper (docs/cupti.md).
__global__ void scale_blocks_kernel(const float* __restrict__ x, float* __restrict__ y, std::size_t n) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i < n) y[i] = 2.0f * x[i];
}

__global__ void add_one_kernel(float* __restrict__ y, std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n; i += stride) {
    y[i] += 1.0f;
  }
}

// mode 0: y == x, 1: y == a x, 2: y == x + 1, 3: y == a x + 2. NaN never matches.
__global__ void count_mismatches_kernel(const float* x, const float* y, std::size_t n, int mode,
                                        float a, unsigned long long* bad) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  unsigned long long local = 0;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += stride) {
    const float want = mode == 0 ? x[i] : mode == 1 ? a * x[i] : mode == 2 ? x[i] + 1.0f : a * x[i] + 2.0f;
    if (!(y[i] == want)) ++local;
  }
  if (local) atomicAdd(bad, local);
}

int grid_for(std::size_t n4, int sms) {
  const std::size_t want = (n4 + kThreads - 1) / kThreads;
  const std::size_t cap = static_cast<std::size_t>(sms) * 16;
  return static_cast<int>(want < 1 ? 1 : (want < cap ? want : cap));
}

class DeviceBuffer {
 public:
  explicit DeviceBuffer(std::size_t bytes) : bytes_(bytes) {
    CALIBER_CUDA_CHECK(cudaMalloc(&ptr_, bytes));
  }
  ~DeviceBuffer() { cudaFree(ptr_); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  float* floats(std::size_t byte_offset = 0) const {
    return reinterpret_cast<float*>(static_cast<char*>(ptr_) + byte_offset);
  }
  std::size_t bytes() const { return bytes_; }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_;
};

enum class Kind { copy, scale, tiny, fault, two_streams, scale_blocks, multi_kernel, fork_join, memset_scale };

class CudaWorkload final : public bench::Workload {
 public:
  CudaWorkload(Kind kind, std::size_t elements, std::size_t copies, int sms, std::uint64_t seed)
      : kind_(kind),
        n_(elements),
        stride_bytes_(((elements * sizeof(float) + kCopyAlign - 1) / kCopyAlign) * kCopyAlign),
        sms_(sms),
        x_(stride_bytes_ * copies),
        y_(stride_bytes_ * copies),
        z_(kind == Kind::two_streams ? bench::kTinyElements * sizeof(float) : sizeof(float)) {
    rotation_copies = copies;
    if (kind_ == Kind::two_streams || kind_ == Kind::fork_join) {
      CALIBER_CUDA_CHECK(cudaStreamCreateWithFlags(&side_stream_, cudaStreamNonBlocking));
      CALIBER_CUDA_CHECK(cudaEventCreateWithFlags(&fork_, cudaEventDisableTiming));
      CALIBER_CUDA_CHECK(cudaEventCreateWithFlags(&join_, cudaEventDisableTiming));
    }
    for (std::size_t c = 0; c < copies; ++c) {
      fill_random_kernel<float><<<grid_for(n_ / 4 + 1, sms_), kThreads>>>(x_.floats(c * stride_bytes_), n_,
                                                                    seed + c);
      CALIBER_CUDA_CHECK_LAUNCH();
    }
    poison_outputs();
  }

  void launch(const LaunchContext& ctx) override {
    auto stream = static_cast<cudaStream_t>(ctx.stream);
    const std::size_t off = (ctx.rotation % rotation_copies) * stride_bytes_;
    const float* x = x_.floats(off);
    float* y = y_.floats(off);
    switch (kind_) {
      case Kind::copy:
        copy_kernel<<<grid_for(n_ / 4, sms_), kThreads, 0, stream>>>(x, y, n_);
        break;
      case Kind::scale:
        scale_kernel<<<grid_for(n_ / 4, sms_), kThreads, 0, stream>>>(x, y, n_, 2.0f);
        break;
      case Kind::tiny:
        tiny_kernel<<<1, bench::kTinyElements, 0, stream>>>(x, y);
        break;
      case Kind::fault:
        fault_kernel<<<1, 32, 0, stream>>>(reinterpret_cast<float*>(0x10));
        break;
      case Kind::two_streams:
        launch_two_streams(stream, x, y);
        break;
      case Kind::scale_blocks:
        scale_blocks_kernel<<<static_cast<unsigned>((n_ + kThreads - 1) / kThreads), kThreads, 0, stream>>>(x, y, n_);
        break;
      case Kind::multi_kernel:  // three kernels in sequence: y = 2 x, then y += 1 twice
        scale_kernel<<<grid_for(n_ / 4, sms_), kThreads, 0, stream>>>(x, y, n_, 2.0f);
        CALIBER_CUDA_CHECK_LAUNCH();
        add_one_kernel<<<grid_for(n_, sms_), kThreads, 0, stream>>>(y, n_);
        CALIBER_CUDA_CHECK_LAUNCH();
        add_one_kernel<<<grid_for(n_, sms_), kThreads, 0, stream>>>(y, n_);
        break;
      case Kind::fork_join: {  // half of y = 2 x on a second stream, forked and joined back
        const std::size_t half = n_ / 2;
        CALIBER_CUDA_CHECK(cudaEventRecord(fork_, stream));
        CALIBER_CUDA_CHECK(cudaStreamWaitEvent(side_stream_, fork_, 0));
        scale_kernel<<<grid_for(half / 4, sms_), kThreads, 0, side_stream_>>>(x, y, half, 2.0f);
        CALIBER_CUDA_CHECK_LAUNCH();
        scale_kernel<<<grid_for((n_ - half) / 4, sms_), kThreads, 0, stream>>>(x + half, y + half, n_ - half, 2.0f);
        CALIBER_CUDA_CHECK_LAUNCH();
        CALIBER_CUDA_CHECK(cudaEventRecord(join_, side_stream_));
        CALIBER_CUDA_CHECK(cudaStreamWaitEvent(stream, join_, 0));
        break;
      }
      case Kind::memset_scale:  // a fill inside the call, then the kernel
        CALIBER_CUDA_CHECK(cudaMemsetAsync(y, 0, n_ * sizeof(float), stream));
        scale_kernel<<<grid_for(n_ / 4, sms_), kThreads, 0, stream>>>(x, y, n_, 2.0f);
        break;
    }
    CALIBER_CUDA_CHECK_LAUNCH();
  }

  ~CudaWorkload() override {
    if (join_) cudaEventDestroy(join_);
    if (fork_) cudaEventDestroy(fork_);
    if (side_stream_) cudaStreamDestroy(side_stream_);
  }

  void poison_outputs() override {
    CALIBER_CUDA_CHECK(cudaMemset(y_.floats(), 0xFF, y_.bytes()));  // all-ones bits: NaN
    CALIBER_CUDA_CHECK(cudaMemset(z_.floats(), 0xFF, z_.bytes()));
    // The memset runs on the legacy stream; the measured stream does not wait for it.
    CALIBER_CUDA_CHECK(cudaDeviceSynchronize());
  }

  DeclaredBuffers declared_buffers() override {
    DeclaredBuffers b;
    b.inputs.push_back({"x", x_.floats(), x_.bytes(), DType::fp32});
    if (kind_ == Kind::fault) return b;
    const std::size_t written = kind_ == Kind::tiny ? bench::kTinyElements : n_;
    b.outputs.push_back({"y", y_.floats(), written * sizeof(float), DType::fp32});
    if (kind_ == Kind::two_streams) {
      b.outputs.push_back({"z", z_.floats(), bench::kTinyElements * sizeof(float), DType::fp32});
    }
    return b;
  }

  std::string verify() override {
    if (kind_ == Kind::fault) return {};
    CALIBER_CUDA_CHECK(cudaDeviceSynchronize());
    if (kind_ == Kind::two_streams) {
      std::string bad = mismatches(y_.floats(), n_, 1);  // the side stream's scale
      if (bad.empty()) bad = mismatches(z_.floats(), bench::kTinyElements, 2);  // the caliber stream's tiny
      return bad;
    }
    return mismatches(y_.floats(), n_, expected_mode());
  }

 private:
  int expected_mode() const {
    switch (kind_) {
      case Kind::copy: return 0;
      case Kind::tiny: return 2;
      case Kind::multi_kernel: return 3;
      default: return 1;  // y = 2 x
    }
  }

  // Output elements [0, n) of `y` against mode (0: x, 1: 2x, 2: x + 1, 3: 2x + 2) of input copy 0.
  std::string mismatches(const float* y, std::size_t n, int mode) {
    DeviceBuffer bad(sizeof(unsigned long long));
    CALIBER_CUDA_CHECK(cudaMemset(bad.floats(), 0, sizeof(unsigned long long)));
    count_mismatches_kernel<<<grid_for(n / 4 + 1, sms_), kThreads>>>(
        x_.floats(), y, n, mode, 2.0f, reinterpret_cast<unsigned long long*>(bad.floats()));
    CALIBER_CUDA_CHECK_LAUNCH();
    unsigned long long count = 0;
    CALIBER_CUDA_CHECK(cudaMemcpy(&count, bad.floats(), sizeof count, cudaMemcpyDeviceToHost));
    if (count == 0) return {};
    return std::to_string(count) + " of " + std::to_string(n) + " output elements differ from the reference";
  }

  // Kernel B (scale over the whole input) on a second stream forked from the caliber stream, and
  // kernel A (tiny) on the caliber stream; both run at once. B is not joined back (an event pair
  // on the caliber stream sees A only), except inside a graph capture, which requires the join.
  void launch_two_streams(cudaStream_t stream, const float* x, float* y) {
    CALIBER_CUDA_CHECK(cudaEventRecord(fork_, stream));
    CALIBER_CUDA_CHECK(cudaStreamWaitEvent(side_stream_, fork_, 0));
    scale_kernel<<<grid_for(n_ / 4, sms_), kThreads, 0, side_stream_>>>(x, y, n_, 2.0f);
    CALIBER_CUDA_CHECK_LAUNCH();
    tiny_kernel<<<1, bench::kTinyElements, 0, stream>>>(x, z_.floats());
    CALIBER_CUDA_CHECK_LAUNCH();
    cudaStreamCaptureStatus status{};
    CALIBER_CUDA_CHECK(cudaStreamIsCapturing(stream, &status));
    if (status == cudaStreamCaptureStatusActive) {
      CALIBER_CUDA_CHECK(cudaEventRecord(join_, side_stream_));
      CALIBER_CUDA_CHECK(cudaStreamWaitEvent(stream, join_, 0));
    }
  }

  Kind kind_;
  std::size_t n_;
  std::size_t stride_bytes_;
  int sms_;
  DeviceBuffer x_, y_;
  DeviceBuffer z_;  // two_streams: the tiny kernel's output
  cudaStream_t side_stream_{};
  cudaEvent_t fork_{}, join_{};
};

// --- gemm_bf16: C = A B with cuBLAS, bf16 inputs and output, fp32 accumulation -----------------

constexpr int kGemmN = 4096;
static_assert(bench::kGemmBytesPerMatrix == static_cast<std::uint64_t>(kGemmN) * kGemmN * 2);

// Checks `samples` output elements spread over C (column-major, n x n) against an fp32 dot
// product of the same bf16 inputs. Tolerance: bf16 output rounding (2^-8 relative) with margin,
// plus fp32 accumulation-order differences relative to sum |a b|.
__global__ void check_gemm_kernel(const __nv_bfloat16* a, const __nv_bfloat16* b,
                                  const __nv_bfloat16* c, int n, int samples,
                                  unsigned long long* bad) {
  const int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= samples) return;
  const std::uint64_t r = splitmix64(0xc0ffeeull + static_cast<std::uint64_t>(s));
  const int i = static_cast<int>(r % static_cast<std::uint64_t>(n));
  const int j = static_cast<int>((r >> 32) % static_cast<std::uint64_t>(n));
  float ref = 0, scale = 0;
  for (int k = 0; k < n; ++k) {
    const float p = __bfloat162float(a[i + static_cast<std::size_t>(k) * n]) *
                    __bfloat162float(b[k + static_cast<std::size_t>(j) * n]);
    ref += p;
    scale += fabsf(p);
  }
  const float got = __bfloat162float(c[i + static_cast<std::size_t>(j) * n]);
  if (!(fabsf(got - ref) <= 0.01f * fabsf(ref) + 1e-4f * scale)) atomicAdd(bad, 1ull);
}

class GemmWorkload final : public bench::Workload {
 public:
  GemmWorkload(std::size_t copies, int sms, std::uint64_t seed)
      : matrix_bytes_(static_cast<std::size_t>(kGemmN) * kGemmN * sizeof(__nv_bfloat16)),
        sms_(sms),
        a_(matrix_bytes_ * copies),
        b_(matrix_bytes_ * copies),
        c_(matrix_bytes_ * copies),
        workspace_(kWorkspaceBytes) {
    rotation_copies = copies;
    const std::size_t elements = static_cast<std::size_t>(kGemmN) * kGemmN;
    for (std::size_t k = 0; k < copies; ++k) {
      fill_random_kernel<__nv_bfloat16><<<grid_for(elements / 4, sms_), kThreads>>>(matrix(a_, k), elements, seed + 2 * k);
      CALIBER_CUDA_CHECK_LAUNCH();
      fill_random_kernel<__nv_bfloat16><<<grid_for(elements / 4, sms_), kThreads>>>(matrix(b_, k), elements, seed + 2 * k + 1);
      CALIBER_CUDA_CHECK_LAUNCH();
    }
    CALIBER_CUBLAS_CHECK(cublas().cublasCreate(&handle_));
    // A fixed workspace: cuBLAS allocates nothing while a graph is being captured.
    CALIBER_CUBLAS_CHECK(cublas().cublasSetWorkspace(handle_, workspace_.floats(), kWorkspaceBytes));
    poison_outputs();
  }
  ~GemmWorkload() override { cublas().cublasDestroy(handle_); }

  void launch(const LaunchContext& ctx) override {
    const std::size_t k = ctx.rotation % rotation_copies;
    const float alpha = 1.0f, beta = 0.0f;
    CALIBER_CUBLAS_CHECK(cublas().cublasSetStream(handle_, static_cast<cudaStream_t>(ctx.stream)));
    CALIBER_CUBLAS_CHECK(cublas().cublasGemmEx(handle_, CUBLAS_OP_N, CUBLAS_OP_N, kGemmN, kGemmN, kGemmN, &alpha,
                                      matrix(a_, k), CUDA_R_16BF, kGemmN, matrix(b_, k), CUDA_R_16BF,
                                      kGemmN, &beta, matrix(c_, k), CUDA_R_16BF, kGemmN,
                                      CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  }

  void poison_outputs() override {
    CALIBER_CUDA_CHECK(cudaMemset(c_.floats(), 0xFF, c_.bytes()));  // bf16 0xFFFF: NaN
    CALIBER_CUDA_CHECK(cudaDeviceSynchronize());
  }

  std::string verify() override {
    CALIBER_CUDA_CHECK(cudaDeviceSynchronize());
    constexpr int kSamples = 4096;
    DeviceBuffer bad(sizeof(unsigned long long));
    CALIBER_CUDA_CHECK(cudaMemset(bad.floats(), 0, sizeof(unsigned long long)));
    check_gemm_kernel<<<(kSamples + kThreads - 1) / kThreads, kThreads>>>(
        matrix(a_, 0), matrix(b_, 0), matrix(c_, 0), kGemmN, kSamples,
        reinterpret_cast<unsigned long long*>(bad.floats()));
    CALIBER_CUDA_CHECK_LAUNCH();
    unsigned long long count = 0;
    CALIBER_CUDA_CHECK(cudaMemcpy(&count, bad.floats(), sizeof count, cudaMemcpyDeviceToHost));
    if (count == 0) return {};
    return std::to_string(count) + " of " + std::to_string(kSamples) +
           " sampled output elements differ from an fp32 reference";
  }

 private:
  static constexpr std::size_t kWorkspaceBytes = 32ull << 20;
  __nv_bfloat16* matrix(const DeviceBuffer& buf, std::size_t copy) const {
    return reinterpret_cast<__nv_bfloat16*>(buf.floats(copy * matrix_bytes_));
  }

  std::size_t matrix_bytes_;
  int sms_;
  DeviceBuffer a_, b_, c_, workspace_;
  cublasHandle_t handle_{};
};

}  // namespace

std::vector<bench::KernelInfo> builtin_kernels() {
  return {{"copy", "y = x over --size bytes (float4 grid-stride)"},
          {"scale", "y = 2 x over --size bytes (float4 grid-stride)"},
          {"tiny", "y = x + 1 on 256 floats, one block of 256 threads (launch-bound)"},
          {"two_streams",
           "tiny on the caliber stream while scale over --size bytes runs on a second stream, not "
           "joined back (events on the caliber stream miss the scale)",
           false},
          {"gemm_bf16", "cuBLAS GEMM 4096 x 4096 x 4096, bf16 in and out, fp32 accumulation", false},
          {"scale_blocks", "y = 2 x over --size bytes, one element per thread (262,144 blocks for 256 MiB)", false},
          {"multi_kernel", "three kernels per call over --size bytes: y = 2 x, then y += 1 twice", false},
          {"fork_join", "y = 2 x over --size bytes, half on a second stream forked and joined back", false},
          {"memset_scale", "a cudaMemsetAsync of y, then y = 2 x, over --size bytes", false},
          {"fault", "self-test: writes through an invalid pointer; must fail with a device error", false}};
}

std::unique_ptr<bench::Workload> make_builtin_workload(Backend& backend, std::string_view kernel,
                                                       std::uint64_t size_bytes,
                                                       std::size_t rotation_copies,
                                                       std::uint64_t seed) {
  const int sms = backend.device().multiprocessors;
  Kind kind;
  std::size_t elements;
  if (kernel == "gemm_bf16") {
    auto w = std::make_unique<GemmWorkload>(rotation_copies < 1 ? 1 : rotation_copies, sms, seed);
    w->name = "gemm_bf16";
    w->working_set_bytes = 3 * bench::kGemmBytesPerMatrix;  // read A and B, write C
    w->params = {{"m", kGemmN}, {"n", kGemmN}, {"k", kGemmN}, {"dtype", "bfloat16"},
                 {"flops", 2.0 * kGemmN * kGemmN * kGemmN}, {"library", "cuBLAS"}};
    return w;
  }
  const std::pair<std::string_view, Kind> sized[] = {
      {"copy", Kind::copy},           {"scale", Kind::scale},               {"two_streams", Kind::two_streams},
      {"scale_blocks", Kind::scale_blocks}, {"multi_kernel", Kind::multi_kernel}, {"fork_join", Kind::fork_join},
      {"memset_scale", Kind::memset_scale}};
  const auto found = std::find_if(std::begin(sized), std::end(sized), [&](const auto& s) { return s.first == kernel; });
  if (found != std::end(sized)) {
    if (size_bytes == 0 || size_bytes % 16 != 0) {
      throw UsageError("--size must be a positive multiple of 16 bytes (float32 elements, float4 loads), got " +
                       std::to_string(size_bytes));
    }
    kind = found->second;
    elements = size_bytes / sizeof(float);
  } else if (kernel == "tiny" || kernel == "fault") {
    kind = kernel == "tiny" ? Kind::tiny : Kind::fault;
    elements = bench::kTinyElements;
  } else {
    throw UsageError("unknown kernel '" + std::string(kernel) +
                     "' for the cuda backend (expected copy|scale|tiny|two_streams|gemm_bf16|fault|scale_blocks|"
                     "multi_kernel|fork_join|memset_scale)");
  }
  const std::size_t copies = rotation_copies < 1 ? 1 : rotation_copies;
  auto w = std::make_unique<CudaWorkload>(kind, elements, copies, sms, seed);
  w->name = std::string(kernel);
  const std::uint64_t bytes = elements * sizeof(float);
  w->working_set_bytes = 2 * bytes;  // read x, write y
  w->params = {{"size_bytes", bytes}, {"elements", elements}, {"dtype", "float32"}};
  return w;
}

}  // namespace caliber::cuda
