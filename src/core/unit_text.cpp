#include "core/unit_text.h"

#include <cmath>

#include <fmt/format.h>

namespace caliber {

std::string format_us(double us) {
  const double a = std::fabs(us);
  if (a >= 1000) return fmt::format("{:.0f}", us);
  if (a >= 100) return fmt::format("{:.1f}", us);
  if (a >= 10) return fmt::format("{:.2f}", us);
  return fmt::format("{:.3f}", us);
}

std::string format_bytes(std::uint64_t bytes) {
  static const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024 && u < 4) {
    v /= 1024;
    ++u;
  }
  if (u == 0) return fmt::format("{} B", bytes);
  return fmt::format("{:.{}f} {}", v, v >= 100 ? 0 : v >= 10 ? 1 : 2, units[u]);
}

std::string format_rate(double per_s, const std::string& unit) {
  const std::string base = unit == "flop/s" ? "FLOP/s" : "B/s";
  if (per_s >= 1e12) return fmt::format("{:.2f} T{}", per_s / 1e12, base);
  if (per_s >= 1e9) return fmt::format("{:.2f} G{}", per_s / 1e9, base);
  if (per_s >= 1e6) return fmt::format("{:.2f} M{}", per_s / 1e6, base);
  return fmt::format("{:.2f} {}", per_s, base);
}

}  // namespace caliber
