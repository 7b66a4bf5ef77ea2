// The measuring worker started from its command line by a process that is not caliber's
// executable: a Python process hosting Python providers runs it through caliber_run_worker
// (include/caliber/c_api.h, docs/python.md "Python providers"). The same options as
// `caliber __run-worker` (runner/run_cli_options.h), the same worker (runner/worker.h).
#pragma once

#include <string>
#include <vector>

#include "runner/run_options.h"

namespace caliber::runner {

// The worker's options from `args` (without a program name or subcommand). Throws UsageError
// naming what CLI11 refused.
RunOptions parse_worker_options(const std::vector<std::string>& args);

// `args`: the worker's options, without a program name or subcommand. Returns run_worker's exit
// code; a malformed command line is exit 2, with one line on stderr.
int worker_main(const std::vector<std::string>& args);

}  // namespace caliber::runner
