#include "ops/rule_checks.h"

#include <algorithm>
#include <cmath>
#include <mutex>
#include <vector>

#include <fmt/format.h>

#include "core/parallel_for.h"

namespace caliber::ops {
namespace {

// The spacing of `e`'s values at magnitude |r|: 2^(E - p + 1), E the exponent of r, at least the
// smallest normal's.
double ulp_at(double r, ElementType e) {
  int p = 24, emin = -126;
  switch (e) {
    case ElementType::fp64: p = 53, emin = -1022; break;
    case ElementType::bf16: p = 8; break;
    case ElementType::fp16: p = 11, emin = -14; break;
    case ElementType::fp8_e4m3: p = 4, emin = -6; break;
    case ElementType::fp8_e5m2: p = 3, emin = -14; break;
    default: break;
  }
  int x = 0;
  (void)std::frexp(r, &x);
  return std::ldexp(1.0, std::max(r == 0 ? emin : x - 1, emin) - p + 1);
}

// Merges the parts of a parallel comparison.
struct Tally {
  std::mutex mutex;
  std::int64_t wrong = 0, nonfinite = 0;
  double worst = 0;
  void add(std::int64_t w, std::int64_t nf, double m) {
    std::lock_guard<std::mutex> lock(mutex);
    wrong += w;
    nonfinite += nf;
    worst = std::max(worst, m);
  }
};

bool same_value(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }

// The value the index at output element q selects in `into`, or NaN-free failure: false when the
// index is not a whole number in range.
bool selected(const HostTensor& into, std::size_t row, double index, double& value) {
  if (!(index >= 0 && index < static_cast<double>(into.cols())) || index != std::floor(index)) return false;
  value = into.get(row * static_cast<std::size_t>(into.cols()) + static_cast<std::size_t>(index));
  return true;
}

}  // namespace

CorrectnessCheck check_ulp(const Reference& reference, const HostTensor& output, double ulps) {
  const auto n = static_cast<std::size_t>(reference.cols());
  Tally tally;
  parallel_for(static_cast<std::int64_t>(reference.rows().size()), 16, [&](std::int64_t i0, std::int64_t i1) {
    std::int64_t nonfinite = 0;
    double worst = 0;
    for (auto i = static_cast<std::size_t>(i0); i < static_cast<std::size_t>(i1); ++i) {
      const std::size_t first = static_cast<std::size_t>(reference.rows()[i]) * n;
      for (std::size_t j = 0; j < n; ++j) {
        const double r = reference.values()[i * n + j];
        const double v = output.get(first + j);
        if (!std::isfinite(r) || !std::isfinite(v)) {
          if (!same_value(v, r)) ++nonfinite;
          continue;
        }
        const double err = std::abs(v - r) / ulp_at(r, output.element());
        worst = std::max(worst, ulps > 0 ? err / ulps : (err == 0 ? 0.0 : INFINITY));
      }
    }
    tally.add(0, nonfinite, worst);
  });
  CorrectnessCheck c;
  c.nonfinite = tally.nonfinite;
  c.rel_fro_error = c.max_scaled_error = tally.nonfinite > 0 ? INFINITY : tally.worst;
  c.checked_rows = static_cast<std::int64_t>(reference.rows().size());
  c.total_rows = reference.total_rows();
  c.tolerance_rel_fro = 1;
  return c;
}

CorrectnessCheck check_indices(const Reference& reference, const HostTensor& output, const HostTensor& into,
                               bool unordered) {
  const auto n = static_cast<std::size_t>(reference.cols());
  const std::size_t k = output.elements() / static_cast<std::size_t>(into.rows());
  Tally tally;
  parallel_for(static_cast<std::int64_t>(reference.rows().size()), 16, [&](std::int64_t i0, std::int64_t i1) {
    std::int64_t wrong = 0;
    std::vector<double> got, want;
    for (auto i = static_cast<std::size_t>(i0); i < static_cast<std::size_t>(i1); ++i) {
      const std::size_t first = static_cast<std::size_t>(reference.rows()[i]) * n;
      for (std::size_t g = 0; g < n; g += k) {  // one row of `into` per k indices
        const std::size_t row = (first + g) / k;
        got.clear();
        want.clear();
        std::vector<double> indices;
        for (std::size_t j = g; j < g + k; ++j) {
          double value = 0, ref_value = 0;
          const double index = output.get(first + j);
          if (!selected(into, row, reference.values()[i * n + j], ref_value)) ref_value = NAN;  // refused before
          const bool valid = selected(into, row, index, value) &&
                             std::find(indices.begin(), indices.end(), index) == indices.end();
          indices.push_back(index);
          got.push_back(valid ? value : NAN);
          want.push_back(ref_value);
          if (!valid) ++wrong;
        }
        if (unordered) {
          const auto order = [](double a, double b) { return std::isnan(b) ? !std::isnan(a) : a < b; };
          std::sort(got.begin(), got.end(), order);
          std::sort(want.begin(), want.end(), order);
        }
        for (std::size_t j = 0; j < k; ++j) {
          if (!std::isnan(got[j]) || std::isnan(want[j])) wrong += same_value(got[j], want[j]) ? 0 : 1;
        }
      }
    }
    tally.add(wrong, 0, 0);
  });
  CorrectnessCheck c;
  const auto checked = static_cast<double>(reference.values().size());
  c.rel_fro_error = checked > 0 ? static_cast<double>(tally.wrong) / checked : 0;
  c.max_scaled_error = static_cast<double>(tally.wrong);
  c.checked_rows = static_cast<std::int64_t>(reference.rows().size());
  c.total_rows = reference.total_rows();
  return c;
}

std::string invalid_reference_indices(const std::vector<double>& values, const std::string& output,
                                     const HostTensor& into) {
  for (std::size_t q = 0; q < values.size(); ++q) {
    const double v = values[q];
    if (!(v >= 0 && v < static_cast<double>(into.cols())) || v != std::floor(v)) {
      return fmt::format("index {} at element {} of output {} is not a whole number in [0, {}) (input {}'s last extent)",
                         v, q, output, into.cols(), into.name());
    }
  }
  return "";
}

std::string rule_failure_reason(const CorrectnessCheck& c, const CheckRule& rule) {
  if (passed(c)) return "";
  switch (rule.kind) {
    case CheckRule::Kind::ulp:
      if (c.nonfinite > 0) break;
      return fmt::format("an element is {:.3g} ulp from the reference (bound {:g} ulp; {} of {} rows checked)",
                         c.max_scaled_error * rule.ulps, rule.ulps, c.checked_rows, c.total_rows);
    case CheckRule::Kind::indices:
      return fmt::format("{:g} indices into {} are out of range, repeated in their row, or select other values than "
                         "the reference's{} ({} of {} rows checked)",
                         c.max_scaled_error, rule.indices_into_name, rule.unordered ? " (as a set)" : "",
                         c.checked_rows, c.total_rows);
    default: break;
  }
  return failure_reason(c);
}

}  // namespace caliber::ops
