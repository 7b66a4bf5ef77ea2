// Statistics on literal data. Expected values are worked by hand from the definitions in
// include/caliber/statistics.h (type-7 quantiles: h = (n-1) q).
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "caliber/statistics.h"

namespace caliber {
namespace {

const std::vector<double> kOneToTen = {7, 3, 10, 1, 5, 9, 2, 8, 4, 6};  // 1..10, shuffled

TEST(Quantile, Type7InterpolatesBetweenOrderStatistics) {
  // n = 10: q = 0.1 -> h = 0.9 -> 1 + 0.9 (2 - 1) = 1.9; q = 0.25 -> h = 2.25 -> 3.25.
  EXPECT_DOUBLE_EQ(quantile(kOneToTen, 0.10), 1.9);
  EXPECT_DOUBLE_EQ(quantile(kOneToTen, 0.25), 3.25);
  EXPECT_DOUBLE_EQ(quantile(kOneToTen, 0.50), 5.5);
  EXPECT_DOUBLE_EQ(quantile(kOneToTen, 0.75), 7.75);
  EXPECT_DOUBLE_EQ(quantile(kOneToTen, 0.90), 9.1);
  EXPECT_DOUBLE_EQ(quantile(kOneToTen, 0.0), 1.0);
  EXPECT_DOUBLE_EQ(quantile(kOneToTen, 1.0), 10.0);
}

TEST(Quantile, OddCountAndSingleSample) {
  const std::vector<double> v = {4, 1, 3};
  EXPECT_DOUBLE_EQ(median(v), 3.0);
  EXPECT_DOUBLE_EQ(quantile(v, 0.25), 2.0);  // h = 0.5: 1 + 0.5 (3 - 1)
  const std::vector<double> one = {42};
  EXPECT_DOUBLE_EQ(quantile(one, 0.9), 42.0);
}

TEST(Quantile, RefusesEmptyInputAndQOutsideZeroOne) {
  const std::vector<double> none;
  EXPECT_THROW(quantile(none, 0.5), std::invalid_argument);
  EXPECT_THROW(quantile(kOneToTen, 1.5), std::invalid_argument);
  EXPECT_THROW(quantile(kOneToTen, -0.1), std::invalid_argument);
  EXPECT_THROW(summarize(none), std::invalid_argument);
}

TEST(Summary, OfOneToTen) {
  const Summary s = summarize(kOneToTen);
  EXPECT_EQ(s.n, 10);
  EXPECT_DOUBLE_EQ(s.min_us, 1);
  EXPECT_DOUBLE_EQ(s.p10_us, 1.9);
  EXPECT_DOUBLE_EQ(s.p25_us, 3.25);
  EXPECT_DOUBLE_EQ(s.median_us, 5.5);
  EXPECT_DOUBLE_EQ(s.p75_us, 7.75);
  EXPECT_DOUBLE_EQ(s.p90_us, 9.1);
  EXPECT_DOUBLE_EQ(s.max_us, 10);
  EXPECT_DOUBLE_EQ(s.mean_us, 5.5);
  // sum of squared deviations = 82.5; / 9 = 9.1666..; sqrt = 3.0276503540974917
  EXPECT_NEAR(s.stdev_us, 3.0276503540974917, 1e-15);
  EXPECT_NEAR(s.rel_iqr, 4.5 / 5.5, 1e-15);
}

TEST(Summary, SingleSampleHasZeroSpread) {
  const std::vector<double> one = {2.5};
  const Summary s = summarize(one);
  EXPECT_EQ(s.n, 1);
  EXPECT_DOUBLE_EQ(s.stdev_us, 0);
  EXPECT_DOUBLE_EQ(s.rel_iqr, 0);
  EXPECT_DOUBLE_EQ(s.p10_us, 2.5);
}

TEST(Summary, MeanIsCompensatedForLongSeries) {
  // 1e6 copies of 0.1: a naive running sum drifts in the last digits; Kahan summation does not.
  const std::vector<double> v(1000000, 0.1);
  EXPECT_DOUBLE_EQ(mean(v), 0.1);
}

TEST(Statistic, AppliesEachKind) {
  EXPECT_DOUBLE_EQ(apply_statistic(parse_statistic("median"), kOneToTen), 5.5);
  EXPECT_DOUBLE_EQ(apply_statistic(parse_statistic("mean"), kOneToTen), 5.5);
  EXPECT_DOUBLE_EQ(apply_statistic(parse_statistic("min"), kOneToTen), 1.0);
  EXPECT_DOUBLE_EQ(apply_statistic(parse_statistic("p90"), kOneToTen), 9.1);
  const std::vector<double> skew = {1, 1, 1, 1, 11};
  EXPECT_DOUBLE_EQ(apply_statistic(parse_statistic("mean"), skew), 3.0);
  EXPECT_DOUBLE_EQ(apply_statistic(parse_statistic("median"), skew), 1.0);
}

TEST(Stability, P90OverP10AtMostOnePointTwo) {
  Summary s;
  s.n = 10;
  s.p10_us = 10;
  s.p90_us = 12;
  EXPECT_TRUE(is_stable(s));  // exactly 1.2
  s.p90_us = 12.01;
  EXPECT_FALSE(is_stable(s));
  s.p10_us = 0;
  s.p90_us = 0;
  EXPECT_TRUE(is_stable(s));
  s.p90_us = 1;
  EXPECT_FALSE(is_stable(s));
  EXPECT_FALSE(is_stable(Summary{}));  // n = 0
}

TEST(NormalQuantile, KnownValues) {
  // Standard normal table values.
  EXPECT_NEAR(normal_quantile(0.975), 1.959963984540054, 1e-12);
  EXPECT_NEAR(normal_quantile(0.5), 0.0, 1e-15);
  EXPECT_NEAR(normal_quantile(0.1), -1.2815515655446004, 1e-12);
  EXPECT_NEAR(normal_quantile(0.001), -3.090232306167813, 1e-11);
  EXPECT_NEAR(normal_quantile(0.999), 3.090232306167813, 1e-11);
  EXPECT_THROW(normal_quantile(0.0), std::invalid_argument);
  EXPECT_THROW(normal_quantile(1.0), std::invalid_argument);
}

// P(B <= j) for B ~ Binomial(n, 1/2), j = 0..n, by Pascal's triangle in long double (each row
// halved), independent of the library's lgamma-based sum.
std::vector<long double> binomial_half_cdf(int n) {
  std::vector<long double> row = {1.0L};
  for (int r = 1; r <= n; ++r) {
    std::vector<long double> next(static_cast<std::size_t>(r) + 1, 0.0L);
    for (int i = 0; i < r; ++i) {
      next[static_cast<std::size_t>(i)] += row[static_cast<std::size_t>(i)] / 2;
      next[static_cast<std::size_t>(i) + 1] += row[static_cast<std::size_t>(i)] / 2;
    }
    row = std::move(next);
  }
  for (std::size_t i = 1; i < row.size(); ++i) row[i] += row[i - 1];
  return row;
}

// Coverage of [x(k), x(n+1-k)]: 1 - 2 P(B <= k-1).
long double reference_coverage(const std::vector<long double>& cdf, int k) {
  return 1.0L - 2.0L * cdf[static_cast<std::size_t>(k) - 1];
}

TEST(MedianCi, ExactBinomialCoverageForEveryNFrom6To200) {
  for (int n = 6; n <= 200; ++n) {
    const auto cdf = binomial_half_cdf(n);
    const auto ranks = median_ci_ranks(n);
    ASSERT_TRUE(ranks.has_value()) << n;
    const int k = static_cast<int>(ranks->lower);
    EXPECT_EQ(ranks->upper, n + 1 - k) << n;
    // Covers at least 95%, and the next narrower symmetric pair does not: the narrowest one.
    EXPECT_GE(reference_coverage(cdf, k), 0.95L) << n;
    if (2 * (k + 1) <= n + 1) {
      EXPECT_LT(reference_coverage(cdf, k + 1), 0.95L) << n;
    }
    EXPECT_NEAR(ranks->coverage, static_cast<double>(reference_coverage(cdf, k)), 1e-12) << n;
    for (int j = 1; 2 * j <= n + 1; ++j) {
      EXPECT_NEAR(median_ci_coverage(n, j), static_cast<double>(reference_coverage(cdf, j)), 1e-12)
          << n << " " << j;
    }
  }
}

TEST(MedianCi, KnownIntervals) {
  // n = 6: [x(1), x(6)] covers 1 - 2/64; n = 10: [x(2), x(9)] covers 1 - 2 * 11/1024 while
  // [x(3), x(8)] would cover only 1 - 2 * 56/1024 = 0.890625; n = 100: [x(40), x(61)].
  const auto six = median_ci_ranks(6);
  ASSERT_TRUE(six);
  EXPECT_EQ(six->lower, 1);
  EXPECT_EQ(six->upper, 6);
  EXPECT_DOUBLE_EQ(six->coverage, 0.96875);
  const auto ten = median_ci_ranks(10);
  ASSERT_TRUE(ten);
  EXPECT_EQ(ten->lower, 2);
  EXPECT_EQ(ten->upper, 9);
  EXPECT_DOUBLE_EQ(ten->coverage, 0.978515625);
  EXPECT_DOUBLE_EQ(median_ci_coverage(10, 3), 0.890625);

  std::vector<double> sorted = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  Interval ci = median_ci_order_statistics(sorted);
  EXPECT_DOUBLE_EQ(ci.lo, 2);
  EXPECT_DOUBLE_EQ(ci.hi, 9);
  std::vector<double> hundred;
  for (int i = 1; i <= 100; ++i) hundred.push_back(i);
  ci = median_ci_order_statistics(hundred);
  EXPECT_DOUBLE_EQ(ci.lo, 40);
  EXPECT_DOUBLE_EQ(ci.hi, 61);
  // Half the width over the median: (61 - 40) / 2 / 50.5.
  EXPECT_DOUBLE_EQ(median_ci_rel_halfwidth(hundred), 21.0 / 2.0 / 50.5);
}

TEST(MedianCi, NoIntervalBelowSixSamples) {
  // [x(1), x(n)] covers 1 - 2^(1-n): 0, 0.5, 0.75, 0.875, 0.9375 for n = 1..5.
  for (int n = 1; n <= 5; ++n) {
    EXPECT_FALSE(median_ci_ranks(n).has_value()) << n;
    EXPECT_DOUBLE_EQ(median_ci_coverage(n, 1), 1.0 - std::ldexp(1.0, 1 - n)) << n;
  }
  EXPECT_EQ(min_samples_for_median_ci(0.95), 6);
  EXPECT_EQ(min_samples_for_median_ci(0.99), 8);  // 1 - 2^-7 = 0.9921875
  const std::vector<double> five = {1, 2, 3, 4, 5};
  const Interval ci = median_ci_order_statistics(five);
  EXPECT_EQ(ci.lo, -INFINITY);
  EXPECT_EQ(ci.hi, INFINITY);
  EXPECT_EQ(median_ci_rel_halfwidth(five), INFINITY);  // a precision that is never reached
  const std::vector<double> zeros(10, 0.0);
  EXPECT_EQ(median_ci_rel_halfwidth(zeros), INFINITY);  // nothing relative to a zero median
}

TEST(MedianCi, LargeSampleCountsStayExactAndNearTheNormalRanks) {
  for (std::int64_t n : {1000, 12345, 1000000, 10000000}) {
    const auto r = median_ci_ranks(n);
    ASSERT_TRUE(r) << n;
    EXPECT_GE(r->coverage, 0.95) << n;
    EXPECT_LT(median_ci_coverage(n, r->lower + 1), 0.95) << n;
    const double normal = static_cast<double>(n) / 2.0 - 1.959963984540054 * std::sqrt(static_cast<double>(n)) / 2.0;
    EXPECT_NEAR(static_cast<double>(r->lower), normal, 2.0) << n;
  }
  EXPECT_NEAR(median_ci_coverage(1000, 469), 0.9537088026395019, 1e-12);  // Python: exact math.comb sum
}

TEST(BootstrapCi, DeterministicAndBracketsTheMedian) {
  const std::vector<double> v = {10.2, 9.8, 10.0, 10.5, 9.9, 10.1, 10.3, 9.7, 10.4, 10.0, 9.6, 10.6};
  const Interval a = bootstrap_median_ci(v, 0.95, 2000, 42);
  const Interval b = bootstrap_median_ci(v, 0.95, 2000, 42);
  EXPECT_EQ(a.lo, b.lo);
  EXPECT_EQ(a.hi, b.hi);
  const double m = median(v);
  EXPECT_LE(a.lo, m);
  EXPECT_GE(a.hi, m);
  // Every resampled median lies within the sample's range.
  EXPECT_GE(a.lo, 9.6);
  EXPECT_LE(a.hi, 10.6);
  // A wider confidence never gives a narrower interval.
  const Interval w = bootstrap_median_ci(v, 0.99, 2000, 42);
  EXPECT_LE(w.lo, a.lo);
  EXPECT_GE(w.hi, a.hi);
}

TEST(BootstrapCi, ConstantDataGivesAPointInterval) {
  const std::vector<double> v(20, 7.0);
  const Interval ci = bootstrap_median_ci(v, 0.95, 500, 1);
  EXPECT_DOUBLE_EQ(ci.lo, 7.0);
  EXPECT_DOUBLE_EQ(ci.hi, 7.0);
  EXPECT_THROW(bootstrap_median_ci(v, 0.95, 0, 1), std::invalid_argument);
}

}  // namespace
}  // namespace caliber
