// Hierarchical E-divisive change point detection: per-split statistics in O(m log m) through
// rank-indexed Fenwick trees, a seeded permutation test that stops as soon as it cannot reject,
// and the loop that splits segments until a test fails.
#include "history/change_points.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>

namespace caliber::history {
namespace {

// Permuted statistics are the same sums added in another order, so an exact tie can come out a
// few ulps low; counting it as "at least as large" keeps the test conservative.
constexpr double kTieTolerance = 1e-9;

void check_values(const std::vector<double>& values) {
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (!std::isfinite(values[i])) {
      throw std::invalid_argument("change points: value " + std::to_string(i) + " is not finite");
    }
  }
}

void check_settings(const ChangePointSettings& s) {
  if (!(s.alpha > 0.0 && s.alpha < 1.0)) throw std::invalid_argument("change points: alpha must be in (0, 1)");
  if (s.permutations < 1) throw std::invalid_argument("change points: permutations must be at least 1");
  if (s.min_segment < 2) throw std::invalid_argument("change points: min_segment must be at least 2");
}

// Unbiased draw in [0, bound): rejecting the lowest 2^64 mod bound outputs leaves a range that is
// a whole multiple of bound. std::uniform_int_distribution is avoided because its algorithm
// differs between standard libraries, and the permutations must not.
std::uint64_t bounded_draw(std::mt19937_64& rng, std::uint64_t bound) {
  const std::uint64_t reject_below = (0 - bound) % bound;
  for (;;) {
    const std::uint64_t r = rng();
    if (r >= reject_below) return r % bound;
  }
}

void shuffle(std::vector<std::uint32_t>& a, std::mt19937_64& rng) {
  for (std::size_t i = a.size(); i > 1; --i) {
    const std::size_t j = static_cast<std::size_t>(bounded_draw(rng, i));
    std::swap(a[i - 1], a[j]);
  }
}

// One segment's values by rank. Ranks are unique (ties broken by position), so any permutation
// of the segment is a permutation of its rank sequence and the values need no re-sorting.
struct RankedSegment {
  std::vector<double> by_rank;      // centred values, ascending
  std::vector<std::uint32_t> ranks; // rank of each point, in series order
};

RankedSegment rank_segment(const double* first, std::size_t m) {
  std::vector<std::uint32_t> order(m);
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) { return first[a] < first[b]; });
  RankedSegment seg;
  seg.by_rank.resize(m);
  seg.ranks.resize(m);
  // Distances do not change under a shift; centring on the median keeps the rank-prefix sums
  // small so the differences taken from them lose no precision on large offsets.
  const double centre = first[order[m / 2]];
  for (std::size_t r = 0; r < m; ++r) {
    seg.by_rank[r] = first[order[r]] - centre;
    seg.ranks[order[r]] = static_cast<std::uint32_t>(r);
  }
  return seg;
}

// within[k] = sum of |x_i - x_j| over the pairs among the first k points of `ranks`. Each new
// point's distance to all earlier ones comes from the count and sum of the earlier points below
// its rank, kept in two Fenwick trees.
std::vector<double> prefix_within_sums(const std::vector<std::uint32_t>& ranks, const std::vector<double>& by_rank) {
  const std::size_t m = ranks.size();
  std::vector<double> count(m + 1, 0.0), sum(m + 1, 0.0), within(m + 1, 0.0);
  double total = 0;
  for (std::size_t k = 0; k < m; ++k) {
    const std::size_t r = ranks[k];
    const double x = by_rank[r];
    double below_n = 0, below_sum = 0;
    for (std::size_t i = r; i > 0; i &= i - 1) {
      below_n += count[i];
      below_sum += sum[i];
    }
    const double above_n = static_cast<double>(k) - below_n, above_sum = total - below_sum;
    within[k + 1] = within[k] + (x * below_n - below_sum) + (above_sum - x * above_n);
    for (std::size_t i = r + 1; i <= m; i += i & (0 - i)) {
      count[i] += 1;
      sum[i] += x;
    }
    total += x;
  }
  return within;
}

// q-hat for every split tau of the sequence (0 outside [min_segment, m - min_segment]):
// n1 n2 / (n1 + n2) * (2 C / (n1 n2) - W / C(n1, 2) - R / C(n2, 2)), with W and R the within
// sums of the two sides and C the cross sum, which is what the whole segment's pairs leave.
std::vector<double> split_statistics(const std::vector<std::uint32_t>& ranks, const std::vector<double>& by_rank,
                                     std::size_t min_segment) {
  const std::size_t m = ranks.size();
  std::vector<double> q(m, 0.0);
  if (m < 2 * min_segment) return q;
  const std::vector<double> left = prefix_within_sums(ranks, by_rank);
  const std::vector<std::uint32_t> reversed(ranks.rbegin(), ranks.rend());
  const std::vector<double> right = prefix_within_sums(reversed, by_rank);
  const double all = left[m];
  for (std::size_t tau = min_segment; tau + min_segment <= m; ++tau) {
    const double n1 = static_cast<double>(tau), n2 = static_cast<double>(m - tau);
    const double w = left[tau], r = right[m - tau], cross = all - w - r;
    const double e = 2 * cross / (n1 * n2) - 2 * w / (n1 * (n1 - 1)) - 2 * r / (n2 * (n2 - 1));
    q[tau] = n1 * n2 / (n1 + n2) * e;
  }
  return q;
}

struct Split {
  std::size_t tau = 0;  // offset within the segment
  double q = 0;
};

Split best_split(const std::vector<std::uint32_t>& ranks, const std::vector<double>& by_rank, std::size_t min_segment) {
  const std::vector<double> q = split_statistics(ranks, by_rank, min_segment);
  Split best{min_segment, q[min_segment]};
  for (std::size_t tau = min_segment + 1; tau + min_segment <= ranks.size(); ++tau) {
    if (q[tau] > best.q) best = Split{tau, q[tau]};
  }
  return best;
}

// Permutation p-value of `observed` for this segment when it is <= alpha, nullopt otherwise.
// p <= alpha needs exceedances + 1 <= alpha (P + 1), so once the count passes that the remaining
// permutations cannot change the answer: the test stops, and pure noise costs a handful of them.
std::optional<double> significant_p_value(const RankedSegment& seg, double observed, const ChangePointSettings& s,
                                          std::mt19937_64& rng) {
  const double slots = std::floor(s.alpha * (s.permutations + 1.0) + 1e-9);
  if (slots < 1) return std::nullopt;  // even p = 1/(P+1) would exceed alpha
  const double tie = kTieTolerance * std::abs(observed);
  std::vector<std::uint32_t> ranks = seg.ranks;
  double exceed = 0;
  for (int k = 0; k < s.permutations; ++k) {
    shuffle(ranks, rng);
    if (best_split(ranks, seg.by_rank, s.min_segment).q >= observed - tie) {
      exceed += 1;
      if (exceed + 1 > slots) return std::nullopt;
    }
  }
  return (exceed + 1) / (s.permutations + 1.0);
}

double median(const double* first, std::size_t n) {
  std::vector<double> v(first, first + n);
  const std::size_t mid = n / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
  const double upper = v[mid];
  if (n % 2 == 1) return upper;
  return (upper + *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid))) / 2;
}

// A current segment [begin, end) of the series with its best split, if it is long enough to have one.
struct Segment {
  std::size_t begin = 0, end = 0;
  RankedSegment ranked;
  bool splittable = false;
  Split best;
};

Segment make_segment(const std::vector<double>& values, std::size_t begin, std::size_t end, std::size_t min_segment) {
  Segment seg{begin, end, rank_segment(values.data() + begin, end - begin), false, {}};
  if (end - begin >= 2 * min_segment) {
    seg.splittable = true;
    seg.best = best_split(seg.ranked.ranks, seg.ranked.by_rank, min_segment);
  }
  return seg;
}

// The medians either side of each change point, taken between its neighbours.
void describe_segments(const std::vector<double>& values, std::vector<ChangePoint>& points) {
  for (std::size_t i = 0; i < points.size(); ++i) {
    const std::size_t lo = i == 0 ? 0 : points[i - 1].index;
    const std::size_t hi = i + 1 == points.size() ? values.size() : points[i + 1].index;
    const std::size_t at = points[i].index;
    points[i].before = median(values.data() + lo, at - lo);
    points[i].after = median(values.data() + at, hi - at);
    points[i].relative = points[i].before == 0 ? 0 : (points[i].after - points[i].before) / points[i].before;
  }
}

}  // namespace

std::vector<double> e_divisive_statistics(const std::vector<double>& values, std::size_t min_segment) {
  if (min_segment < 2) throw std::invalid_argument("change points: min_segment must be at least 2");
  check_values(values);
  if (values.empty()) return {};
  const RankedSegment seg = rank_segment(values.data(), values.size());
  return split_statistics(seg.ranks, seg.by_rank, min_segment);
}

std::vector<ChangePoint> find_change_points(const std::vector<double>& values, const ChangePointSettings& settings) {
  check_settings(settings);
  check_values(values);
  std::vector<ChangePoint> points;
  if (values.size() < 2 * settings.min_segment) return points;
  std::mt19937_64 rng(settings.seed);
  std::vector<Segment> segments;
  segments.push_back(make_segment(values, 0, values.size(), settings.min_segment));
  for (;;) {
    // The candidate is the largest q-hat over all current segments (kappa = each segment's end).
    auto pick = segments.end();
    for (auto it = segments.begin(); it != segments.end(); ++it) {
      if (it->splittable && (pick == segments.end() || it->best.q > pick->best.q)) pick = it;
    }
    if (pick == segments.end()) break;
    const std::optional<double> p = significant_p_value(pick->ranked, pick->best.q, settings, rng);
    if (!p) break;
    const std::size_t begin = pick->begin, at = begin + pick->best.tau, end = pick->end;
    ChangePoint cp;
    cp.index = at;
    cp.statistic = pick->best.q;
    cp.p_value = *p;
    points.push_back(cp);
    *pick = make_segment(values, begin, at, settings.min_segment);
    segments.push_back(make_segment(values, at, end, settings.min_segment));
  }
  std::sort(points.begin(), points.end(), [](const ChangePoint& a, const ChangePoint& b) { return a.index < b.index; });
  describe_segments(values, points);
  return points;
}

}  // namespace caliber::history
