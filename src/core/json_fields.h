// Strict access to fields of a parsed JSON object, with errors that name file, line and field.
// Every reader of caliber's files goes through this, so a malformed file always fails the same way.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "caliber/errors.h"
#include "core/input_file.h"

namespace caliber {

class JsonFields {
 public:
  // `path` is the location of `object` inside the document ("" for the root, "results[2]").
  JsonFields(const nlohmann::json& object, std::string file, long line, std::string path);

  bool has(const std::string& key) const;
  // A key outside `known` fails as "unknown field": a field no reader reads (a "unit" beside a
  // value) would otherwise be silently ignored.
  void refuse_unknown(std::initializer_list<std::string_view> known) const;
  void refuse_unknown(const std::set<std::string>& known) const;
  const nlohmann::json& get(const std::string& key) const;  // present (may be null)
  std::string str(const std::string& key) const;
  std::optional<std::string> opt_str(const std::string& key) const;  // absent or null -> nullopt
  double number(const std::string& key) const;
  std::optional<double> opt_number(const std::string& key) const;
  // A number >= 0 (durations, sizes, rates); a negative one fails with its value.
  double non_negative(const std::string& key) const;
  std::optional<double> opt_non_negative(const std::string& key) const;  // absent or null -> nullopt
  std::int64_t integer(const std::string& key) const;
  // An integer within [min, max]: one that must fit a narrower type (an int) or be a count >= 0
  // (a uint64 size). Outside, it fails with its value and the range.
  std::int64_t integer_in(const std::string& key, std::int64_t min, std::int64_t max) const;
  std::optional<std::int64_t> opt_integer(const std::string& key) const;
  bool boolean(const std::string& key) const;
  std::optional<bool> opt_boolean(const std::string& key) const;
  JsonFields object(const std::string& key) const;
  const nlohmann::json& array(const std::string& key) const;
  // An array of strings; an element of another type fails as "key[i]".
  std::vector<std::string> strings(const std::string& key) const;

  // The dotted name of a field for error messages ("results[2].contract.schedule").
  std::string field_name(const std::string& key) const;
  [[noreturn]] void fail(const std::string& key, const std::string& what) const;
  // Runs a parser (e.g. parse_schedule) and turns its UsageError into an InputError on `key`.
  template <typename F>
  auto parse(const std::string& key, F&& parser) const -> decltype(parser(std::string())) {
    const std::string value = str(key);
    try {
      return parser(value);
    } catch (const UsageError& e) {
      fail(key, e.what());
    }
  }

  const nlohmann::json& json() const { return object_; }
  const std::string& file() const { return file_; }
  long line() const { return line_; }

 private:
  const nlohmann::json& object_;
  std::string file_;
  long line_;
  std::string path_;
};

// The header of a versioned caliber document: "schema_version" must equal `version` and "kind"
// must equal `kind`; otherwise an InputError on that field.
void require_document_header(const JsonFields& root, const std::string& kind, std::int64_t version,
                             std::int64_t oldest_readable = 0);

// Parses a whole JSON document strictly (core/json_text.h): a syntax error, a truncation, an
// overflowing number, a duplicate key or too deep a nesting is an InputError with its line.
nlohmann::json parse_json_document(const std::string& text, const std::string& file);

}  // namespace caliber
