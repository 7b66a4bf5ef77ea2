// Input formats of `caliber compare`, each read into comparable rows (compare/compare_row.h).
// Every importer is strict: a malformed or truncated file, an unknown schema version or a missing
// field is an InputError naming file, line and field, never a partial list of rows.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "compare/compare_row.h"

namespace caliber::compare {

enum class InputFormat { caliber_json, caliber_csv, nvbench_json, google_benchmark_json };
std::string_view to_string(InputFormat f);

struct InputRows {
  InputFormat format = InputFormat::caliber_json;
  std::vector<CompareRow> rows;
};

// Reads `file`, recognizes its format from its content, imports its rows and refuses duplicate
// rows (require_unique_rows).
InputRows read_compare_input(const std::string& file);

// caliber.results JSON (write_results_json).
std::vector<CompareRow> import_caliber_json(const std::string& text, const std::string& file);
// The CSV of `caliber bench --csv` (write_results_csv).
std::vector<CompareRow> import_caliber_csv(const std::string& text, const std::string& file);
// nvbench's --json / --jsonbin output, JSON format version 1.x.
std::vector<CompareRow> import_nvbench_json(const nlohmann::json& doc, const std::string& text,
                                            const std::string& file);
// google-benchmark's --benchmark_out_format=json output.
std::vector<CompareRow> import_google_benchmark_json(const nlohmann::json& doc, const std::string& text,
                                                     const std::string& file);

// A whole-text decimal number ("12.5", "1e-3"), or nothing.
std::optional<double> parse_decimal(std::string_view text);

}  // namespace caliber::compare
