// The human table of `caliber compare`.
#include <ostream>

#include <fmt/format.h>

#include "compare/report_renderers.h"
#include "report/text_table.h"

namespace caliber::compare {

void write_compare_table(std::ostream& out, const CompareReport& r) {
  out << fmt::format("caliber compare: baseline {}, current {}\n", r.baseline_file, r.current_file);
  if (r.thresholds_file.empty()) {
    out << "thresholds: none (every row is report-only)\n";
  } else {
    out << fmt::format("thresholds: {} ({})\n", r.thresholds_file, statistics_text(r));
  }
  std::vector<std::vector<std::string>> rows = {
      {"row", "arch", "baseline_us", "current_us", "delta", "p", "verdict", "gate"}};
  for (const RowComparison& row : r.rows) {
    const RowCells c = row_cells(row);
    rows.push_back({row.label, row.arch.empty() ? "-" : row.arch, c.baseline_us, c.current_us, c.delta,
                    c.p_value, c.verdict, row.gate_label()});
  }
  // Numbers right-aligned (columns 2..5); the gate label last.
  write_text_table(out, rows, [](std::size_t i) { return i >= 2 && i <= 5; });
  for (const std::string& note : r.notes) out << "note: " << note << '\n';
  out << gate_summary_line(r) << '\n';
}

}  // namespace caliber::compare
