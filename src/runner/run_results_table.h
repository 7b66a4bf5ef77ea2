// The results table at the end of `caliber run` (docs/runner.md, "Progress, summary and harness
// overhead"; docs/reports.md, "Results table"): printed on
// stdout and written into run_summary.md, with the roofline against the run's calibrated ceilings.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>

#include "integrity/device_ceilings.h"
#include "report/shape_results_table.h"

namespace caliber::runner {

inline constexpr const char* kRunSummaryMarkdownFileName = "run_summary.md";

// The ceilings the table's roofline is taken against: the run's device's entry of `--ceilings`,
// else of caliber calibrate's default file; or why there are none.
struct TableCeilings {
  std::optional<DeviceCeilings> ceilings;
  std::string why_none;
};
TableCeilings run_table_ceilings(const std::optional<std::string>& ceilings_file, const std::optional<DeviceInfo>& device);

// run_summary.md: a title naming the op and run, the totals line, then the results table.
void write_run_summary_markdown(std::ostream& out, const std::string& op, const std::string& run_id,
                                const std::string& totals, const ResultsTable& table);

}  // namespace caliber::runner
