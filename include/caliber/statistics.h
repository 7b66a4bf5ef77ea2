// Statistics as pure functions over samples (microseconds unless a name says otherwise).
//
// Quantiles use linear interpolation between order statistics (Hyndman & Fan type 7, the
// default of numpy.quantile and R's quantile): for sorted x[0..n-1] and q in [0, 1],
// h = (n - 1) q, result = x[floor h] + (h - floor h) (x[floor h + 1] - x[floor h]).
#pragma once

#include <cstdint>
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
bool is_stable(const Summary& s, double max_p90_over_p10 = 1.2);

// Distribution-free confidence interval of the median from order statistics: with n sorted
// samples and z the normal quantile of the confidence, the interval is [x(l), x(u)] with
// l = floor(n/2 - z sqrt(n)/2) and u = ceil(n/2 + z sqrt(n)/2) (1-based ranks, clamped to
// [1, n]). Needs no resampling, so the adaptive stopping rule can evaluate it after every batch.
Interval median_ci_order_statistics(std::span<const double> sorted, double confidence = 0.95);

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
