// Standard normal draws by Box-Muller over mt19937_64, so synthetic series are the same with every
// standard library (std::normal_distribution's algorithm is not specified).
#pragma once

#include <cmath>
#include <cstdint>
#include <random>

namespace caliber::testing_support {

class Gaussian {
 public:
  explicit Gaussian(std::uint64_t seed) : rng_(seed) {}
  double operator()() {
    const double u1 = 1.0 - uniform();  // (0, 1]: log stays finite
    const double u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
  }

 private:
  double uniform() { return static_cast<double>(rng_() >> 11) * 0x1.0p-53; }
  std::mt19937_64 rng_;
};

}  // namespace caliber::testing_support
