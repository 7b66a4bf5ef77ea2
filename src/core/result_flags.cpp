#include "core/result_flags.h"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

namespace caliber {

std::string throttled_flag(std::string_view reason_name) {
  return std::string(kFlagThrottledPrefix) + std::string(reason_name);
}

bool has_flag(const Result& r, std::string_view flag) {
  return std::find(r.flags.begin(), r.flags.end(), flag) != r.flags.end();
}

std::string instability_reason(const Result& r) {
  if (r.stable) return "";
  const Summary& s = r.summary;
  const bool spread_known = s.p10_us > 0;
  const double spread = spread_known ? s.p90_us / s.p10_us : 0.0;
  std::vector<std::string> parts;
  if (has_flag(r, kFlagUnstableThrottled)) {
    std::string reasons;
    for (const std::string& f : r.flags) {
      if (f.rfind(kFlagThrottledPrefix, 0) == 0) {
        reasons += (reasons.empty() ? "" : ", ") + f.substr(kFlagThrottledPrefix.size());
      }
    }
    // Under throttle policy discard the flagged samples are no longer in the summary.
    const std::int64_t sampled = s.n + r.telemetry.discarded_samples;
    parts.push_back(fmt::format("{} of {} samples may have run throttled{}", r.telemetry.flagged_samples,
                                sampled, reasons.empty() ? "" : " (" + reasons + ")"));
  }
  const bool spread_flagged = has_flag(r, kFlagUnstableSpread);
  const bool unexplained = parts.empty() && !spread_flagged;
  if (spread_flagged || (unexplained && spread_known && spread > kMaxStableP90OverP10)) {
    parts.push_back(spread_known ? fmt::format("p90/p10 = {:.2f} > {:g}", spread, kMaxStableP90OverP10)
                                 : fmt::format("p90/p10 > {:g} (p10 = 0)", kMaxStableP90OverP10));
  } else if (unexplained) {
    parts.push_back(spread_known
                        ? fmt::format("reason not recorded (p90/p10 = {:.2f} is within {:g})", spread,
                                      kMaxStableP90OverP10)
                        : "reason not recorded");
  }
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : "; ") + p;
  return out;
}

}  // namespace caliber
