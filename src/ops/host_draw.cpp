#include "ops/host_draw.h"

#include <algorithm>
#include <numeric>
#include <vector>

#include <fmt/format.h>

#include "caliber/errors.h"
#include "core/npy_file.h"
#include "core/parallel_for.h"
#include "ops/input_draw_value.h"

namespace caliber::ops {
namespace {

// Each row a permutation of 0 .. cols - 1 (Fisher-Yates from the row's own stream).
void fill_permutation(HostTensor& t, std::uint64_t seed) {
  const auto cols = static_cast<std::size_t>(t.cols());
  parallel_for(t.rows(), 16, [&](std::int64_t r0, std::int64_t r1) {
    std::vector<double> row(cols);
    for (std::int64_t r = r0; r < r1; ++r) {
      std::iota(row.begin(), row.end(), 0.0);
      std::uint64_t state = mix64(seed ^ mix64(static_cast<std::uint64_t>(r)));
      for (std::size_t j = cols; j > 1; --j) {
        state += kGoldenGamma;
        std::swap(row[j - 1], row[draw_index(splitmix64(state), j)]);
      }
      const std::size_t base = static_cast<std::size_t>(r) * cols;
      for (std::size_t j = 0; j < cols; ++j) t.set(base + j, row[j]);
    }
  });
}

void fill_from_file(HostTensor& t, const std::string& file) {
  const NpyArray a = read_npy(file);
  const std::int64_t last = a.shape.empty() ? 1 : a.shape.back();
  std::int64_t outer = 1;
  for (std::size_t k = 0; k + 1 < a.shape.size(); ++k) outer *= a.shape[k];
  const bool flat = a.shape.size() == 1 && a.elements() == t.elements();
  if (!flat && (last != t.cols() || outer != t.rows())) {
    std::string dims;
    for (std::int64_t d : a.shape) dims += (dims.empty() ? "" : ", ") + std::to_string(d);
    throw InputError(file, 0, "shape",
                     fmt::format("({}) does not fit input {} [{} rows x {}]", dims, t.name(), t.rows(), t.cols()));
  }
  parallel_for(static_cast<std::int64_t>(t.elements()), 1 << 16, [&](std::int64_t i0, std::int64_t i1) {
    for (auto i = static_cast<std::size_t>(i0); i < static_cast<std::size_t>(i1); ++i) t.set(i, a.get(i));
  });
}

std::string percent(double f) { return fmt::format("{:g}%", f * 100); }

}  // namespace

void fill_draw(HostTensor& t, const InputDraw& draw) {
  const DrawParams& p = draw.params;
  if (p.kind == DrawKind::permutation) return fill_permutation(t, p.seed);
  if (p.kind == DrawKind::file) return fill_from_file(t, draw.file);
  constexpr auto kChunk = static_cast<std::int64_t>(kUniformChunk);
  const auto n = static_cast<std::int64_t>(t.elements());
  const ElementType e = t.element();
  void* data = t.data();
  parallel_for((n + kChunk - 1) / kChunk, 4, [&](std::int64_t c0, std::int64_t c1) {
    const std::int64_t end = std::min(n, c1 * kChunk);
    for (std::int64_t i = c0 * kChunk; i < end; ++i) {
      store_element(data, e, static_cast<std::size_t>(i), draw_element(p, e, static_cast<std::uint64_t>(i)));
    }
  });
}

void fill_uniform(HostTensor& t, std::uint64_t seed, float lo, float hi) {
  InputDraw d;
  d.params.seed = seed;
  d.params.a = lo;
  d.params.b = hi;
  fill_draw(t, d);
}

std::string draw_text(const InputDraw& draw) {
  const DrawParams& p = draw.params;
  std::string s;
  switch (p.kind) {
    case DrawKind::uniform: s = fmt::format("uniform [{:g}, {:g})", p.a, p.b); break;
    case DrawKind::normal: s = fmt::format("normal({:g}, {:g})", p.a, p.b); break;
    case DrawKind::integers: s = fmt::format("integers [{:g}, {:g}]", p.a, p.b); break;
    case DrawKind::permutation: s = "permutation per row"; break;
    case DrawKind::file: s = "file " + draw.file; break;
  }
  if (p.tie_fraction > 0) s += fmt::format(", ties {} on {} levels", percent(p.tie_fraction), p.tie_levels);
  if (p.mask_fraction > 0) s += fmt::format(", mask {} {:g}", percent(p.mask_fraction), p.mask_value);
  if (p.special_fraction > 0) s += fmt::format(", special values {}", percent(p.special_fraction));
  return s;
}

}  // namespace caliber::ops
