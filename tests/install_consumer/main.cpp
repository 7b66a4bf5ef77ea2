// Measures a host copy through caliber's C++ API (README "C++ API") and prints what a caller
// reads from the Result. Built against an installed caliber (tests/install_consumer/check.cmake).
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <caliber/caliber.h>

int main() {
  try {
    auto backend = caliber::open_backend(caliber::BackendKind::host, 0);
    caliber::Contract contract = caliber::default_contract(backend->kind());
    contract.cache = caliber::CachePolicy::warm;
    contract.iterations.mode = caliber::IterationRule::Mode::fixed;
    contract.iterations.count = 30;
    const std::size_t n = 1 << 16;
    std::vector<float> x(n), y(n);
    for (std::size_t i = 0; i < n; ++i) x[i] = 1.0f + static_cast<float>(i % 97);
    caliber::MeasureOptions options;
    options.name = "host_copy";
    options.params = {{"elements", n}, {"dtype", "float32"}};
    options.buffers.inputs = {{"x", x.data(), n * sizeof(float), caliber::DType::fp32}};
    options.buffers.outputs = {{"y", y.data(), n * sizeof(float), caliber::DType::fp32}};
    // Fresh inputs for every timed call, and the check of an audited call (docs/integrity.md).
    auto value = [](std::uint64_t seed, std::size_t i) { return 1.0f + static_cast<float>((seed + i) % 97); };
    options.draw_inputs = [&](std::uint64_t seed) {
      for (std::size_t i = 0; i < n; ++i) x[i] = value(seed, i);
    };
    options.check_drawn = [&](std::uint64_t seed) -> std::string {
      for (std::size_t i = 0; i < n; ++i) {
        if (y[i] != value(seed, i)) return "y is not a copy of x";
      }
      return "";
    };
    const caliber::Result r = caliber::measure(
        *backend, [&](const caliber::LaunchContext&) { std::memcpy(y.data(), x.data(), n * sizeof(float)); },
        contract, options);
    std::printf("name=%s params=%s n=%lld value_us_positive=%d instrument=%s schedule=%s cache=%s integrity=%s\n",
                r.name.c_str(), r.params.label().c_str(), static_cast<long long>(r.summary.n), r.value_us > 0 ? 1 : 0,
                std::string(caliber::to_string(r.contract.instrument)).c_str(),
                std::string(caliber::to_string(r.contract.schedule)).c_str(),
                std::string(caliber::to_string(r.contract.cache)).c_str(),
                std::string(caliber::to_string(r.integrity.verdict())).c_str());
    return 0;
  } catch (const caliber::Error& e) {
    std::fprintf(stderr, "measure_host_copy: %s\n", e.what());
    return 1;
  }
}
