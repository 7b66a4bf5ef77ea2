// What a campaign keeps of each results row: the cell, what the row's receipt records of it, and
// the SHA-256 of the line the row was written as (receipts bind those bytes; the merged results
// are the shards' lines, byte for byte). A few hundred bytes a row, however large the row: a
// campaign's rows are read a line at a time and never held whole.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "caliber/integrity.h"
#include "results/benchmark_results.h"

namespace caliber::campaign {

struct CellLine {
  std::string op;
  std::string shape_id;
  std::string provider;
  BenchmarkStatus status = BenchmarkStatus::failed;
  std::optional<std::string> status_reason;
  std::optional<double> median_us;
  IntegrityVerdict integrity = IntegrityVerdict::unverified;
  std::string row_sha256;  // of the line as written, without its newline

  std::string cell() const { return shape_id + "/" + provider; }  // "<shape_id>/<provider>"
};

CellLine cell_line(const BenchmarkResultRow& row, std::string_view text);

// Strict (read_benchmark_results' rules); a missing file has no rows.
std::vector<CellLine> read_cell_lines(const std::string& file);

}  // namespace caliber::campaign
