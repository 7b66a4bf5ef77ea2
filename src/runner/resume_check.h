// What `caliber run --resume` checks before it continues the run in --out: the rows already
// written (their run, cells, graph-capture denials and how their configs were fixed), that the
// configs the rest of the run uses are the ones those rows ran with, and that this session's
// identity is the run's (the caliber check of docs/identity.md, plus the providers and matrix).
#pragma once

#include <iosfwd>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include "caliber/run_identity.h"
#include "runner/config_replay.h"

namespace caliber::runner {

struct ExistingResults {
  std::string run_id;
  std::set<std::pair<std::string, std::string>> cells;  // (shape_id, provider)
  std::map<std::string, std::string> capture_denied;    // provider -> why (runner/capture_failure.h)
  // How its rows' configs were fixed (runner/config_replay.h): nullopt when no row has one;
  // true when they replay another run's (replayed or not_in_replay_source), false when recorded.
  std::optional<bool> replaying_configs;
  std::map<std::pair<std::string, std::string>, std::string> replayed_keys;  // (shape_id, provider) -> key
};

// The rows of the run being resumed (the reader refuses a file with rows of two runs).
ExistingResults read_existing_results(const std::string& file);

// A resumed run keeps the configs its rows ran with: a recording run is resumed without
// --replay-configs, a replaying one with a source that pins every replayed row to the same key.
// Throws CaliberMismatchError naming `results_file` otherwise.
void check_resume_keeps_configs(const ExistingResults& e, const std::optional<ConfigReplaySource>& source,
                                const std::string& results_file);

// Compares this session's identity with the recorded one of the run in `out_dir` (nullopt, with
// why_missing, when it has none), prints the differences to `err`, and throws
// CaliberMismatchError when the two are not one run's.
void check_resume_identity(const std::optional<RunIdentity>& recorded, const std::string& why_missing,
                           const RunIdentity& current, const std::string& out_dir, const std::string& results_file,
                           std::ostream& err);

}  // namespace caliber::runner
