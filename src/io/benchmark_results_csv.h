// Results rows as CSV (benchmark_results.csv): the writer and the strict reader.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "results/benchmark_results.h"

namespace caliber {

// The CSV projection: scalar fields, the correctness numbers and each measurement's contract and
// summary flattened into columns ("kernel_only.schedule"), no raw samples.
const std::vector<std::string>& benchmark_results_csv_columns();
void write_benchmark_results_csv(std::ostream& out, const std::vector<BenchmarkResultRow>& rows);
// The same file a row at a time (a results set of any size): the header, then each row.
void write_benchmark_results_csv_header(std::ostream& out);
void write_benchmark_results_csv_row(std::ostream& out, const BenchmarkResultRow& row);
// Reads such a CSV back: one JSON object per row, column name -> value typed by the column
// (string, integer, number, boolean; an empty cell is null). The header must be exactly
// benchmark_results_csv_columns(). As strict as the JSONL reader on what the CSV holds: shape
// ids, enums, finite non-negative times and counts, the status rules, one row per cell, one run.
// InputError names file, line and column. With `lines`, the 1-based line where each row starts is
// appended there.
std::vector<nlohmann::json> parse_benchmark_results_csv(const std::string& text, const std::string& file,
                                                        std::vector<long>* lines = nullptr);
std::vector<nlohmann::json> read_benchmark_results_csv(const std::string& file);

}  // namespace caliber
