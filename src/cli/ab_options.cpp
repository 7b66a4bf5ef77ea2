#include "cli/ab_options.h"

#include <unistd.h>

#include <iostream>

#include <fmt/format.h>

#include "matrix/baseline_matrix.h"
#include "caliber/errors.h"
#include "ledger/shape_ledger.h"
#include "cli/cli_common.h"
#include "core/sampling_limits.h"
#include "core/subprocess.h"
#include "preflight/preflight.h"
#include "io/shape_ledger_json.h"
#include "io/baseline_matrix_yaml.h"

namespace caliber::cli {
namespace {

std::vector<std::pair<std::string, std::string>> parse_env(const std::vector<std::string>& items, const char* option) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const std::string& item : items) {
    const auto eq = item.find('=');
    const std::string key = item.substr(0, eq);
    const bool valid_key = !key.empty() && key.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") ==
                                               std::string::npos && !std::isdigit(static_cast<unsigned char>(key[0]));
    if (eq == std::string::npos || !valid_key) {
      throw UsageError(fmt::format("{} '{}': expected NAME=VALUE with NAME a shell variable name", option, item));
    }
    out.emplace_back(key, item.substr(eq + 1));
  }
  return out;
}

void require_executable(const std::string& path) {
  if (::access(path.c_str(), X_OK) != 0) throw UsageError(fmt::format("{} is not executable", path));
}

}  // namespace

void add_ab_options(CLI::App* cmd, AbOptions& o) {
  cmd->add_option("--op", o.ops, "Op name or comma list; {op} in the cell command")->required();
  cmd->add_option("--out", o.out_dir, "Output directory (must not exist or be empty)")->required();
  cmd->add_option("--cell-command", o.cell_command,
                  fmt::format("Shell command of one cell, with placeholders {{binary}} {{plugin}} {{plugin_path}} "
                              "{{plugin_symbol}} {{matrix}} {{ledger}} {{op}} {{out}} {{round}} {{side}} {{seed}} "
                              "(values are shell-quoted for you). It must write a caliber results file and its run "
                              "identity into {{out}}. Default: '{}'",
                              kDefaultCellCommand));
  cmd->add_option("--shape-ledger", o.shape_ledger, "Shape ledger ({ledger}), the same for both sides");
  cmd->add_option("--baseline-matrix", o.baseline_matrix, "Baseline matrix ({matrix}) of both sides, unless --a-matrix/--b-matrix");
  cmd->add_option("--a-binary", o.a_binary, "Side A: the caliber (or other) binary ({binary}; default: this caliber)");
  cmd->add_option("--b-binary", o.b_binary, "Side B: the binary ({binary})");
  cmd->add_option("--a-plugin", o.a_plugin, "Side A: a plugin library as path/libfoo.so:symbol ({plugin})");
  cmd->add_option("--b-plugin", o.b_plugin, "Side B: a plugin library as path/libfoo.so:symbol ({plugin})");
  cmd->add_option("--a-matrix", o.a_matrix, "Side A: its own baseline matrix ({matrix})");
  cmd->add_option("--b-matrix", o.b_matrix, "Side B: its own baseline matrix ({matrix})");
  cmd->add_option("--a-env", o.a_env, "Side A: NAME=VALUE set in its cells' environment (repeatable)");
  cmd->add_option("--b-env", o.b_env, "Side B: NAME=VALUE set in its cells' environment (repeatable)");
  cmd->add_option("--seed", o.seed, "Seed of the inputs ({seed}, the same in every cell) and of --order random; default (0): "
                  "drawn at random per A/B and recorded in ab_plan.json");
  cmd->add_option("--cell-timeout", o.cell_timeout_s, "Wall-clock limit of one cell, seconds (exit 124/137: TIMEOUT)")
      ->capture_default_str();
  cmd->add_option("--kill-after", o.kill_after_s, "Seconds between SIGTERM and SIGKILL at the cell limit")
      ->capture_default_str();
  cmd->add_flag("--allow-caliber-mismatch", o.allow_caliber_mismatch,
                "Proceed when the cells' calibers differ (every difference is still printed)");
}

AbPlan make_ab_plan(const AbOptions& o) {
  AbPlan plan;
  plan.ops = split_list(o.ops, "--op");
  plan.out_dir = o.out_dir;
  plan.cell_command = o.cell_command.value_or(kDefaultCellCommand);
  plan.shape_ledger = o.shape_ledger;
  plan.seed = ab_seed(o.seed, plan.out_dir, o.resume);
  require_cell_timeout_option(o.cell_timeout_s, "--cell-timeout");
  if (!(o.kill_after_s >= 0) || o.kill_after_s > kMaxCellTimeoutS) {
    throw UsageError(fmt::format("--kill-after must be in [0, {}] (got {})", kMaxCellTimeoutS, o.kill_after_s));
  }
  plan.cell_timeout_s = o.cell_timeout_s;
  plan.kill_after_s = o.kill_after_s;
  plan.allow_caliber_mismatch = o.allow_caliber_mismatch;
  plan.a = {'A', o.a_binary, o.a_plugin, o.a_matrix, parse_env(o.a_env, "--a-env")};
  plan.b = {'B', o.b_binary, o.b_plugin, o.b_matrix, parse_env(o.b_env, "--b-env")};
  for (const auto* p : {&o.a_plugin, &o.b_plugin}) {
    const auto colon = p->rfind(':');
    if (!p->empty() && (colon == std::string::npos || colon == 0 || colon + 1 == p->size())) {
      throw UsageError(fmt::format("plugin '{}': expected path/libfoo.so:symbol", *p));
    }
  }
  validate_cell_template(plan.cell_command, plan.a, plan.b, !plan.shape_ledger.empty());
  // Defaults after validation: this caliber for {binary}, the shared matrix for {matrix}.
  const std::vector<std::string> used = cell_placeholders(plan.cell_command);
  const auto uses = [&](const char* n) { return std::find(used.begin(), used.end(), n) != used.end(); };
  for (AbSide* s : {&plan.a, &plan.b}) {
    if (s->binary.empty() && uses("binary")) s->binary = self_executable();
    if (s->matrix.empty() && !o.baseline_matrix.empty()) s->matrix = o.baseline_matrix;
  }
  if (uses("matrix") && (plan.a.matrix.empty() || plan.b.matrix.empty())) {
    throw UsageError("--cell-command uses {matrix}: give --baseline-matrix (or --a-matrix and --b-matrix)");
  }
  for (const std::string& op : plan.ops) plan_op_cells(plan, op);  // every placeholder has a value

  // Preflight: everything the cells will need, before the first one runs.
  plan.resume = o.resume;
  std::vector<PreflightCheck> checks = {check_output_writable(plan.out_dir, /*must_be_empty=*/!o.resume)};
  for (const AbSide* s : {&plan.a, &plan.b}) {
    if (!s->binary.empty() && uses("binary")) {
      checks.push_back(check_input_file({fmt::format("side {} binary", s->name), s->binary, require_executable}));
    }
    if (!s->plugin.empty()) {
      const auto colon = s->plugin.rfind(':');
      checks.push_back(check_plugin_loads(
          {fmt::format("side {}", s->name), s->plugin.substr(0, colon), s->plugin.substr(colon + 1), {}, ""},
          system_shared_libraries()));
    }
    if (!s->matrix.empty() && uses("matrix")) {
      checks.push_back(check_input_file({fmt::format("side {} baseline matrix", s->name), s->matrix, {}}));
    }
  }
  if (!plan.shape_ledger.empty()) checks.push_back(check_input_file({"shape ledger", plan.shape_ledger, {}}));
  run_preflight(checks, std::cerr);
  // The files are there; their content is read by the strict readers every cell's caliber run
  // uses, so a malformed ledger or matrix is refused now (exit 2, file, line and field) rather than
  // in every cell (docs/preflight.md, "Exit 2 or exit 3").
  // The matrices first: they register the descriptions of ops of your own, which the ledger needs.
  for (const AbSide* s : {&plan.a, &plan.b}) {
    if (!s->matrix.empty() && uses("matrix")) read_baseline_matrix(s->matrix);
  }
  if (!plan.shape_ledger.empty()) read_shape_ledger(plan.shape_ledger);
  return plan;
}

}  // namespace caliber::cli
