// Rows of text cells printed in aligned columns (the human tables of bench and compare).
#pragma once

#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

namespace caliber {

// Prints `rows` (the header is the first row) with each column as wide as its widest cell,
// columns two spaces apart, right-aligned where right_aligned(column) is true (numbers) and
// left-aligned elsewhere; trailing spaces are trimmed.
void write_text_table(std::ostream& out, const std::vector<std::vector<std::string>>& rows,
                      const std::function<bool(std::size_t column)>& right_aligned);

}  // namespace caliber
