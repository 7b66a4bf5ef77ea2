// The Mann-Whitney U (Wilcoxon rank-sum) test: do two sample sets come from the same
// distribution, or is one shifted? Distribution-free, so it fits timing samples (skewed, with a
// long right tail) where a t-test does not.
//
// Conventions follow R's wilcox.test (stats package): the statistic of x is
//   W = #{(i, j): x_i > y_j} + 0.5 #{(i, j): x_i == y_j},
// W ranges over [0, m n] with mean m n / 2 under the null hypothesis.
// p-values:
//   exact    when both samples have fewer than kExactRankTestLimit values and there are no ties:
//            the null distribution of W counts, for every way to assign the ranks 1..m+n to the
//            two samples, the resulting W (computed by the recurrence of Mann & Whitney 1947);
//   normal   otherwise: z = (W - m n / 2 - c) / sigma with the tie-corrected
//            sigma^2 = m n / 12 ((N + 1) - sum(t^3 - t) / (N (N - 1))), N = m + n, t = the size of
//            each group of tied values, and the continuity correction c = 0.5 towards the mean
//            (c = sign(W - m n / 2) 0.5 two-sided, +0.5 for "greater", -0.5 for "less").
// Two-sided p = min(1, 2 min(P(W <= w), P(W >= w))).
#pragma once

#include <span>
#include <string_view>

namespace caliber::compare {

// Both samples below this size and no ties: exact distribution (R's wilcox.test rule).
inline constexpr std::size_t kExactRankTestLimit = 50;

struct RankTestResult {
  double w = 0;              // W of x (see above)
  double p_two_sided = 1;
  double p_greater = 1;      // alternative: x tends to be larger than y
  double p_less = 1;         // alternative: x tends to be smaller than y
  bool exact = false;        // exact distribution (else the normal approximation)
  bool ties = false;         // some value occurs more than once in x and y together
  std::string_view method() const { return exact ? "exact" : "normal approximation"; }
};

// Throws std::invalid_argument when either sample is empty or holds a NaN.
RankTestResult mann_whitney_u(std::span<const double> x, std::span<const double> y);

}  // namespace caliber::compare
