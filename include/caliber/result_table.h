// Results as a human table: the contract in the columns beside every number.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "caliber/result.h"

namespace caliber {

// Microseconds with 4 significant digits in fixed notation: 1.052, 12.34, 537.1, 12345.
std::string format_us(double us);
// Bytes in binary units: 512 B, 16.0 KiB, 1.00 GiB.
std::string format_bytes(std::uint64_t bytes);

void write_results_table(std::ostream& out, const std::vector<Result>& results);

}  // namespace caliber
