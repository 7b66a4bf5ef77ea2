// Host `caliber` providers: rows spread over a persistent thread pool (std::thread), each row
// converted to fp32 once and processed with loops the compiler vectorizes (independent
// accumulators, contiguous accesses); gemm is register-blocked over 4 rows of A and a panel of
// B columns.
#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "core/parallel_for.h"
#include "providers/host/host_elements.h"
#include "providers/host/host_providers.h"

namespace caliber::providers::host {
namespace {

// Rows per parallel chunk so that a chunk holds at least ~16K elements of work.
std::int64_t row_grain(std::int64_t n) { return std::max<std::int64_t>(1, 16384 / std::max<std::int64_t>(n, 1)); }

// Sum of squares (or of values) with 8 independent accumulators, so the loop vectorizes without
// reassociation flags.
float sum_of(const float* x, std::size_t n, bool squares) {
  float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  std::size_t j = 0;
  for (; j + 8 <= n; j += 8) {
    for (std::size_t l = 0; l < 8; ++l) acc[l] += squares ? x[j + l] * x[j + l] : x[j + l];
  }
  float total = 0;
  for (; j < n; ++j) total += squares ? x[j] * x[j] : x[j];
  for (float a : acc) total += a;
  return total;
}

// C = A B, register-blocked over 4 rows of A and panels of kPanel columns of B; 16-bit B is
// converted to fp32 into `packed_b` (k * n floats) first.
template <std::size_t kPanel>
void gemm_in_panels(const ops::OpShape& s, const OpBuffers& b, std::vector<float>& packed_b) {
  const auto n = static_cast<std::size_t>(s.n);
  const auto k = static_cast<std::size_t>(s.k);
  const float* bf = static_cast<const float*>(b.inputs[1]);
  if (s.dtype != DType::fp32) {
    parallel_for(s.k, row_grain(s.n), [&](std::int64_t p0, std::int64_t p1) {
      const std::size_t off = static_cast<std::size_t>(p0) * n;
      load_floats(b.inputs[1], s.dtype, off, static_cast<std::size_t>(p1 - p0) * n, packed_b.data() + off);
    });
    bf = packed_b.data();
  }
  constexpr std::size_t kRows = 4;
  const std::int64_t row_blocks = (s.m + static_cast<std::int64_t>(kRows) - 1) / static_cast<std::int64_t>(kRows);
  parallel_for(row_blocks, 1, [&](std::int64_t q0, std::int64_t q1) {
    thread_local std::vector<float> a;
    float acc[kRows][kPanel];
    a.resize(kRows * k);
    for (std::int64_t q = q0; q < q1; ++q) {
      const std::size_t i0 = static_cast<std::size_t>(q) * kRows;
      const std::size_t rows = std::min(kRows, static_cast<std::size_t>(s.m) - i0);
      for (std::size_t r = 0; r < rows; ++r) load_floats(b.inputs[0], s.dtype, (i0 + r) * k, k, a.data() + r * k);
      for (std::size_t r = rows; r < kRows; ++r) std::fill(a.begin() + static_cast<std::ptrdiff_t>(r * k),
                                                          a.begin() + static_cast<std::ptrdiff_t>((r + 1) * k), 0.0f);
      for (std::size_t j0 = 0; j0 < n; j0 += kPanel) {
        const std::size_t w = std::min(kPanel, n - j0);
        for (auto& row : acc) std::fill(row, row + kPanel, 0.0f);
        for (std::size_t p = 0; p < k; ++p) {
          const float* bp = bf + p * n + j0;
          const float a0 = a[p], a1 = a[k + p], a2 = a[2 * k + p], a3 = a[3 * k + p];
          for (std::size_t j = 0; j < w; ++j) {
            acc[0][j] += a0 * bp[j];
            acc[1][j] += a1 * bp[j];
            acc[2][j] += a2 * bp[j];
            acc[3][j] += a3 * bp[j];
          }
        }
        for (std::size_t r = 0; r < rows; ++r) store_floats(b.output, s.dtype, (i0 + r) * n + j0, w, acc[r]);
      }
    }
  });
}

class CaliberHost final : public Provider {
 public:
  explicit CaliberHost(ops::OpType op) : op_(op) {}
  std::string name() const override { return "caliber"; }

  std::string detail(const ops::OpShape& s) const override {
    const std::string how = op_ == ops::OpType::gemm
                                ? "4-row register blocking over 256-column panels, B packed to fp32 per call"
                                : "rows converted to fp32, vectorizable loops";
    return fmt::format("host caliber {}: {} threads, {}{}", ops::to_string(op_), parallel_threads(), how,
                       s.dtype == DType::fp32 ? "" : ", fp32 compute");
  }

  Support supports(const ops::OpShape& s) const noexcept override {
    if (s.op != op_) return Support::no("different op");
    return Support::yes();
  }

  void prepare(const ops::OpShape& s, Backend&) override {
    if (op_ == ops::OpType::gemm && s.dtype != DType::fp32) {
      packed_b_.assign(static_cast<std::size_t>(s.k) * static_cast<std::size_t>(s.n), 0.0f);
    }
  }
  void release() override { packed_b_ = {}; }

  void run(const ops::OpShape& s, const OpBuffers& b, void*) override {
    switch (op_) {
      case ops::OpType::rmsnorm: rmsnorm(s, b); break;
      case ops::OpType::layernorm: layernorm(s, b); break;
      case ops::OpType::softmax: softmax(s, b); break;
      case ops::OpType::gemm: gemm(s, b); break;
      case ops::OpType::described: break;  // never made for one (supports: a different op)
    }
  }

 private:
  static void rmsnorm(const ops::OpShape& s, const OpBuffers& b) {
    const auto n = static_cast<std::size_t>(s.n);
    parallel_for(s.m, row_grain(s.n), [&](std::int64_t r0, std::int64_t r1) {
      thread_local std::vector<float> x, w;
      x.resize(n);
      w.resize(n);
      load_floats(b.inputs[1], s.dtype, 0, n, w.data());
      for (std::int64_t r = r0; r < r1; ++r) {
        const std::size_t base = static_cast<std::size_t>(r) * n;
        load_floats(b.inputs[0], s.dtype, base, n, x.data());
        const float rstd = 1.0f / std::sqrt(sum_of(x.data(), n, true) / static_cast<float>(n) +
                                            static_cast<float>(s.eps));
        for (std::size_t j = 0; j < n; ++j) x[j] = x[j] * rstd * w[j];
        store_floats(b.output, s.dtype, base, n, x.data());
      }
    });
  }

  static void layernorm(const ops::OpShape& s, const OpBuffers& b) {
    const auto n = static_cast<std::size_t>(s.n);
    parallel_for(s.m, row_grain(s.n), [&](std::int64_t r0, std::int64_t r1) {
      thread_local std::vector<float> x, w, bias;
      x.resize(n);
      w.resize(n);
      bias.resize(n);
      load_floats(b.inputs[1], s.dtype, 0, n, w.data());
      load_floats(b.inputs[2], s.dtype, 0, n, bias.data());
      for (std::int64_t r = r0; r < r1; ++r) {
        const std::size_t base = static_cast<std::size_t>(r) * n;
        load_floats(b.inputs[0], s.dtype, base, n, x.data());
        const float mean = sum_of(x.data(), n, false) / static_cast<float>(n);
        for (std::size_t j = 0; j < n; ++j) x[j] -= mean;  // two-pass variance
        const float rstd = 1.0f / std::sqrt(sum_of(x.data(), n, true) / static_cast<float>(n) +
                                            static_cast<float>(s.eps));
        for (std::size_t j = 0; j < n; ++j) x[j] = x[j] * rstd * w[j] + bias[j];
        store_floats(b.output, s.dtype, base, n, x.data());
      }
    });
  }

  static void softmax(const ops::OpShape& s, const OpBuffers& b) {
    const auto n = static_cast<std::size_t>(s.n);
    parallel_for(s.m, row_grain(s.n), [&](std::int64_t r0, std::int64_t r1) {
      thread_local std::vector<float> x;
      x.resize(n);
      for (std::int64_t r = r0; r < r1; ++r) {
        const std::size_t base = static_cast<std::size_t>(r) * n;
        load_floats(b.inputs[0], s.dtype, base, n, x.data());
        const float mx = *std::max_element(x.begin(), x.end());
        for (std::size_t j = 0; j < n; ++j) x[j] = std::exp(x[j] - mx);
        const float inv = 1.0f / sum_of(x.data(), n, false);
        for (std::size_t j = 0; j < n; ++j) x[j] *= inv;
        store_floats(b.output, s.dtype, base, n, x.data());
      }
    });
  }

  void gemm(const ops::OpShape& s, const OpBuffers& b) { gemm_in_panels<256>(s, b, packed_b_); }

  ops::OpType op_;
  std::vector<float> packed_b_;  // gemm, 16-bit dtypes: B converted to fp32 (sized in prepare)
};


// Host `tuned` gemm: the caliber kernel with the panel width chosen per shape by timing each
// candidate on a scratch problem in prepare() (an autotuner: its choice can differ between runs,
// which is why rows record it and a replay pins it; docs/runner.md).
class TunedHostGemm final : public Provider {
 public:
  std::string name() const override { return "tuned"; }
  std::string detail(const ops::OpShape&) const override {
    return fmt::format("host gemm autotuned over panel widths 64/128/256 ({} threads){}", parallel_threads(),
                       panel_ ? fmt::format(", {} {} columns", pinned_ ? "pinned to" : "chose", panel_) : "");
  }
  Support supports(const ops::OpShape& s) const noexcept override {
    if (s.op != ops::OpType::gemm) return Support::no("gemm only");
    return Support::yes();
  }
  void pin_config(const std::optional<std::string>& key) override {
    pinned_ = 0;
    if (!key) return;
    for (std::size_t p : kPanels) {
      if (*key == fmt::format("panel={}", p)) {
        pinned_ = p;
        return;
      }
    }
    throw ConfigRefused(fmt::format("tuned: '{}' is not one of its configurations (panel=64|128|256)", *key));
  }
  void prepare(const ops::OpShape& s, Backend&) override {
    packed_b_.assign(s.dtype == DType::fp32 ? 0 : static_cast<std::size_t>(s.k) * static_cast<std::size_t>(s.n), 0.0f);
    panel_ = pinned_ ? pinned_ : tune(s);
  }
  void release() override { packed_b_ = {}; }
  std::optional<ChosenConfig> chosen_config() const override {
    if (!panel_) return std::nullopt;
    return ChosenConfig{fmt::format("panel={}", panel_), fmt::format("panel width {} columns", panel_)};
  }
  void run(const ops::OpShape& s, const OpBuffers& b, void*) override { run_with(panel_, s, b); }

 private:
  static constexpr std::size_t kPanels[3] = {64, 128, 256};

  void run_with(std::size_t panel, const ops::OpShape& s, const OpBuffers& b) {
    switch (panel) {
      case 64: gemm_in_panels<64>(s, b, packed_b_); break;
      case 128: gemm_in_panels<128>(s, b, packed_b_); break;
      case 256: gemm_in_panels<256>(s, b, packed_b_); break;
      default: throw ProviderError("tuned: prepare() was not called");
    }
  }
  // The fastest panel width on the shape's B with up to 16 rows of A (best of two calls each).
  std::size_t tune(const ops::OpShape& s) {
    ops::OpShape probe = s;
    probe.m = std::min<std::int64_t>(s.m, 16);
    probe.values["m"] = static_cast<double>(probe.m);
    const std::size_t es = dtype_size_bytes(s.dtype);
    std::vector<std::byte> a(static_cast<std::size_t>(probe.m * s.k) * es), bm(static_cast<std::size_t>(s.k * s.n) * es),
        c(static_cast<std::size_t>(probe.m * s.n) * es);
    OpBuffers buffers;
    buffers.inputs = {a.data(), bm.data()};
    buffers.output = c.data();
    std::size_t best = kPanels[0];
    double best_s = 0;
    for (std::size_t p : kPanels) {
      for (int k = 0; k < 2; ++k) {
        const auto from = std::chrono::steady_clock::now();
        run_with(p, probe, buffers);
        const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - from).count();
        if (best_s == 0 || took < best_s) {
          best_s = took;
          best = p;
        }
      }
    }
    return best;
  }

  std::vector<float> packed_b_;
  std::size_t pinned_ = 0;  // 0: choose
  std::size_t panel_ = 0;   // the width prepare() settled on
};

}  // namespace

std::unique_ptr<Provider> make_tuned_gemm_provider() { return std::make_unique<TunedHostGemm>(); }
std::unique_ptr<Provider> make_caliber_provider(ops::OpType op) { return std::make_unique<CaliberHost>(op); }

}  // namespace caliber::providers::host
