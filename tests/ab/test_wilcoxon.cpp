// The exact Wilcoxon signed-rank test, against values derived independently of the
// implementation: hand enumeration, a published example, and brute force over all 2^n signs.
#include "ab/wilcoxon.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

namespace caliber {
namespace {

// Brute force: ranks by counting (midranks for ties), then every one of the 2^n sign assignments
// of those ranks, equally likely under H0; two-sided p = share with |W+ - n(n+1)/4| at least the
// observed one. A different algorithm from the implementation's dynamic programme.
double brute_force_p(std::vector<double> d) {
  d.erase(std::remove(d.begin(), d.end(), 0.0), d.end());
  const std::size_t n = d.size();
  if (n == 0) return 1.0;
  std::vector<double> rank(n);
  for (std::size_t i = 0; i < n; ++i) {
    double less = 0, equal = 0;
    for (std::size_t j = 0; j < n; ++j) {
      if (std::abs(d[j]) < std::abs(d[i])) ++less;
      if (std::abs(d[j]) == std::abs(d[i])) ++equal;
    }
    rank[i] = less + (equal + 1) / 2;
  }
  double total = 0, observed = 0;
  for (std::size_t i = 0; i < n; ++i) {
    total += rank[i];
    if (d[i] > 0) observed += rank[i];
  }
  const double mean = total / 2, dev = std::abs(observed - mean);
  std::uint64_t hits = 0;
  for (std::uint64_t mask = 0; mask < (1ull << n); ++mask) {
    double w = 0;
    for (std::size_t i = 0; i < n; ++i) {
      if (mask & (1ull << i)) w += rank[i];
    }
    if (std::abs(w - mean) >= dev - 1e-9) ++hits;
  }
  return static_cast<double>(hits) / static_cast<double>(1ull << n);
}

TEST(Wilcoxon, AllRoundsOneSignGiveTwoOverTwoToTheN) {
  // W+ = n(n+1)/2 is reached by one of 2^n assignments, and its mirror W+ = 0 by one more.
  const std::vector<double> six = {0.5, 1.5, 2.5, 3.5, 4.5, 5.5};
  auto r = wilcoxon_signed_rank(six);
  EXPECT_EQ(r.n, 6);
  EXPECT_DOUBLE_EQ(r.w_plus, 21);
  EXPECT_DOUBLE_EQ(r.w_minus, 0);
  EXPECT_DOUBLE_EQ(r.p_two_sided, 2.0 / 64);  // 0.03125: six rounds can reach alpha 0.05
  EXPECT_DOUBLE_EQ(r.min_attainable_p, 2.0 / 64);
  const std::vector<double> five = {-1, -2, -3, -4, -5};
  r = wilcoxon_signed_rank(five);
  EXPECT_DOUBLE_EQ(r.p_two_sided, 2.0 / 32);  // 0.0625: five rounds cannot
}

TEST(Wilcoxon, MatchesTheHollanderWolfeExample) {
  // Hollander & Wolfe, Nonparametric Statistical Methods (1973), p. 29: the paired depression
  // scores reproduced in R's ?wilcox.test, whose documented output for alternative = "greater" is
  // V = 40, p-value = 0.01953; two-sided it is twice that. By hand: the negative differences have
  // ranks 2 and 3, so W- = 5, and #{subsets of 1..9 with sum <= 5} = 10, so P(W+ >= 40) = 10/512.
  const std::vector<double> x = {1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.30};
  const std::vector<double> y = {0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29};
  std::vector<double> d;
  for (std::size_t i = 0; i < x.size(); ++i) d.push_back(x[i] - y[i]);
  const auto r = wilcoxon_signed_rank(d);
  EXPECT_DOUBLE_EQ(r.w_plus, 40);
  EXPECT_DOUBLE_EQ(r.w_minus, 5);
  EXPECT_DOUBLE_EQ(r.p_two_sided, 20.0 / 512);  // 0.0390625
}

TEST(Wilcoxon, HandEnumeratedSmallCase) {
  // n = 8, negative ranks {1, 2} so W- = 3: subsets of 1..8 with sum <= 3 are {}, {1}, {2}, {3},
  // {1,2}: 5 of 256 on each tail, p = 10/256.
  const std::vector<double> d = {-0.1, -0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8};
  EXPECT_DOUBLE_EQ(wilcoxon_signed_rank(d).p_two_sided, 10.0 / 256);
}

TEST(Wilcoxon, ZerosAreDroppedAndTiesShareTheirRank) {
  // Zeros leave n = 3; |d| ties 1, 1 get rank 1.5 each, 2 gets rank 3.
  const std::vector<double> d = {0.0, 1.0, -1.0, 2.0, 0.0};
  const auto r = wilcoxon_signed_rank(d);
  EXPECT_EQ(r.n, 3);
  EXPECT_DOUBLE_EQ(r.w_plus, 4.5);
  EXPECT_DOUBLE_EQ(r.w_minus, 1.5);
  // Assignments of {1.5, 1.5, 3}: W+ in {0, 1.5, 1.5, 3, 3, 4.5, 4.5, 6}; mean 3; |dev| >= 1.5 for 6 of 8.
  EXPECT_DOUBLE_EQ(r.p_two_sided, 6.0 / 8);
  EXPECT_EQ(wilcoxon_signed_rank(std::vector<double>{0.0, 0.0}).n, 0);
  EXPECT_DOUBLE_EQ(wilcoxon_signed_rank(std::vector<double>{0.0, 0.0}).p_two_sided, 1.0);
}

TEST(Wilcoxon, EqualsBruteForceOnRandomDeltasWithTies) {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 300; ++trial) {
    const int n = 1 + static_cast<int>(rng() % 12);
    std::vector<double> d;
    for (int i = 0; i < n; ++i) {
      // Values on a coarse grid so ties and zeros happen often.
      d.push_back(static_cast<double>(static_cast<int>(rng() % 9) - 4) * 0.25 + (rng() % 3 == 0 ? 0.1 : 0.0));
    }
    EXPECT_NEAR(wilcoxon_signed_rank(d).p_two_sided, brute_force_p(d), 1e-12) << "trial " << trial;
  }
}

TEST(Wilcoxon, LargeNAgreesWithTheNormalApproximation) {
  // For n = 40 without ties, W+ is close to normal with mean n(n+1)/4 and variance
  // n(n+1)(2n+1)/24 (Wilcoxon 1945; Hollander & Wolfe eq. 3.13); with a continuity correction the
  // two-sided tail agrees with the exact value to a few thousandths.
  std::vector<double> d;
  for (int i = 1; i <= 40; ++i) d.push_back(i % 3 == 0 ? -i : i);
  const auto r = wilcoxon_signed_rank(d);
  const double n = 40, mean = n * (n + 1) / 4, sd = std::sqrt(n * (n + 1) * (2 * n + 1) / 24);
  const double z = (std::abs(r.w_plus - mean) - 0.5) / sd;
  EXPECT_NEAR(r.p_two_sided, std::erfc(z / std::sqrt(2.0)), 0.003);
  std::vector<double> mirrored;
  for (double x : d) mirrored.push_back(-x);
  EXPECT_NEAR(wilcoxon_signed_rank(mirrored).p_two_sided, r.p_two_sided, 1e-15);
}

}  // namespace
}  // namespace caliber
