// Command lines for caliber ab / caliber screen over the host fixture (tests/fixtures/ab_side):
// a cell program and three builds of one kernel plugin (fast, fast_copy with identical code,
// slow with 3x the work).
#pragma once

#include <filesystem>
#include <string>

#include "support/run_cli.h"

namespace caliber::testing_support {

inline std::string fixture_plugin(const char* lib) { return std::string(lib) + ":caliber_ab_fixture_kernel"; }

inline std::string fresh_out_dir(const std::string& name) {
  const std::string dir = temp_path(name);
  std::filesystem::remove_all(dir);
  return dir;
}

// "<command> --op fixture --out DIR --cell-command ... --a-binary CELL --b-binary CELL
//  --a-plugin A --b-plugin B" plus `extra`.
inline std::string fixture_args(const std::string& command, const std::string& out, const std::string& plugin_a,
                                const std::string& plugin_b, const std::string& extra = "",
                                const std::string& cell_flags = "--iters 40") {
  return command + " --op fixture --out " + out + " --cell-command '{binary} --plugin {plugin} --out {out} " +
         cell_flags + "' --a-binary " + CALIBER_AB_FIXTURE_CELL + " --b-binary " + CALIBER_AB_FIXTURE_CELL +
         " --a-plugin " + plugin_a + " --b-plugin " + plugin_b + " " + extra;
}

}  // namespace caliber::testing_support
