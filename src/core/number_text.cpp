#include "core/number_text.h"

#include <charconv>
#include <cmath>

namespace caliber {

namespace {

template <typename T>
std::optional<T> parse_whole(std::string_view text) {
  T v{};
  const char* end = text.data() + text.size();
  auto [p, ec] = std::from_chars(text.data(), end, v);
  if (ec != std::errc() || p != end || text.empty()) return std::nullopt;
  return v;
}

}  // namespace

std::optional<double> parse_decimal(std::string_view text) {
  // from_chars reads "nan", "inf" and "infinity": numbers no caliber field may hold.
  const auto v = parse_whole<double>(text);
  if (!v || !std::isfinite(*v)) return std::nullopt;
  return v;
}

std::optional<std::int64_t> parse_integer(std::string_view text) { return parse_whole<std::int64_t>(text); }

std::optional<std::uint64_t> parse_unsigned(std::string_view text) { return parse_whole<std::uint64_t>(text); }

}  // namespace caliber
