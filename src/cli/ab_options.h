// Options shared by caliber ab and caliber screen: the sides, the cell command, the limits.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "ab/ab_protocol.h"

namespace caliber::cli {

struct AbOptions {
  std::string ops;
  std::string out_dir;
  std::optional<std::string> cell_command;
  std::string shape_ledger;
  std::string baseline_matrix;
  std::string a_binary, b_binary, a_plugin, b_plugin, a_matrix, b_matrix;
  std::vector<std::string> a_env, b_env;
  std::uint64_t seed = 0;  // 0: drawn per A/B (a resumed one keeps its plan's)
  double cell_timeout_s = 1800;
  double kill_after_s = 30;
  bool allow_caliber_mismatch = false;
  bool resume = false;  // caliber ab --resume: the output directory holds the interrupted A/B
};

void add_ab_options(CLI::App* cmd, AbOptions& o);

// The plan the options describe (rounds/order/alpha left at their defaults for the caller to set).
// Throws UsageError for a bad option; runs the A/B's preflight (exit 3): output directory fresh
// and writable, side binaries executable, side plugins load, input files exist; then reads the
// ledger and the matrices strictly (InputError, exit 2).
AbPlan make_ab_plan(const AbOptions& o);

}  // namespace caliber::cli
