// bisect.json: what caliber bisect tested, what it found and where the evidence is
// (kind caliber.bisect, schema_version 1; docs/bisect.md "bisect.json").
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bisect/bisect_search.h"
#include "bisect/commit_run.h"
#include "bisect/git_history.h"

namespace caliber::bisect {

inline constexpr int kBisectSchemaVersion = 1;

struct TestedCommit {
  CommitInfo commit;
  CommitVerdict verdict = CommitVerdict::good;
  std::string detail;   // the regressed rows' changes, or why the commit was skipped
  std::string results;  // the results input read; empty when the build or run failed
};

struct BisectRecord {
  std::string repo;
  BisectCommands commands;
  std::string thresholds_file;  // empty: none (report-only thresholds)
  TestedCommit good, bad;       // the preflight
  std::vector<std::string> regressed_rows;  // their labels
  std::vector<TestedCommit> steps;
  // The commits that may be the first bad one: exactly one when the search was exact.
  std::vector<CommitInfo> candidates;
  // The evidence, when the search was exact: the last good and the first bad commit, and the
  // comparison of the two on the regressed rows (caliber.comparison JSON).
  std::optional<TestedCommit> last_good, first_bad;
  nlohmann::json comparison;
};

nlohmann::json bisect_json(const BisectRecord& record);

// Writes bisect_json to `path` atomically.
void write_bisect_record(const std::string& path, const BisectRecord& record);

}  // namespace caliber::bisect
