// Host `naive` providers: the textbook loops, one element at a time, fp32 accumulation.
// Obviously correct, not fast; they anchor the host comparisons.
#include <cmath>

#include <fmt/format.h>

#include "providers/host/host_elements.h"
#include "providers/host/host_providers.h"

namespace caliber::providers::host {
namespace {

class NaiveHost final : public Provider {
 public:
  explicit NaiveHost(ops::OpType op) : op_(op) {}
  std::string name() const override { return "naive"; }

  std::string detail(const ops::OpShape&) const override {
    return fmt::format("host naive {}: scalar loops, one thread, fp32 accumulation", ops::to_string(op_));
  }

  Support supports(const ops::OpShape& s) const noexcept override {
    if (s.op != op_) return Support::no("different op");
    if (op_ == ops::OpType::gemm) {
      const double macs = static_cast<double>(s.m) * static_cast<double>(s.n) * static_cast<double>(s.k);
      if (macs > kMaxGemmMacs) {
        return Support::skip(fmt::format("naive host gemm declines more than 2^31 multiply-adds per call "
                                         "({:.3g}); correctness is covered by the fp64 reference",
                                         macs));
      }
    }
    return Support::yes();
  }

  void run(const ops::OpShape& s, const OpBuffers& b, void*) override {
    const DType d = s.dtype;
    const auto m = static_cast<std::size_t>(s.m);
    const auto n = static_cast<std::size_t>(s.n);
    switch (op_) {
      case ops::OpType::rmsnorm:
        for (std::size_t r = 0; r < m; ++r) {
          float sum_sq = 0;
          for (std::size_t j = 0; j < n; ++j) {
            const float x = load_element(b.inputs[0], d, r * n + j);
            sum_sq += x * x;
          }
          const float rstd = 1.0f / std::sqrt(sum_sq / static_cast<float>(n) + static_cast<float>(s.eps));
          for (std::size_t j = 0; j < n; ++j) {
            const float x = load_element(b.inputs[0], d, r * n + j);
            store_element(b.output, d, r * n + j, x * rstd * load_element(b.inputs[1], d, j));
          }
        }
        break;
      case ops::OpType::layernorm:
        for (std::size_t r = 0; r < m; ++r) {
          float sum = 0;
          for (std::size_t j = 0; j < n; ++j) sum += load_element(b.inputs[0], d, r * n + j);
          const float mean = sum / static_cast<float>(n);
          float sum_sq = 0;
          for (std::size_t j = 0; j < n; ++j) {
            const float c = load_element(b.inputs[0], d, r * n + j) - mean;
            sum_sq += c * c;
          }
          const float rstd = 1.0f / std::sqrt(sum_sq / static_cast<float>(n) + static_cast<float>(s.eps));
          for (std::size_t j = 0; j < n; ++j) {
            const float c = load_element(b.inputs[0], d, r * n + j) - mean;
            store_element(b.output, d, r * n + j,
                          c * rstd * load_element(b.inputs[1], d, j) + load_element(b.inputs[2], d, j));
          }
        }
        break;
      case ops::OpType::softmax:
        for (std::size_t r = 0; r < m; ++r) {
          float mx = -INFINITY;
          for (std::size_t j = 0; j < n; ++j) mx = std::fmax(mx, load_element(b.inputs[0], d, r * n + j));
          float sum = 0;
          for (std::size_t j = 0; j < n; ++j) sum += std::exp(load_element(b.inputs[0], d, r * n + j) - mx);
          for (std::size_t j = 0; j < n; ++j) {
            store_element(b.output, d, r * n + j, std::exp(load_element(b.inputs[0], d, r * n + j) - mx) / sum);
          }
        }
        break;
      case ops::OpType::gemm: {
        const auto k = static_cast<std::size_t>(s.k);
        for (std::size_t i = 0; i < m; ++i) {
          for (std::size_t j = 0; j < n; ++j) {
            float acc = 0;
            for (std::size_t p = 0; p < k; ++p) {
              acc += load_element(b.inputs[0], d, i * k + p) * load_element(b.inputs[1], d, p * n + j);
            }
            store_element(b.output, d, i * n + j, acc);
          }
        }
        break;
      }
      case ops::OpType::described: break;  // never made for one (supports: a different op)
    }
  }

 private:
  static constexpr double kMaxGemmMacs = 2147483648.0;  // 2^31
  ops::OpType op_;
};

}  // namespace

std::unique_ptr<Provider> make_naive_provider(ops::OpType op) { return std::make_unique<NaiveHost>(op); }

}  // namespace caliber::providers::host
