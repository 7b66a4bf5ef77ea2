// A results file read row by row with each row's exact line: receipts hash the line a row was
// written as, and the campaign's merged results are the shards' lines, byte for byte.
#pragma once

#include <string>
#include <vector>

#include "results/benchmark_results.h"

namespace caliber::campaign {

struct ResultLine {
  BenchmarkResultRow row;
  std::string line;  // without its newline
};

// Strict (read_benchmark_results' rules); a missing file has no rows.
std::vector<ResultLine> read_result_lines(const std::string& file);

}  // namespace caliber::campaign
