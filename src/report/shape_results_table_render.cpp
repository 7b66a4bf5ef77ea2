// The results table laid out for a terminal and for markdown (docs/reports.md, "Results table").
#include <ostream>

#include "report/report_text.h"
#include "report/shape_results_table.h"
#include "report/text_table.h"

namespace caliber {
namespace {

const std::vector<std::string>& header() {
  static const std::vector<std::string> h = {"shape",  "provider", "status",   "median us", "95% CI us",
                                             "GB/s",   "TFLOP/s",  "roofline", "stability"};
  return h;
}

// What the columns mean, one line above the table.
constexpr const char* kLegend =
    "median us: the row's primary median (kernel-only; \"(eager)\": timed eagerly); 95% CI us: its interval; "
    "GB/s and TFLOP/s: bytes and flops per call over that median; roofline: the fraction of the device's "
    "measured roofline and the resource nearer its ceiling";

std::vector<std::string> cells(const ResultsTableLine& l) {
  return {l.shape, l.provider, l.status, l.latency, l.interval, l.gb_per_s, l.tflop_per_s, l.roofline, l.stability};
}

}  // namespace

void write_results_table_text(std::ostream& out, const ResultsTable& table) {
  out << kLegend << '\n';
  std::vector<std::vector<std::string>> rows = {header()};
  for (const ResultsTableLine& l : table.lines) rows.push_back(cells(l));
  // The numbers (median, interval, rates) right-aligned.
  write_text_table(out, rows, [](std::size_t i) { return i >= 3 && i <= 6; });
  for (const std::string& n : table.notes) out << "note: " << n << '\n';
}

void write_results_table_markdown(std::ostream& out, const ResultsTable& table) {
  out << kLegend << ".\n\n";
  std::vector<std::vector<std::string>> rows;
  for (const ResultsTableLine& l : table.lines) rows.push_back(cells(l));
  report_text::markdown_table_or(out, header(), rows, "No rows.");
  for (const std::string& n : table.notes) out << "- " << report_text::markdown_cell(n) << '\n';
  if (!table.notes.empty()) out << '\n';
}

}  // namespace caliber
