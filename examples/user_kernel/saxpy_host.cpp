#include <cmath>
#include <cstdint>
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
  // Fresh inputs (docs/integrity.md): caliber asks for new values before every timed call and
  // judges the calls it audits against them, so no timed call can reuse an earlier call's work.
  auto value = [](std::uint64_t seed, std::size_t i) {
    return 0.5f + static_cast<float>((seed ^ (i * 0x9e3779b97f4a7c15ull)) % 1000) / 1000.0f;
  };
  options.draw_inputs = [&, value](std::uint64_t seed) {
    for (std::size_t i = 0; i < n; ++i) {
      x[i] = value(seed, i);
      y[i] = value(~seed, i);
    }
  };
  options.check_drawn = [&, value](std::uint64_t seed) -> std::string {
    for (std::size_t i = 0; i < n; ++i) {
      if (z[i] != a * value(seed, i) + value(~seed, i)) return "z[" + std::to_string(i) + "] is not a x + y";
    }
    return "";
  };
  return caliber::measure(backend, saxpy, contract, options);
}

}  // namespace example
