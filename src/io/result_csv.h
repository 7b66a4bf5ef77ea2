// Results as CSV: one row per result, contract columns first, then the summary (microseconds).
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "caliber/result.h"

namespace caliber {

// The header row's column names, in order.
const std::vector<std::string>& results_csv_columns();

// RFC 4180: fields with a comma, quote or newline are quoted; quotes doubled.
std::string csv_escape(const std::string& field);

void write_results_csv(std::ostream& out, const std::vector<Result>& results);

}  // namespace caliber
