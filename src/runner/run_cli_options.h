// caliber run's options on a CLI11 command. caliber batch takes every option of caliber run with
// the same meaning and passes it to each shard's caliber run (docs/batch.md); the measuring worker
// (`caliber __run-worker`, or a worker Python hosts: runner/worker_main.h) takes them too.
#pragma once

#include <CLI/CLI.hpp>

#include "runner/run_options.h"

namespace caliber::runner {

void add_run_options(CLI::App* cmd, RunOptions& o);

// add_run_options and what only a worker is given: --run-id, --events-fd, --start-checks.
void add_worker_options(CLI::App* cmd, RunOptions& o);

}  // namespace caliber::runner
