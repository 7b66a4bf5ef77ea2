// Built-in micro-kernels of the host backend: copy (y = x), scale (y = a x), tiny (a trivial
// function on 256 floats).
#include "kernels/host/host_builtin_kernels.h"

#include <cmath>
#include <cstring>
#include <vector>

#include <fmt/format.h>

#include "caliber/errors.h"
#include "ops/uniform_draw.h"

namespace caliber::host {

using ops::splitmix64;

void fill_random(float* x, std::size_t n, std::uint64_t seed) {
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t r = splitmix64(seed * 0x100000001b3ull + i);
    const float mag = 0.5f + static_cast<float>(r >> 40) * (1.0f / 16777216.0f);
    x[i] = (r & 1) ? mag : -mag;
  }
}

namespace {

enum class Kind { copy, scale, tiny };

class HostWorkload final : public bench::Workload {
 public:
  HostWorkload(Kind kind, std::size_t elements, std::size_t copies, std::uint64_t seed)
      : kind_(kind), n_(elements), x_(copies), y_(copies) {
    rotation_copies = copies;
    for (std::size_t c = 0; c < copies; ++c) {
      x_[c].resize(n_);
      y_[c].resize(n_);
      fill_random(x_[c].data(), n_, seed + c);
    }
    poison_outputs();
  }

  void launch(const LaunchContext& ctx) override {
    const std::size_t c = ctx.rotation % rotation_copies;
    const float* __restrict__ x = x_[c].data();
    float* __restrict__ y = y_[c].data();
    switch (kind_) {
      case Kind::copy: std::memcpy(y, x, n_ * sizeof(float)); break;
      case Kind::scale:
        for (std::size_t i = 0; i < n_; ++i) y[i] = 2.0f * x[i];
        break;
      case Kind::tiny:
        for (std::size_t i = 0; i < bench::kTinyElements; ++i) y[i] = x[i] + 1.0f;
        break;
    }
  }

  void poison_outputs() override {
    for (auto& y : y_) std::fill(y.begin(), y.end(), std::nanf(""));
  }

  DeclaredBuffers declared_buffers() override {
    DeclaredBuffers b;
    for (std::size_t c = 0; c < x_.size(); ++c) {
      b.inputs.push_back({fmt::format("x[{}]", c), x_[c].data(), x_[c].size() * sizeof(float), DType::fp32});
    }
    const std::size_t written = kind_ == Kind::tiny ? bench::kTinyElements : n_;
    b.outputs.push_back({"y", y_[0].data(), written * sizeof(float), DType::fp32});
    return b;
  }

  std::string verify() override {
    std::size_t bad = 0;
    for (std::size_t i = 0; i < n_; ++i) {
      const float x = x_[0][i];
      const float want = kind_ == Kind::copy ? x : kind_ == Kind::scale ? 2.0f * x : x + 1.0f;
      if (!(y_[0][i] == want)) ++bad;
    }
    if (bad == 0) return {};
    return fmt::format("{} of {} output elements differ from the reference", bad, n_);
  }

 private:
  Kind kind_;
  std::size_t n_;
  std::vector<std::vector<float>> x_, y_;
};

}  // namespace

std::vector<bench::KernelInfo> builtin_kernels() {
  return {{"copy", "y = x over --size bytes (memcpy)"},
          {"scale", "y = 2 x over --size bytes (vectorized loop)"},
          {"tiny", "y = x + 1 on 256 floats (a trivial host function)"}};
}

std::unique_ptr<bench::Workload> make_builtin_workload(std::string_view kernel,
                                                       std::uint64_t size_bytes,
                                                       std::size_t rotation_copies,
                                                       std::uint64_t seed) {
  Kind kind;
  std::size_t elements;
  if (kernel == "copy" || kernel == "scale") {
    if (size_bytes == 0 || size_bytes % sizeof(float) != 0) {
      throw UsageError(fmt::format(
          "--size must be a positive multiple of 4 bytes (float32 elements), got {}", size_bytes));
    }
    kind = kernel == "copy" ? Kind::copy : Kind::scale;
    elements = size_bytes / sizeof(float);
  } else if (kernel == "tiny") {
    kind = Kind::tiny;
    elements = bench::kTinyElements;
  } else {
    throw UsageError(fmt::format("unknown kernel '{}' for the host backend (expected copy|scale|tiny)",
                                 kernel));
  }
  const std::size_t copies = rotation_copies < 1 ? 1 : rotation_copies;
  auto w = std::make_unique<HostWorkload>(kind, elements, copies, seed);
  w->name = std::string(kernel);
  const std::uint64_t bytes = elements * sizeof(float);
  w->working_set_bytes = 2 * bytes;
  w->params = {{"size_bytes", bytes}, {"elements", elements}, {"dtype", "float32"}};
  return w;
}

}  // namespace caliber::host
