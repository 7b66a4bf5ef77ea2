#include "caliber/result_table.h"

#include <algorithm>
#include <cmath>
#include <ostream>

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

namespace {

std::string size_of(const Result& r) {
  if (r.params.contains("size_bytes") && r.params["size_bytes"].is_number_integer()) {
    return format_bytes(r.params["size_bytes"].get<std::uint64_t>());
  }
  return "-";
}

std::string schedule_of(const Contract& c) {
  if (c.quantity == Quantity::host_dispatch) return "host_dispatch";
  if (c.schedule == Schedule::graph) return fmt::format("graph/{}", c.graph_calls);
  if (c.schedule == Schedule::pipelined) return fmt::format("pipelined/{}", c.iterations.count);
  return std::string(to_string(c.schedule));
}

}  // namespace

void write_results_table(std::ostream& out, const std::vector<Result>& results) {
  const std::vector<std::string> header = {"name",   "size",   "backend", "instrument", "schedule",
                                           "cache",  "stat",   "value_us", "p10_us",   "p90_us",
                                           "n",      "stable"};
  std::vector<std::vector<std::string>> rows;
  for (const Result& r : results) {
    const Contract& c = r.contract;
    rows.push_back({r.name, size_of(r), std::string(to_string(c.backend)),
                    std::string(to_string(c.instrument)), schedule_of(c),
                    std::string(to_string(c.cache)), c.statistic.name(), format_us(r.value_us),
                    format_us(r.summary.p10_us), format_us(r.summary.p90_us),
                    std::to_string(r.summary.n), r.stable ? "yes" : "NO"});
  }
  std::vector<std::size_t> width(header.size());
  for (std::size_t i = 0; i < header.size(); ++i) {
    width[i] = header[i].size();
    for (const auto& row : rows) width[i] = std::max(width[i], row[i].size());
  }
  // Numbers right-aligned (columns 7..10), text left-aligned.
  auto print_row = [&](const std::vector<std::string>& row) {
    std::string line;
    for (std::size_t i = 0; i < row.size(); ++i) {
      const bool numeric = i >= 7 && i <= 10;
      if (i) line += "  ";
      line += numeric ? fmt::format("{:>{}}", row[i], width[i]) : fmt::format("{:<{}}", row[i], width[i]);
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out << line << '\n';
  };
  print_row(header);
  for (const auto& row : rows) print_row(row);
  for (const Result& r : results) {
    const Contract& c = r.contract;
    const std::string tag = fmt::format("{} [{}/{}/{}/{}]", r.name, to_string(c.instrument),
                                        schedule_of(c), to_string(c.cache), c.statistic.name());
    for (const auto& n : r.notes) out << "  note " << tag << ": " << n << '\n';
    for (const auto& w : r.warnings) out << "  ! " << tag << ": " << w << '\n';
  }
}

}  // namespace caliber
