#include "campaign/retry_policy.h"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

namespace caliber::campaign {

bool is_retryable(BenchmarkStatus status) { return status == BenchmarkStatus::failed; }

std::string failure_signature(BenchmarkStatus status, std::string_view reason) {
  std::string out(to_string(status));
  out += ": ";
  const auto digit = [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; };
  for (std::size_t i = 0; i < reason.size();) {
    if (reason[i] == '0' && i + 2 < reason.size() && (reason[i + 1] == 'x' || reason[i + 1] == 'X') &&
        std::isxdigit(static_cast<unsigned char>(reason[i + 2]))) {
      out += "0x#";
      i += 2;
      while (i < reason.size() && std::isxdigit(static_cast<unsigned char>(reason[i]))) ++i;
    } else if (digit(reason[i])) {
      out += '#';
      while (i < reason.size() && (digit(reason[i]) || (reason[i] == '.' && i + 1 < reason.size() &&
                                                         digit(reason[i + 1])))) {
        ++i;
      }
    } else {
      out += reason[i++];
    }
  }
  return out;
}

RetryDecision decide_retry(const std::vector<std::string>& failures, int retries) {
  RetryDecision d;
  if (failures.empty()) {
    d.why = "nothing failed";
    return d;
  }
  const std::string& last = failures.back();
  if (std::find(failures.begin(), failures.end() - 1, last) != failures.end() - 1) {
    d.why = "deterministic: the same failure twice";
    return d;
  }
  if (static_cast<int>(failures.size()) > retries) {
    d.why = fmt::format("retries exhausted ({} attempt(s), --retries {})", failures.size(), retries);
    return d;
  }
  d.retry = true;
  return d;
}

}  // namespace caliber::campaign
