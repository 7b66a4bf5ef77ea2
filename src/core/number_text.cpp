#include "core/number_text.h"

#include <charconv>

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

std::optional<double> parse_decimal(std::string_view text) { return parse_whole<double>(text); }

std::optional<std::int64_t> parse_integer(std::string_view text) { return parse_whole<std::int64_t>(text); }

}  // namespace caliber
