// Built-in micro-kernels of the cuda backend: copy (y = x), scale (y = a x), tiny (one block), and
// fault (a self-test that must end in a device error, never in a number).
#include <cstdint>
#include <string>

#include "backends/cuda/cuda_backend.h"
#include "backends/cuda/cuda_check.cuh"
#include "caliber/errors.h"

namespace caliber::cuda {
namespace {

constexpr int kThreads = 256;
constexpr std::uint64_t kCopyAlign = 256;  // bytes between input copies

__device__ inline std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// Uniform in +-[0.5, 1.5): random, never zero, exactly representable after scaling by 2.
__global__ void fill_random_kernel(float* x, std::size_t n, std::uint64_t seed) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += stride) {
    const std::uint64_t r = splitmix64(seed * 0x100000001b3ull + i);
    const float mag = 0.5f + static_cast<float>(r >> 40) * (1.0f / 16777216.0f);
    x[i] = (r & 1) ? mag : -mag;
  }
}

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

// mode 0: y == x, 1: y == a x, 2: y == x + 1. NaN never matches.
__global__ void count_mismatches_kernel(const float* x, const float* y, std::size_t n, int mode,
                                        float a, unsigned long long* bad) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  unsigned long long local = 0;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += stride) {
    const float want = mode == 0 ? x[i] : mode == 1 ? a * x[i] : x[i] + 1.0f;
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

enum class Kind { copy, scale, tiny, fault };

class CudaWorkload final : public bench::Workload {
 public:
  CudaWorkload(Kind kind, std::size_t elements, std::size_t copies, int sms, std::uint64_t seed)
      : kind_(kind),
        n_(elements),
        stride_bytes_(((elements * sizeof(float) + kCopyAlign - 1) / kCopyAlign) * kCopyAlign),
        sms_(sms),
        x_(stride_bytes_ * copies),
        y_(stride_bytes_ * copies) {
    rotation_copies = copies;
    for (std::size_t c = 0; c < copies; ++c) {
      fill_random_kernel<<<grid_for(n_ / 4 + 1, sms_), kThreads>>>(x_.floats(c * stride_bytes_), n_,
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
    }
    CALIBER_CUDA_CHECK_LAUNCH();
  }

  void poison_outputs() override {
    CALIBER_CUDA_CHECK(cudaMemset(y_.floats(), 0xFF, y_.bytes()));  // all-ones bits: NaN
    // The memset runs on the legacy stream; the measured stream does not wait for it.
    CALIBER_CUDA_CHECK(cudaDeviceSynchronize());
  }

  std::string verify() override {
    if (kind_ == Kind::fault) return {};
    CALIBER_CUDA_CHECK(cudaDeviceSynchronize());
    DeviceBuffer bad(sizeof(unsigned long long));
    CALIBER_CUDA_CHECK(cudaMemset(bad.floats(), 0, sizeof(unsigned long long)));
    const int mode = kind_ == Kind::copy ? 0 : kind_ == Kind::scale ? 1 : 2;
    count_mismatches_kernel<<<grid_for(n_ / 4 + 1, sms_), kThreads>>>(
        x_.floats(), y_.floats(), n_, mode, 2.0f, reinterpret_cast<unsigned long long*>(bad.floats()));
    CALIBER_CUDA_CHECK_LAUNCH();
    unsigned long long count = 0;
    CALIBER_CUDA_CHECK(cudaMemcpy(&count, bad.floats(), sizeof count, cudaMemcpyDeviceToHost));
    if (count == 0) return {};
    return std::to_string(count) + " of " + std::to_string(n_) + " output elements differ from the reference";
  }

 private:
  Kind kind_;
  std::size_t n_;
  std::size_t stride_bytes_;
  int sms_;
  DeviceBuffer x_, y_;
};

}  // namespace

std::vector<bench::KernelInfo> builtin_kernels() {
  return {{"copy", "y = x over --size bytes (float4 grid-stride)"},
          {"scale", "y = 2 x over --size bytes (float4 grid-stride)"},
          {"tiny", "y = x + 1 on 256 floats, one block of 256 threads (launch-bound)"},
          {"fault", "self-test: writes through an invalid pointer; must fail with a device error"}};
}

std::unique_ptr<bench::Workload> make_builtin_workload(Backend& backend, std::string_view kernel,
                                                       std::uint64_t size_bytes,
                                                       std::size_t rotation_copies,
                                                       std::uint64_t seed) {
  const int sms = backend.device().multiprocessors;
  Kind kind;
  std::size_t elements;
  if (kernel == "copy" || kernel == "scale") {
    if (size_bytes == 0 || size_bytes % sizeof(float) != 0) {
      throw UsageError("--size must be a positive multiple of 4 bytes (float32 elements), got " +
                       std::to_string(size_bytes));
    }
    kind = kernel == "copy" ? Kind::copy : Kind::scale;
    elements = size_bytes / sizeof(float);
  } else if (kernel == "tiny" || kernel == "fault") {
    kind = kernel == "tiny" ? Kind::tiny : Kind::fault;
    elements = bench::kTinyElements;
  } else {
    throw UsageError("unknown kernel '" + std::string(kernel) +
                     "' for the cuda backend (expected copy|scale|tiny|fault)");
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
