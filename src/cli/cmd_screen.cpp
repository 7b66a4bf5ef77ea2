// caliber screen: one A/B pair per op and the code each side executed (docs/screen.md).
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "cli/ab_options.h"
#include "cli/command.h"
#include "core/subprocess.h"
#include "screen/screen_protocol.h"

namespace caliber::cli {
namespace {

const RegisterCommand registration{61, [](CLI::App& root, int& exit_code) {
  auto o = std::make_shared<AbOptions>();
  auto* cmd = root.add_subcommand("screen", "One A/B pair per op plus a fingerprint of the code each side executed: "
                                            "CODE_CHANGED / NO_CODE_DIFF / NO_KERNEL / NO_ROWS (docs/screen.md)");
  add_ab_options(cmd, *o);
  cmd->callback([o, &exit_code] {
    const AbPlan plan = make_ab_plan(*o);
    forward_termination_signals_to_children();
    const ScreenRunResult r = run_screen(plan, process_cell_runner(), default_cell_results_reader(), std::cout, std::cerr);
    std::cout << fmt::format("screen: {}/screen.tsv\n", plan.out_dir);
    exit_code = r.exit_code;
  });
}};

}  // namespace
}  // namespace caliber::cli
