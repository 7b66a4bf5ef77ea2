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

}  // namespace caliber
