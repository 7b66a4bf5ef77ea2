// caliber thresholds calibrate: the thresholds file `caliber compare` reads, calibrated from the
// run-to-run noise of the history's stable series (docs/history.md, "Thresholds from history").
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "caliber/errors.h"
#include "cli/command.h"
#include "cli/history_options.h"
#include "compare/thresholds.h"
#include "core/atomic_file.h"
#include "history/threshold_calibration.h"

namespace caliber::cli {
namespace {

struct CalibrateOptions {
  HistoryOptions history;
  history::NoiseSettings noise;
  std::string out;
};

int run_calibrate(const CalibrateOptions& o) {
  require_writable_file(o.out, "--out");
  history::HistoryStore store(o.history.history);
  const history::History h = store.read(o.history.filter);
  const history::Trends trends = history::compute_trends(h, o.history.change_points);
  const history::Calibration c = history::calibrate_thresholds(trends, h, o.noise, o.history.filter.arch);
  for (const history::RefusedSeries& r : c.refused) {
    std::cout << fmt::format("refused: series {} {} {}: {}\n", r.series, r.label, r.arch, r.why);
  }
  if (c.rules == 0) {
    std::cerr << fmt::format("caliber: error: no series has enough stable history ({} runs) to calibrate; "
                             "nothing written\n", o.noise.min_runs);
    return kExitFailed;
  }
  const std::string text = c.thresholds.dump(2) + "\n";
  compare::parse_thresholds(text, o.out);  // what is written is what compare reads
  write_file_atomically(o.out, [&](std::ostream& os) { os << text; });
  std::cout << fmt::format("wrote {}: {} rules calibrated, {} series refused\n", o.out, c.rules, c.refused.size());
  return kExitOk;
}

const RegisterCommand registration{31, [](CLI::App& root, int& exit_code) {
  auto* cmd = root.add_subcommand("thresholds", "Thresholds files for caliber compare (docs/history.md)");
  cmd->require_subcommand(1);
  auto o = std::make_shared<CalibrateOptions>();
  auto* cal = cmd->add_subcommand(
      "calibrate", "Write a thresholds file from the run-to-run noise of the history's stable series");
  add_history_options(*cal, o->history);
  cal->add_option("--out", o->out, "The thresholds file to write (atomically)")->required();
  cal->add_option("--min-runs", o->noise.min_runs, "Fewest runs since a series' last change point")
      ->check(CLI::Range(3, 1000000))
      ->capture_default_str();
  cal->add_option("--sigmas", o->noise.sigmas, "Threshold = this many robust sigmas of the run-to-run difference")
      ->check(CLI::Range(1.0, 100.0))
      ->capture_default_str();
  cal->add_option("--min-relative-pct", o->noise.min_relative_pct, "Floor of every relative threshold (%)")
      ->check(CLI::Range(0.0, 1000.0))
      ->capture_default_str();
  cal->add_option("--min-absolute-us", o->noise.min_absolute_us, "Floor of every absolute threshold (us)")
      ->check(CLI::Range(0.0, 1e9))
      ->capture_default_str();
  cal->callback([o, &exit_code] { exit_code = run_calibrate(*o); });
}};

}  // namespace
}  // namespace caliber::cli
