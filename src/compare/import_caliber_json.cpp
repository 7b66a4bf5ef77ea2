// caliber.results JSON -> comparable rows.
#include <fmt/format.h>

#include "caliber/result_json.h"
#include "compare/importers.h"
#include "core/json_line_index.h"

namespace caliber::compare {

std::vector<CompareRow> import_caliber_json(const std::string& text, const std::string& file) {
  const std::vector<Result> results =
      with_json_lines(text, file, [&] { return parse_results_json(text, file); });
  const JsonLineIndex index(text);
  std::vector<CompareRow> rows;
  rows.reserve(results.size());
  for (std::size_t i = 0; i < results.size(); ++i) {
    const std::string origin = fmt::format("results[{}]", i);
    CompareRow row = row_from_result(results[i], origin);
    row.line = index.line_of(origin);
    row.arch_field = origin + ".device.arch";
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace caliber::compare
