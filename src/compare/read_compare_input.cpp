// Format recognition for `caliber compare` inputs.
#include <filesystem>

#include <fmt/format.h>

#include "results/benchmark_results.h"
#include "caliber/errors.h"
#include "compare/importers.h"
#include "compare/row_matching.h"
#include "core/json_fields.h"
#include "core/json_text.h"

namespace caliber::compare {

namespace fs = std::filesystem;

std::string_view to_string(InputFormat f) {
  switch (f) {
    case InputFormat::caliber_json: return "caliber results JSON";
    case InputFormat::caliber_csv: return "caliber results CSV";
    case InputFormat::benchmark_results_jsonl: return "caliber run results (benchmark_results.jsonl)";
    case InputFormat::benchmark_results_csv: return "caliber run results (benchmark_results.csv)";
    case InputFormat::nvbench_json: return "nvbench JSON";
    case InputFormat::google_benchmark_json: return "google-benchmark JSON";
  }
  return "?";
}

bool written_by_caliber(InputFormat f) {
  return f != InputFormat::nvbench_json && f != InputFormat::google_benchmark_json;
}

std::string compare_input_file(const std::string& input) {
  std::error_code ec;
  if (!fs::is_directory(input, ec)) return input;
  const std::string file = (fs::path(input) / kBenchmarkResultsFileName).string();
  if (!fs::exists(file, ec)) {
    throw InputError(input, 0, "",
                     fmt::format("a directory is read as a caliber run --out directory, and it has no {}",
                                 kBenchmarkResultsFileName));
  }
  return file;
}

namespace {

// The format of `text` when it is not caliber run results (first_line_is_a_results_row said so),
// and the parsed document when the format is a single JSON document.
InputFormat recognize(const std::string& text, const std::string& file, nlohmann::json* doc) {
  const std::size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) throw InputError(file, 0, "", "empty file");
  if (text[first] == '{') {
    *doc = parse_json_document(text, file);
    if (doc->contains("kind") || doc->contains("schema_version")) return InputFormat::caliber_json;
    if (doc->contains("benchmarks") && doc->contains("context")) return InputFormat::google_benchmark_json;
    if (doc->contains("benchmarks") && doc->contains("devices")) return InputFormat::nvbench_json;
    throw InputError(file, line_of_offset(text, first), "",
                     "unrecognized JSON document: expected caliber results (\"kind\": "
                     "\"caliber.results\"), caliber run results (benchmark_results.jsonl), nvbench JSON "
                     "(\"devices\", \"benchmarks\") or google-benchmark JSON (\"context\", \"benchmarks\")");
  }
  if (text.compare(first, 12, "name,params,") == 0) return InputFormat::caliber_csv;
  if (text.compare(first, 16, "run_id,shape_id,") == 0) return InputFormat::benchmark_results_csv;
  throw InputError(file, line_of_offset(text, first), "",
                   "unrecognized input: expected caliber results (JSON or CSV), caliber run results "
                   "(benchmark_results.jsonl or .csv), nvbench JSON or google-benchmark JSON");
}

// Whether the file's first non-blank line is, alone, a caliber run results row (JSON Lines), read
// without reading the rest of the file. Any other input is recognized from its whole text.
bool first_line_is_a_results_row(const std::string& file) {
  const std::string head = read_input_prefix(file, kMaxLineBytes);
  const std::size_t first = head.find_first_not_of(" \t\r\n");
  if (first == std::string::npos || head[first] != '{') return false;
  const std::size_t eol = head.find('\n', first);
  if (eol == std::string::npos && head.size() >= kMaxLineBytes) return false;
  try {
    const nlohmann::json line =
        parse_json_text(std::string_view(head).substr(first, eol == std::string::npos ? std::string::npos : eol - first),
                        file, line_of_offset(head, first));
    return line.is_object() && line.contains("shape_id") && line.contains("benchmark_status");
  } catch (const InputError&) {
    return false;  // not a JSON document on its own line: a multi-line document
  }
}

}  // namespace

InputFormat detect_compare_input_format(const std::string& input) {
  const std::string file = compare_input_file(input);
  if (first_line_is_a_results_row(file)) return InputFormat::benchmark_results_jsonl;
  nlohmann::json doc;
  return recognize(read_text_file(file), file, &doc);
}

InputRows read_compare_input(const std::string& input) {
  const std::string file = compare_input_file(input);
  InputRows in;
  if (first_line_is_a_results_row(file)) {
    // Read a line at a time: a campaign's results may be larger than any text read whole.
    in.format = InputFormat::benchmark_results_jsonl;
    in.rows = import_benchmark_results_jsonl_file(file);
    require_unique_rows(in.rows, file);
    return in;
  }
  const std::string text = read_text_file(file);
  nlohmann::json doc;
  in.format = recognize(text, file, &doc);
  switch (in.format) {
    case InputFormat::caliber_json: in.rows = import_caliber_json(text, file); break;
    case InputFormat::caliber_csv: in.rows = import_caliber_csv(text, file); break;
    case InputFormat::benchmark_results_jsonl: in.rows = import_benchmark_results_jsonl(text, file); break;
    case InputFormat::benchmark_results_csv: in.rows = import_benchmark_results_csv(text, file); break;
    case InputFormat::nvbench_json: in.rows = import_nvbench_json(doc, text, file); break;
    case InputFormat::google_benchmark_json: in.rows = import_google_benchmark_json(doc, text, file); break;
  }
  require_unique_rows(in.rows, file);
  return in;
}

}  // namespace caliber::compare
