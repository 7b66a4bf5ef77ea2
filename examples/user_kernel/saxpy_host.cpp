#include <cmath>
#include <string>
#include <vector>

#include "user_kernel/saxpy.h"

namespace example {

caliber::Result measure_saxpy(caliber::Backend& backend, std::size_t n,
                              const caliber::Contract& contract) {
#ifdef CALIBER_EXAMPLE_WITH_CUDA
  if (backend.kind() == caliber::BackendKind::cuda) return measure_saxpy_cuda(backend, n, contract);
#endif
  // Random-looking, never-zero inputs.
  std::vector<float> x(n), y(n), z(n);
  for (std::size_t i = 0; i < n; ++i) {
    x[i] = 0.5f + static_cast<float>((i * 2654435761u) % 1000) / 1000.0f;
    y[i] = 1.0f + static_cast<float>((i * 40503u) % 1000) / 1000.0f;
  }
  const float a = 2.0f;
  auto saxpy = [&](const caliber::LaunchContext&) {
    for (std::size_t i = 0; i < n; ++i) z[i] = a * x[i] + y[i];
  };
  // Correct first: one call against a reference.
  saxpy({});
  for (std::size_t i = 0; i < n; ++i) {
    if (z[i] != a * x[i] + y[i]) throw caliber::DeviceError("saxpy: wrong output at " + std::to_string(i));
  }
  caliber::MeasureOptions options;
  options.name = "saxpy";
  options.params = {{"n", n}, {"dtype", "float32"}};
  options.buffers.inputs = {{"x", x.data(), n * sizeof(float), caliber::DType::fp32},
                            {"y", y.data(), n * sizeof(float), caliber::DType::fp32}};
  options.buffers.outputs = {{"z", z.data(), n * sizeof(float), caliber::DType::fp32}};
  return caliber::measure(backend, saxpy, contract, options);
}

}  // namespace example
