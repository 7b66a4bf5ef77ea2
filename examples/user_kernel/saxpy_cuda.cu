#include <cuda_runtime.h>

#include <string>
#include <vector>

#include "user_kernel/saxpy.h"

namespace example {
namespace {

__global__ void saxpy_kernel(std::size_t n, float a, const float* x, const float* y, float* z) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i < n) z[i] = a * x[i] + y[i];
}

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw caliber::DeviceError(std::string(what) + ": " + cudaGetErrorString(e));
}

}  // namespace

caliber::Result measure_saxpy_cuda(caliber::Backend& backend, std::size_t n,
                                   const caliber::Contract& contract) {
  std::vector<float> hx(n), hy(n);
  for (std::size_t i = 0; i < n; ++i) {
    hx[i] = 0.5f + static_cast<float>((i * 2654435761u) % 1000) / 1000.0f;
    hy[i] = 1.0f + static_cast<float>((i * 40503u) % 1000) / 1000.0f;
  }
  float *x = nullptr, *y = nullptr, *z = nullptr;
  check(cudaMalloc(&x, n * sizeof(float)), "cudaMalloc x");
  check(cudaMalloc(&y, n * sizeof(float)), "cudaMalloc y");
  check(cudaMalloc(&z, n * sizeof(float)), "cudaMalloc z");
  struct Free {
    float* p;
    ~Free() { cudaFree(p); }
  } fx{x}, fy{y}, fz{z};
  check(cudaMemcpy(x, hx.data(), n * sizeof(float), cudaMemcpyHostToDevice), "copy x");
  check(cudaMemcpy(y, hy.data(), n * sizeof(float), cudaMemcpyHostToDevice), "copy y");
  const float a = 2.0f;
  const unsigned blocks = static_cast<unsigned>((n + 255) / 256);
  auto saxpy = [&](const caliber::LaunchContext& ctx) {
    saxpy_kernel<<<blocks, 256, 0, static_cast<cudaStream_t>(ctx.stream)>>>(n, a, x, y, z);
    check(cudaGetLastError(), "saxpy_kernel launch");
  };
  // Correct first: one call against a host reference.
  saxpy({backend.stream(), 0, 0});
  check(cudaDeviceSynchronize(), "saxpy_kernel");
  std::vector<float> out(n);
  check(cudaMemcpy(out.data(), z, n * sizeof(float), cudaMemcpyDeviceToHost), "copy z back");
  for (std::size_t i = 0; i < n; ++i) {
    if (out[i] != a * hx[i] + hy[i]) throw caliber::DeviceError("saxpy: wrong output at " + std::to_string(i));
  }
  caliber::MeasureOptions options;
  options.name = "saxpy";
  options.params = {{"n", n}, {"dtype", "float32"}};
  options.buffers.inputs = {{"x", x, n * sizeof(float), caliber::DType::fp32},
                            {"y", y, n * sizeof(float), caliber::DType::fp32}};
  options.buffers.outputs = {{"z", z, n * sizeof(float), caliber::DType::fp32}};
  return caliber::measure(backend, saxpy, contract, options);
}

}  // namespace example
