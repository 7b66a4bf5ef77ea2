#include "core/jsonl.h"

#include <optional>

#include "caliber/errors.h"
#include "core/input_file.h"
#include "core/json_text.h"

namespace caliber {

namespace {

// One line of a JSON Lines text: its value, or nothing for a blank line or a malformed one handed
// to `malformed`.
std::optional<nlohmann::json> parse_item(std::string_view item, const std::string& file, long line, bool terminated,
                                         const std::function<void(const InputError& error)>& malformed) {
  if (item.find_first_not_of(" \t\r") == std::string_view::npos) return std::nullopt;
  try {
    try {
      return parse_json_text(item, file, line);
    } catch (const InputError& e) {
      // A row cut by a kill during its write is the last line, without its newline.
      if (terminated || e.reason().rfind("malformed JSON: ", 0) != 0) throw;
      throw InputError(e.file(), e.line(), e.field(), "malformed JSON (truncated last line?): " + e.reason().substr(16));
    }
  } catch (const InputError& e) {
    if (!malformed) throw;
    malformed(e);
    return std::nullopt;
  }
}

}  // namespace

void for_each_jsonl_row(const std::string& text, const std::string& file,
                        const std::function<void(const nlohmann::json& value, long line)>& row,
                        const std::function<void(const InputError& error)>& malformed) {
  long line = 0;
  std::size_t start = 0;
  while (start < text.size()) {
    ++line;
    std::size_t end = text.find('\n', start);
    const bool terminated = end != std::string::npos;
    if (!terminated) end = text.size();
    const std::string_view item(text.data() + start, end - start);
    start = end + 1;
    if (const auto value = parse_item(item, file, line, terminated, malformed)) row(*value, line);
  }
}

void for_each_jsonl_line(const std::string& file,
                         const std::function<void(std::string_view text, const nlohmann::json& value, long line)>& row,
                         const std::function<void(const InputError& error)>& malformed) {
  for_each_text_line(file, [&](std::string_view item, long line, bool terminated) {
    if (const auto value = parse_item(item, file, line, terminated, malformed)) row(item, *value, line);
  });
}

}  // namespace caliber
