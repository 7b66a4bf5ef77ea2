#include "caliber/statistics.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <stdexcept>

namespace caliber {
namespace {

std::vector<double> sorted_copy(std::span<const double> samples) {
  std::vector<double> v(samples.begin(), samples.end());
  std::sort(v.begin(), v.end());
  return v;
}

void require_nonempty(std::span<const double> samples, const char* what) {
  if (samples.empty()) throw std::invalid_argument(std::string(what) + ": no samples");
}

}  // namespace

double quantile_sorted(std::span<const double> sorted, double q) {
  require_nonempty(sorted, "quantile");
  if (!(q >= 0.0 && q <= 1.0)) throw std::invalid_argument("quantile: q outside [0, 1]");
  const double h = static_cast<double>(sorted.size() - 1) * q;
  const auto lo = static_cast<std::size_t>(std::floor(h));
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (h - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

double quantile(std::span<const double> samples, double q) {
  const auto v = sorted_copy(samples);
  return quantile_sorted(v, q);
}

double median(std::span<const double> samples) { return quantile(samples, 0.5); }

double mean(std::span<const double> samples) {
  require_nonempty(samples, "mean");
  // Compensated summation: long sample sets of similar values lose digits in a naive sum.
  double sum = 0, c = 0;
  for (double x : samples) {
    const double y = x - c;
    const double t = sum + y;
    c = (t - sum) - y;
    sum = t;
  }
  return sum / static_cast<double>(samples.size());
}

double sample_stdev(std::span<const double> samples) {
  require_nonempty(samples, "stdev");
  if (samples.size() < 2) return 0.0;
  const double m = mean(samples);
  double ss = 0;
  for (double x : samples) ss += (x - m) * (x - m);
  return std::sqrt(ss / static_cast<double>(samples.size() - 1));
}

Summary summarize(std::span<const double> samples) {
  require_nonempty(samples, "summarize");
  const auto v = sorted_copy(samples);
  Summary s;
  s.n = static_cast<std::int64_t>(v.size());
  s.min_us = v.front();
  s.max_us = v.back();
  s.p10_us = quantile_sorted(v, 0.10);
  s.p25_us = quantile_sorted(v, 0.25);
  s.median_us = quantile_sorted(v, 0.50);
  s.p75_us = quantile_sorted(v, 0.75);
  s.p90_us = quantile_sorted(v, 0.90);
  s.mean_us = mean(v);
  s.stdev_us = sample_stdev(v);
  s.rel_iqr = s.median_us != 0 ? (s.p75_us - s.p25_us) / s.median_us : 0.0;
  return s;
}

double apply_statistic(const Statistic& statistic, std::span<const double> samples) {
  switch (statistic.kind) {
    case Statistic::Kind::median: return median(samples);
    case Statistic::Kind::mean: return mean(samples);
    case Statistic::Kind::min: require_nonempty(samples, "min");
      return *std::min_element(samples.begin(), samples.end());
    case Statistic::Kind::quantile: return quantile(samples, statistic.quantile);
  }
  throw std::logic_error("apply_statistic: unknown kind");
}

bool is_stable(const Summary& s, double max_p90_over_p10) {
  if (s.n == 0) return false;
  if (s.p10_us <= 0) return s.p90_us <= 0;
  return s.p90_us / s.p10_us <= max_p90_over_p10;
}

double median_ci_coverage(std::int64_t n, std::int64_t k) {
  if (n < 1 || k < 1 || 2 * k > n + 1) return 0.0;
  // Lower tail P(B <= k-1), summed from i = k-1 down. t_i = C(n, i) / 2^n starts from lgamma
  // (no factorial overflows, no underflow of 2^-n before the product) and steps down by
  // t_{i-1} = t_i * i / (n - i + 1). The ratio only shrinks as i falls, so once t * r / (1 - r)
  // (a bound on everything left) is below 1e-17 of the sum, the sum is complete.
  const double nd = static_cast<double>(n);
  double i = static_cast<double>(k - 1);
  double t = std::exp(std::lgamma(nd + 1) - std::lgamma(i + 1) - std::lgamma(nd - i + 1) -
                      nd * std::log(2.0));
  double tail = 0;
  while (true) {
    tail += t;
    if (i == 0) break;
    const double r = i / (nd - i + 1);
    if (t * r / (1 - r) < 1e-17 * tail) break;
    t *= r;
    i -= 1;
  }
  return std::max(0.0, 1.0 - 2.0 * tail);
}

std::optional<MedianCiRanks> median_ci_ranks(std::int64_t n, double confidence) {
  if (!(confidence > 0 && confidence < 1)) {
    throw std::invalid_argument("median CI: confidence outside (0, 1)");
  }
  if (n < 1 || median_ci_coverage(n, 1) < confidence) return std::nullopt;
  // Coverage falls as k grows: start at the normal approximation's rank and walk to the largest
  // k whose coverage still reaches the confidence (a step or two either way).
  const double half = normal_quantile(0.5 + confidence / 2.0) * std::sqrt(static_cast<double>(n)) / 2.0;
  const std::int64_t k_max = (n + 1) / 2;
  std::int64_t k = std::clamp(static_cast<std::int64_t>(std::floor(static_cast<double>(n) / 2.0 - half)),
                              std::int64_t{1}, k_max);
  while (k > 1 && median_ci_coverage(n, k) < confidence) --k;
  while (k < k_max && median_ci_coverage(n, k + 1) >= confidence) ++k;
  return MedianCiRanks{k, n + 1 - k, median_ci_coverage(n, k)};
}

std::int64_t min_samples_for_median_ci(double confidence) {
  std::int64_t n = 1;
  while (!median_ci_ranks(n, confidence)) ++n;  // [x(1), x(n)] covers 1 - 2^(1-n): a few steps
  return n;
}

Interval median_ci_order_statistics(std::span<const double> sorted, double confidence) {
  require_nonempty(sorted, "median CI");
  const auto ranks = median_ci_ranks(static_cast<std::int64_t>(sorted.size()), confidence);
  if (!ranks) return {-INFINITY, INFINITY};
  return {sorted[static_cast<std::size_t>(ranks->lower) - 1],
          sorted[static_cast<std::size_t>(ranks->upper) - 1]};
}

double median_ci_rel_halfwidth(std::span<const double> sorted, double confidence) {
  const Interval ci = median_ci_order_statistics(sorted, confidence);
  const double med = quantile_sorted(sorted, 0.5);
  if (!std::isfinite(ci.lo) || !std::isfinite(ci.hi) || !(med > 0)) return INFINITY;
  return (ci.hi - ci.lo) / 2.0 / med;
}

Interval bootstrap_median_ci(std::span<const double> samples, double confidence, int resamples,
                             std::uint64_t seed) {
  require_nonempty(samples, "bootstrap");
  if (resamples < 1) throw std::invalid_argument("bootstrap: resamples < 1");
  std::mt19937_64 engine(seed);
  const std::size_t n = samples.size();
  std::vector<double> draw(n);
  std::vector<double> medians;
  medians.reserve(static_cast<std::size_t>(resamples));
  for (int r = 0; r < resamples; ++r) {
    for (std::size_t i = 0; i < n; ++i) draw[i] = samples[engine() % n];
    std::sort(draw.begin(), draw.end());
    medians.push_back(quantile_sorted(draw, 0.5));
  }
  std::sort(medians.begin(), medians.end());
  const double alpha = (1.0 - confidence) / 2.0;
  return {quantile_sorted(medians, alpha), quantile_sorted(medians, 1.0 - alpha)};
}

double normal_quantile(double p) {
  if (!(p > 0.0 && p < 1.0)) throw std::invalid_argument("normal_quantile: p outside (0, 1)");
  // Acklam's algorithm.
  static constexpr double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,
                                 -2.759285104469687e+02, 1.383577518672690e+02,
                                 -3.066479806614716e+01, 2.506628277459239e+00};
  static constexpr double b[] = {-5.447609879822406e+01, 1.615858368580409e+02,
                                 -1.556989798598866e+02, 6.680131188771972e+01,
                                 -1.328068155288572e+01};
  static constexpr double c[] = {-7.784894002430293e-03, -3.223964580411365e-01,
                                 -2.400758277161838e+00, -2.549732539343734e+00,
                                 4.374664141464968e+00,  2.938163982698783e+00};
  static constexpr double d[] = {7.784695709041462e-03, 3.224671290700398e-01,
                                 2.445134137142996e+00, 3.754408661907416e+00};
  constexpr double plow = 0.02425;
  double x;
  if (p < plow) {
    const double q = std::sqrt(-2 * std::log(p));
    x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  } else if (p <= 1 - plow) {
    const double q = p - 0.5;
    const double r = q * q;
    x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
        (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
  } else {
    const double q = std::sqrt(-2 * std::log(1 - p));
    x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  }
  // One Halley refinement step against the exact CDF.
  const double e = 0.5 * std::erfc(-x / std::sqrt(2.0)) - p;
  const double u = e * std::sqrt(2 * M_PI) * std::exp(x * x / 2);
  return x - u / (1 + x * u / 2);
}

}  // namespace caliber
