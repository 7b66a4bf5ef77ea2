// Numbers with their unit, as caliber prints them in tables, logs and reports.
#pragma once

#include <cstdint>
#include <string>

namespace caliber {

// Microseconds with 4 significant digits in fixed notation: 1.052, 12.34, 537.1, 12345.
std::string format_us(double us);
// Bytes in binary units: 512 B, 16.0 KiB, 1.00 GiB.
std::string format_bytes(std::uint64_t bytes);
// A rate in decimal prefixes: 4.0e12 bytes/s -> "4.00 TB/s"; 8.0e14 flop/s -> "800.00 TFLOP/s".
// `unit` is "bytes/s" or "flop/s".
std::string format_rate(double per_s, const std::string& unit);

}  // namespace caliber
