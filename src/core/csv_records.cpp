#include "core/csv_records.h"

#include "caliber/errors.h"

namespace caliber {

std::vector<CsvRecord> parse_csv_records(const std::string& text, const std::string& file) {
  std::vector<CsvRecord> out;
  std::size_t i = 0;
  long line = 1;
  const std::size_t n = text.size();
  while (i < n) {
    // Skip empty lines.
    if (text[i] == '\n' || text[i] == '\r') {
      if (text[i] == '\n') ++line;
      ++i;
      continue;
    }
    CsvRecord rec;
    rec.line = line;
    std::string field;
    bool done = false;
    while (!done) {
      field.clear();
      if (i < n && text[i] == '"') {
        ++i;
        while (true) {
          if (i >= n) throw InputError(file, rec.line, "", "unterminated quoted field (truncated file?)");
          if (text[i] == '"') {
            if (i + 1 < n && text[i + 1] == '"') {
              field += '"';
              i += 2;
              continue;
            }
            ++i;
            break;
          }
          if (text[i] == '\n') ++line;
          field += text[i++];
        }
        if (i < n && text[i] != ',' && text[i] != '\n' && text[i] != '\r') {
          throw InputError(file, line, "", "unexpected character after a quoted field");
        }
      } else {
        while (i < n && text[i] != ',' && text[i] != '\n' && text[i] != '\r') {
          if (text[i] == '"') throw InputError(file, line, "", "quote inside an unquoted field");
          field += text[i++];
        }
      }
      rec.fields.push_back(field);
      if (i < n && text[i] == ',') {
        ++i;
        continue;
      }
      if (i < n && text[i] == '\r') ++i;
      if (i < n && text[i] == '\n') {
        ++line;
        ++i;
      }
      done = true;
    }
    out.push_back(std::move(rec));
  }
  return out;
}

}  // namespace caliber
