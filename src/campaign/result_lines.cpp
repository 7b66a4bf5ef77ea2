#include "campaign/result_lines.h"

#include <filesystem>
#include <sstream>

#include <fmt/format.h>

#include "caliber/errors.h"
#include "core/json_fields.h"
#include "io/benchmark_results_json.h"

namespace caliber::campaign {

std::vector<ResultLine> read_result_lines(const std::string& file) {
  std::error_code ec;
  if (!std::filesystem::exists(file, ec)) return {};
  const std::string text = read_text_file(file);
  std::vector<BenchmarkResultRow> rows = parse_benchmark_results(text, file);
  std::vector<ResultLine> out;
  std::istringstream in(text);
  std::string line;
  std::size_t i = 0;
  while (std::getline(in, line)) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    if (i >= rows.size()) throw Error(fmt::format("{}: rows and lines do not match", file));
    out.push_back({std::move(rows[i++]), line});
  }
  return out;
}

}  // namespace caliber::campaign
