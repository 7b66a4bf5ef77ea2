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

TEST(MedianCi, OrderStatisticRanks) {
  // n = 10, z = 1.96: half = 1.96 * sqrt(10) / 2 = 3.099; l = floor(5 - 3.099) = 1,
  // u = ceil(5 + 3.099) = 9 -> [x(1), x(9)].
  std::vector<double> sorted = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  Interval ci = median_ci_order_statistics(sorted);
  EXPECT_DOUBLE_EQ(ci.lo, 1);
  EXPECT_DOUBLE_EQ(ci.hi, 9);
  // n = 100: half = 9.7998; l = floor(40.2) = 40, u = ceil(59.8) = 60.
  std::vector<double> hundred;
  for (int i = 1; i <= 100; ++i) hundred.push_back(i);
  ci = median_ci_order_statistics(hundred);
  EXPECT_DOUBLE_EQ(ci.lo, 40);
  EXPECT_DOUBLE_EQ(ci.hi, 60);
  // n = 1: clamped to the one sample.
  const std::vector<double> one = {3};
  ci = median_ci_order_statistics(one);
  EXPECT_DOUBLE_EQ(ci.lo, 3);
  EXPECT_DOUBLE_EQ(ci.hi, 3);
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
