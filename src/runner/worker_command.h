// How `caliber run` starts its measuring worker: caliber's own executable (`caliber
// __run-worker ...`), or, when the run has Python providers (entrypoints python:FILE.py:NAME, or
// a described op's reference that is one), a Python interpreter running the caliber package's
// worker module, which imports the providers, registers their entries and runs the same worker
// in its process (docs/python.md, "Python providers").
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "runner/run_plan.h"

namespace caliber::runner {

struct WorkerCommand {
  std::string executable;              // an absolute path, exec'd as it is
  std::vector<std::string> arguments;  // before the worker's options (RunOptions::worker_arguments)
  // Set in the environment the worker inherits (a Python worker: PYTHONPATH, CALIBER_LIBRARY,
  // CALIBER_HARNESS_EXECUTABLE, the caliber executable its run identity names, and
  // CALIBER_HARNESS_BUILD, the build the worker's library must be: runner::harness_version()).
  std::vector<std::pair<std::string, std::string>> environment;
  bool python = false;
};

// "FILE:NAME" (FILE resolved as the run resolves it) of every enabled Python provider of the
// plan, and of a described op's reference when it is one; empty when there is none.
std::vector<std::string> python_provider_entries(const RunPlan& plan);

// The worker command of `plan`. A Python worker: the interpreter $CALIBER_PYTHON (a path, or a
// name looked up on PATH; default python3) with `-m caliber._worker --provider FILE:NAME ... --`;
// PYTHONPATH starts with the caliber package of this build (an installed prefix's
// CALIBER_INSTALL_PYTHONDIR, or the source tree's python/), and CALIBER_LIBRARY names
// libcaliber_c.so beside the executable when it is there (whatever the environment says). Throws
// UsageError when there is no interpreter.
WorkerCommand worker_command(const RunPlan& plan);

}  // namespace caliber::runner
