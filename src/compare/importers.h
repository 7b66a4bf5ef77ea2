// Input formats of `caliber compare`, each read into comparable rows (compare/compare_row.h).
// Every importer is strict: a malformed or truncated file, an unknown schema version or a missing
// field is an InputError naming file, line and field, never a partial list of rows.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "compare/compare_row.h"
#include "core/number_text.h"

namespace caliber::compare {

enum class InputFormat {
  caliber_json,             // caliber bench --json
  caliber_csv,              // caliber bench --csv
  benchmark_results_jsonl,  // caliber run --out DIR: DIR/benchmark_results.jsonl
  benchmark_results_csv,    // caliber run --out DIR: DIR/benchmark_results.csv
  nvbench_json,
  google_benchmark_json,
};
std::string_view to_string(InputFormat f);

// Whether caliber wrote files of this format, and so wrote a run identity beside them
// (docs/identity.md). nvbench and google-benchmark files have none.
bool written_by_caliber(InputFormat f);

// What `caliber compare` was given: a results file, or a run directory (caliber run --out DIR),
// which stands for DIR/benchmark_results.jsonl.
std::string compare_input_file(const std::string& input);

// The format of an input, recognized from its content (file names do not matter) without
// importing a row. A file that cannot be read or recognized is an InputError.
InputFormat detect_compare_input_format(const std::string& input);

struct InputRows {
  InputFormat format = InputFormat::caliber_json;
  std::vector<CompareRow> rows;
};

// Reads `input` (a file, or a run directory: compare_input_file), recognizes its format from its
// content, imports its rows and refuses duplicate rows (require_unique_rows).
InputRows read_compare_input(const std::string& input);

// caliber.results JSON (write_results_json).
std::vector<CompareRow> import_caliber_json(const std::string& text, const std::string& file);
// The CSV of `caliber bench --csv` (write_results_csv).
std::vector<CompareRow> import_caliber_csv(const std::string& text, const std::string& file);
// caliber run's benchmark_results.jsonl and benchmark_results.csv: one row per (shape_id, provider).
std::vector<CompareRow> import_benchmark_results_jsonl(const std::string& text, const std::string& file);
// The same, read from `file` a line at a time (a results file of any size).
std::vector<CompareRow> import_benchmark_results_jsonl_file(const std::string& file);
std::vector<CompareRow> import_benchmark_results_csv(const std::string& text, const std::string& file);
// nvbench's --json / --jsonbin output, JSON format version 1.x.
std::vector<CompareRow> import_nvbench_json(const nlohmann::json& doc, const std::string& text,
                                            const std::string& file);
// google-benchmark's --benchmark_out_format=json output.
std::vector<CompareRow> import_google_benchmark_json(const nlohmann::json& doc, const std::string& text,
                                                     const std::string& file);

// A whole-text decimal number ("12.5", "1e-3"), or nothing (core/number_text.h).
using caliber::parse_decimal;

}  // namespace caliber::compare
