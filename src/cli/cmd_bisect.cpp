// caliber bisect: the first commit whose results regressed, between a good and a bad revision
// (docs/bisect.md).
#include <iostream>
#include <memory>

#include "bisect/bisect_session.h"
#include "cli/command.h"
#include "core/subprocess.h"

namespace caliber::cli {
namespace {

const RegisterCommand registration{32, [](CLI::App& root, int& exit_code) {
  auto o = std::make_shared<bisect::BisectOptions>();
  auto* cmd = root.add_subcommand(
      "bisect",
      "Find the first commit whose results regressed: builds and runs each commit in a worktree of its own and "
      "compares it with the good one on the rows that regressed (docs/bisect.md)");
  cmd->add_option("--good", o->good, "A revision whose results are good")->required();
  cmd->add_option("--bad", o->bad, "A revision whose results regressed; --good must be its ancestor")->required();
  cmd->add_option("--build", o->commands.build, "Builds a commit: run with sh -c at the top of the worktree")
      ->required();
  cmd->add_option("--run", o->commands.run,
                  "Measures a commit into {out} (also $CALIBER_BISECT_OUT): a caliber run --out directory, or one "
                  "results file caliber compare reads; run with sh -c at the top of the worktree")
      ->required();
  cmd->add_option("--repo", o->repo, "The git repository")->capture_default_str();
  cmd->add_option("--thresholds", o->thresholds,
                  "Thresholds file (as for caliber compare); without it the report-only threshold decides");
  cmd->add_option("--out", o->out,
                  "A new or empty directory for runs/, logs/ and bisect.json (default: a new directory under "
                  "$TMPDIR)");
  cmd->add_option("--assume-arch", o->assume_arch,
                  "Architecture for rows whose format records none (google-benchmark JSON), so that the "
                  "thresholds file's rules for it apply");
  cmd->add_flag("--allow-caliber-mismatch", o->allow_caliber_mismatch,
                "Compare even when the runs' identities differ in a caliber field, or one is missing (every "
                "difference is still printed)");
  cmd->footer(
      "Exit codes: 0 the first bad commit was found, 1 the preflight found no regressed row, the good or bad "
      "commit failed to build or run, or skipped commits leave several candidates, 2 usage or input error, "
      "4 the runs' identities differ (without --allow-caliber-mismatch).");
  cmd->callback([o, &exit_code] {
    // Each build and run is in a process group of its own: Ctrl-C must reach it too, not leave a
    // build running in a worktree about to go.
    forward_termination_signals_to_children();
    exit_code = bisect::run_bisect(*o, std::cout);
  });
}};

}  // namespace
}  // namespace caliber::cli
