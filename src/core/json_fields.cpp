#include "core/json_fields.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/json_text.h"

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

void JsonFields::refuse_unknown(std::initializer_list<std::string_view> known) const {
  for (const auto& [key, value] : object_.items()) {
    if (std::find(known.begin(), known.end(), key) == known.end()) fail(key, "unknown field");
  }
}

void JsonFields::refuse_unknown(const std::set<std::string>& known) const {
  for (const auto& [key, value] : object_.items()) {
    if (!known.count(key)) fail(key, "unknown field");
  }
}

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
  return v.get<std::int64_t>();  // within int64: the parser (core/json_text.h) refuses larger ones
}

std::int64_t JsonFields::integer_in(const std::string& key, std::int64_t min, std::int64_t max) const {
  const std::int64_t v = integer(key);
  if (v < min || v > max) fail(key, fmt::format("must be in [{}, {}] (got {})", min, max, v));
  return v;
}

double JsonFields::non_negative(const std::string& key) const {
  const double v = number(key);
  if (!(v >= 0)) fail(key, fmt::format("must be >= 0 (got {})", v));
  return v;
}

std::optional<double> JsonFields::opt_non_negative(const std::string& key) const {
  if (!has(key) || object_.at(key).is_null()) return std::nullopt;
  return non_negative(key);
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

nlohmann::json parse_json_document(const std::string& text, const std::string& file) {
  return parse_json_text(text, file);
}

}  // namespace caliber
