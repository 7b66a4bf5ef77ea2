// The results table of a multi-shape run: one line per (shape, provider) with the row's latency,
// its interval, GB/s, TFLOP/s, the fraction of the roofline, stability and status
// (docs/reports.md, "Results table"). `caliber run` prints it at its end and writes it into
// run_summary.md; `caliber report` prints it and opens benchmark_summary.md with it.
//
// One builder makes the table's cells from the rows; the renderers (terminal text, markdown) only
// lay them out, so both say the same.
#pragma once

#include <cstddef>
#include <iosfwd>
#include <map>
#include <string>
#include <vector>

#include "integrity/device_ceilings.h"
#include "results/benchmark_results.h"

namespace caliber {

struct ResultsTableLine {
  std::string shape;      // shape_label: "bf16 m=4096 n=8192"
  std::string provider;   // "naive", or "naive (not a baseline)" as the caller labels it
  std::string status;     // the row's benchmark_status
  std::string latency;    // median_us ("12.34"); "12.34 (eager)" for a row timed eagerly; "-" without one
  std::string interval;   // the 95% CI of that median ("12.30-12.38"); "-" when the row has none
  std::string gb_per_s;   // bytes / median; "-" without bytes or median
  std::string tflop_per_s;  // flops / median; "-" without flops or median
  std::string roofline;   // "61% memory" of the device's measured roofline; "-" when unknown
  std::string stability;  // "stable" | "unstable" | "-" (not timed, or not recorded)
};

struct ResultsTable {
  std::vector<ResultsTableLine> lines;  // shapes in order of first appearance, providers likewise
  std::vector<std::string> notes;       // said once below the table: why the roofline is "-", instabilities
};

// Builds the table a row at a time (a results file of any size: the table keeps only its cells).
// A later row of the same (shape, provider) cell replaces the earlier one (a cell measured again).
class ResultsTableBuilder {
 public:
  // `ceilings`: the calibrated ceilings of the rows' device (nullptr: none); `no_ceilings`: why
  // there are none, printed once (e.g. "no ceilings file (run caliber calibrate)").
  ResultsTableBuilder(const DeviceCeilings* ceilings, std::string no_ceilings);
  // `provider_label` replaces the provider's name in the table ("" keeps the name).
  void add(const BenchmarkResultRow& row, const std::string& provider_label = "");
  ResultsTable build() const;

 private:
  struct Entry {
    std::string provider;
    ResultsTableLine line;
    std::string unstable;          // why the row is not stable ("" when it is)
    bool timed_without_fraction = false;  // a median, and no roofline fraction for it
  };
  const DeviceCeilings* ceilings_;
  std::string no_ceilings_;
  std::vector<std::string> shapes_;                   // shape ids, in first appearance order
  std::map<std::string, std::vector<Entry>> cells_;   // shape id -> its providers' lines
};

// The table in aligned columns for a terminal, then its notes ("note: ...").
void write_results_table_text(std::ostream& out, const ResultsTable& table);
// A markdown table, then its notes as a list.
void write_results_table_markdown(std::ostream& out, const ResultsTable& table);

}  // namespace caliber
