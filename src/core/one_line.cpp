#include "core/one_line.h"

#include <fmt/format.h>

#include "core/input_file.h"

namespace caliber {

std::string one_line(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  while (!text.empty()) {
    // The longest valid UTF-8 prefix goes through as it is, control characters escaped.
    const std::size_t bad = first_invalid_text_byte(text).value_or(text.size());
    for (std::size_t i = 0; i < bad; ++i) {
      const auto c = static_cast<unsigned char>(text[i]);
      const auto next = i + 1 < bad ? static_cast<unsigned char>(text[i + 1]) : 0;
      if (c == '\n') out += "\\n";
      else if (c == '\r') out += "\\r";
      else if (c == '\t') out += "\\t";
      else if (c < 0x20 || c == 0x7F) out += fmt::format("\\x{:02x}", c);
      else if (c == 0xC2 && next >= 0x80 && next <= 0x9F) {
        out += fmt::format("\\u{:04x}", next);  // a C1 control (U+0080..U+009F): terminals act on it
        ++i;
      } else {
        out += text[i];
      }
    }
    if (bad == text.size()) break;
    out += fmt::format("\\x{:02x}", static_cast<unsigned char>(text[bad]));
    text.remove_prefix(bad + 1);
  }
  return out;
}

std::string quoted_text(std::string_view text, std::size_t max) {
  if (text.size() <= max) return one_line(text);
  std::size_t cut = max;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;  // not inside a character
  return fmt::format("{}... ({} bytes)", one_line(text.substr(0, cut)), text.size());
}

}  // namespace caliber
