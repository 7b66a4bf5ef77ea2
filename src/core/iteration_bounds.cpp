#include "core/iteration_bounds.h"

#include <fmt/format.h>

namespace caliber {

std::optional<std::string> why_invalid_adaptive_bounds(const IterationRule& rule, const AdaptiveBoundNames& names) {
  if (!(rule.min_time_ms >= 0)) return fmt::format("{} must be >= 0 ms (got {})", names.min_time, rule.min_time_ms);
  if (!(rule.max_time_ms > 0)) return fmt::format("{} must be > 0 ms (got {})", names.max_time, rule.max_time_ms);
  if (rule.min_time_ms > rule.max_time_ms) {
    return fmt::format("{} ({} ms) exceeds {} ({} ms)", names.min_time, rule.min_time_ms, names.max_time,
                       rule.max_time_ms);
  }
  if (!(rule.target_rel_halfwidth > 0 && rule.target_rel_halfwidth < 1)) {
    return fmt::format("{} must be in (0, 1) (got {}); 0.005 means +/-0.5% of the median", names.target_precision,
                       rule.target_rel_halfwidth);
  }
  return std::nullopt;
}

}  // namespace caliber
