// What an architecture name may be where caliber reads one (a result's device, a row's arch
// column): what a backend writes ("sm_90", "gfx942", uname's "x86_64"): letters, digits, '_', '.'
// and '-', at most 64 characters, or empty where it is not known. Compare and the gate key rows
// and thresholds by it, so text that no device reports would match nothing and gate nothing.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace caliber {

inline constexpr std::size_t kMaxArchBytes = 64;

// Why `arch` is no architecture name; nothing when it is one.
std::optional<std::string> arch_problem(std::string_view arch);

}  // namespace caliber
