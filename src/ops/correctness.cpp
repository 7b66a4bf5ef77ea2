#include "ops/correctness.h"

#include <algorithm>
#include <cmath>
#include <mutex>
#include <stdexcept>
#include <type_traits>
#include <unordered_set>

#include <fmt/format.h>

#include "core/parallel_for.h"
#include "core/dtype_convert.h"

namespace caliber::ops {

// Unit roundoff u (half an ulp of 1): fp32 2^-24, bf16 2^-8, fp16 2^-11. A correct kernel's
// error is dominated by rounding its output to the dtype (at most u per element, about u/sqrt(3)
// in RMS) plus fp32 accumulation; the bounds leave room for a second rounding of intermediates
// (some implementations round x * rstd before the weight) and for long fp32 reductions, while a
// wrong kernel is off by O(1). docs/ops.md has the full reasoning.
Tolerance tolerance_for(DType dtype) {
  switch (dtype) {
    case DType::fp32: return {1e-4, 1e-3, 1e-3, std::ldexp(1.0, -149)};
    // atol 2e-2 (about 5u): cuBLAS's default math may reduce split-K partial sums in bf16; on
    // fresh inputs an honest cublas 1024x1024x1023 gemm exceeded 1e-2 rms(ref) by 1.04x (docs/ops.md)
    case DType::bf16: return {1e-2, 1.0 / 64, 2e-2, std::ldexp(1.0, -133)};  // rtol 4u = 2^-6
    case DType::fp16: return {2e-3, 1.0 / 512, 2e-3, std::ldexp(1.0, -24)};  // 4u = 2^-9
  }
  return {};
}

Tolerance tolerance_for(ElementType e) {
  if (const std::optional<DType> d = shape_dtype_of(e)) return tolerance_for(*d);
  switch (e) {
    case ElementType::fp64: return {1e-12, 1e-10, 1e-10, std::ldexp(1.0, -1074)};
    // Unit roundoff 2^-4 (e4m3) and 2^-3 (e5m2): rtol 2u, atol 2u, rel_fro u, as bf16's scale with it.
    case ElementType::fp8_e4m3: return {1.0 / 16, 1.0 / 8, 1.0 / 8, std::ldexp(1.0, -9)};
    case ElementType::fp8_e5m2: return {1.0 / 8, 1.0 / 4, 1.0 / 4, std::ldexp(1.0, -16)};
    default: return {};  // integers: exact
  }
}

std::string CheckRule::text() const {
  switch (kind) {
    case Kind::tolerance: return "tolerance";
    case Kind::exact: return "exact";
    case Kind::ulp: return fmt::format("within {:g} ulp", ulps);
    case Kind::indices: return fmt::format("indices into {}{}", indices_into_name, unordered ? " (unordered)" : "");
  }
  return "?";
}

std::vector<std::int64_t> rows_to_check(const Op& op, const OpShape& shape, std::uint64_t seed) {
  const double work = std::max(op.reference_row_work(shape), 1.0);
  const auto affordable = static_cast<std::int64_t>(kReferenceWorkBudget / work);
  return sample_rows(shape.m, std::max<std::int64_t>(kMinCheckedRows, affordable), seed);
}

std::vector<std::int64_t> sample_rows(std::int64_t total, std::int64_t wanted, std::uint64_t seed) {
  const std::int64_t count = std::min(total, wanted);
  std::vector<std::int64_t> rows;
  rows.reserve(static_cast<std::size_t>(std::max<std::int64_t>(count, 0)));
  if (count >= total) {
    for (std::int64_t r = 0; r < total; ++r) rows.push_back(r);
    return rows;
  }
  // Floyd's algorithm: `count` distinct rows of [0, total), each subset equally likely. The set of
  // chosen rows is a bitmap when it is a sizable share of m (a million-row shape checks hundreds
  // of thousands of rows: a hash set of them cost half a second), a hash set otherwise; the rows
  // chosen are the same either way.
  std::uint64_t state = seed;
  const auto draw = [&](std::int64_t j) {
    state = mix64(state + 0x9e3779b97f4a7c15ull);
    return static_cast<std::int64_t>(state % static_cast<std::uint64_t>(j + 1));
  };
  if (total / 64 <= count) {
    std::vector<bool> chosen(static_cast<std::size_t>(total), false);
    for (std::int64_t j = total - count; j < total; ++j) {
      const std::int64_t t = draw(j);
      chosen[static_cast<std::size_t>(chosen[static_cast<std::size_t>(t)] ? j : t)] = true;
    }
    for (std::int64_t r = 0; r < total; ++r) {
      if (chosen[static_cast<std::size_t>(r)]) rows.push_back(r);
    }
    return rows;
  }
  std::unordered_set<std::int64_t> chosen;
  for (std::int64_t j = total - count; j < total; ++j) {
    const std::int64_t t = draw(j);
    if (!chosen.insert(t).second) chosen.insert(j);
  }
  rows.assign(chosen.begin(), chosen.end());
  std::sort(rows.begin(), rows.end());
  return rows;
}

Reference::Reference(const Op& op, const OpShape& shape, const std::vector<HostTensor>& inputs,
                     std::vector<std::int64_t> rows)
    : total_rows_(shape.m), cols_(shape.n), rows_(std::move(rows)) {
  const auto n = static_cast<std::size_t>(shape.n);
  values_.resize(rows_.size() * n);
  if (op.parallel_reference()) {
    op.reference_rows(shape, inputs, rows_.data(), rows_.size(), values_.data());
  } else {
    constexpr std::int64_t kGroup = 8;  // rows per task
    const auto groups = static_cast<std::int64_t>((rows_.size() + kGroup - 1) / kGroup);
    parallel_for(groups, 1, [&](std::int64_t g0, std::int64_t g1) {
      for (std::int64_t g = g0; g < g1; ++g) {
        const std::size_t first = static_cast<std::size_t>(g * kGroup);
        const std::size_t count = std::min<std::size_t>(kGroup, rows_.size() - first);
        op.reference_rows(shape, inputs, rows_.data() + first, count, values_.data() + first * n);
      }
    });
  }
  sum_squares();
}

Reference::Reference(std::int64_t total_rows, std::int64_t cols, std::vector<std::int64_t> rows,
                     std::vector<double> values)
    : total_rows_(total_rows), cols_(cols), rows_(std::move(rows)), values_(std::move(values)) {
  if (values_.size() != rows_.size() * static_cast<std::size_t>(cols_)) {
    throw std::invalid_argument(fmt::format("a reference of {} rows x {} columns has {} values", rows_.size(), cols_,
                                            values_.size()));
  }
  sum_squares();
}

// The sum of squares every check divides by, once: per row in parallel, then the rows in order
// (the same value whatever the thread count).
void Reference::sum_squares() {
  const auto n = static_cast<std::size_t>(cols_);
  std::vector<double> row_sq(rows_.size(), 0.0);
  parallel_for(static_cast<std::int64_t>(rows_.size()), 16, [&](std::int64_t i0, std::int64_t i1) {
    for (std::int64_t i = i0; i < i1; ++i) {
      const double* r = values_.data() + static_cast<std::size_t>(i) * n;
      double sq = 0;
      for (std::size_t j = 0; j < n; ++j) sq += std::isfinite(r[j]) ? r[j] * r[j] : 0.0;
      row_sq[static_cast<std::size_t>(i)] = sq;
    }
  });
  for (double sq : row_sq) sum_of_squares_ += sq;
}

namespace {

// Compares checked rows [i0, i1) with the reference, reading the output through `decode`: of an
// element (one dtype per call: no per-element dispatch), or with a null `out`, of the element's
// flat index (the rarer element types, through HostTensor::get).
template <typename Element, typename Decode>
RowComparison compare_rows(const Reference& reference, const Element* out, const Tolerance& tol, double atol,
                           std::int64_t i0, std::int64_t i1, Decode decode) {
  const auto n = static_cast<std::size_t>(reference.cols());
  const auto& rows = reference.rows();
  const double* ref = reference.values().data();
  RowComparison p;
  for (std::int64_t i = i0; i < i1; ++i) {
    const std::size_t first = static_cast<std::size_t>(rows[static_cast<std::size_t>(i)]) * n;
    const double* r = ref + static_cast<std::size_t>(i) * n;
    for (std::size_t j = 0; j < n; ++j) {
      double v = 0;
      if constexpr (std::is_same_v<Element, unsigned char>) {
        v = decode(first + j);
      } else {
        v = decode(out[first + j]);
      }
      if (!std::isfinite(v) || !std::isfinite(r[j])) {
        // A NaN where the reference is NaN, an infinity where it is the same infinity (special
        // input values): equal. Anything else non-finite on either side fails.
        if (!(std::isnan(v) && std::isnan(r[j])) && v != r[j]) ++p.nonfinite;
        continue;
      }
      const double d = v - r[j];
      p.diff_sq += d * d;
      const double bound = tol.rtol * std::abs(r[j]) + atol;
      p.max_scaled = std::max(p.max_scaled, bound > 0 ? std::abs(d) / bound : (d == 0 ? 0.0 : INFINITY));
    }
  }
  return p;
}

}  // namespace

double absolute_bound(const Tolerance& tol, double sum_of_squares, std::size_t values) {
  const double rms_ref = std::sqrt(sum_of_squares / static_cast<double>(std::max<std::size_t>(values, 1)));
  return tol.atol * rms_ref + tol.abs_floor;
}

CorrectnessCheck check_from_sums(const RowComparison& sums, double sum_of_squares, std::int64_t checked_rows,
                                 std::int64_t total_rows, const Tolerance& tol) {
  CorrectnessCheck c;
  c.nonfinite = sums.nonfinite;
  c.rel_fro_error = sums.nonfinite > 0  ? INFINITY
                    : sum_of_squares > 0 ? std::sqrt(sums.diff_sq / sum_of_squares)
                                         : std::sqrt(sums.diff_sq);
  c.max_scaled_error = sums.nonfinite > 0 ? INFINITY : sums.max_scaled;
  c.checked_rows = checked_rows;
  c.total_rows = total_rows;
  c.tolerance_rel_fro = tol.rel_fro;
  c.rtol = tol.rtol;
  c.atol = tol.atol;
  return c;
}

CorrectnessCheck check_output(const Reference& reference, const HostTensor& output, const Tolerance& tol) {
  const auto& rows = reference.rows();
  const double atol = absolute_bound(tol, reference.sum_of_squares(), reference.values().size());

  std::mutex mutex;
  RowComparison total;
  parallel_for(static_cast<std::int64_t>(rows.size()), 16, [&](std::int64_t i0, std::int64_t i1) {
    RowComparison p;
    switch (output.element()) {
      case ElementType::fp32:
        p = compare_rows(reference, static_cast<const float*>(output.data()), tol, atol, i0, i1,
                         [](float v) { return static_cast<double>(v); });
        break;
      case ElementType::bf16:
        p = compare_rows(reference, static_cast<const std::uint16_t*>(output.data()), tol, atol, i0, i1,
                         [](std::uint16_t v) { return static_cast<double>(bf16_to_float(v)); });
        break;
      case ElementType::fp16:
        p = compare_rows(reference, static_cast<const std::uint16_t*>(output.data()), tol, atol, i0, i1,
                         [](std::uint16_t v) { return static_cast<double>(fp16_to_float(v)); });
        break;
      default:
        p = compare_rows(reference, static_cast<const unsigned char*>(nullptr), tol, atol, i0, i1,
                         [&](std::size_t k) { return output.get(k); });
        break;
    }
    std::lock_guard<std::mutex> lock(mutex);
    total.diff_sq += p.diff_sq;
    total.max_scaled = std::max(total.max_scaled, p.max_scaled);
    total.nonfinite += p.nonfinite;
  });
  return check_from_sums(total, reference.sum_of_squares(), static_cast<std::int64_t>(rows.size()),
                         reference.total_rows(), tol);
}

bool passed(const CorrectnessCheck& c) {
  return c.nonfinite == 0 && c.rel_fro_error <= c.tolerance_rel_fro && c.max_scaled_error <= 1.0;
}

std::string failure_reason(const CorrectnessCheck& c) {
  if (c.nonfinite > 0) {
    // Counted where output and reference differ in finiteness (a NaN where the reference has one
    // matches: special input values).
    return fmt::format("{} non-finite outputs (NaN or inf) in {} checked rows", c.nonfinite, c.checked_rows);
  }
  if (c.tolerance_rel_fro == 0 && c.rtol == 0 && c.atol == 0 && !(c.rel_fro_error <= 0 && c.max_scaled_error <= 1)) {
    return fmt::format("elements differ from the reference under an exact check (relative Frobenius error {:.3e}; {} "
                       "of {} rows checked)",
                       c.rel_fro_error, c.checked_rows, c.total_rows);
  }
  if (!(c.rel_fro_error <= c.tolerance_rel_fro)) {
    return fmt::format("relative Frobenius error {:.3e} > {:.1e} ({} of {} rows checked)", c.rel_fro_error,
                       c.tolerance_rel_fro, c.checked_rows, c.total_rows);
  }
  if (!(c.max_scaled_error <= 1.0)) {
    return fmt::format("an element exceeds rtol |ref| + atol rms(ref) + the dtype's subnormal step (rtol {:.3g}, atol {:.3g}) by {:.3g}x",
                       c.rtol, c.atol, c.max_scaled_error);
  }
  return "";
}

}  // namespace caliber::ops
