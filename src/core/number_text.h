// Numbers written as text (options, CSV cells, JSON strings, YAML scalars): the whole text or
// nothing, in base 10. The one number parser of text: a value that is not finite, does not fit
// or has anything around it is refused by every reader the same way.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace caliber {

// "12.5", "1e-3", "-2" -> the number; "12.5us", "", "nan", "inf", "1e400" -> nothing.
std::optional<double> parse_decimal(std::string_view text);
// "42", "-3" -> the number; "4.5", "42x", "", "0x10", "9223372036854775808" -> nothing.
std::optional<std::int64_t> parse_integer(std::string_view text);
// "42" -> the number; "-1", "+1", "18446744073709551616" -> nothing.
std::optional<std::uint64_t> parse_unsigned(std::string_view text);

}  // namespace caliber
