#include "caliber/errors.h"

#include <fmt/format.h>

namespace caliber {

namespace {
std::string input_error_message(const std::string& file, long line, const std::string& field,
                                const std::string& what) {
  std::string where = file;
  if (line > 0) where += fmt::format(":{}", line);
  if (!field.empty()) return fmt::format("{}: field '{}': {}", where, field, what);
  return fmt::format("{}: {}", where, what);
}
}  // namespace

InputError::InputError(const std::string& file, long line, const std::string& field,
                       const std::string& what)
    : Error(input_error_message(file, line, field, what)), file_(file), line_(line), field_(field),
      reason_(what) {}

namespace {
std::string preflight_message(const std::vector<PreflightError::Failure>& failures) {
  std::string out;
  for (const auto& f : failures) {
    out += fmt::format("{}PREFLIGHT_FAILED check={}: {}", out.empty() ? "" : "\n", f.check, f.detail);
  }
  return out;
}
}  // namespace

PreflightError::PreflightError(std::vector<Failure> failures)
    : Error(preflight_message(failures)), failures_(std::move(failures)) {}

}  // namespace caliber
