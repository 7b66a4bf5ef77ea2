#include "ab/wilcoxon.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <vector>

namespace caliber {

WilcoxonResult wilcoxon_signed_rank(std::span<const double> differences) {
  WilcoxonResult r;
  std::vector<double> d;
  for (double x : differences) {
    if (x != 0.0) d.push_back(x);
  }
  r.n = static_cast<int>(d.size());
  if (d.empty()) return r;

  // Doubled midranks of |d|: integers, so the null distribution is exact with ties.
  std::vector<std::size_t> order(d.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return std::abs(d[a]) < std::abs(d[b]); });
  std::vector<std::int64_t> rank2(d.size());
  for (std::size_t i = 0; i < order.size();) {
    std::size_t j = i;
    while (j + 1 < order.size() && std::abs(d[order[j + 1]]) == std::abs(d[order[i]])) ++j;
    // Positions i..j (0-based) share the midrank ((i+1) + (j+1)) / 2; doubled: i + j + 2.
    for (std::size_t k = i; k <= j; ++k) rank2[order[k]] = static_cast<std::int64_t>(i + j + 2);
    i = j + 1;
  }
  std::int64_t total2 = 0, plus2 = 0;
  for (std::size_t i = 0; i < d.size(); ++i) {
    total2 += rank2[i];
    if (d[i] > 0) plus2 += rank2[i];
  }
  r.w_plus = static_cast<double>(plus2) / 2.0;
  r.w_minus = static_cast<double>(total2 - plus2) / 2.0;

  // prob[s] = P(doubled W+ == s) under H0.
  std::vector<double> prob(static_cast<std::size_t>(total2) + 1, 0.0);
  prob[0] = 1.0;
  std::int64_t reach = 0;
  for (std::int64_t rk : rank2) {
    for (std::int64_t s = reach; s >= 0; --s) {
      const double p = prob[static_cast<std::size_t>(s)];
      prob[static_cast<std::size_t>(s)] = 0.5 * p;
      prob[static_cast<std::size_t>(s + rk)] += 0.5 * p;
    }
    reach += rk;
  }
  // |2 W+ - total| in doubled units: |2 plus2 - total2|.
  const std::int64_t observed = std::abs(2 * plus2 - total2);
  double p = 0, p_extreme = 0;
  const std::int64_t most_extreme = total2;  // all ranks on one side
  for (std::int64_t s = 0; s <= total2; ++s) {
    const std::int64_t dev = std::abs(2 * s - total2);
    if (dev >= observed) p += prob[static_cast<std::size_t>(s)];
    if (dev >= most_extreme) p_extreme += prob[static_cast<std::size_t>(s)];
  }
  r.p_two_sided = std::min(1.0, p);
  r.min_attainable_p = std::min(1.0, p_extreme);
  return r;
}

}  // namespace caliber
