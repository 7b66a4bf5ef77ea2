#include "core/distinct_numbers.h"

#include <fmt/format.h>

namespace caliber {

std::pair<std::string, std::string> distinct_texts(double a, double b, int min_digits) {
  int digits = min_digits < 1 ? 1 : min_digits;
  std::pair<std::string, std::string> texts{fmt::format("{:.{}g}", a, digits), fmt::format("{:.{}g}", b, digits)};
  while (a != b && texts.first == texts.second && digits < 17) {
    ++digits;
    texts = {fmt::format("{:.{}g}", a, digits), fmt::format("{:.{}g}", b, digits)};
  }
  return texts;
}

}  // namespace caliber
