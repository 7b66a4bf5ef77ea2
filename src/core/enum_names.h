// Enum <-> name tables: one table per enum, the names exactly as written in files and on the
// command line; parsing an unknown name throws UsageError listing the accepted ones.
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "caliber/errors.h"

namespace caliber {

template <typename Enum, std::size_t N>
using NameTable = std::array<std::pair<Enum, std::string_view>, N>;

template <typename Enum, std::size_t N>
std::string_view name_of(const NameTable<Enum, N>& table, Enum v) {
  for (const auto& [e, n] : table) {
    if (e == v) return n;
  }
  return "?";
}

template <typename Enum, std::size_t N>
std::string accepted_names(const NameTable<Enum, N>& table) {
  std::string accepted;
  for (const auto& [e, n] : table) {
    if (!accepted.empty()) accepted += "|";
    accepted += n;
  }
  return accepted;
}

template <typename Enum, std::size_t N>
Enum parse_name(const NameTable<Enum, N>& table, std::string_view s, std::string_view what) {
  for (const auto& [e, n] : table) {
    if (n == s) return e;
  }
  throw UsageError(fmt::format("unknown {} '{}' (expected {})", what, s, accepted_names(table)));
}

}  // namespace caliber
