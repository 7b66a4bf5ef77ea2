// What an A/B or screening cell produced, read from its directory.
//
// A cell is any command that leaves a caliber results file and its run identity in the cell's
// directory (docs/ab.md, "Cells"):
// - benchmark_results.jsonl (caliber run --out DIR): one row per (shape_id, provider);
// - a caliber.results JSON document (caliber bench --json DIR/results.json).
// The reader is an interface so tests (and other cell formats) plug in unchanged.
#pragma once

#include <memory>
#include <string>

#include "ab/ab_aggregate.h"
#include "results/benchmark_results.h"

namespace caliber {

class CellResultsReader {
 public:
  virtual ~CellResultsReader() = default;
  // The results file of a cell directory, or "" when there is none.
  virtual std::string find_results_file(const std::string& cell_dir) const = 0;
  // Reads it. Throws InputError (file, line, field) when it is malformed.
  virtual CellResults read(const std::string& results_file) const = 0;
};

// benchmark_results.jsonl first, else the one caliber.results JSON document in the directory.
const CellResultsReader& default_cell_results_reader();

// The two formats, exposed for tests.
CellResults read_caliber_results_cell(const std::string& file);
// caliber run's rows, read with the strict reader (read_benchmark_results), projected onto what the
// A/B compares: key shape_id/provider, value median_us (the primary, kernel-only number) of the ok
// and correct rows, the primary measurement's relative IQR and warnings. Other rows count as
// rows_failed.
CellResults read_benchmark_results_cell(const std::string& file);

}  // namespace caliber
