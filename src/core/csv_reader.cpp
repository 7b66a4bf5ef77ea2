#include "core/csv_reader.h"

#include "caliber/errors.h"

namespace caliber {

std::vector<CsvRecord> parse_csv(const std::string& text, const std::string& file) {
  std::vector<CsvRecord> records;
  CsvRecord current;
  std::string field;
  long line = 1;
  current.line = 1;
  bool in_quotes = false;
  bool field_was_quoted = false;
  bool record_has_content = false;
  auto end_field = [&] {
    current.fields.push_back(field);
    field.clear();
    field_was_quoted = false;
  };
  auto end_record = [&] {
    if (record_has_content || !current.fields.empty()) {
      end_field();
      records.push_back(std::move(current));
    }
    current = CsvRecord{};
    current.line = line;
    record_has_content = false;
    field.clear();
    field_was_quoted = false;
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_quotes) {
      if (c == '"') {
        if (i + 1 < text.size() && text[i + 1] == '"') {
          field += '"';
          ++i;
        } else {
          in_quotes = false;
        }
      } else {
        if (c == '\n') ++line;
        field += c;
      }
      continue;
    }
    switch (c) {
      case '"':
        if (!field.empty() || field_was_quoted) {
          throw InputError(file, line, "", "a quote inside an unquoted CSV field");
        }
        in_quotes = true;
        field_was_quoted = true;
        record_has_content = true;
        break;
      case ',':
        end_field();
        record_has_content = true;
        break;
      case '\r':
        break;
      case '\n':
        ++line;
        end_record();
        break;
      default:
        if (field_was_quoted) throw InputError(file, line, "", "text after a closing quote in a CSV field");
        field += c;
        record_has_content = true;
    }
  }
  if (in_quotes) throw InputError(file, line, "", "unterminated quoted CSV field (truncated file?)");
  end_record();
  return records;
}

}  // namespace caliber
