#include "core/arch_text.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/one_line.h"

namespace caliber {

std::optional<std::string> arch_problem(std::string_view arch) {
  if (arch.empty()) return std::nullopt;  // not known where the row was made (a hand-made row)
  const auto allowed = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
           c == '-';
  };
  if (arch.size() > kMaxArchBytes || !std::all_of(arch.begin(), arch.end(), allowed)) {
    return fmt::format("'{}' is not an architecture name (letters, digits, '_', '.' and '-', at most {} characters, "
                       "e.g. sm_90 or x86_64)",
                       quoted_text(std::string(arch)), kMaxArchBytes);
  }
  return std::nullopt;
}

}  // namespace caliber
