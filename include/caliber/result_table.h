// Results as a human table: the contract in the columns beside every number.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "caliber/result.h"

namespace caliber {

void write_results_table(std::ostream& out, const std::vector<Result>& results);

}  // namespace caliber
