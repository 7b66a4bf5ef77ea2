// The flags of a result: named conditions a reader of the number must not miss, in the results
// JSON ("flags"), the results rows and their CSV. docs/contract.md lists them.
#pragma once

#include <string>
#include <string_view>

#include "caliber/result.h"

namespace caliber {

// Not stable because the samples spread: p90 / p10 > 1.2.
inline constexpr std::string_view kFlagUnstableSpread = "unstable:spread";
// Not stable because more than the throttle rule's fraction of the samples may have run throttled
// (docs/telemetry.md), whatever their spread.
inline constexpr std::string_view kFlagUnstableThrottled = "unstable:throttled";
// "throttled:<reason>": a power or thermal clock-event reason (sw_power_cap, hw_slowdown,
// sw_thermal_slowdown, hw_thermal_slowdown, hw_power_brake_slowdown) was reported while samples
// ran, e.g. "throttled:sw_power_cap".
inline constexpr std::string_view kFlagThrottledPrefix = "throttled:";
std::string throttled_flag(std::string_view reason_name);

bool has_flag(const Result& result, std::string_view flag);

// Why the result is not stable, from its flags: "p90/p10 = 1.31 > 1.2",
// "37 of 40 samples may have run throttled (sw_power_cap)", or both joined by "; ". A result
// without an unstable flag (a file written before flags existed) is explained by its spread only
// when the spread exceeds 1.2, else as "not recorded". Empty when the result is stable.
std::string instability_reason(const Result& result);

}  // namespace caliber
