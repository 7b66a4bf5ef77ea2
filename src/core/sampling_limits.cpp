#include "core/sampling_limits.h"

#include <fmt/format.h>

#include "caliber/errors.h"

namespace caliber {

void require_count_option(std::int64_t value, std::string_view option, std::int64_t max) {
  if (value < 1) throw UsageError(fmt::format("{} must be >= 1 (got {})", option, value));
  if (value > max) throw UsageError(fmt::format("{} must be <= {} (got {})", option, max, value));
}

void require_time_option(double ms, std::string_view option, bool positive) {
  if (positive ? !(ms > 0) : !(ms >= 0)) {
    throw UsageError(fmt::format("{} must be {} 0 (got {})", option, positive ? ">" : ">=", ms));
  }
  if (ms > kMaxSamplingTimeMs) {
    throw UsageError(fmt::format("{} must be <= {} (one hour; got {})", option, kMaxSamplingTimeMs, ms));
  }
}

void require_cell_timeout_option(double seconds, std::string_view option) {
  if (!(seconds > 0) || seconds > kMaxCellTimeoutS) {
    throw UsageError(fmt::format("{} must be in (0, {}] (a week; got {})", option, kMaxCellTimeoutS, seconds));
  }
}

}  // namespace caliber
