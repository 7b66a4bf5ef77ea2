// Statistics as pure functions over samples (microseconds unless a name says otherwise).
//
// Quantiles use linear interpolation between order statistics (Hyndman & Fan type 7, the
// default of numpy.quantile and R's quantile): for sorted x[0..n-1] and q in [0, 1],
// h = (n - 1) q, result = x[floor h] + (h - floor h) (x[floor h + 1] - x[floor h]).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "caliber/contract.h"

namespace caliber {

struct Summary {
  std::int64_t n = 0;
  double min_us = 0, p10_us = 0, p25_us = 0, median_us = 0, p75_us = 0, p90_us = 0, max_us = 0;
  double mean_us = 0;
  double stdev_us = 0;  // sample standard deviation (n - 1 in the denominator); 0 when n < 2
  double rel_iqr = 0;   // (p75 - p25) / median; 0 when the median is 0
};

struct Interval {
  double lo = 0;
  double hi = 0;
};

// Type-7 quantile of already sorted samples. q in [0, 1]. Throws std::invalid_argument when empty.
double quantile_sorted(std::span<const double> sorted, double q);
// Type-7 quantile of unsorted samples.
double quantile(std::span<const double> samples, double q);
double median(std::span<const double> samples);
double mean(std::span<const double> samples);
double sample_stdev(std::span<const double> samples);

// The summary of a sample set. Throws std::invalid_argument when empty.
Summary summarize(std::span<const double> samples);

// The value the statistic reports for these samples.
double apply_statistic(const Statistic& statistic, std::span<const double> samples);

// Stability: p90 / p10 <= 1.2, the rule of the results rows (docs/runner.md). A zero p10 is
// stable only if p90 is zero too.
inline constexpr double kMaxStableP90OverP10 = 1.2;
bool is_stable(const Summary& s, double max_p90_over_p10 = kMaxStableP90OverP10);

// The distribution-free confidence interval of the median from order statistics (docs/
// iteration-rule.md). With n samples from any continuous distribution, the number B of samples
// below the median is Binomial(n, 1/2), so the order statistics [x(k), x(n+1-k)] (1-based) cover
// the median with probability exactly P(k <= B <= n-k) = 1 - 2 P(B <= k-1). The interval is the
// narrowest such symmetric pair whose coverage is >= the confidence.
// The confidence of the interval the adaptive stopping rule judges precision by.
inline constexpr double kAdaptiveRuleConfidence = 0.95;

struct MedianCiRanks {
  std::int64_t lower = 0;  // k, 1-based
  std::int64_t upper = 0;  // n + 1 - k
  double coverage = 0;     // exact binomial coverage of [x(lower), x(upper)]
};

// P(k <= B <= n-k), B ~ Binomial(n, 1/2): the coverage of [x(k), x(n+1-k)]. 0 when k < 1 or
// 2k > n + 1 (no such pair). Relative error below 1e-12 for n <= 10^7.
double median_ci_coverage(std::int64_t n, std::int64_t k);

// The narrowest symmetric pair with coverage >= confidence, or nullopt when even [x(1), x(n)]
// covers less (n < 6 at 95%: 1 - 2^(1-n) < 0.95).
std::optional<MedianCiRanks> median_ci_ranks(std::int64_t n, double confidence = 0.95);

// The smallest n for which median_ci_ranks exists: 6 at 95%.
std::int64_t min_samples_for_median_ci(double confidence = 0.95);

// [x(lower), x(upper)] of the sorted samples. Below min_samples_for_median_ci no pair of order
// statistics is a confidence interval at this level, and the only distribution-free statement
// left is the whole line: (-inf, +inf), so a precision computed from it is never reached.
// Needs no resampling, so the adaptive stopping rule can evaluate it after every batch.
Interval median_ci_order_statistics(std::span<const double> sorted, double confidence = 0.95);

// The precision that interval establishes: (hi - lo) / 2 / median. +inf when the interval does
// not exist or the median is not positive (nothing relative can be claimed).
double median_ci_rel_halfwidth(std::span<const double> sorted, double confidence = 0.95);

// Percentile bootstrap confidence interval of the median: `resamples` resamples drawn with a
// 64-bit Mersenne Twister seeded with `seed` (indices = engine() % n, so the result is the same
// on every platform); the interval is the type-7 (1-c)/2 and (1+c)/2 quantiles of the resampled
// medians.
Interval bootstrap_median_ci(std::span<const double> samples, double confidence = 0.95,
                             int resamples = 2000, std::uint64_t seed = 0x5eed);

// Standard normal quantile (inverse CDF), p in (0, 1). Acklam's rational approximation refined
// by one Halley step; absolute error < 1e-12.
double normal_quantile(double p);

}  // namespace caliber
