// Option parsing helpers shared by the subcommands.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "caliber/contract.h"

namespace caliber::cli {

// --backend: "auto" (the GPU if one is visible, else host) or a backend name. Throws UsageError.
BackendKind parse_backend_option(const std::string& text);

// "1073741824", "64K", "256MiB", "1GiB", "1G" -> bytes (K/M/G are binary, as KiB/MiB/GiB).
// Throws UsageError naming `option`.
std::uint64_t parse_size_bytes(const std::string& text, const std::string& option);

// "a,b,c" -> {"a", "b", "c"}; empty items are an error naming `option`.
std::vector<std::string> split_list(const std::string& text, const std::string& option);

}  // namespace caliber::cli
