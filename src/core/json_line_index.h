// Where each field of a JSON document starts, so errors found after parsing (a missing field, a
// wrong type, a negative threshold) can name the line as well as the field.
//
// nlohmann::json keeps no positions, so the index re-reads the text once with a SAX parser over
// an iterator that remembers how far the lexer has read. Field names use the notation of
// JsonFields::field_name: "schema_version", "results[2].contract.schedule".
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>

#include "caliber/errors.h"

namespace caliber {

class JsonLineIndex {
 public:
  // Indexes `text`; a malformed document is indexed up to the error (never throws).
  explicit JsonLineIndex(const std::string& text);

  // Line (1-based) where the field's key (object member) or value (array element) is written;
  // for a field that is not in the document, the line of its nearest enclosing field. 0 when
  // nothing is known.
  long line_of(const std::string& field) const;

  // The first key that appears twice in one object ("architectures.sm_90.rules"), if any;
  // nlohmann::json silently keeps the last one, which hides a mistake in a hand-written file.
  const std::optional<std::pair<std::string, long>>& first_duplicate_key() const {
    return first_duplicate_;
  }

 private:
  std::map<std::string, long> lines_;
  std::optional<std::pair<std::string, long>> first_duplicate_;
  friend class JsonLineIndexBuilder;
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
