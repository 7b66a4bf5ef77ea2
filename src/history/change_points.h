// Change points in a run history: hierarchical E-divisive means with permutation tests, as pure
// logic over one series of values (oldest first).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace caliber::history {

struct ChangePointSettings {
  double alpha = 0.01;          // significance of each permutation test = the false-alarm rate per series
  // Permutation test size (p resolution 1/(permutations+1)): 499 leaves room for a few chance
  // exceedances at alpha 0.01, so a clear step is not lost to an unlucky draw.
  int permutations = 499;
  std::size_t min_segment = 5;  // fewest points a segment may have on either side of a change
  std::uint64_t seed = 1;       // the permutations are deterministic given the seed
};

struct ChangePoint {
  std::size_t index = 0;         // first point of the new segment (values[index] is "after")
  double statistic = 0;          // the E-divisive statistic q-hat at index
  double p_value = 1;            // permutation p-value (count of permuted >= observed + 1) / (perms + 1)
  double before = 0, after = 0;  // medians of the adjacent segments (between neighbouring change points)
  double relative = 0;           // (after - before) / before; 0 when before is 0
};

// E-divisive means (Matteson & James 2014, "A Nonparametric Approach for Multiple Change Point
// Analysis of Multivariate Data", JASA) with exponent 1 on 1-D data, kappa = segment end (the
// simplification MongoDB's/Apache Otava's detectors use), hierarchical: find the most significant
// split among current segments, test it with a permutation test (permute the points of that segment
// only), accept if p <= alpha, repeat until a test fails. Returned sorted by index.
//
// Throws std::invalid_argument for alpha not in (0,1), permutations < 1, min_segment < 2 or a
// non-finite value. A series shorter than 2 * min_segment has no change points. No change can be
// found within min_segment points of either end.
std::vector<ChangePoint> find_change_points(const std::vector<double>& values, const ChangePointSettings& settings);

// q-hat of every split of `values` taken as one segment (kappa = its end): element tau is the
// statistic for the split before values[tau], for min_segment <= tau <= size - min_segment; the
// other elements are 0. What find_change_points maximises; exposed so it can be checked against
// the textbook formula. Throws std::invalid_argument for min_segment < 2 or a non-finite value.
std::vector<double> e_divisive_statistics(const std::vector<double>& values, std::size_t min_segment);

}  // namespace caliber::history
