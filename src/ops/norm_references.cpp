// The fp64 row references of rmsnorm and layernorm: per-row normalization of x[m, n] with a weight (and a bias) of [1, n].
#include <cmath>

#include "ops/row_reference.h"

namespace caliber::ops {
namespace {

class RmsNorm final : public RowReference {
 public:
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

class LayerNorm final : public RowReference {
 public:
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

const RowReference& rmsnorm_reference() {
  static const RmsNorm reference;
  return reference;
}
const RowReference& layernorm_reference() {
  static const LayerNorm reference;
  return reference;
}

}  // namespace caliber::ops
