#include "runner/run_results_table.h"

#include <ostream>

#include <fmt/format.h>

#include "caliber/errors.h"
#include "io/device_ceilings_file.h"

namespace caliber::runner {

TableCeilings run_table_ceilings(const std::optional<std::string>& ceilings_file, const std::optional<DeviceInfo>& device) {
  TableCeilings t;
  if (!device) {
    t.why_none = "no cell was measured this session, so the device's ceilings were not looked up";
    return t;
  }
  const std::string file = ceilings_file.value_or(default_ceilings_path());
  try {
    t.ceilings = calibrated_ceilings(ceilings_file, *device);
  } catch (const Error& e) {  // the worker read it at the run's start; a file changed since is no reason to fail now
    t.why_none = fmt::format("the ceilings file could not be read: {}", e.what());
    return t;
  }
  if (!t.ceilings) {
    t.why_none = fmt::format("no calibrated ceilings of device {} in {} (run caliber calibrate)", device_key(*device), file);
  }
  return t;
}

void write_run_summary_markdown(std::ostream& out, const std::string& op, const std::string& run_id,
                                const std::string& totals, const ResultsTable& table) {
  out << fmt::format("# caliber run: {}, run {}\n\n", op, run_id);
  out << totals << "\n\n";
  out << "## Results (shape x provider)\n\n";
  write_results_table_markdown(out, table);
}

}  // namespace caliber::runner
