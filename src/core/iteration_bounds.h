// The adaptive iteration rule's bounds (docs/iteration-rule.md), checked in one place: by the
// contract's validation (why_invalid) and by the command lines that set them (caliber bench,
// caliber run), each naming the numbers in its own words.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "caliber/contract.h"

namespace caliber {

// What a caller calls the bounds in its messages.
struct AdaptiveBoundNames {
  std::string_view min_time = "min time";
  std::string_view max_time = "max time";
  std::string_view target_precision = "target precision";
};

// The options of caliber bench and caliber run that set them.
inline constexpr AdaptiveBoundNames kAdaptiveBoundOptions{"--min-time-ms", "--max-time-ms", "--target-precision"};

// Why the adaptive rule's bounds cannot hold, or nullopt: min_time_ms >= 0, max_time_ms > 0,
// min_time_ms <= max_time_ms (milliseconds), and target_rel_halfwidth in (0, 1). The first
// fault in that order is named.
std::optional<std::string> why_invalid_adaptive_bounds(const IterationRule& rule,
                                                       const AdaptiveBoundNames& names = {});

}  // namespace caliber
