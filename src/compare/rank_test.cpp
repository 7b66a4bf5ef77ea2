#include "compare/rank_test.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

namespace caliber::compare {
namespace {

double normal_cdf(double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); }

// counts[w] = number of rank assignments of m values to x and n values to y (out of
// C(m+n, m)) whose statistic equals w, w = 0..m n. Recurrence on the largest value: it belongs to
// x (and beats all n values of y: w - n for the rest) or to y (w unchanged):
//   c(i, j, w) = c(i - 1, j, w - j) + c(i, j - 1, w),  c(0, j, 0) = c(i, 0, 0) = 1.
// Doubles hold the counts (C(98, 49) ~ 2.5e28 exceeds 64 bits); only additions, so the relative
// error stays at the rounding level.
std::vector<double> exact_null_counts(std::size_t m, std::size_t n) {
  const std::size_t wmax = m * n;
  // layer[j][w] for the current i.
  std::vector<std::vector<double>> prev(n + 1, std::vector<double>(wmax + 1, 0.0));
  for (std::size_t j = 0; j <= n; ++j) prev[j][0] = 1.0;  // i = 0
  for (std::size_t i = 1; i <= m; ++i) {
    std::vector<std::vector<double>> cur(n + 1, std::vector<double>(wmax + 1, 0.0));
    cur[0][0] = 1.0;
    for (std::size_t j = 1; j <= n; ++j) {
      const std::size_t top = i * j;
      for (std::size_t w = 0; w <= top; ++w) {
        double v = cur[j - 1][w];
        if (w >= j) v += prev[j][w - j];
        cur[j][w] = v;
      }
    }
    prev = std::move(cur);
  }
  return prev[n];
}

// The rank sum of x among the pooled samples (midranks for ties) and the tie correction term
// sum(t^3 - t) over the groups of t equal values.
struct PooledRanks {
  double rank_sum_x = 0;
  double tie_term = 0;
};

PooledRanks pooled_ranks(std::span<const double> x, std::span<const double> y) {
  const std::size_t total = x.size() + y.size();
  std::vector<std::pair<double, bool>> pooled;  // value, is_x
  pooled.reserve(total);
  for (double v : x) pooled.emplace_back(v, true);
  for (double v : y) pooled.emplace_back(v, false);
  for (const auto& p : pooled) {
    if (std::isnan(p.first)) throw std::invalid_argument("mann_whitney_u: NaN sample");
  }
  std::sort(pooled.begin(), pooled.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  PooledRanks r;
  for (std::size_t i = 0; i < total;) {
    std::size_t j = i;
    while (j < total && pooled[j].first == pooled[i].first) ++j;
    const double t = static_cast<double>(j - i);
    const double midrank = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2.0;
    for (std::size_t k = i; k < j; ++k) {
      if (pooled[k].second) r.rank_sum_x += midrank;
    }
    r.tie_term += t * t * t - t;
    i = j;
  }
  return r;
}

// The one-sided p-values from the exact null distribution of W (small samples, no ties).
void exact_p_values(RankTestResult& r, std::size_t m, std::size_t n) {
  const auto counts = exact_null_counts(m, n);
  double all = 0;
  for (double c : counts) all += c;
  const auto w = static_cast<std::size_t>(std::llround(r.w));
  double le = 0, ge = 0;
  for (std::size_t k = 0; k < counts.size(); ++k) {
    if (k <= w) le += counts[k];
    if (k >= w) ge += counts[k];
  }
  r.p_less = le / all;
  r.p_greater = ge / all;
  r.p_two_sided = std::min(1.0, 2 * std::min(r.p_less, r.p_greater));
}

// The p-values from the normal approximation, tie-corrected variance and continuity correction.
void normal_p_values(RankTestResult& r, double dm, double dn, double tie_term) {
  const double dN = dm + dn;
  const double mean = dm * dn / 2;
  const double var = dm * dn / 12 * ((dN + 1) - tie_term / (dN * (dN - 1)));
  if (var <= 0) {
    // Every value equal: no evidence either way.
    r.p_less = r.p_greater = r.p_two_sided = 1;
    return;
  }
  const double sigma = std::sqrt(var);
  r.p_greater = 1 - normal_cdf((r.w - mean - 0.5) / sigma);
  r.p_less = normal_cdf((r.w - mean + 0.5) / sigma);
  const double d = r.w - mean;
  const double correction = d > 0 ? 0.5 : (d < 0 ? -0.5 : 0.0);
  const double z = (d - correction) / sigma;
  r.p_two_sided = std::min(1.0, 2 * std::min(normal_cdf(z), 1 - normal_cdf(z)));
}

}  // namespace

RankTestResult mann_whitney_u(std::span<const double> x, std::span<const double> y) {
  if (x.empty() || y.empty()) throw std::invalid_argument("mann_whitney_u: a sample is empty");
  const std::size_t m = x.size(), n = y.size();
  // Midranks of the pooled samples; W = (rank sum of x) - m (m + 1) / 2.
  const PooledRanks ranks = pooled_ranks(x, y);
  const double dm = static_cast<double>(m), dn = static_cast<double>(n);
  RankTestResult r;
  r.w = ranks.rank_sum_x - dm * (dm + 1) / 2;
  r.ties = ranks.tie_term > 0;
  r.exact = m < kExactRankTestLimit && n < kExactRankTestLimit && !r.ties;
  if (r.exact) {
    exact_p_values(r, m, n);
  } else {
    normal_p_values(r, dm, dn, ranks.tie_term);
  }
  return r;
}

}  // namespace caliber::compare
