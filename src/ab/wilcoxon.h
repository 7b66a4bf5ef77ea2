// The Wilcoxon signed-rank test, exact: the verdict of an A/B across rounds (docs/ab.md).
//
// Differences equal to zero are dropped (Wilcoxon's original treatment); tied |differences| get
// their average rank. The p-value is exact for every n, ties included: the null distribution of
// W+ is the distribution of the sum of a random subset of the (mid)ranks, each rank in or out with
// probability 1/2, computed by dynamic programming over doubled ranks (integers).
#pragma once

#include <span>

namespace caliber {

struct WilcoxonResult {
  int n = 0;               // non-zero differences
  double w_plus = 0;       // sum of the ranks of positive differences
  double w_minus = 0;      // sum of the ranks of negative differences
  double p_two_sided = 1;  // P(|W+ - E W+| >= observed) under H0; 1 when n == 0
  double min_attainable_p = 1;  // the smallest two-sided p this n (and these ties) can give
};

WilcoxonResult wilcoxon_signed_rank(std::span<const double> differences);

}  // namespace caliber
