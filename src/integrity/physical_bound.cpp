#include "integrity/physical_bound.h"

#include <cmath>
#include <string>

#include <fmt/format.h>

#include "core/unit_text.h"
#include "integrity/bound_ceilings.h"
#include "integrity/theoretical_ceilings.h"

namespace caliber::integrity {

std::optional<double> admissible_rate_per_s(const Ceiling& c) {
  if (!c.available || !(c.rate_per_s > 0)) return std::nullopt;
  if (!c.measurement || !(c.measurement->summary.min_us > 0) || c.work_per_call == 0) return c.rate_per_s;
  const Summary& s = c.measurement->summary;
  const double fastest = static_cast<double>(c.work_per_call) / (s.min_us * 1e-6);
  const double range = s.max_us > s.min_us ? s.max_us / s.min_us : 1.0;
  return std::max(fastest, c.rate_per_s) * range;
}

bool served_from_cache(const MeasuredWork& w) {
  return w.cache == CachePolicy::warm && w.bytes < 2 * w.llc_bytes;
}

IntegrityCheck physical_bound_check(const MeasuredWork& w, const DeviceCeilings& ceilings) {
  IntegrityCheck check{std::string(integrity_check::physically_possible), CheckOutcome::not_run, ""};
  const double seconds = w.time_us * 1e-6;
  std::string compared;
  std::string missing;
  auto judge = [&](double amount, const Ceiling& ceiling, const std::string& what, const std::string& unit) {
    if (amount <= 0) return;
    const std::optional<double> bound = admissible_rate_per_s(ceiling);
    if (!bound) {
      missing += fmt::format("{}no {} ceiling ({})", missing.empty() ? "" : "; ", what,
                             ceiling.reason.empty() ? "not available" : ceiling.reason);
      return;
    }
    const double rate = seconds > 0 ? amount / seconds : INFINITY;
    const std::string source = ceiling_source(ceiling);
    if (rate > *bound) {
      check.outcome = CheckOutcome::failed;
      check.detail = fmt::format(
          "{} {} in {} us is {}, {:.3g}x the device's {} {} ({}; admissible up to {}{}): faster than the device "
          "can go, so the call did not do its work",
          unit == "bytes/s" ? format_bytes(static_cast<std::uint64_t>(amount)) : fmt::format("{:.3g} flop", amount),
          unit == "bytes/s" ? "moved" : "computed", w.time_us, format_rate(rate, unit), rate / ceiling.rate_per_s,
          source, what, format_rate(ceiling.rate_per_s, unit), format_rate(*bound, unit),
          is_theoretical(ceiling) ? "; " + ceiling.method : " with the calibration's spread");
      return;
    }
    compared += fmt::format("{}{} {:.0f}% of the {} {} ceiling", compared.empty() ? "" : ", ",
                            format_rate(rate, unit), 100.0 * rate / ceiling.rate_per_s, source, what);
  };
  const bool cached = served_from_cache(w);
  judge(static_cast<double>(w.bytes), cached ? ceilings.cache_bandwidth : ceilings.memory_bandwidth,
        cached ? "cache bandwidth" : "memory bandwidth", "bytes/s");
  if (check.outcome == CheckOutcome::failed) return check;
  const auto m = ceilings.matmul.find(std::string(to_string(w.dtype)));
  if (m != ceilings.matmul.end()) {
    judge(static_cast<double>(w.flops), m->second, std::string(to_string(w.dtype)) + " matmul", "flop/s");
  } else if (w.flops > 0) {
    missing += fmt::format("{}no {} matmul ceiling", missing.empty() ? "" : "; ", to_string(w.dtype));
  }
  if (check.outcome == CheckOutcome::failed) return check;
  if (!compared.empty()) {
    check.outcome = CheckOutcome::passed;
    check.detail = compared + (missing.empty() ? "" : " (" + missing + ")");
  } else {
    check.detail = missing.empty()
                       ? "nothing to compare (no bytes, no flops): no ceiling bounds the time, so the number is "
                         "not verified against the device"
                       : missing + ": no ceiling bounds the time, so the number is not verified against the device";
  }
  return check;
}

}  // namespace caliber::integrity
