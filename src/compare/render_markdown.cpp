// Markdown for a pull-request comment: gated rows first, report-only rows folded away.
#include <ostream>

#include <fmt/format.h>

#include "compare/report_renderers.h"

namespace caliber::compare {
namespace {

// A table cell of text: '|' would end the cell, '<' and '>' would read as HTML.
std::string cell(const std::string& text) {
  std::string out;
  for (char ch : text) {
    if (ch == '|') out += "\\|";
    else if (ch == '\n') out += ' ';
    else if (ch == '<') out += "&lt;";
    else if (ch == '>') out += "&gt;";
    else out += ch;
  }
  return out;
}

// A table cell in a code span: only '|' needs escaping (GitHub tables split on it even there).
std::string code_cell(const std::string& text) {
  std::string out;
  for (char ch : text) {
    if (ch == '|') out += "\\|";
    else if (ch == '\n') out += ' ';
    else out += ch;
  }
  return "`" + out + "`";
}

void table(std::ostream& out, const CompareReport& r, bool gated) {
  out << "| row | arch | baseline us | current us | delta | p | verdict | gate |\n";
  out << "|---|---|--:|--:|--:|--:|---|---|\n";
  for (const RowComparison& row : r.rows) {
    if (row.gated() != gated) continue;
    const RowCells c = row_cells(row);
    out << fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} |\n", code_cell(row.label),
                       row.arch.empty() ? "-" : cell(row.arch), c.baseline_us, c.current_us, c.delta,
                       c.p_value, c.verdict, cell(row.gate_label()));
  }
}

}  // namespace

void write_compare_markdown(std::ostream& out, const CompareReport& r) {
  const char* word = r.result == GateResult::pass ? "PASS" : r.result == GateResult::fail ? "FAIL" : "REFUSED";
  out << fmt::format("### caliber compare: {}\n\n", word);
  out << fmt::format("{}\n\n", cell(gate_summary_line(r)));
  out << fmt::format("Baseline `{}`, current `{}`", r.baseline_file, r.current_file);
  if (r.thresholds_file.empty()) {
    out << ", no thresholds file (every row is report-only).\n\n";
  } else {
    out << fmt::format(", thresholds `{}` ({}).\n\n", r.thresholds_file, statistics_text(r));
  }
  if (r.summary.gated > 0) {
    table(out, r, true);
    out << '\n';
  }
  if (r.summary.report_only > 0) {
    out << fmt::format("<details><summary>{} report-only rows</summary>\n\n", r.summary.report_only);
    table(out, r, false);
    out << "\n</details>\n\n";
  }
  for (const std::string& note : r.notes) out << "- note: " << cell(note) << '\n';
  if (!r.notes.empty()) out << '\n';
}

}  // namespace caliber::compare
