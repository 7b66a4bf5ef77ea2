// Where each field of a JSON document starts, so errors found after parsing (a missing field, a
// wrong type, a negative threshold) can name the line as well as the field.
//
// nlohmann::json keeps no positions, so the index re-reads the text once with the SAX walker of
// the strict parser (core/json_text.cpp). Field names use the notation of
// JsonFields::field_name: "schema_version", "results[2].contract.schedule".
#pragma once

#include <map>
#include <string>

#include "caliber/errors.h"

namespace caliber {

class JsonLineIndex {
 public:
  // Indexes `text`; a malformed or refused document is indexed up to the error (never throws).
  explicit JsonLineIndex(const std::string& text);

  // Line (1-based) where the field's key (object member) or value (array element) is written;
  // for a field that is not in the document, the line of its nearest enclosing field. 0 when
  // nothing is known.
  long line_of(const std::string& field) const;

 private:
  std::map<std::string, long> lines_;
  friend class JsonWalker;
};

// Runs `read` (which parses `text` of `file`); an InputError of that file without a line is
// rethrown with the line of its field from a JsonLineIndex of `text`.
template <typename F>
auto with_json_lines(const std::string& text, const std::string& file, F&& read) -> decltype(read()) {
  try {
    return read();
  } catch (const InputError& e) {
    if (e.line() > 0 || e.file() != file || e.field().empty()) throw;
    throw InputError(e.file(), JsonLineIndex(text).line_of(e.field()), e.field(), e.reason());
  }
}

}  // namespace caliber
