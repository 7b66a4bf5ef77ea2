// Results rows as JSON lines (benchmark_results.jsonl): the codec, the strict reader of a whole
// file and fsynced appending. The fields and their rules: docs/runner.md, schemas/.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/atomic_file.h"
#include "results/benchmark_results.h"

namespace caliber {

// A row as one JSON object (with_samples: the measurements' raw samples too).
nlohmann::json to_json(const BenchmarkResultRow& row, bool with_samples = true);

// The whole-file rules of a results file, row by row: one run (every row the same run_id) and one
// row per (shape_id, provider) cell. add() throws InputError naming the row's line.
class ResultCells {
 public:
  explicit ResultCells(std::string file);
  void add(const std::string& run_id, const std::string& shape_id, const std::string& provider, long line);

 private:
  std::string file_;
  std::string run_id_;
  long first_line_ = 0;
  std::unordered_map<std::string, long> seen_;
};
// Strict reader of one row: every field present (nullable ones may be null), no unknown field,
// enums known, timing fields consistent with the status (docs/runner.md).
BenchmarkResultRow benchmark_result_from_json(const nlohmann::json& j, const std::string& file, long line);

// Reads a whole results file. Blank lines are skipped. A malformed line is an InputError naming
// its line; a duplicated (shape_id, provider) cell, or rows of two runs, are refused (one
// results file holds one run: docs/runner.md).
// The file is read a line at a time: memory holds the rows, never the file's text.
std::vector<BenchmarkResultRow> read_benchmark_results(const std::string& file);
std::vector<BenchmarkResultRow> parse_benchmark_results(const std::string& text, const std::string& file);
// The rows of a results file one at a time, each with its line as written and its number, under
// read_benchmark_results' rules; memory holds one line.
void for_each_benchmark_result(const std::string& file,
                               const std::function<void(std::string_view text, BenchmarkResultRow row, long line)>& row);

// Appends rows to a results file, one fsynced line each.
class BenchmarkResultsAppender {
 public:
  explicit BenchmarkResultsAppender(const std::string& file, bool with_samples = true);
  void append(const BenchmarkResultRow& row);

 private:
  LineAppender appender_;
  bool with_samples_;
};

}  // namespace caliber
