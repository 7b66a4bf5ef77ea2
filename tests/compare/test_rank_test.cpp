// The Mann-Whitney U test against reference p-values whose source is independent of the
// implementation: R's documented example, full enumeration of rank assignments, and hand
// calculations of the normal approximation shown in the comments.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "compare/rank_test.h"

namespace caliber::compare {
namespace {

// Reference 1: R's ?wilcox.test (stats package), example "Two-sample test. Hollander & Wolfe
// (1973), 69f. Permeability constants of the human chorioamnion ... at term (x) and between 12
// to 26 weeks gestational age (y)":
//   wilcox.test(x, y, alternative = "g")   ## W = 35, p-value = 0.1272
// Exact (15 values, no ties); the two-sided p is twice the one-sided one.
TEST(MannWhitneyU, MatchesRsDocumentedExample) {
  const std::vector<double> x = {0.80, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64, 0.73, 1.46};
  const std::vector<double> y = {1.15, 0.88, 0.90, 0.74, 1.21};
  const RankTestResult r = mann_whitney_u(x, y);
  EXPECT_TRUE(r.exact);
  EXPECT_FALSE(r.ties);
  EXPECT_DOUBLE_EQ(r.w, 35.0);
  EXPECT_NEAR(r.p_greater, 0.1272, 5e-5);
  EXPECT_NEAR(r.p_two_sided, 2 * 0.1272, 1e-4);
}

// Reference 2: the null distribution by brute force. Under H0 every choice of which m of the
// N = m + n ranks belong to x is equally likely; enumerate all C(N, m) subsets (independent of
// the recurrence the implementation uses) and count W = sum(ranks of x) - m (m + 1) / 2.
struct Enumerated {
  double p_less, p_greater;
};
Enumerated enumerate_null(std::size_t m, std::size_t n, double w_observed) {
  const std::size_t total = m + n;
  std::vector<bool> pick(total, false);
  std::fill(pick.begin(), pick.begin() + static_cast<std::ptrdiff_t>(m), true);
  double all = 0, le = 0, ge = 0;
  do {
    double rank_sum = 0;
    for (std::size_t i = 0; i < total; ++i) {
      if (pick[i]) rank_sum += static_cast<double>(i + 1);
    }
    const double w = rank_sum - static_cast<double>(m * (m + 1)) / 2;
    all += 1;
    if (w <= w_observed) le += 1;
    if (w >= w_observed) ge += 1;
  } while (std::prev_permutation(pick.begin(), pick.end()));
  return {le / all, ge / all};
}

TEST(MannWhitneyU, ExactPValuesEqualFullEnumeration) {
  // Fixed, tie-free samples of several sizes, including unbalanced ones and complete separation.
  const std::vector<std::pair<std::vector<double>, std::vector<double>>> cases = {
      {{1.5, 3.5}, {2.5, 4.5, 5.5}},
      {{10.1, 10.4, 9.8, 10.9, 11.2}, {9.1, 9.5, 10.0, 9.9, 10.2}},
      {{5, 6, 7, 8, 9, 10, 11}, {1, 2, 3, 4, 12, 13}},
      {{101, 102, 103, 104, 105, 106, 107, 108}, {1, 2, 3, 4, 5, 6, 7}},
      {{3.2, 1.1, 4.7, 2.2, 9.9, 0.3, 7.7, 5.5}, {6.6, 8.8, 0.9, 2.9, 4.4, 7.1, 3.9, 5.1}},
  };
  for (const auto& [x, y] : cases) {
    const RankTestResult r = mann_whitney_u(x, y);
    ASSERT_TRUE(r.exact);
    const Enumerated e = enumerate_null(x.size(), y.size(), r.w);
    EXPECT_NEAR(r.p_less, e.p_less, 1e-12);
    EXPECT_NEAR(r.p_greater, e.p_greater, 1e-12);
    EXPECT_NEAR(r.p_two_sided, std::min(1.0, 2 * std::min(e.p_less, e.p_greater)), 1e-12);
  }
}

// By hand: x = {1, 2}, y = {3, 4}: W = 0, and W = 0 for exactly one of the C(4, 2) = 6 rank
// assignments, so P(W <= 0) = 1/6 and the two-sided p = 1/3. This is why the gate asks for at
// least 5 samples per side: with 2 vs 2 no shift can ever reach alpha = 0.05.
TEST(MannWhitneyU, SmallestPossiblePValueOfTwoVersusTwo) {
  const RankTestResult r = mann_whitney_u(std::vector<double>{1, 2}, std::vector<double>{3, 4});
  EXPECT_DOUBLE_EQ(r.w, 0.0);
  EXPECT_NEAR(r.p_less, 1.0 / 6, 1e-15);
  EXPECT_NEAR(r.p_two_sided, 1.0 / 3, 1e-15);
  EXPECT_NEAR(r.p_greater, 1.0, 1e-15);
}

// Reference 3, by hand: ties force the normal approximation (as in R).
//   x = {2, 4, 5, 5, 5, 6}, y = {5, 5, 6, 7, 7, 8}: m = n = 6, N = 12.
//   W = #(x > y) + 0.5 #(x == y): x=6 beats the two 5s (2) and ties the 6 (0.5); each of the
//   three 5s ties the two 5s of y (3 x 2 x 0.5 = 3): W = 5.5.
//   Tie groups: 5 (t = 5), 6 (t = 2), 7 (t = 2): sum(t^3 - t) = 120 + 6 + 6 = 132.
//   sigma^2 = m n / 12 ((N + 1) - 132 / (N (N - 1))) = 3 (13 - 1) = 36, sigma = 6.
//   Two-sided: z = (5.5 - 18 + 0.5) / 6 = -2, p = 2 Phi(-2) = 0.0455003 (normal table:
//   Phi(2) = 0.9772499). "less": z = (5.5 - 18 + 0.5) / 6 = -2 -> 0.0227501;
//   "greater": z = (5.5 - 18 - 0.5) / 6 = -13/6 -> 1 - Phi(-2.1667) = Phi(2.1667) = 0.98487.
TEST(MannWhitneyU, NormalApproximationWithTiesMatchesHandCalculation) {
  const RankTestResult r = mann_whitney_u(std::vector<double>{2, 4, 5, 5, 5, 6},
                                          std::vector<double>{5, 5, 6, 7, 7, 8});
  EXPECT_FALSE(r.exact);
  EXPECT_TRUE(r.ties);
  EXPECT_DOUBLE_EQ(r.w, 5.5);
  EXPECT_NEAR(r.p_two_sided, 0.0455003, 1e-6);
  EXPECT_NEAR(r.p_less, 0.0227501, 1e-6);
  EXPECT_NEAR(r.p_greater, 0.98487, 1e-5);
}

// By hand, large samples without ties (normal approximation because both n >= 50):
//   x = odd numbers 1..99, y = even numbers 2..100 (m = n = 50, N = 100). The x value 2k-1
//   beats the k-1 even numbers below it: W = 0 + 1 + ... + 49 = 1225; m n / 2 = 1250.
//   sigma^2 = 50 * 50 * 101 / 12 = 21041.667, sigma = 145.0574.
//   z = (1225 - 1250 + 0.5) / 145.0574 = -0.168899; p = 2 Phi(-0.168899) = 0.86588
//   (normal table: Phi(0.16) = 0.56356, Phi(0.17) = 0.56749; interpolated Phi(0.1689) = 0.56706).
TEST(MannWhitneyU, NormalApproximationBeyondTheExactLimit) {
  std::vector<double> x, y;
  for (int k = 1; k <= 50; ++k) {
    x.push_back(2 * k - 1);
    y.push_back(2 * k);
  }
  const RankTestResult r = mann_whitney_u(x, y);
  EXPECT_FALSE(r.exact);
  EXPECT_FALSE(r.ties);
  EXPECT_DOUBLE_EQ(r.w, 1225.0);
  EXPECT_NEAR(r.p_two_sided, 0.86588, 2e-4);
}

TEST(MannWhitneyU, ExactUpToFortyNinePerSide) {
  std::vector<double> x, y;
  for (int k = 0; k < 49; ++k) {
    x.push_back(k);
    y.push_back(100 + k);
  }
  const RankTestResult r = mann_whitney_u(x, y);
  EXPECT_TRUE(r.exact);
  // Complete separation: only 1 of C(98, 49) assignments has W = 0, p = 2 / C(98, 49) ~ 7.9e-29.
  EXPECT_GT(r.p_two_sided, 0);
  EXPECT_LT(r.p_two_sided, 1e-27);
}

TEST(MannWhitneyU, AllEqualValuesGiveNoEvidence) {
  const RankTestResult r = mann_whitney_u(std::vector<double>{3, 3, 3}, std::vector<double>{3, 3});
  EXPECT_DOUBLE_EQ(r.p_two_sided, 1.0);
}

TEST(MannWhitneyU, RefusesEmptyOrNaNSamples) {
  EXPECT_THROW(mann_whitney_u(std::vector<double>{}, std::vector<double>{1}), std::invalid_argument);
  EXPECT_THROW(mann_whitney_u(std::vector<double>{1, std::nan("")}, std::vector<double>{1}),
               std::invalid_argument);
}

}  // namespace
}  // namespace caliber::compare
