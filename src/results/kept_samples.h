// Which raw samples a results row of `caliber run` keeps (docs/contract.md, "Raw samples"): enough
// for `caliber compare`'s rank test, bounded in number so a row stays small.
#pragma once

#include <cstddef>
#include <vector>

namespace caliber {

// At most this many samples per measurement by default (`--samples` keeps all, `--no-samples` none).
inline constexpr std::size_t kKeptSamples = 128;

// All of `samples` when there are at most `limit`; else `limit` of them, those at positions
// floor(i * n / limit) for i = 0 .. limit - 1, in the order they were taken: a systematic
// subsample, deterministic and spread evenly over the whole measurement. limit >= 1.
std::vector<double> kept_samples(std::vector<double> samples, std::size_t limit = kKeptSamples);

}  // namespace caliber
