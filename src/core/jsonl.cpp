#include "core/jsonl.h"

#include <fmt/format.h>

#include "caliber/errors.h"

namespace caliber {

void for_each_jsonl_row(const std::string& text, const std::string& file,
                        const std::function<void(const nlohmann::json& value, long line)>& row) {
  long line = 0;
  std::size_t start = 0;
  while (start < text.size()) {
    ++line;
    std::size_t end = text.find('\n', start);
    const bool terminated = end != std::string::npos;
    if (!terminated) end = text.size();
    const std::string_view item(text.data() + start, end - start);
    start = end + 1;
    if (item.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    nlohmann::json value;
    try {
      value = nlohmann::json::parse(item);
    } catch (const nlohmann::json::parse_error& e) {
      std::string what = e.what();
      const auto at = what.find("syntax error");
      if (at != std::string::npos) what = what.substr(at);
      throw InputError(file, line, "",
                       fmt::format("malformed JSON{}: {}", terminated ? "" : " (truncated last line?)", what));
    }
    row(value, line);
  }
}

}  // namespace caliber
