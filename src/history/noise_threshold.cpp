// Run-to-run noise thresholds: robust sigmas of consecutive differences (so a slow drift or a
// step in the history barely moves them, unlike the spread of the values themselves).
#include "history/noise_threshold.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <utility>

namespace caliber::history {
namespace {

// MAD * 1.4826 estimates the standard deviation of normal data; the median keeps single outlier
// runs (a noisy neighbour, a throttled GPU) from inflating the threshold.
constexpr double kMadToSigma = 1.4826;

void check(const std::vector<double>& values, const NoiseSettings& s) {
  if (s.min_runs < 2) throw std::invalid_argument("noise threshold: min_runs must be at least 2");
  if (!(std::isfinite(s.sigmas) && s.sigmas > 0)) {
    throw std::invalid_argument("noise threshold: sigmas must be positive");
  }
  if (!(std::isfinite(s.min_relative_pct) && s.min_relative_pct >= 0) ||
      !(std::isfinite(s.min_absolute_us) && s.min_absolute_us >= 0)) {
    throw std::invalid_argument("noise threshold: floors must be finite and non-negative");
  }
  for (double v : values) {
    if (!(std::isfinite(v) && v > 0)) {
      throw std::invalid_argument("noise threshold: values must be positive and finite");
    }
  }
}

double median(std::vector<double> v) {
  const std::size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
  const double upper = v[mid];
  if (v.size() % 2 == 1) return upper;
  return (upper + *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid))) / 2;
}

double robust_sigma(const std::vector<double>& x) {
  const double centre = median(x);
  std::vector<double> dev(x.size());
  std::transform(x.begin(), x.end(), dev.begin(), [&](double v) { return std::abs(v - centre); });
  return kMadToSigma * median(std::move(dev));
}

// A number with about three significant digits and no trailing zeros: 0.71, 0.12, 12.3, 1235.
std::string short_number(double x) {
  const double magnitude = x == 0 ? 0 : std::floor(std::log10(std::abs(x)));
  const int decimals = static_cast<int>(std::clamp(2 - magnitude, 0.0, 9.0));
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, x);
  std::string out = buf;
  if (out.find('.') != std::string::npos) {
    out.erase(out.find_last_not_of('0') + 1);
    if (out.back() == '.') out.pop_back();
  }
  return out;
}

}  // namespace

std::optional<NoiseThreshold> noise_threshold(const std::vector<double>& values_us, const NoiseSettings& s) {
  check(values_us, s);
  if (values_us.size() < s.min_runs) return std::nullopt;
  std::vector<double> log_ratio, difference;
  for (std::size_t i = 0; i + 1 < values_us.size(); ++i) {
    log_ratio.push_back(std::log(values_us[i + 1] / values_us[i]));
    difference.push_back(values_us[i + 1] - values_us[i]);
  }
  NoiseThreshold t;
  t.runs = values_us.size();
  t.relative_sigma = robust_sigma(log_ratio);
  t.absolute_sigma_us = robust_sigma(difference);
  // The log scale makes the relative threshold symmetric for slowdowns and speedups; exp - 1
  // turns it back into the percentage people compare against.
  t.relative_pct = std::max(s.min_relative_pct, 100 * std::expm1(s.sigmas * t.relative_sigma));
  t.absolute_us = std::max(s.min_absolute_us, s.sigmas * t.absolute_sigma_us);
  return t;
}

std::string describe(const NoiseThreshold& t, const NoiseSettings& s) {
  std::string out = short_number(s.sigmas) + " robust sigmas (1.4826 MAD) of the run-to-run difference over " +
                    std::to_string(t.runs) + " runs: relative sigma " + short_number(100 * t.relative_sigma) +
                    "%, absolute sigma " + short_number(t.absolute_sigma_us) + " us";
  if (100 * std::expm1(s.sigmas * t.relative_sigma) < s.min_relative_pct) {
    out += "; relative floor " + short_number(s.min_relative_pct) + "% applied";
  }
  if (s.sigmas * t.absolute_sigma_us < s.min_absolute_us) {
    out += "; absolute floor " + short_number(s.min_absolute_us) + " us applied";
  }
  return out;
}

}  // namespace caliber::history
