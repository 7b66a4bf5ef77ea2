#include "campaign/result_lines.h"

#include <filesystem>

#include "core/sha256.h"
#include "io/benchmark_results_json.h"

namespace caliber::campaign {

CellLine cell_line(const BenchmarkResultRow& row, std::string_view text) {
  return {row.op_type,      row.shape_id,  row.provider,
          row.benchmark_status, row.status_reason, row.median_us,
          row.integrity.verdict(), sha256_hex(text)};
}

std::vector<CellLine> read_cell_lines(const std::string& file) {
  std::error_code ec;
  if (!std::filesystem::exists(file, ec)) return {};
  std::vector<CellLine> out;
  for_each_benchmark_result(file, [&](std::string_view text, const BenchmarkResultRow& row, long) {
    out.push_back(cell_line(row, text));
  });
  return out;
}

}  // namespace caliber::campaign
