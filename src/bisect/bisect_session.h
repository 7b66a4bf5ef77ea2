// caliber bisect end to end: the preflight on the good and the bad revision, the search over the
// commits between them, the first bad commit with its evidence, and bisect.json (docs/bisect.md).
#pragma once

#include <iosfwd>
#include <optional>
#include <string>

#include "bisect/commit_run.h"

namespace caliber::bisect {

struct BisectOptions {
  std::string repo = ".";
  std::string good, bad;
  BisectCommands commands;
  std::optional<std::string> thresholds;
  std::optional<std::string> out;
  std::optional<std::string> assume_arch;  // for rows whose format records no architecture
  bool allow_caliber_mismatch = false;
};

// Runs the bisect, printing its progress, the first bad commit and the evidence to `out`, and
// returns the exit code: 0 when the first bad commit was found, 1 when skipped commits leave
// several candidates. Throws: UsageError (bad options, revisions, --out), InputError (a malformed
// thresholds file or results of the good or bad revision), CaliberMismatchError (identities
// differ, without allow_caliber_mismatch), Error (the preflight found no regressed row, the
// good or bad revision failed to build or run, a git failure).
int run_bisect(const BisectOptions& options, std::ostream& out);

}  // namespace caliber::bisect
