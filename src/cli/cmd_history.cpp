// caliber history: every run kept (add), trends with change points (trend, report) (docs/history.md).
#include <iostream>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "caliber/errors.h"
#include "cli/command.h"
#include "cli/history_options.h"
#include "core/atomic_file.h"
#include "history/history_store.h"
#include "history/trend_render.h"

namespace caliber::cli {
namespace {

struct AddOptions {
  std::string history;
  std::vector<std::string> runs;
  std::optional<std::string> commit;
  std::optional<std::string> date;
};

int run_add(const AddOptions& o) {
  // Every input is read and checked before the history is written to.
  std::vector<history::RunRecord> records;
  for (const std::string& run : o.runs) records.push_back(history::read_run_record({run, o.commit, o.date}));
  history::HistoryStore store(o.history);
  for (const history::RunRecord& r : records) {
    const history::AddResult added = store.add(r);
    if (added.added) {
      std::cout << fmt::format("added {}: run {}, {} points, {} new series, commit {} ({}), {}\n", r.source,
                               added.run, added.points, added.new_series, r.commit, r.commit_source, r.date);
    } else {
      std::cout << fmt::format("already stored: {} (run {})\n", r.source, added.run);
    }
  }
  return kExitOk;
}

int run_trend(const HistoryOptions& o, bool json) {
  history::HistoryStore store(o.history);
  const history::History h = store.read(o.filter);
  const history::Trends trends = history::compute_trends(h, o.change_points);
  if (json) std::cout << history::trend_json(trends, h).dump(2) << '\n';
  else history::write_trend_text(std::cout, trends, h);
  return kExitOk;
}

int run_report(const HistoryOptions& o, const std::string& out, const std::string& title) {
  require_writable_file(out, "--out");
  history::HistoryStore store(o.history);
  const history::History h = store.read(o.filter);
  const history::Trends trends = history::compute_trends(h, o.change_points);
  write_file_atomically(out, [&](std::ostream& os) { os << history::trend_html(trends, h, title); });
  std::size_t changes = 0;
  for (const auto& t : trends.series) changes += t.changes.size();
  std::cout << fmt::format("wrote {}: {} series, {} change points\n", out, trends.series.size(), changes);
  return kExitOk;
}

void add_add(CLI::App& history, int& exit_code) {
  auto o = std::make_shared<AddOptions>();
  auto* cmd = history.add_subcommand("add", "Add runs to the history (each once; one transaction per run)");
  add_history_location(*cmd, o->history);
  cmd->add_option("RUN", o->runs,
                  "Runs: caliber run --out directories, caliber bench/batch/ab results, nvbench or "
                  "google-benchmark JSON (any input caliber compare reads)")
      ->required();
  cmd->add_option("--commit", o->commit,
                  "The commit of the code the runs measured (default: git rev-parse HEAD here)");
  cmd->add_option("--date", o->date,
                  "When the runs ran, UTC: YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ (default: the run identity's "
                  "created_at, else the file's time)");
  cmd->callback([o, &exit_code] { exit_code = run_add(*o); });
}

void add_trend(CLI::App& history, int& exit_code) {
  auto o = std::make_shared<HistoryOptions>();
  auto json = std::make_shared<bool>(false);
  auto* cmd = history.add_subcommand("trend", "Print each series with its change points");
  add_history_options(*cmd, *o);
  cmd->add_flag("--json", *json, "Print JSON (kind caliber.history.trend)");
  cmd->callback([o, json, &exit_code] { exit_code = run_trend(*o, *json); });
}

void add_report(CLI::App& history, int& exit_code) {
  auto o = std::make_shared<HistoryOptions>();
  auto out = std::make_shared<std::string>();
  auto title = std::make_shared<std::string>("caliber history");
  auto* cmd = history.add_subcommand("report", "Write the trends as one self-contained HTML page (SVG plots)");
  add_history_options(*cmd, *o);
  cmd->add_option("--out", *out, "The HTML file to write (atomically)")->required();
  cmd->add_option("--title", *title, "The page's title")->capture_default_str();
  cmd->callback([o, out, title, &exit_code] { exit_code = run_report(*o, *out, *title); });
}

const RegisterCommand registration{32, [](CLI::App& root, int& exit_code) {
  auto* cmd = root.add_subcommand("history",
                                  "Keep every run (SQLite or PostgreSQL), show trends and change points (docs/history.md)");
  cmd->require_subcommand(1);
  add_add(*cmd, exit_code);
  add_trend(*cmd, exit_code);
  add_report(*cmd, exit_code);
}};

}  // namespace
}  // namespace caliber::cli
