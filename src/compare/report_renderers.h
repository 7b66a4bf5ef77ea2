// The outputs of `caliber compare`, one file per format, each written to an injected stream so
// it is tested with exact strings: a human table, markdown for a pull-request comment, JSON, and
// JUnit XML (one test case per gated row, a failure per failed gate).
#pragma once

#include <iosfwd>
#include <string>

#include "compare/gate.h"

namespace caliber::compare {

inline constexpr int kComparisonSchemaVersion = 1;

void write_compare_table(std::ostream& out, const CompareReport& report);
void write_compare_markdown(std::ostream& out, const CompareReport& report);
void write_compare_json(std::ostream& out, const CompareReport& report);
void write_compare_junit(std::ostream& out, const CompareReport& report);

// "gate FAIL: 1 of 3 gated rows failed (1 passed, 1 skipped, 0 unknown); 2 report-only rows"
std::string gate_summary_line(const CompareReport& report);

// "rank test alpha 0.05, at least 5 samples per side" (", --strict" appended when set).
std::string statistics_text(const CompareReport& report);

// Cells shared by the table and markdown renderers ("-" when there is nothing to show).
struct RowCells {
  std::string baseline_us, current_us, delta, p_value, verdict;
};
RowCells row_cells(const RowComparison& row);

}  // namespace caliber::compare
