// The options every history command shares: where the history is, which series, and the change
// point test's settings (docs/history.md).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "history/change_points.h"
#include "history/history_store.h"

namespace caliber::cli {

struct HistoryOptions {
  std::string history;  // an SQLite file or a postgresql:// URL
  history::SeriesFilter filter;
  history::ChangePointSettings change_points;
};

// --history DB on a command that produces a run: the run is added once the command has written it.
struct RunHistory {
  std::optional<std::string> history;
  std::optional<std::string> commit;
};
void add_run_history_options(CLI::App& cmd, RunHistory& h);

// Runs `command`; with --history, opens the history first (a bad location fails before anything
// is measured), then adds what `results()` names once the command has written it, printing one
// line on stderr. The command's exit code is returned.
int with_run_history(const RunHistory& h, const std::function<int()>& command,
                     const std::function<std::string()>& results);

// --history (default: $CALIBER_HISTORY).
void add_history_location(CLI::App& cmd, std::string& history);
// --history, --name, --arch, --series, --last, --alpha, --permutations, --min-segment.
void add_history_options(CLI::App& cmd, HistoryOptions& o);

}  // namespace caliber::cli
