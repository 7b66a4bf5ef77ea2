// `caliber validate`: a file against the versioned JSON schema of its kind (schemas/), then the
// same strict reader caliber itself uses. Every problem names file, line and field.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace caliber::validation {

enum class FileKind { shape_ledger, baseline_matrix, benchmark_results_jsonl, benchmark_results_csv, op_description };

std::string_view to_string(FileKind k);
// shape_ledger | baseline_matrix | benchmark_results_jsonl | benchmark_results_csv | op_description;
// UsageError otherwise.
FileKind parse_file_kind(std::string_view s);
// From the file name: *shape_ledger*.jsonl, *baseline_matrix*.yaml|yml,
// *benchmark_results*.jsonl, *benchmark_results*.csv, *.op.yaml|yml (an op description,
// docs/user-ops.md). Nothing when the name says nothing.
std::optional<FileKind> infer_file_kind(const std::string& path);
// The schema file a kind is checked against, e.g. "shape_ledger.v1.schema.json" (an op
// description: the reader that registers it, as the file names).
std::string_view schema_name(FileKind k);

struct Problem {
  std::string file;
  long line = 0;
  std::string field;  // dotted ("source.kind"); empty for the whole record
  std::string message;
  std::string text() const;  // "file:line: field 'x': message"
};

struct Outcome {
  std::size_t records = 0;  // rows (or the one matrix) read
  std::vector<Problem> problems;
  bool valid() const { return problems.empty(); }
};

// Checks the whole file. At most `max_problems` are collected (the count of records still
// includes all of them).
Outcome validate_file(const std::string& path, FileKind kind, std::size_t max_problems = 20);

}  // namespace caliber::validation
