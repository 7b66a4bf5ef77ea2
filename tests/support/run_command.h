// Runs a shell command for CLI tests: its exit status, standard output and standard error.
// One mechanism for every CLI test: run_cli.h (unique temporary files per process, so tests that
// ctest runs in parallel never share one).
#pragma once

#include "support/run_cli.h"

namespace caliber::testing_support {

using CommandOutput = CliRun;

inline CommandOutput run_command(const std::string& command) { return run_cli_command(command); }

}  // namespace caliber::testing_support
