// The one CSV reader is core/csv_records.h. This name stays for src/profile, which includes it
// (that folder is integrated separately); new code includes core/csv_records.h.
#pragma once

#include "core/csv_records.h"

namespace caliber {

inline std::vector<CsvRecord> parse_csv(const std::string& text, const std::string& file) {
  return parse_csv_records(text, file);
}

}  // namespace caliber
