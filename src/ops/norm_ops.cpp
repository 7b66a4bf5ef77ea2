// rmsnorm and layernorm: per-row normalization of x[m, n] with a weight (and a bias) of [n].
#include <cmath>

#include "ops/op.h"

namespace caliber::ops {
namespace {

class RmsNorm final : public Op {
 public:
  OpType type() const override { return OpType::rmsnorm; }
  std::vector<TensorSpec> inputs(const OpShape& s) const override {
    return {{"x", s.m, s.n, {}, {}}, {"weight", 1, s.n, {}, {}}};
  }
  // Per element: square, accumulate, scale by rstd, multiply by weight.
  std::uint64_t flops(const OpShape& s) const override {
    return 4ull * static_cast<std::uint64_t>(s.m) * static_cast<std::uint64_t>(s.n);
  }
  std::vector<InputDraw> input_draws(const OpShape&, std::uint64_t seed) const override {
    return {{mix64(seed + 1), -1.0f, 1.0f}, {mix64(seed + 2), 0.5f, 1.5f}};
  }
  void reference_row(const OpShape& s, const std::vector<HostTensor>& in, std::int64_t row, double* out,
                     std::vector<double>& scratch) const override {
    const auto n = static_cast<std::size_t>(s.n);
    scratch.resize(2 * n);
    double* x = scratch.data();
    double* w = scratch.data() + n;
    in[0].load_row(row, x);
    in[1].load_row(0, w);
    double sum_sq = 0;
    for (std::size_t j = 0; j < n; ++j) sum_sq += x[j] * x[j];
    const double rstd = 1.0 / std::sqrt(sum_sq / static_cast<double>(n) + s.eps);
    for (std::size_t j = 0; j < n; ++j) out[j] = x[j] * rstd * w[j];
  }
  double reference_row_work(const OpShape& s) const override { return 3.0 * static_cast<double>(s.n); }
};

class LayerNorm final : public Op {
 public:
  OpType type() const override { return OpType::layernorm; }
  std::vector<TensorSpec> inputs(const OpShape& s) const override {
    return {{"x", s.m, s.n, {}, {}}, {"weight", 1, s.n, {}, {}}, {"bias", 1, s.n, {}, {}}};
  }
  // Per element: accumulate (mean), subtract, square, accumulate (variance), scale, weight, bias.
  std::uint64_t flops(const OpShape& s) const override {
    return 7ull * static_cast<std::uint64_t>(s.m) * static_cast<std::uint64_t>(s.n);
  }
  std::vector<InputDraw> input_draws(const OpShape&, std::uint64_t seed) const override {
    // An offset mean makes a one-pass E[x^2] - E[x]^2 variance visibly less accurate.
    return {{mix64(seed + 1), -0.75f, 1.25f}, {mix64(seed + 2), 0.5f, 1.5f}, {mix64(seed + 3), -0.5f, 0.5f}};
  }
  void reference_row(const OpShape& s, const std::vector<HostTensor>& in, std::int64_t row, double* out,
                     std::vector<double>& scratch) const override {
    const auto n = static_cast<std::size_t>(s.n);
    scratch.resize(3 * n);
    double* x = scratch.data();
    double* w = x + n;
    double* b = w + n;
    in[0].load_row(row, x);
    in[1].load_row(0, w);
    in[2].load_row(0, b);
    double sum = 0;
    for (std::size_t j = 0; j < n; ++j) sum += x[j];
    const double mean = sum / static_cast<double>(n);
    double sum_sq = 0;
    for (std::size_t j = 0; j < n; ++j) sum_sq += (x[j] - mean) * (x[j] - mean);
    const double rstd = 1.0 / std::sqrt(sum_sq / static_cast<double>(n) + s.eps);  // biased variance
    for (std::size_t j = 0; j < n; ++j) out[j] = (x[j] - mean) * rstd * w[j] + b[j];
  }
  double reference_row_work(const OpShape& s) const override { return 5.0 * static_cast<double>(s.n); }
};

}  // namespace

const Op& rmsnorm_op() {
  static const RmsNorm op;
  return op;
}
const Op& layernorm_op() {
  static const LayerNorm op;
  return op;
}

}  // namespace caliber::ops
