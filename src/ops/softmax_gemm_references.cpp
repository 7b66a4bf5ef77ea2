// The fp64 row references of softmax over the last dimension of x[m, n] and of gemm C[m, n] = A[m, k] B[k, n].
#include <algorithm>
#include <cmath>

#include "core/parallel_for.h"
#include "ops/row_reference.h"

namespace caliber::ops {
namespace {

class Softmax final : public RowReference {
 public:
  void reference_row(const OpShape& s, const std::vector<HostTensor>& in, std::int64_t row, double* out,
                     std::vector<double>& scratch) const override {
    const auto n = static_cast<std::size_t>(s.n);
    scratch.resize(n);
    double* x = scratch.data();
    in[0].load_row(row, x);
    const double mx = *std::max_element(x, x + n);
    double sum = 0;
    for (std::size_t j = 0; j < n; ++j) {
      out[j] = std::exp(x[j] - mx);
      sum += out[j];
    }
    for (std::size_t j = 0; j < n; ++j) out[j] /= sum;
  }
  double reference_row_work(const OpShape& s) const override { return 8.0 * static_cast<double>(s.n); }
};

class Gemm final : public RowReference {
 public:
  // out[j] = sum_p a[row, p] b[p, j] in fp64, streaming B by rows (contiguous).
  void reference_row(const OpShape& s, const std::vector<HostTensor>& in, std::int64_t row, double* out,
                     std::vector<double>& scratch) const override {
    const auto n = static_cast<std::size_t>(s.n);
    const auto k = static_cast<std::size_t>(s.k);
    scratch.resize(k + n);
    double* a = scratch.data();
    double* b = a + k;
    in[0].load_row(row, a);
    std::fill(out, out + n, 0.0);
    for (std::size_t p = 0; p < k; ++p) {
      in[1].load_row(static_cast<std::int64_t>(p), b);
      const double ap = a[p];
      for (std::size_t j = 0; j < n; ++j) out[j] += ap * b[j];
    }
  }
  // All the rows at once, in parallel over column panels: each panel of B is converted once for
  // every row (the checked rows of a big gemm are few; its columns are many).
  void reference_rows(const OpShape& s, const std::vector<HostTensor>& in, const std::int64_t* rows,
                      std::size_t count, double* out) const override {
    const auto n = static_cast<std::size_t>(s.n);
    const auto k = static_cast<std::size_t>(s.k);
    std::vector<double> a(count * k);
    for (std::size_t r = 0; r < count; ++r) in[0].load_row(rows[r], a.data() + r * k);
    constexpr std::int64_t kPanel = 256;
    const std::int64_t panels = (s.n + kPanel - 1) / kPanel;
    parallel_for(panels, 1, [&](std::int64_t q0, std::int64_t q1) {
      std::vector<double> b(kPanel), acc(count * kPanel);
      for (std::int64_t q = q0; q < q1; ++q) {
        const std::int64_t j0 = q * kPanel;
        const auto w = static_cast<std::size_t>(std::min<std::int64_t>(kPanel, s.n - j0));
        std::fill(acc.begin(), acc.end(), 0.0);
        for (std::size_t p = 0; p < k; ++p) {
          in[1].load_row_range(static_cast<std::int64_t>(p), j0, static_cast<std::int64_t>(w), b.data());
          for (std::size_t r = 0; r < count; ++r) {
            const double ap = a[r * k + p];
            double* o = acc.data() + r * kPanel;
            for (std::size_t j = 0; j < w; ++j) o[j] += ap * b[j];
          }
        }
        for (std::size_t r = 0; r < count; ++r) {
          std::copy(acc.begin() + static_cast<std::ptrdiff_t>(r * kPanel),
                    acc.begin() + static_cast<std::ptrdiff_t>(r * kPanel + w), out + r * n + static_cast<std::size_t>(j0));
        }
      }
    });
  }
  bool parallel_reference() const override { return true; }
  double reference_row_work(const OpShape& s) const override {
    return static_cast<double>(s.n) * static_cast<double>(s.k);
  }
};

}  // namespace

const RowReference& softmax_reference() {
  static const Softmax reference;
  return reference;
}
const RowReference& gemm_reference() {
  static const Gemm reference;
  return reference;
}

}  // namespace caliber::ops
