// The human table of `caliber compare`.
#include <algorithm>
#include <ostream>

#include <fmt/format.h>

#include "compare/report_renderers.h"

namespace caliber::compare {

void write_compare_table(std::ostream& out, const CompareReport& r) {
  out << fmt::format("caliber compare: baseline {}, current {}\n", r.baseline_file, r.current_file);
  if (r.thresholds_file.empty()) {
    out << "thresholds: none (every row is report-only)\n";
  } else {
    out << fmt::format("thresholds: {} (rank test alpha {}, at least {} samples per side{})\n",
                       r.thresholds_file, r.statistics.alpha, r.statistics.min_samples,
                       r.strict ? ", --strict" : "");
  }
  const std::vector<std::string> header = {"row", "arch", "baseline_us", "current_us", "delta", "p", "verdict", "gate"};
  std::vector<std::vector<std::string>> rows;
  for (const RowComparison& row : r.rows) {
    const RowCells c = row_cells(row);
    rows.push_back({row.label, row.arch.empty() ? "-" : row.arch, c.baseline_us, c.current_us, c.delta,
                    c.p_value, c.verdict, row.gate_label()});
  }
  std::vector<std::size_t> width(header.size());
  for (std::size_t i = 0; i < header.size(); ++i) {
    width[i] = header[i].size();
    for (const auto& row : rows) width[i] = std::max(width[i], row[i].size());
  }
  auto print = [&](const std::vector<std::string>& row) {
    std::string line;
    for (std::size_t i = 0; i < row.size(); ++i) {
      const bool numeric = i >= 2 && i <= 5;
      if (i) line += "  ";
      if (i + 1 == row.size()) {
        line += row[i];  // the label: last column, not padded
      } else {
        line += numeric ? fmt::format("{:>{}}", row[i], width[i]) : fmt::format("{:<{}}", row[i], width[i]);
      }
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out << line << '\n';
  };
  print(header);
  for (const auto& row : rows) print(row);
  for (const std::string& note : r.notes) out << "note: " << note << '\n';
  out << gate_summary_line(r) << '\n';
}

}  // namespace caliber::compare
