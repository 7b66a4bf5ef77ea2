// Format recognition for `caliber compare` inputs.
#include <charconv>

#include <fmt/format.h>

#include "caliber/errors.h"
#include "compare/importers.h"
#include "compare/row_matching.h"
#include "core/json_fields.h"

namespace caliber::compare {

std::string_view to_string(InputFormat f) {
  switch (f) {
    case InputFormat::caliber_json: return "caliber results JSON";
    case InputFormat::caliber_csv: return "caliber results CSV";
    case InputFormat::nvbench_json: return "nvbench JSON";
    case InputFormat::google_benchmark_json: return "google-benchmark JSON";
  }
  return "?";
}

std::optional<double> parse_decimal(std::string_view text) {
  double v = 0;
  const char* end = text.data() + text.size();
  auto [p, ec] = std::from_chars(text.data(), end, v);
  if (ec != std::errc() || p != end || text.empty()) return std::nullopt;
  return v;
}

InputRows read_compare_input(const std::string& file) {
  const std::string text = read_text_file(file);
  const std::size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) throw InputError(file, 0, "", "empty file");
  InputRows in;
  if (text[first] == '{') {
    const nlohmann::json doc = parse_json_document(text, file);
    if (doc.contains("kind") || doc.contains("schema_version")) {
      in.format = InputFormat::caliber_json;
      in.rows = import_caliber_json(text, file);
    } else if (doc.contains("benchmarks") && doc.contains("context")) {
      in.format = InputFormat::google_benchmark_json;
      in.rows = import_google_benchmark_json(doc, text, file);
    } else if (doc.contains("benchmarks") && doc.contains("devices")) {
      in.format = InputFormat::nvbench_json;
      in.rows = import_nvbench_json(doc, text, file);
    } else {
      throw InputError(file, line_of_offset(text, first), "",
                       "unrecognized JSON document: expected caliber results (\"kind\": "
                       "\"caliber.results\"), nvbench JSON (\"devices\", \"benchmarks\") or "
                       "google-benchmark JSON (\"context\", \"benchmarks\")");
    }
  } else if (text.compare(first, 12, "name,params,") == 0) {
    in.format = InputFormat::caliber_csv;
    in.rows = import_caliber_csv(text, file);
  } else {
    throw InputError(file, line_of_offset(text, first), "",
                     "unrecognized input: expected caliber results (JSON or CSV), nvbench JSON or "
                     "google-benchmark JSON");
  }
  require_unique_rows(in.rows, file);
  return in;
}

}  // namespace caliber::compare
