#include "cli/cli_common.h"

#include "core/option_list.h"


#include <fmt/format.h>

#include "caliber/backend.h"
#include "caliber/errors.h"
#include "core/number_text.h"

namespace caliber::cli {

BackendKind parse_backend_option(const std::string& text) {
  if (text == "auto") return default_backend_kind();
  try {
    return parse_backend(text);
  } catch (const UsageError& e) {
    throw UsageError(fmt::format("--backend: {}", e.what()));
  }
}

std::uint64_t parse_size_bytes(const std::string& text, const std::string& option) {
  const std::size_t digits = text.find_first_not_of("0123456789");
  const std::string unit = digits == std::string::npos ? "" : text.substr(digits);
  const std::optional<std::uint64_t> count = parse_unsigned(std::string_view(text).substr(0, digits));
  if (!count) {
    throw UsageError(fmt::format("{} '{}': expected a byte count such as 1073741824, 64MiB or 1GiB",
                                 option, text));
  }
  const std::uint64_t value = *count;
  std::uint64_t scale = 0;
  if (unit.empty() || unit == "B") scale = 1;
  else if (unit == "K" || unit == "KiB") scale = 1ull << 10;
  else if (unit == "M" || unit == "MiB") scale = 1ull << 20;
  else if (unit == "G" || unit == "GiB") scale = 1ull << 30;
  else {
    throw UsageError(fmt::format("{} '{}': unknown unit '{}' (expected B, KiB, MiB or GiB)", option,
                                 text, unit));
  }
  if (value == 0) throw UsageError(fmt::format("{} '{}': must be > 0", option, text));
  if (value > (~0ull) / scale) throw UsageError(fmt::format("{} '{}': too large", option, text));
  return value * scale;
}

std::vector<std::string> split_list(const std::string& text, const std::string& option) {
  return split_option_list(text, option);
}

}  // namespace caliber::cli
