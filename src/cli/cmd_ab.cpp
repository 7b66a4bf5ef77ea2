// caliber ab: the multi-round A/B protocol (docs/ab.md).
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "ab/ab_protocol.h"
#include "caliber/errors.h"
#include "cli/ab_options.h"
#include "cli/command.h"
#include "core/subprocess.h"

namespace caliber::cli {
namespace {

struct AbCommandOptions {
  AbOptions common;
  int rounds = 6;
  std::string order = "alternate";
  double alpha = 0.05;
  bool allow_no_code_diff = false;
  double gain_pct = 2.0, loss_pct = 2.0;
  int telemetry_device = 0;
};

int run(const AbCommandOptions& o) {
  // Each round is two processes per op; 10,000 rounds is days of cells already.
  if (o.rounds > 10000) throw UsageError(fmt::format("--rounds must be <= 10000 (got {})", o.rounds));
  if (o.rounds < 2) throw UsageError(fmt::format("--rounds must be >= 2 (got {}): one pair cannot say whether its verdict holds; use caliber screen for one pair", o.rounds));
  if (!(o.alpha > 0 && o.alpha < 1)) throw UsageError(fmt::format("--alpha must be in (0, 1) (got {})", o.alpha));
  RoundOrder order;
  try {
    order = parse_round_order(o.order);
  } catch (const UsageError& e) {
    throw UsageError(fmt::format("--order: {}", e.what()));
  }
  AbPlan plan = make_ab_plan(o.common);
  plan.rounds = o.rounds;
  plan.order = order;
  plan.alpha = o.alpha;
  plan.allow_no_code_diff = o.allow_no_code_diff;
  if (!(o.gain_pct > 0) || !(o.loss_pct > 0)) {
    throw UsageError(fmt::format("--gain-pct and --loss-pct must be > 0 (got {}, {})", o.gain_pct, o.loss_pct));
  }
  plan.practical = {o.gain_pct, o.loss_pct};
  plan.telemetry_device = o.telemetry_device;
  forward_termination_signals_to_children();
  const AbRunResult r = run_ab(plan, process_cell_runner(), default_cell_results_reader(), std::cout, std::cerr);
  std::cout << fmt::format("ab: report in {}/ab_report.txt (also .tsv, .json); cells in {}/status.tsv\n", plan.out_dir,
                           plan.out_dir);
  return r.exit_code;
}

const RegisterCommand registration{60, [](CLI::App& root, int& exit_code) {
  auto o = std::make_shared<AbCommandOptions>();
  auto* cmd = root.add_subcommand("ab", "Run side A and side B for N rounds, each cell in its own process, and say "
                                        "per shape whether the verdict holds (docs/ab.md)");
  add_ab_options(cmd, o->common);
  cmd->add_option("--rounds", o->rounds, "Rounds (>= 2; 6 is the fewest that can reach p < 0.05)")->capture_default_str();
  cmd->add_option("--order", o->order, "alternate (A first in odd rounds) | random (balanced, seeded by --seed)")
      ->capture_default_str();
  cmd->add_option("--alpha", o->alpha, "Significance level of the per-shape Wilcoxon signed-rank test")
      ->capture_default_str();
  cmd->add_flag("--allow-no-code-diff", o->allow_no_code_diff,
                "Keep running an op whose two sides executed byte-identical code after round 1");
  cmd->add_option("--gain-pct", o->gain_pct, "Practical size: a gain is every round taking at least this % less time")
      ->capture_default_str();
  cmd->add_option("--loss-pct", o->loss_pct, "Practical size: a loss is every round taking at least this % more time")
      ->capture_default_str();
  cmd->add_flag("--resume", o->common.resume,
                "Continue the interrupted A/B in --out (same options): finished cells are read back, the rest run");
  cmd->add_option("--telemetry-device", o->telemetry_device,
                  "NVML index traced across the whole A/B (telemetry_trace_s<k>.csv); -1: no trace")
      ->capture_default_str();
  cmd->callback([o, &exit_code] { exit_code = run(*o); });
}};

}  // namespace
}  // namespace caliber::cli
