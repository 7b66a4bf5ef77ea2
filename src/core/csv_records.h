// Reading CSV (RFC 4180: comma-separated, fields with a comma, quote or newline quoted, quotes
// doubled), the inverse of csv_escape in caliber/result_csv.h.
#pragma once

#include <string>
#include <vector>

namespace caliber {

struct CsvRecord {
  long line = 0;  // 1-based line where the record starts
  std::vector<std::string> fields;
};

// Splits `text` into records. Empty lines are skipped. An unterminated quoted field or a quote in
// the middle of an unquoted field throws InputError naming `file` and the record's line.
std::vector<CsvRecord> parse_csv_records(const std::string& text, const std::string& file);

}  // namespace caliber
