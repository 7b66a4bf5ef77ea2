// One A/B or screening cell: run its command in its own process (own process group, wall-clock
// limit), then read what it left in its directory: results, run identity, code fingerprint.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ab/ab_aggregate.h"
#include "ab/cell_results.h"
#include "caliber/run_identity.h"
#include "core/subprocess.h"
#include "fingerprint/code_fingerprint.h"

namespace caliber {

struct CellSpec {
  int round = 0;
  char side = 'A';
  std::string op;
  std::string dir;      // the cell's directory ({out}); created before the command runs
  std::string command;  // expanded, run with /bin/sh -c
  std::vector<std::pair<std::string, std::string>> env;
  double timeout_s = 0;
  double kill_after_s = 30;
};

// How a cell's command is run. The real one forks /bin/sh -c; tests substitute one that writes
// fixture files.
class CellRunner {
 public:
  virtual ~CellRunner() = default;
  // stdout and stderr of the command go to log_path.
  virtual SubprocessResult run(const CellSpec& cell, const std::string& log_path) = 0;
};
CellRunner& process_cell_runner();

struct CellRun {
  CellSpec spec;
  CellOutcome outcome;
  double elapsed_s = 0;
  std::string results_file;               // "" when none
  std::optional<RunIdentity> identity;    // nullopt: none (identity_missing says why)
  std::string identity_missing;
  std::optional<CodeFingerprint> fingerprint;  // nullopt: the cell wrote none
};

inline constexpr const char* kCellLogFileName = "cell.log";

// Runs the cell and classifies it: rc 124/137 -> timed_out; rc 3 (preflight) and 4 (caliber) ->
// refused; another non-zero rc, no results file or a malformed one -> failed; else ok.
CellRun run_cell(const CellSpec& spec, CellRunner& runner, const CellResultsReader& reader);

// A TSV field: tabs and line breaks become spaces.
std::string tsv_field(std::string s);
// Fields joined by tabs, each through tsv_field.
std::string tsv_line(const std::vector<std::string>& fields);

class StatusTsv;

// run_cell, then its status.tsv line, with a progress line before and after
// ("[<tag>] <op> round k/N side S: ...").
CellRun run_logged_cell(const CellSpec& spec, int rounds, CellRunner& runner, const CellResultsReader& reader,
                        StatusTsv& status, std::ostream& progress, const std::string& tag);

// <root>/status.tsv: one line per finished cell, appended and fsynced as each cell ends, so a
// missing, hung or degraded cell is visible while the campaign runs.
class StatusTsv {
 public:
  // Writes the header, unless `append` (a resumed A/B adds to its status.tsv).
  explicit StatusTsv(const std::string& path, bool append = false);
  void append(const CellRun& cell);
  static const char* header();

 private:
  std::string path_;
};

}  // namespace caliber
