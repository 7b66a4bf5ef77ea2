#include "core/json_fields.h"

#include <fstream>
#include <sstream>

#include <fmt/format.h>

namespace caliber {

JsonFields::JsonFields(const nlohmann::json& object, std::string file, long line, std::string path)
    : object_(object), file_(std::move(file)), line_(line), path_(std::move(path)) {
  if (!object_.is_object()) {
    throw InputError(file_, line_, path_.empty() ? "(root)" : path_,
                     fmt::format("expected an object, got {}", object_.type_name()));
  }
}

std::string JsonFields::field_name(const std::string& key) const {
  return path_.empty() ? key : path_ + "." + key;
}

void JsonFields::fail(const std::string& key, const std::string& what) const {
  throw InputError(file_, line_, field_name(key), what);
}

bool JsonFields::has(const std::string& key) const { return object_.contains(key); }

const nlohmann::json& JsonFields::get(const std::string& key) const {
  auto it = object_.find(key);
  if (it == object_.end()) fail(key, "missing");
  return *it;
}

std::string JsonFields::str(const std::string& key) const {
  const auto& v = get(key);
  if (!v.is_string()) fail(key, fmt::format("expected a string, got {}", v.type_name()));
  return v.get<std::string>();
}

std::optional<std::string> JsonFields::opt_str(const std::string& key) const {
  if (!has(key) || object_.at(key).is_null()) return std::nullopt;
  return str(key);
}

double JsonFields::number(const std::string& key) const {
  const auto& v = get(key);
  if (!v.is_number()) fail(key, fmt::format("expected a number, got {}", v.type_name()));
  return v.get<double>();
}

std::optional<double> JsonFields::opt_number(const std::string& key) const {
  if (!has(key) || object_.at(key).is_null()) return std::nullopt;
  return number(key);
}

std::int64_t JsonFields::integer(const std::string& key) const {
  const auto& v = get(key);
  if (!v.is_number_integer()) fail(key, fmt::format("expected an integer, got {}", v.type_name()));
  return v.get<std::int64_t>();
}

std::optional<std::int64_t> JsonFields::opt_integer(const std::string& key) const {
  if (!has(key) || object_.at(key).is_null()) return std::nullopt;
  return integer(key);
}

bool JsonFields::boolean(const std::string& key) const {
  const auto& v = get(key);
  if (!v.is_boolean()) fail(key, fmt::format("expected true or false, got {}", v.type_name()));
  return v.get<bool>();
}

std::optional<bool> JsonFields::opt_boolean(const std::string& key) const {
  if (!has(key) || object_.at(key).is_null()) return std::nullopt;
  return boolean(key);
}

JsonFields JsonFields::object(const std::string& key) const {
  const auto& v = get(key);
  if (!v.is_object()) fail(key, fmt::format("expected an object, got {}", v.type_name()));
  return JsonFields(v, file_, line_, field_name(key));
}

const nlohmann::json& JsonFields::array(const std::string& key) const {
  const auto& v = get(key);
  if (!v.is_array()) fail(key, fmt::format("expected an array, got {}", v.type_name()));
  return v;
}

void require_document_header(const JsonFields& root, const std::string& kind, std::int64_t version,
                             std::int64_t oldest_readable) {
  const std::int64_t have = root.integer("schema_version");
  const std::int64_t oldest = oldest_readable > 0 ? oldest_readable : version;
  if (have < oldest || have > version) {
    root.fail("schema_version", oldest == version
                                    ? fmt::format("unsupported schema version {} (this caliber reads {})", have, version)
                                    : fmt::format("unsupported schema version {} (this caliber reads {} to {})", have,
                                                  oldest, version));
  }
  const std::string have_kind = root.str("kind");
  if (have_kind != kind) root.fail("kind", fmt::format("expected '{}', got '{}'", kind, have_kind));
}

std::vector<std::string> JsonFields::strings(const std::string& key) const {
  std::vector<std::string> out;
  const nlohmann::json& a = array(key);
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (!a[i].is_string()) fail(fmt::format("{}[{}]", key, i), "expected a string");
    out.push_back(a[i].get<std::string>());
  }
  return out;
}

long line_of_offset(const std::string& text, std::size_t offset) {
  long line = 1;
  for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') ++line;
  }
  return line;
}

nlohmann::json parse_json_document(const std::string& text, const std::string& file) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    // e.byte is 1-based and points just past the offending character.
    const std::size_t at = e.byte > 0 ? e.byte - 1 : 0;
    std::string what = e.what();
    const auto colon = what.find("syntax error");
    if (colon != std::string::npos) what = what.substr(colon);
    throw InputError(file, line_of_offset(text, at), "", "malformed JSON: " + what);
  }
}

std::string read_text_file(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw InputError(file, 0, "", "cannot open file");
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw InputError(file, 0, "", "read error");
  return ss.str();
}

}  // namespace caliber
