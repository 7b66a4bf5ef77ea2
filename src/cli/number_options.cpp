#include "cli/number_options.h"

#include <fmt/format.h>

#include "core/number_text.h"

namespace caliber::cli {
namespace {

bool all_digits(std::string_view s) {
  if (!s.empty() && s.front() == '-') s.remove_prefix(1);
  return !s.empty() && s.find_first_not_of("0123456789") == std::string_view::npos;
}

// The check of one value, by CLI11's type name of the option: "" when the text is a number of
// that type, else why not.
std::string number_problem(const std::string& type, const std::string& text) {
  if (type == "INT") {
    if (parse_integer(text)) return "";
    return all_digits(text) ? fmt::format("{} is out of range", text)
                            : fmt::format("expected a whole number in base 10, got '{}'", text);
  }
  if (type == "UINT") {
    if (parse_unsigned(text)) return "";
    if (!text.empty() && text.front() == '-') return fmt::format("must be >= 0 (got {})", text);
    return all_digits(text) ? fmt::format("{} is out of range", text)
                            : fmt::format("expected a whole number in base 10, got '{}'", text);
  }
  if (parse_decimal(text)) return "";
  return fmt::format("expected a finite number, got '{}'", text);
}

}  // namespace

void require_strict_numbers(CLI::App& app) {
  for (CLI::Option* option : app.get_options()) {
    const std::string type = option->get_type_name();
    if (type != "INT" && type != "UINT" && type != "FLOAT") continue;
    option->check(CLI::Validator([type](std::string& text) { return number_problem(type, text); }, ""));
  }
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) require_strict_numbers(*sub);
}

}  // namespace caliber::cli
