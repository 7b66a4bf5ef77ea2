// Regression thresholds derived from a benchmark's own run-to-run noise: a robust sigma of the
// difference between consecutive runs, relative and absolute, scaled and floored.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace caliber::history {

struct NoiseSettings {
  std::size_t min_runs = 10;      // fewer points: no threshold (refused)
  double sigmas = 4.0;            // threshold = sigmas * robust sigma of the run-to-run difference
  double min_relative_pct = 1.0;  // floors
  double min_absolute_us = 0.0;
};

struct NoiseThreshold {
  std::size_t runs = 0;
  double relative_sigma = 0;     // robust sigma of ln(v[i+1]/v[i])  (1.4826 * MAD, MAD about the median)
  double absolute_sigma_us = 0;  // robust sigma of v[i+1]-v[i]
  double relative_pct = 0;       // max(min_relative_pct, 100*(exp(sigmas*relative_sigma)-1))
  double absolute_us = 0;        // max(min_absolute_us, sigmas*absolute_sigma_us)
};

// nullopt when values.size() < min_runs; invalid_argument for non-positive or non-finite values,
// and for settings that cannot give a threshold (min_runs < 2, sigmas not positive and finite,
// negative or non-finite floors).
std::optional<NoiseThreshold> noise_threshold(const std::vector<double>& values_us, const NoiseSettings& s);

// One line naming the method for a thresholds file's `calibration` field, e.g.
// "4 robust sigmas (1.4826 MAD) of the run-to-run difference over 24 runs: relative sigma 0.71%, absolute sigma 0.12 us"
// followed by "; relative floor 1% applied" / "; absolute floor 0.5 us applied" when a floor
// replaced the computed threshold.
std::string describe(const NoiseThreshold& t, const NoiseSettings& s);

}  // namespace caliber::history
