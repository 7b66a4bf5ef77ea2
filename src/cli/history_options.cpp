// The history commands' shared options (cli/history_options.h).
#include "cli/history_options.h"

#include <filesystem>
#include <iostream>

#include <fmt/format.h>

#include "caliber/errors.h"

namespace caliber::cli {

void add_run_history_options(CLI::App& cmd, RunHistory& h) {
  cmd.add_option("--history", h.history,
                 "Add the run to this history once written (an SQLite file or a postgresql:// URL; docs/history.md)");
  cmd.add_option("--commit", h.commit,
                 "With --history: the commit of the code measured (default: git rev-parse HEAD here)");
}

int with_run_history(const RunHistory& h, const std::function<int()>& command,
                     const std::function<std::string()>& results) {
  if (h.commit && !h.history) throw UsageError("--commit needs --history");
  std::optional<history::HistoryStore> store;
  if (h.history) store.emplace(*h.history);
  const int exit_code = command();
  if (!store) return exit_code;
  const std::string input = results();
  if (!std::filesystem::exists(input)) {
    std::cerr << fmt::format("history: nothing added to {}: the command wrote no results ({})\n", *h.history, input);
    return exit_code;
  }
  const history::RunRecord record = history::read_run_record({input, h.commit, std::nullopt});
  const history::AddResult added = store->add(record);
  std::cerr << fmt::format("history: {} {} to {} (run {}, {} points, commit {})\n",
                           added.added ? "added" : "already stored:", input, *h.history, added.run, added.points,
                           record.commit);
  return exit_code;
}

void add_history_location(CLI::App& cmd, std::string& history) {
  cmd.add_option("--history", history,
                 "The history: an SQLite file (created when missing) or a postgresql:// URL")
      ->envname("CALIBER_HISTORY")
      ->required();
}

void add_history_options(CLI::App& cmd, HistoryOptions& o) {
  add_history_location(cmd, o.history);
  cmd.add_option("--name", o.filter.name_glob, "Only series whose name (op, benchmark) matches this glob");
  cmd.add_option("--arch", o.filter.arch, "Only series of this architecture (sm_90, x86_64)");
  cmd.add_option("--series", o.filter.ids, "Only these series (their ids, as the trend prints them)");
  cmd.add_option("--last", o.filter.last, "Only each series' last N points (0: all)")->capture_default_str();
  cmd.add_option("--alpha", o.change_points.alpha,
                 "Significance of each change point's permutation test: the false-alarm rate per series")
      ->check(CLI::Range(1e-6, 0.5))
      ->capture_default_str();
  cmd.add_option("--permutations", o.change_points.permutations, "Permutations per test")
      ->check(CLI::Range(19, 100000))
      ->capture_default_str();
  cmd.add_option("--min-segment", o.change_points.min_segment, "Fewest points on either side of a change")
      ->check(CLI::Range(2, 1000000))
      ->capture_default_str();
}

}  // namespace caliber::cli
