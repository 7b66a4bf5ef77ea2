// Noise thresholds: the robust sigma recovered from seeded lognormal noise, the threshold
// formulas, the floors, refusal on short histories and the calibration line.
#include "history/noise_threshold.h"

#include <gtest/gtest.h>

#include "support/gaussian.h"

#include <cmath>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <vector>

namespace caliber::history {
namespace {

using testing_support::Gaussian;

// Independent runs with lognormal noise of log-sigma `sigma` around `level` microseconds.
std::vector<double> lognormal_runs(std::uint64_t seed, std::size_t n, double level, double sigma) {
  Gaussian g(seed);
  std::vector<double> v(n);
  for (double& x : v) x = level * std::exp(sigma * g());
  return v;
}

TEST(NoiseThreshold, RecoversLognormalSigma) {
  const std::vector<double> v = lognormal_runs(17, 400, 250.0, 0.02);
  const NoiseSettings s;
  const std::optional<NoiseThreshold> t = noise_threshold(v, s);
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->runs, 400u);
  // The difference of two independent runs has sqrt(2) times the noise of one. A MAD sigma over
  // 399 differences scatters by about 6%, so 10% holds for roughly nine draws in ten; this one
  // lands within 0.1%.
  const double expected = std::sqrt(2.0) * 0.02;
  EXPECT_NEAR(t->relative_sigma, expected, 0.1 * expected);
  EXPECT_NEAR(t->absolute_sigma_us, 250.0 * expected, 0.1 * 250.0 * expected);
  const double pct = 100 * (std::exp(s.sigmas * t->relative_sigma) - 1);
  EXPECT_NEAR(t->relative_pct, pct, 1e-9 * pct);
  EXPECT_DOUBLE_EQ(t->absolute_us, s.sigmas * t->absolute_sigma_us);
}

TEST(NoiseThreshold, ExactOnLiteralSeries) {
  // 100, 101, 100, ... (11 runs): ten differences, five +1 and five -1, so the median is 0 and
  // every absolute deviation from it is 1: MAD 1 (log ratios: +-ln 1.01, MAD ln 1.01).
  std::vector<double> v;
  for (int i = 0; i < 11; ++i) v.push_back(i % 2 == 0 ? 100.0 : 101.0);
  NoiseSettings s;
  s.min_relative_pct = 0;
  const std::optional<NoiseThreshold> t = noise_threshold(v, s);
  ASSERT_TRUE(t.has_value());
  EXPECT_DOUBLE_EQ(t->absolute_sigma_us, 1.4826);
  EXPECT_DOUBLE_EQ(t->absolute_us, 4 * 1.4826);
  EXPECT_NEAR(t->relative_sigma, 1.4826 * std::log(101.0 / 100.0), 1e-15);
}

TEST(NoiseThreshold, TooFewRunsRefused) {
  const std::vector<double> v = lognormal_runs(3, 9, 10.0, 0.01);
  EXPECT_FALSE(noise_threshold(v, {}).has_value());
  NoiseSettings s;
  s.min_runs = 9;
  EXPECT_TRUE(noise_threshold(v, s).has_value());
  EXPECT_FALSE(noise_threshold({}, {}).has_value());
}

TEST(NoiseThreshold, FloorsApplied) {
  // 0.1% noise: 4 sigmas of the difference are well under the 1% relative floor.
  const std::vector<double> v = lognormal_runs(5, 50, 10.0, 0.001);
  NoiseSettings s;
  s.min_absolute_us = 2.0;
  const std::optional<NoiseThreshold> t = noise_threshold(v, s);
  ASSERT_TRUE(t.has_value());
  EXPECT_LT(100 * std::expm1(s.sigmas * t->relative_sigma), 1.0);
  EXPECT_EQ(t->relative_pct, 1.0);
  EXPECT_LT(s.sigmas * t->absolute_sigma_us, 2.0);
  EXPECT_EQ(t->absolute_us, 2.0);
  const std::string line = describe(*t, s);
  EXPECT_NE(line.find("; relative floor 1% applied"), std::string::npos) << line;
  EXPECT_NE(line.find("; absolute floor 2 us applied"), std::string::npos) << line;
}

TEST(NoiseThreshold, DescribeNamesTheMethod) {
  NoiseThreshold t;
  t.runs = 24;
  t.relative_sigma = 0.0071;
  t.absolute_sigma_us = 0.12;
  const NoiseSettings s;
  EXPECT_EQ(describe(t, s),
            "4 robust sigmas (1.4826 MAD) of the run-to-run difference over 24 runs: relative sigma 0.71%, "
            "absolute sigma 0.12 us");
  t.absolute_sigma_us = 1234.6;
  EXPECT_NE(describe(t, s).find("absolute sigma 1235 us"), std::string::npos) << describe(t, s);
}

TEST(NoiseThreshold, BadInputThrows) {
  std::vector<double> v(12, 5.0);
  v[3] = 0;
  EXPECT_THROW(noise_threshold(v, {}), std::invalid_argument);
  v[3] = -1;
  EXPECT_THROW(noise_threshold(v, {}), std::invalid_argument);
  v[3] = std::nan("");
  EXPECT_THROW(noise_threshold(v, {}), std::invalid_argument);
  v[3] = INFINITY;
  EXPECT_THROW(noise_threshold(v, {}), std::invalid_argument);
  v[3] = 5.0;
  NoiseSettings s;
  s.min_runs = 1;
  EXPECT_THROW(noise_threshold(v, s), std::invalid_argument);
  s = {};
  s.sigmas = 0;
  EXPECT_THROW(noise_threshold(v, s), std::invalid_argument);
  s = {};
  s.min_relative_pct = -1;
  EXPECT_THROW(noise_threshold(v, s), std::invalid_argument);
}

}  // namespace
}  // namespace caliber::history
