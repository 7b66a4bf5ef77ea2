#include "report/text_table.h"

#include <algorithm>
#include <ostream>

#include <fmt/format.h>

namespace caliber {

void write_text_table(std::ostream& out, const std::vector<std::vector<std::string>>& rows,
                      const std::function<bool(std::size_t column)>& right_aligned) {
  std::vector<std::size_t> width;
  for (const auto& row : rows) {
    if (width.size() < row.size()) width.resize(row.size(), 0);
    for (std::size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  }
  for (const auto& row : rows) {
    std::string line;
    for (std::size_t i = 0; i < row.size(); ++i) {
      if (i) line += "  ";
      line += right_aligned(i) ? fmt::format("{:>{}}", row[i], width[i])
                               : fmt::format("{:<{}}", row[i], width[i]);
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out << line << '\n';
  }
}

}  // namespace caliber
