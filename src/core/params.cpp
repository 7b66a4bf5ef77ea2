#include "caliber/params.h"

#include <nlohmann/json.hpp>

namespace caliber {
namespace {

nlohmann::json json_of(const ParamValue& v) {
  switch (v.kind()) {
    case ParamValue::Kind::integer: return v.integer();
    case ParamValue::Kind::number: return v.number();
    case ParamValue::Kind::text: return v.text();
    case ParamValue::Kind::boolean: return v.boolean();
  }
  return nullptr;
}

[[noreturn]] void wrong_kind(const char* wanted) {
  throw std::logic_error(std::string("caliber::ParamValue is not ") + wanted);
}

}  // namespace

std::int64_t ParamValue::integer() const {
  if (const auto* v = std::get_if<std::int64_t>(&value_)) return *v;
  wrong_kind("an integer");
}

double ParamValue::number() const {
  if (const auto* v = std::get_if<double>(&value_)) return *v;
  if (const auto* v = std::get_if<std::int64_t>(&value_)) return static_cast<double>(*v);
  wrong_kind("a number");
}

const std::string& ParamValue::text() const {
  if (const auto* v = std::get_if<std::string>(&value_)) return *v;
  wrong_kind("a text");
}

bool ParamValue::boolean() const {
  if (const auto* v = std::get_if<bool>(&value_)) return *v;
  wrong_kind("a boolean");
}

// nlohmann::json writes integers in decimal and other numbers in the shortest form that reads
// back to the same double: the form shape ids are hashed over (docs/ledger.md).
std::string ParamValue::dump() const { return json_of(*this).dump(); }

std::string ParamValue::label() const { return kind() == Kind::text ? text() : dump(); }

const ParamValue* Params::find(std::string_view key) const {
  const auto it = values_.find(key);
  return it == values_.end() ? nullptr : &it->second;
}

const ParamValue& Params::at(std::string_view key) const {
  if (const ParamValue* v = find(key)) return *v;
  throw std::out_of_range("caliber::Params has no '" + std::string(key) + "'");
}

void Params::erase(std::string_view key) {
  const auto it = values_.find(key);
  if (it != values_.end()) values_.erase(it);
}

std::string Params::dump() const {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [key, value] : values_) j[key] = json_of(value);
  return j.dump();
}

std::string Params::label() const {
  std::string out;
  for (const auto& [key, value] : values_) out += (out.empty() ? "" : " ") + key + "=" + value.label();
  return out;
}

}  // namespace caliber
