// The current time as written in caliber's files.
#pragma once

#include <string>

namespace caliber {

// UTC now, ISO 8601 with seconds: "2026-11-29T12:00:00Z".
std::string utc_timestamp_now();

// Milliseconds since the Unix epoch now (the system clock: comparable across processes).
double unix_ms_now();

}  // namespace caliber
