// RFC 4180 CSV reading: quoted fields may hold commas, quotes (doubled) and newlines.
#pragma once

#include <string>
#include <vector>

namespace caliber {

struct CsvRecord {
  long line = 0;  // 1-based line where the record starts
  std::vector<std::string> fields;
};

// Parses the whole text. An unterminated quoted field or a quote in the middle of an unquoted
// field is an InputError naming file and line. A final newline is optional; blank lines are
// skipped.
std::vector<CsvRecord> parse_csv(const std::string& text, const std::string& file);

}  // namespace caliber
