#include "campaign/result_lines.h"

#include <filesystem>

#include "io/benchmark_results_json.h"

namespace caliber::campaign {

std::vector<ResultLine> read_result_lines(const std::string& file) {
  std::error_code ec;
  if (!std::filesystem::exists(file, ec)) return {};
  std::vector<ResultLine> out;
  for_each_benchmark_result(file, [&](std::string_view text, BenchmarkResultRow row, long) {
    out.push_back({std::move(row), std::string(text)});
  });
  return out;
}

}  // namespace caliber::campaign
