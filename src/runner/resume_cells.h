// What `caliber run --resume` does to a results file before it continues a run: cut a last row
// torn by a kill, and, for `--rerun-cells FILE` (the campaign's retries, docs/batch.md), move the
// rows of failed cells out of the results into benchmark_attempts.jsonl so that the cells run
// again without a second row. Only `failed` rows can be re-run: re-running an ok, incorrect or
// faster_than_physical cell until it reads better would promote a result.
#pragma once

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "results/benchmark_results.h"

namespace caliber::runner {

// Superseded rows of a run directory: every failed row a re-run replaced, in the order replaced.
inline constexpr const char* kBenchmarkAttemptsFileName = "benchmark_attempts.jsonl";

using CellKey = std::pair<std::string, std::string>;  // (shape_id, provider)

// A results file ends with a newline after every row; a last line without one is a row torn by a
// kill during its write. Cuts it off (the cell then runs again); true when it did.
bool cut_torn_tail(const std::string& file);

// --rerun-cells FILE: one cell per line, "<shape_id><TAB><provider>"; blank lines and lines
// starting with '#' are skipped. InputError names the file, line and field.
std::set<CellKey> read_rerun_cells(const std::string& file);
// Writes such a file (atomically).
void write_rerun_cells(const std::string& file, const std::set<CellKey>& cells);

// Refuses (InputError naming `list_file`) a listed cell whose row in `results_file` is not
// failed. A listed cell without a row is allowed: it runs anyway.
void check_rerun_cells(const std::string& results_file, const std::set<CellKey>& cells, const std::string& list_file);

// Moves the rows of `cells` from `results_file` to `attempts_file`: first appended there (fsynced;
// a row already there, byte for byte, is not appended twice, so a kill between the two steps
// duplicates nothing), then the results file is rewritten without them by atomic rename. Returns
// how many rows moved.
std::size_t supersede_rows(const std::string& results_file, const std::string& attempts_file,
                           const std::set<CellKey>& cells);

}  // namespace caliber::runner
