// run_cli with an argument list: each argument is single-quoted for the shell, so paths and
// values with spaces or quotes reach caliber unchanged.
#pragma once

#include <string>
#include <vector>

#include "support/run_cli.h"

namespace caliber::testing_support {

inline std::string shell_args(const std::vector<std::string>& args) {
  std::string line;
  for (const auto& a : args) {
    std::string q = "'";
    for (char c : a) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    line += (line.empty() ? "" : " ") + q + "'";
  }
  return line;
}

inline CliRun run_caliber(const std::vector<std::string>& args) { return run_cli(shell_args(args)); }

}  // namespace caliber::testing_support
