// Upper bounds of the sampling options of caliber bench and caliber run. Beyond them a
// measurement would not end in any useful time, or its samples would not fit in memory; they
// are refused as usage errors before anything is measured.
#pragma once

#include <cstdint>
#include <string_view>

namespace caliber {

// Samples (or fixed iterations) of one measurement: ten million doubles are 80 MB.
inline constexpr std::int64_t kMaxSampleCount = 10'000'000;
// Untimed warmup calls before one measurement.
inline constexpr std::int64_t kMaxWarmupCalls = 1'000'000;
// Sampling time of one measurement (adaptive rule), milliseconds: one hour.
inline constexpr double kMaxSamplingTimeMs = 3'600'000.0;
// Wall-clock limit of one cell (run --cell-timeout-s, ab --cell-timeout), seconds: a week. A
// cell that runs longer is not a benchmark cell, and a larger limit overflows the clock.
inline constexpr double kMaxCellTimeoutS = 7 * 24 * 3600.0;

// UsageError "<option> must be >= 1 (got v)" or "... must be <= max (got v)".
void require_count_option(std::int64_t value, std::string_view option, std::int64_t max);
// UsageError unless 0 <= ms <= kMaxSamplingTimeMs (and ms > 0 when `positive`).
void require_time_option(double ms, std::string_view option, bool positive);
// UsageError unless 0 < seconds <= kMaxCellTimeoutS.
void require_cell_timeout_option(double seconds, std::string_view option);

}  // namespace caliber
