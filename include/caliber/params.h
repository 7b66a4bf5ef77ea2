// Named scalar values: what a result was measured on (Result::params, e.g. {"size_bytes": 1073741824})
// (a ledger row's op arguments become a result's params: {"eps": 1e-06, "m": 4096, "n": 8192}).
//
// Keys are kept sorted, so two Params with the same entries are equal and print the same. Each
// value is an integer, a number, a text or a boolean; the JSON projection (caliber/result_json.h)
// keeps that kind, so an integer is written as an integer and a number in the shortest form that
// reads back to the same double. No JSON library is needed to use this header.
#pragma once

#include <concepts>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace caliber {

class ParamValue {
 public:
  enum class Kind { integer, number, text, boolean };

  ParamValue() : value_(std::int64_t{0}) {}
  ParamValue(bool v) : value_(v) {}  // NOLINT: implicit, as in {"key", true}
  template <std::integral T>
    requires(!std::same_as<T, bool>)
  ParamValue(T v) : value_(checked_integer(v)) {}  // NOLINT
  ParamValue(double v) : value_(v) {}               // NOLINT
  ParamValue(std::string v) : value_(std::move(v)) {}  // NOLINT
  ParamValue(const char* v) : value_(std::string(v)) {}  // NOLINT

  Kind kind() const { return static_cast<Kind>(value_.index()); }
  bool is_integer() const { return kind() == Kind::integer; }
  // An integer or a number.
  bool is_numeric() const { return kind() == Kind::integer || kind() == Kind::number; }
  // Throw std::logic_error when the value is of another kind (number(): integers convert).
  std::int64_t integer() const;
  double number() const;
  const std::string& text() const;
  bool boolean() const;

  // The value as JSON text: 4096, 1e-06, "abc", true.
  std::string dump() const;
  // For labels: texts unquoted, everything else as dump().
  std::string label() const;

  friend bool operator==(const ParamValue&, const ParamValue&) = default;

 private:
  template <typename T>
  static std::int64_t checked_integer(T v) {
    if constexpr (std::is_unsigned_v<T>) {
      if (v > static_cast<std::make_unsigned_t<std::int64_t>>(std::numeric_limits<std::int64_t>::max())) {
        throw std::out_of_range("caliber::ParamValue: integer above 2^63 - 1");
      }
    }
    return static_cast<std::int64_t>(v);
  }
  // In Kind's order.
  std::variant<std::int64_t, double, std::string, bool> value_;
};

class Params {
 public:
  using Map = std::map<std::string, ParamValue, std::less<>>;
  using const_iterator = Map::const_iterator;

  Params() = default;
  Params(std::initializer_list<std::pair<const std::string, ParamValue>> entries) : values_(entries) {}

  // Adds the entry or replaces its value.
  void set(std::string key, ParamValue value) { values_.insert_or_assign(std::move(key), std::move(value)); }
  bool contains(std::string_view key) const { return values_.find(key) != values_.end(); }
  // Null when absent.
  const ParamValue* find(std::string_view key) const;
  // Throws std::out_of_range naming the key when absent.
  const ParamValue& at(std::string_view key) const;
  void erase(std::string_view key);

  bool empty() const { return values_.empty(); }
  std::size_t size() const { return values_.size(); }
  const_iterator begin() const { return values_.begin(); }
  const_iterator end() const { return values_.end(); }

  // Compact JSON object text with sorted keys: {"eps":1e-06,"m":4096,"n":8192}.
  std::string dump() const;
  // "eps=1e-06 m=4096 n=8192" (texts unquoted), for log lines and labels.
  std::string label() const;

  friend bool operator==(const Params&, const Params&) = default;

 private:
  Map values_;
};

}  // namespace caliber
