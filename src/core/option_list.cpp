#include "core/option_list.h"

#include <fmt/format.h>

#include "caliber/errors.h"

namespace caliber {

std::vector<std::string> split_option_list(const std::string& text, const std::string& option) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (item.empty()) throw UsageError(fmt::format("{} '{}': empty item in list", option, text));
    out.push_back(std::move(item));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

}  // namespace caliber
