// Messages are one line of plain text. Input that reaches a message (a value from a file, a file
// name, an option) may hold newlines, terminal escapes, NUL bytes or invalid UTF-8; printed raw,
// they split the line in two or drive the terminal.
#pragma once

#include <string>
#include <string_view>

namespace caliber {

// `text` with every control character, DEL and byte that is not valid UTF-8 written as an escape
// (\n, \r, \t, \xNN); everything else as it is.
std::string one_line(std::string_view text);

// one_line of at most the first `max` bytes of `text` (cut at a UTF-8 character boundary), with
// "... (N bytes)" appended when it was longer: a value quoted in a message never makes the
// message longer than a line.
inline constexpr std::size_t kQuotedBytes = 120;
std::string quoted_text(std::string_view text, std::size_t max = kQuotedBytes);

}  // namespace caliber
