// Numbers written as text (options, CSV cells, JSON strings): the whole text or nothing.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace caliber {

// "12.5", "1e-3" -> the number; "12.5us", "" -> nothing.
std::optional<double> parse_decimal(std::string_view text);
// "42", "-3" -> the number; "4.5", "42x", "" -> nothing.
std::optional<std::int64_t> parse_integer(std::string_view text);

}  // namespace caliber
